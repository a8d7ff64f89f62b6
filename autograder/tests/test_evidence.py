"""Tests of autograder.core.evidence: values as JSON data, decoded without ever running code."""

from __future__ import annotations

import base64
import json
import pickle
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.core import evidence
from autograder.core.evidence import (
    MAX_ARRAY_BYTES,
    Entry,
    NotAnArray,
    decode,
    decode_tree,
    encode,
    encode_plain,
    encode_tree,
    pack,
    unpack,
)


def _through_json(data: Any) -> Any:
    """``data`` as it comes back from a notebook's output (JSON text and back)."""
    return json.loads(json.dumps(data))


@pytest.mark.parametrize("value", [
    np.array([1.5, -2.25, np.nan, np.inf], np.float32),
    np.arange(6, dtype=np.int32).reshape(2, 3),
    np.arange(-3, 3, dtype=np.int64),
    np.array([[True, False], [False, True]]),
    np.array([1 + 2j, -0.5j], np.complex64),
    np.zeros((0, 3), np.float32),
], ids=["float32", "int32", "int64", "bool", "complex64", "empty"])
def test_numeric_arrays_round_trip(value: np.ndarray) -> None:
    """Does an array of each numeric dtype come back with its dtype, shape and exact bytes?"""
    back = decode(_through_json(encode(value)))
    assert isinstance(back, np.ndarray)
    assert back.dtype == value.dtype and back.shape == value.shape
    assert back.tobytes() == value.tobytes()


def test_jax_arrays_round_trip_bfloat16_included() -> None:
    """Do JAX arrays, bfloat16 among them, come back as NumPy arrays of the same dtype?"""
    for value in (jnp.linspace(0.0, 1.0, 5), jnp.array([1.0, -3.5, 0.125], jnp.bfloat16),
                  jnp.arange(4).reshape(2, 2)):
        back = decode(_through_json(encode(value)))
        assert back.dtype == value.dtype and back.shape == value.shape
        np.testing.assert_array_equal(back, np.asarray(value))


def test_non_contiguous_array_round_trips() -> None:
    """Is a transposed (Fortran-ordered) view encoded by its values, not its memory layout?"""
    value = np.arange(6.0).reshape(2, 3).T
    np.testing.assert_array_equal(decode(encode(value)), value)


@pytest.mark.parametrize("value", [np.float32(2.5), 3, 2.5, True, jnp.float32(-1.0),
                                   jnp.array(7, jnp.int32)])
def test_scalars_keep_shape_empty(value: Any) -> None:
    """Does a 0-d value (NumPy, JAX or Python number) come back with shape ()?"""
    back = decode(_through_json(encode(value)))
    assert back.shape == ()
    assert back.item() == np.asarray(value).item()


def test_none_round_trips() -> None:
    """Is None (a function that forgot to return) kept as None, not an array?"""
    assert encode(None) == {"none": True}
    assert decode(_through_json(encode(None))) is None


def test_values_that_are_not_arrays() -> None:
    """Are a ragged list of arrays, a string and an arbitrary object reported by type only?"""
    assert decode(encode([jnp.ones(2), jnp.ones(3)])) == NotAnArray("list")
    assert decode(encode("hello")) == NotAnArray("str")
    assert decode(encode(object())) == NotAnArray("object")


def test_a_leaked_tracer_is_not_an_array() -> None:
    """Is a tracer (a value seen inside jit) encoded as not an array rather than raising?"""
    seen: list[dict] = []

    @jax.jit
    def f(x: jax.Array) -> jax.Array:
        seen.append(encode(x))
        return x

    f(jnp.ones(2))
    assert list(seen[0]) == ["not_array"] and "Tracer" in seen[0]["not_array"]


def test_not_an_array_names_are_sanitised() -> None:
    """Is a forged type name that is not an identifier (markup, long text) shown as object?"""
    assert decode({"not_array": "<script>alert(1)</script>"}) == NotAnArray("object")
    assert decode({"not_array": "A" * 61}) == NotAnArray("object")
    assert decode({"not_array": "DeviceArray"}) == NotAnArray("DeviceArray")


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


