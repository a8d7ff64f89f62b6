"""Tests of autograder.grader.compile_cache: the compilation cache the trusted run fills and the
sandboxed kernels only read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autograder.grader import compile_cache
from autograder.grader.compile_cache import (
    label,
    publish,
    reader_env,
    shared_dir,
    tainted,
    without_cache_settings,
    writer_env,
)
from autograder.grader.judging.reference_run import compiled_programs, secret_code, trusted_records
from autograder.tests.test_reference_run import IMPORTS, _source

SECRET = secret_code("06_jit")


def test_secret_code_names_answers_and_hidden_tests_only() -> None:
    """Are an answer cell's and a hidden test part's code names secret, and the notebook's
    other cells and visible tests not?"""
    assert SECRET("<06_jit answer q1_double>") and SECRET("<06_jit hidden tests q1_tests>")
    assert not SECRET("<06_jit cell 3>") and not SECRET("<06_jit tests q1_tests>")
    assert not SECRET("<09_control_flow answer q1>")  # another notebook's name is not this one's


def test_tainted_looks_at_the_stack_and_the_program_locations() -> None:
    """Is a program tainted when secret code is on the stack compiling it, or in its source
    locations (quotes escaped), and clean otherwise?"""
    public = 'func.func public @main() loc("<06_jit tests q1_tests>":3:4)'
    assert not tainted(public, ["<06_jit cell 2>", "/jax/_src/pjit.py"], SECRET)
    assert tainted(public, ["<06_jit answer q1_double>"], SECRET)
    assert tainted('%0 = stablehlo.sine %a loc("<06_jit answer q1_double>":2:11)', [], SECRET)
    assert tainted('loc(callsite("x" at "<06_jit hidden tests q1_tests>":1:1))', [], SECRET)
    assert not tainted(r'loc("a \"<06_jit answer q1>\" b":1:1)', [], SECRET)


def test_publish_moves_whole_readable_entries_once(tmp_path: Path) -> None:
    """Does publish move each entry into the shared folder readable by all, leave entries
    already there as they are, and skip links and odd names?"""
    private, shared = tmp_path / "private", tmp_path / "shared"
    private.mkdir()
    shared.mkdir()
    (private / "jit_f-abc-cache").write_bytes(b"new")
    (private / "jit_g-def-cache").write_bytes(b"again")
    (shared / "jit_g-def-cache").write_bytes(b"first")
    (private / "odd name").write_bytes(b"x")
    (private / "link-cache").symlink_to(tmp_path / "elsewhere")
    assert publish(private, shared) == 1
    assert sorted(p.name for p in shared.iterdir()) == ["jit_f-abc-cache", "jit_g-def-cache"]
    assert (shared / "jit_f-abc-cache").read_bytes() == b"new"
    assert (shared / "jit_g-def-cache").read_bytes() == b"first"
    assert (shared / "jit_f-abc-cache").stat().st_mode & 0o777 == 0o644
    assert publish(tmp_path / "missing", shared) == 0


def test_label_names_versions_and_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Does the cache's folder name carry the JAX and jaxlib versions and the backend, the
    backend following JAX_PLATFORMS where it is set?"""
    import importlib.metadata as md

    monkeypatch.setenv("JAX_PLATFORMS", "cuda")
    assert label() == f"jax-{md.version('jax')}-jaxlib-{md.version('jaxlib')}-gpu"
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    assert label().endswith("-cpu")


def test_each_runtime_has_a_cache_of_its_own(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Does another runtime's versions (Colab's JAX, as its kernelspec records them) name a
    folder of their own, beside the grader's, so that no kernel loads a program another JAX
    compiled?"""
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    colab = {"jax": "0.7.2", "jaxlib": "0.7.2", "python": "3.13.5"}
    assert label(colab) == "jax-0.7.2-jaxlib-0.7.2-cpu"
    assert label({"jax": "0.12.0.1"}) == "jax-0.12.0.1-jaxlib-none-cpu"
    mine, theirs = shared_dir(tmp_path), shared_dir(tmp_path, colab)
    assert mine != theirs and theirs.parent == tmp_path and theirs.is_dir()


def test_settings_for_readers_and_writers(tmp_path: Path) -> None:
    """Do readers get the folder with writing off, does a trusted run start with writing off
    too (its filter turns it on), and are a host's own cache settings dropped?"""
    reader = reader_env(tmp_path)
    assert reader["JAX_COMPILATION_CACHE_DIR"] == str(tmp_path)
    assert float(reader["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"]) >= 1e9
    assert float(writer_env(tmp_path)["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"]) >= 1e9
    env = {"JAX_COMPILATION_CACHE_DIR": "/x", "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
           "JAX_ENABLE_X64": "1", "PATH": "/bin"}
    assert without_cache_settings(env) == {"JAX_ENABLE_X64": "1", "PATH": "/bin"}


