"""A grading run's manifest: which result files it wrote, hashed, and authenticated.

``grade`` writes ``DIR/manifest.json`` beside its results: the SHA-256 of every file in each
``<student>/<assignment>/`` folder it graded (``result.json``, ``feedback.html``). When the
environment variable :data:`KEY_VARIABLE` holds a key (in CI, a repository secret), the
manifest also carries an HMAC-SHA256 of its listing under that key. ``merge`` checks each
shard against its manifest: with a key set, a shard whose manifest is missing, unsigned or
signed with another key, or a file that is not listed or does not match its hash, is refused
(:func:`verify`), so only results a grading run holding the key wrote are merged.

The key never reaches a kernel: ``grade`` takes it out of its environment before anything
starts (:func:`take_key`), and sandboxed kernels get a cleared environment anyway.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Iterable
from pathlib import Path

KEY_VARIABLE = "LEARN_JAX_RESULTS_KEY"
MANIFEST = "manifest.json"
FORMAT = "learn-jax-results/1"


def take_key(environ: dict[str, str] | None = None) -> bytes | None:
    """The results key from :data:`KEY_VARIABLE` (None when unset or empty), removed from
    ``environ`` (default ``os.environ``) so that no process started later inherits it."""
    env = os.environ if environ is None else environ
    value = env.pop(KEY_VARIABLE, "")
    return value.encode() if value else None


def read_key(environ: dict[str, str] | None = None) -> bytes | None:
    """The results key from :data:`KEY_VARIABLE`, left in place (None when unset)."""
    value = (os.environ if environ is None else environ).get(KEY_VARIABLE, "")
    return value.encode() if value else None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _signature(files: dict[str, str], key: bytes) -> str:
    body = json.dumps({"format": FORMAT, "files": files}, sort_keys=True,
                      separators=(",", ":")).encode()
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def listing(out: Path, folders: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``student/assignment/file`` -> SHA-256 for every regular file (no link) in the result
    folders ``out/<student>/<assignment>`` named by ``folders``."""
    files: dict[str, str] = {}
    for student, assignment in folders:
        here = out / student / assignment
        for item in sorted(here.iterdir()) if here.is_dir() else []:
            if item.is_file() and not item.is_symlink():
                files[f"{student}/{assignment}/{item.name}"] = _sha256(item)
    return dict(sorted(files.items()))


def write_manifest(out: Path, folders: Iterable[tuple[str, str]], key: bytes | None) -> Path:
    """Write ``out/manifest.json`` listing the result folders ``folders`` (their files and
    hashes), with an HMAC-SHA256 under ``key`` when one is given; return its path."""
    files = listing(out, folders)
    data: dict = {"format": FORMAT, "files": files}
    if key:
        data["hmac_sha256"] = _signature(files, key)
    path = out / MANIFEST
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


class ManifestError(ValueError):
    """A shard that does not verify against its manifest; the message names the file."""


def verify(shard: Path, key: bytes | None) -> dict[str, str] | None:
    """Check ``shard``'s manifest; return its listing (``student/assignment/file`` ->
    SHA-256), or None when there is no manifest and no key (nothing to check).

    With ``key``, the manifest must exist and carry a matching HMAC. Without one, a manifest
    that exists is still read, so its hashes are checked (integrity, not authenticity).

    Raises:
        ManifestError: naming the shard's manifest and what is wrong with it.
    """
    path = shard / MANIFEST
    if not path.is_file() or path.is_symlink():
        if key:
            raise ManifestError(f"{path}: no manifest, but {KEY_VARIABLE} is set: only results "
                                "of a grading run that held the key are merged")
        return None
    try:
        data = json.loads(path.read_text())
        files = data["files"]
        if data.get("format") != FORMAT or not isinstance(files, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            raise ValueError("not a manifest this grader wrote")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ManifestError(f"{path} cannot be read ({exc})") from None
    if key:
        given = data.get("hmac_sha256")
        if not isinstance(given, str) or not hmac.compare_digest(given, _signature(files, key)):
            raise ManifestError(f"{path} does not verify with {KEY_VARIABLE} (unsigned, "
                                "changed, or signed with another key): the shard is not merged")
    return files


def check_file(listed: dict[str, str] | None, shard: Path, path: Path) -> None:
    """Check one file of ``shard`` against its manifest's listing (no check for None).

    Raises:
        ManifestError: the file is not listed, or its content does not match its hash.
    """
    if listed is None:
        return
    name = path.relative_to(shard).as_posix()
    if name not in listed:
        raise ManifestError(f"{path} is not in {shard / MANIFEST}: it was not written by the "
                            "grading run; not merged")
    if _sha256(path) != listed[name]:
        raise ManifestError(f"{path} was changed after grading (its SHA-256 differs from "
                            f"{shard / MANIFEST}); not merged")