@pytest.mark.parametrize("dtype", ["object", "O", "<U3", "S4", "V8", "datetime64[ns]",
                                   "f4,f4", "x" * 41])
def test_decode_refuses_dtypes_that_are_not_numeric(dtype: str) -> None:
    """Are object, string, void, structured and date dtypes (and absurd names) refused?"""
    with pytest.raises(ValueError):
        decode({"dtype": dtype, "shape": [1], "b64": _b64(b"\0" * 8)})


def test_decode_never_unpickles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Does a pickle payload that would write a file stay inert, whatever dtype it claims?"""
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self) -> tuple:
            return (Path.write_text, (marker, "ran"))

    raw = pickle.dumps(np.array([Payload()], dtype=object))

    def no_unpickling(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("decode unpickled something")

    monkeypatch.setattr(pickle, "loads", no_unpickling)
    monkeypatch.setattr(pickle, "load", no_unpickling)
    for dtype in ("object", "O", "|O"):
        with pytest.raises(ValueError):
            decode({"dtype": dtype, "shape": [1], "b64": _b64(raw)})
    # As a numeric dtype the payload's bytes are only numbers (when their count fits).
    n = len(raw)
    assert decode({"dtype": "uint8", "shape": [n], "b64": _b64(raw)}).tobytes() == raw
    assert not marker.exists()


@pytest.mark.parametrize("b64", ["not base64!", "QUJD\n", "QUJDRA=", "éé", "A"])
def test_decode_refuses_bad_base64(b64: str) -> None:
    """Is text that is not strict base64 refused?"""
    with pytest.raises(ValueError):
        decode({"dtype": "uint8", "shape": [3], "b64": b64})


@pytest.mark.parametrize("shape", [[3], [1, 1], [], [5]])
def test_decode_refuses_bytes_that_do_not_match_the_shape(shape: list[int]) -> None:
    """Are 8 bytes refused as float32 of any shape other than two entries?"""
    with pytest.raises(ValueError, match="do not match the shape"):
        decode({"dtype": "float32", "shape": shape, "b64": _b64(b"\0" * 8)})
    assert decode({"dtype": "float32", "shape": [2], "b64": _b64(b"\0" * 8)}).shape == (2,)


@pytest.mark.parametrize("shape", [[-1], "ab", [1.0], [0] * 33, None])
def test_decode_refuses_bad_shapes(shape: Any) -> None:
    """Are negative, non-integer and too many dimensions refused?"""
    with pytest.raises(ValueError):
        decode({"dtype": "float32", "shape": shape, "b64": ""})


def test_decode_refuses_arrays_over_the_size_limit() -> None:
    """Is an array over MAX_ARRAY_BYTES refused, even when its bytes match its shape, and an
    array at the limit accepted?"""
    n = MAX_ARRAY_BYTES // 4
    assert decode(encode(np.zeros(n, np.float32))).shape == (n,)
    with pytest.raises(ValueError):
        decode(encode(np.zeros(n + 1, np.float32)))
    with pytest.raises(ValueError):  # a huge shape with no bytes at all
        decode({"dtype": "float64", "shape": [2**40, 2**40], "b64": ""})


def test_size_limit_is_read_at_decode_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Does decode use the module's limit as it stands (a byte over it is refused)?"""
    monkeypatch.setattr(evidence, "MAX_ARRAY_BYTES", 16)
    assert decode(encode(np.zeros(4, np.float32))).shape == (4,)
    with pytest.raises(ValueError):
        decode(encode(np.zeros(5, np.float32)))


@pytest.mark.parametrize("data", [None, [], "x", 3, {"dtype": "float32"}])
def test_decode_refuses_what_is_no_encoding(data: Any) -> None:
    """Is something that is not an encoded value refused with ValueError?"""
    with pytest.raises(ValueError):
        decode(data)


def test_decode_refuses_unknown_dtype_names_with_value_error() -> None:
    """Is a dtype name that neither NumPy nor ml_dtypes knows refused with ValueError?"""
    with pytest.raises(ValueError):
        decode({"dtype": "float33", "shape": [1], "b64": _b64(b"\0" * 4)})