def test_trusted_run_caches_public_programs_only(tmp_path: Path) -> None:
    """Does a real trusted run publish what the visible tests compiled, and nothing the
    reference answer (jitted or eager) or the hidden tests compiled, nor anything compiled
    in the cell that imports JAX (before the filter can be in place, writing is off)?"""
    setup = IMPORTS + "SETUP = jax.jit(jnp.tanh)(jnp.ones(4))\n"
    answer = ("def secret_answer_fn(x):\n    return jnp.cosh(x) * 0 + 2 * x\n"
              "double = jax.jit(secret_answer_fn)\n"
              "EAGER = jnp.expm1(jnp.ones(7))\n")
    tests = ("def public_probe_fn(v):\n    return v * 3\n"
             "jax.jit(public_probe_fn)(jnp.ones(3))\n"
             'with feedback("Question 1"):\n'
             '    check_array(double(jnp.arange(3.0)), name="double(arange(3.0))")\n'
             "### BEGIN HIDDEN TESTS\n"
             "def hidden_probe_fn(v):\n    return v - 3\n"
             "jax.jit(hidden_probe_fn)(jnp.ones(9))\n"
             'with feedback("Question 1 (hidden tests)"):\n'
             '    check_array(double(jnp.ones((2, 2))), name="double(ones((2, 2)))")\n'
             "### END HIDDEN TESTS\n")
    nb = _source(tmp_path / "src", answer=answer, tests=tests, imports=setup)
    cache = tmp_path / "records"
    trusted_records(nb, cache)
    names = " ".join(p.name for p in compiled_programs(cache).iterdir())
    assert "jit_public_probe_fn" in names, names
    for secret in ("secret_answer_fn", "cosh", "expm1", "hidden_probe_fn", "jit_tanh"):
        assert secret not in names, names
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in compiled_programs(cache).iterdir())


def test_a_function_an_answer_returned_is_not_cached(tmp_path: Path) -> None:
    """When a visible test calls a function the reference answer *returned* (library code
    only, ``jax.jit(jnp.sinh)``: no answer code in its program or on the stack), is its
    program kept out of the cache, while what the same test compiled before calling the
    answer (its honest twin) is cached?"""
    answer = ("def build_fast():\n    return jax.jit(jnp.sinh)\n"
              "double = jax.jit(lambda x: 2 * x)\n")
    tests = ("def public_probe_fn(v):\n    return v * 3\n"
             "jax.jit(public_probe_fn)(jnp.ones(3))\n"
             "FAST = build_fast()\n"
             "FAST(jnp.ones(5))\n"
             'with feedback("Question 1"):\n'
             '    check_array(double(jnp.arange(3.0)), name="double(arange(3.0))")\n')
    nb = _source(tmp_path / "src", answer=answer, tests=tests)
    cache = tmp_path / "records"
    trusted_records(nb, cache)
    names = " ".join(p.name for p in compiled_programs(cache).iterdir())
    assert "jit_public_probe_fn" in names, names
    assert "sinh" not in names, names


def test_recording_writes_nothing_without_jax_functions(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """On a JAX without the functions the filter wraps, does recording say so and leave
    writing off, rather than write unfiltered?"""
    from jax._src import compilation_cache as jax_cache

    monkeypatch.delattr(jax_cache, "put_executable_and_time")
    with compile_cache.recording(SECRET) as filtering:
        assert filtering is False


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX only")
def test_shared_dir_is_readable_by_all(tmp_path: Path) -> None:
    """Is the shared folder (and its parent) created readable and searchable by the kernels'
    user, and named by the label?"""
    shared = compile_cache.shared_dir(tmp_path / "compiled")
    assert shared.name == label() and shared.is_dir()
    assert shared.stat().st_mode & 0o755 == 0o755
    assert shared.parent.stat().st_mode & 0o755 == 0o755
