"""What a check saw, as plain data: encoding values so a verdict can be reached elsewhere.

A check in a test cell that names no expected value (``check_array(f(x), name="f(x)")``)
turns what the learner's code returned into an *entry*: a small JSON object with the check's
kind, its name, the value (arrays as dtype, shape and raw bytes), the tolerances and the known
mistakes. The same encoding carries the reference answer's values from the grader's trusted
run, the student's values out of the sandbox, and the expected values released with an
exercise (:mod:`autograder.core.released`). Decoding never runs code: arrays are rebuilt from
bytes of a numeric dtype, nothing is unpickled.
"""

from __future__ import annotations

import base64
import json
import math
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MIME = "application/vnd.learn-jax.evidence+json"  # +json: nbformat keeps it as JSON
MAX_ARRAY_BYTES = 8_000_000  # one decoded array; far above any check's (the largest is ~100 kB)
_NUMERIC_KINDS = "biufc"


@dataclass(frozen=True)
class NotAnArray:
    """A value that is not an array: a tracer that leaked, a list of arrays, a string..."""

    type_name: str


@dataclass
class Entry:
    """One check as data: which check, its name, the value it saw, and how to judge it.

    ``options`` (tolerances, dtype checking, a message) and ``mistakes`` are only ever taken
    from the trusted record, never from a submission's evidence.
    """

    check: str  # array | scalar | tree | value | speedup
    name: str
    got: Any
    options: dict[str, Any] = field(default_factory=dict)
    mistakes: list[list[Any]] = field(default_factory=list)  # [advice, encoded value]
    hidden: bool = False  # recorded in the hidden part of its test cell

    @property
    def key(self) -> tuple[str, str]:
        """What matches a record with the evidence of the same check: its kind and name."""
        return self.check, self.name

    def to_json(self) -> dict[str, Any]:
        """The entry as a JSON-able dict."""
        data = {"check": self.check, "name": self.name, "got": self.got}
        if self.options:
            data["options"] = self.options
        if self.mistakes:
            data["mistakes"] = self.mistakes
        if self.hidden:
            data["hidden"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> Entry:
        """An entry read back; ``ValueError`` when ``data`` is not one."""
        if not isinstance(data, dict) or not isinstance(data.get("check"), str) \
                or not isinstance(data.get("name"), str):
            raise ValueError("not an evidence entry")
        options = data.get("options", {})
        mistakes = data.get("mistakes", [])
        if not isinstance(options, dict) or not isinstance(mistakes, list):
            raise ValueError("not an evidence entry")
        return cls(data["check"], data["name"][:500], data.get("got"), options, mistakes,
                   bool(data.get("hidden", False)))


def _type_name(value: Any) -> str:
    name = type(value).__name__
    return name if name.isidentifier() and len(name) <= 60 else "object"


def encode(value: Any) -> dict[str, Any]:
    """``value`` (an array, a NumPy or Python number, ``None``...) as JSON-able data."""
    if value is None:
        return {"none": True}
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - a tracer, a list of differently shaped arrays...
        return {"not_array": _type_name(value)}
    if arr.dtype.kind not in _NUMERIC_KINDS and not _is_ml_float(arr.dtype):
        return {"not_array": _type_name(value)}
    arr = arr.copy(order="C")
    return {"dtype": arr.dtype.name, "shape": list(arr.shape),
            "b64": base64.b64encode(arr.tobytes()).decode("ascii")}


def _is_ml_float(dtype: np.dtype) -> bool:
    return dtype.kind == "V" and "float" in dtype.name


def _dtype(name: Any) -> np.dtype:
    if not isinstance(name, str) or len(name) > 40:
        raise ValueError("bad dtype")
    try:
        dtype = np.dtype(name)
    except TypeError:
        import ml_dtypes  # bfloat16 and friends (installed with jax)

        try:
            dtype = np.dtype(getattr(ml_dtypes, name))
        except (AttributeError, TypeError):
            raise ValueError(f"unknown dtype {name[:40]!r}") from None
    if dtype.kind not in _NUMERIC_KINDS and not _is_ml_float(dtype):
        raise ValueError(f"dtype {name} is not numeric")
    return dtype


def decode(data: Any) -> Any:
    """The value :func:`encode` described: an array, ``None``, or :class:`NotAnArray`.

    Raises:
        ValueError: when ``data`` is not a well-formed encoding (never runs code).
    """
    if not isinstance(data, dict):
        raise ValueError("not an encoded value")
    if data.get("none") is True:
        return None
    if "not_array" in data:
        name = str(data["not_array"])
        return NotAnArray(name if name.isidentifier() and len(name) <= 60 else "object")
    dtype = _dtype(data.get("dtype"))
    shape = data.get("shape")
    if not isinstance(shape, list) or not all(type(n) is int and 0 <= n for n in shape) \
            or len(shape) > 32:
        raise ValueError("bad shape")
    raw = base64.b64decode(str(data.get("b64", "")), validate=True)
    size = math.prod(shape) * dtype.itemsize
    if size > MAX_ARRAY_BYTES or len(raw) != size:
        raise ValueError("the bytes do not match the shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def encode_tree(tree: Any) -> dict[str, Any]:
    """A pytree as its structure (as JAX prints it) and its leaves by path."""
    import jax

    leaves, treedef = jax.tree_util.tree_flatten_with_path(tree)
    return {"treedef": str(treedef)[:4000],
            "leaves": [[jax.tree_util.keystr(path), encode(leaf)] for path, leaf in leaves]}


def decode_tree(data: Any) -> tuple[str, list[tuple[str, Any]]]:
    """``(structure, [(path, leaf), ...])`` of an encoded pytree."""
    if not isinstance(data, dict) or not isinstance(data.get("leaves"), list):
        raise ValueError("not an encoded pytree")
    leaves = []
    for item in data["leaves"]:
        if not isinstance(item, list) or len(item) != 2:
            raise ValueError("not an encoded pytree")
        leaves.append((str(item[0])[:500], decode(item[1])))
    return str(data.get("treedef", ""))[:4000], leaves


def encode_plain(value: Any) -> Any:
    """A small Python value (bool, number, string, tuple of them) as JSON."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (tuple, list)):
        return [encode_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return f"<{_type_name(value)}>"


def pack(entries: list[Entry]) -> str:
    """Entries as one compact ASCII string (what a released test cell holds)."""
    raw = json.dumps([e.to_json() for e in entries], separators=(",", ":")).encode()
    return base64.b64encode(zlib.compress(raw, 9)).decode("ascii")


def unpack(text: str) -> list[Entry]:
    """The entries :func:`pack` wrote."""
    raw = zlib.decompress(base64.b64decode(text, validate=True))
    return [Entry.from_json(item) for item in json.loads(raw)]


# The first line of a released test cell that loads its visible checks' values.
EXPECTED_IMPORT = ("from autograder.kernel.reporter import expected_values"
                   "  # the reference answers' values\n")
_LINES_RE = re.compile(re.escape(EXPECTED_IMPORT) + r'expected_values\("([A-Za-z0-9+/=]*)"\)\n')


def expected_lines(entries: list[Entry]) -> str:
    """The two lines that load ``entries`` (the visible checks' records) in a test cell, the
    values inline: the form released before the values moved to a values file
    (:mod:`autograder.core.released`), still written for a course outside the package."""
    return f'{EXPECTED_IMPORT}expected_values("{pack(entries)}")\n'


def written_values(source: str) -> list[Entry] | None:
    """The entries a released test cell's source loads inline, or None when it loads none."""
    match = _LINES_RE.match(source)  # at the start of the cell only
    return unpack(match.group(1)) if match else None