def test_decode_refuses_booleans_in_the_shape_with_value_error() -> None:
    """Is ``shape: [true]`` (JSON booleans are not dimensions) refused with ValueError?"""
    with pytest.raises(ValueError):
        decode({"dtype": "float32", "shape": [True], "b64": _b64(b"\0" * 4)})


def test_pytree_keeps_paths_and_structure() -> None:
    """Does an encoded pytree keep JAX's structure string and each leaf's path and value?"""
    tree = {"w": jnp.ones((2, 2)), "b": (jnp.zeros(1), np.float32(3.0)), "n": None}
    structure, leaves = decode_tree(_through_json(encode_tree(tree)))
    assert structure == str(jax.tree_util.tree_structure(tree))
    assert [path for path, _ in leaves] == ["['b'][0]", "['b'][1]", "['w']"]
    np.testing.assert_array_equal(leaves[0][1], np.zeros(1))
    assert leaves[1][1].shape == () and leaves[1][1] == 3.0
    np.testing.assert_array_equal(leaves[2][1], np.ones((2, 2)))


def test_pytree_structures_differ_when_trees_do() -> None:
    """Do a dict and a tuple of the same leaves encode to different structures?"""
    a, _ = decode_tree(encode_tree({"a": 1.0, "b": 2.0}))
    b, _ = decode_tree(encode_tree((1.0, 2.0)))
    assert a != b


@pytest.mark.parametrize("data", [None, {"leaves": "x"}, {"leaves": [["p"]]},
                                  {"leaves": [["p", {"dtype": "object", "shape": [],
                                                     "b64": ""}]]}])
def test_decode_tree_refuses_malformed(data: Any) -> None:
    """Is a malformed pytree encoding (or one with a bad leaf) refused with ValueError?"""
    with pytest.raises(ValueError):
        decode_tree(data)


def test_encode_plain() -> None:
    """Are small Python values kept, tuples made lists, NumPy scalars unwrapped, and other
    objects named only by type?"""
    assert encode_plain(("float32", 3, 2.5, True, None)) == ["float32", 3, 2.5, True, None]
    assert encode_plain(np.int32(4)) == 4 and encode_plain(np.bool_(True)) is True
    assert encode_plain(object()) == "<object>"


def test_entry_json_round_trip_and_defaults() -> None:
    """Does an entry survive to_json/from_json, and are empty options and mistakes left out?"""
    entry = Entry("array", "f(x)", encode(np.ones(2)), {"rtol": 0.1},
                  [["advice", encode(np.zeros(2))]], hidden=True)
    assert Entry.from_json(_through_json(entry.to_json())) == entry
    bare = Entry("value", "n", "ok")
    assert bare.to_json() == {"check": "value", "name": "n", "got": "ok"}
    assert Entry.from_json(bare.to_json()) == bare and bare.key == ("value", "n")


@pytest.mark.parametrize("data", [None, [], {"check": "array"}, {"check": 1, "name": "x"},
                                  {"check": "array", "name": "x", "options": []},
                                  {"check": "array", "name": "x", "mistakes": {}}])
def test_entry_from_json_refuses_what_is_no_entry(data: Any) -> None:
    """Is something without a string check and name, or with odd options, refused?"""
    with pytest.raises(ValueError):
        Entry.from_json(data)


def test_entry_names_are_truncated() -> None:
    """Is a forged name of a megabyte cut to 500 characters?"""
    assert len(Entry.from_json({"check": "value", "name": "x" * 10**6}).name) == 500


def test_pack_unpack_round_trip() -> None:
    """Do entries survive pack/unpack in order, as one ASCII string without quotes or
    newlines (so it fits in a line of Python)?"""
    entries = [Entry("array", "f(x)", encode(jnp.arange(3.0)), {"rtol": 1e-3}),
               Entry("tree", "grads", encode_tree({"w": jnp.ones(2)})),
               Entry("scalar", "loss", encode(np.float32(0.5)),
                     mistakes=[["Mean, not sum.", encode(np.float32(1.0))]]),
               Entry("value", "dtype", "float32", {"message": "{got}"}, hidden=True)]
    text = pack(entries)
    assert text.isascii() and '"' not in text and "\n" not in text
    assert unpack(text) == entries
    assert unpack(pack([])) == []
