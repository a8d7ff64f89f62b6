"""Tests of autograder.kernel.hints: JAX errors turned into hints, and the feedback wrapper."""

import jax
import jax.numpy as jnp
import pytest

from autograder.kernel.checks import check_array
from autograder.kernel.hints import (
    advice,
    case,
    explain,
    feedback,
    first_line,
    hint_for,
    hint_name,
    transformation,
)


def _error_of(fn) -> BaseException:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("expected an exception")


def test_tracer_bool_hint() -> None:
    """Does a Python `if` on a traced value suggest lax.cond / jnp.where?"""
    exc = _error_of(lambda: jax.jit(lambda x: 1 if x > 0 else 2)(1.0))
    assert "lax.cond" in hint_for(exc)


def test_in_place_update_hint() -> None:
    """Does item assignment on a jax.Array suggest .at[].set?"""
    def assign():
        x = jnp.zeros(3)
        x[0] = 1.0

    assert ".at[i].set" in hint_for(_error_of(assign))


def test_key_reuse_hint() -> None:
    """Does a KeyReuseError suggest splitting the key?"""
    def reuse():
        with jax.debug_key_reuse(True):
            key = jax.random.key(0)
            jax.random.normal(key)
            jax.random.normal(key)

    assert "split" in hint_for(_error_of(reuse))


def test_ref_used_as_an_array_hint() -> None:
    """Do arithmetic on a Ref (eagerly and under jit) and a jitted function returning a Ref
    each get the hint to compute with `ref[...]`; and does another Ref error (the same Ref
    passed twice) not get it? (`jnp.sum(ref)` says "Ref" on 0.7 and 0.12, which the hint
    matches, but not on 0.10.)"""
    ref = jax.new_ref(jnp.zeros(2))
    for wrong in (lambda: ref / 2, lambda: jax.jit(lambda r: r / 2)(ref),
                  lambda: jax.jit(lambda: jax.new_ref(jnp.zeros(2)))()):
        assert hint_name(_error_of(wrong)) == "ref-as-array"
        assert "`ref[...]`" in hint_for(_error_of(wrong))
    twice = _error_of(lambda: jax.jit(lambda a, b: None)(ref, ref))
    assert hint_name(twice) != "ref-as-array"


def test_boolean_mask_hint() -> None:
    """Does boolean-mask indexing under jit suggest jnp.where?"""
    exc = _error_of(lambda: jax.jit(lambda x: x[x > 0])(jnp.arange(3.0)))
    assert "jnp.where" in hint_for(exc)


def test_no_hint_for_plain_errors() -> None:
    """Is an unrelated error left without a hint?"""
    assert hint_for(KeyError("x")) is None


def test_feedback_reports_pass_fail_and_not_attempted(capsys: pytest.CaptureFixture) -> None:
    """Does feedback print passed / not yet / not attempted and re-raise with a note?"""
    with feedback("Q1"):
        pass
    with pytest.raises(NotImplementedError):
        with feedback("Q2"):
            raise NotImplementedError()
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        with feedback("Q3"):
            jax.jit(lambda x: 1 if x > 0 else 2)(1.0)
    out = capsys.readouterr().out
    assert "Q1: passed." in out and "Q2: not attempted yet." in out and "Q3: not yet." in out
    assert any("lax.cond" in note for note in info.value.__notes__)


def test_key_reuse_hint_is_not_circular() -> None:
    """Does the key-reuse hint say to draw only with the new keys, not just "split"?"""
    def reuse():
        with jax.debug_key_reuse(True):
            key = jax.random.key(0)
            jax.random.split(key)
            jax.random.normal(key)

    assert "draw only with the new keys" in hint_for(_error_of(reuse))


def test_test_advice_replaces_the_generic_hint(capsys: pytest.CaptureFixture) -> None:
    """Does a test's own advice for an error win over the generic hint for that error type?"""
    def two_epochs():
        with jax.debug_key_reuse(True):
            key = jax.random.key(0)
            for _ in range(2):
                jax.random.permutation(key, 5)

    with pytest.raises(jax.errors.KeyReuseError) as info:
        with feedback("Q5"):
            with advice("fold the epoch into the key: jax.random.fold_in(key, epoch)",
                        on=jax.errors.KeyReuseError):
                two_epochs()
    out = capsys.readouterr().out
    assert "Hint: fold the epoch into the key" in out
    assert "Split it first" not in out
    assert explain(info.value).message == (
        "Hint: fold the epoch into the key: jax.random.fold_in(key, epoch)")


def test_advice_applies_only_to_its_errors() -> None:
    """Is advice attached only to the error types (and messages) it names?"""
    with pytest.raises(ValueError) as info:
        with advice("about keys", on=jax.errors.KeyReuseError):
            raise ValueError("something else")
    assert explain(info.value).advice == ()
    with pytest.raises(ValueError) as info:
        with advice("about sizes", on=ValueError, match="inconsistent sizes"):
            raise ValueError("other text")
    assert explain(info.value).advice == ()


def test_own_message_first_generic_hint_only_when_new() -> None:
    """Is a test's AssertionError shown first, with a generic hint only when it adds advice?"""
    with pytest.raises(AssertionError) as info:
        check_array(jnp.float32(jnp.nan), 0.5, name="jax.grad(f)(1.0)")
    said = explain(info.value)
    assert said.own and said.error.startswith("AssertionError: jax.grad(f)(1.0)")
    assert "double-where" in said.hint
    assert said.message.splitlines()[0] == said.error
    redundant = AssertionError("jax.grad(f)(1.0) is NaN: use the double-where trick")
    assert explain(redundant).hint is None


def test_nan_gradient_from_where_hint() -> None:
    """Does a NaN gradient caused by jnp.where get the double-where hint?"""
    f = lambda x: jnp.where(x < 0, x, jnp.sqrt(x))  # noqa: E731
    with pytest.raises(AssertionError) as info:
        check_array(jax.grad(f)(-2.0), 1.0, name="jax.grad(f)(-2.0)")
    assert "NaN" in str(info.value) and "double-where" in hint_for(info.value)


def _count_down(x):
    while x > 0:
        x = x - 1
    return x


def test_python_while_on_tracer_mentions_while_loop() -> None:
    """Does a Python `while` on a traced value suggest lax.while_loop?"""
    exc = _error_of(lambda: jax.jit(_count_down)(3.0))
    assert hint_name(exc) == "python-while-on-tracer" and "lax.while_loop" in hint_for(exc)


def test_python_float_where_array_expected() -> None:
    """Does a Python float used like an array (`.astype`) suggest jnp.asarray?"""
    exc = _error_of(lambda: (2.0).astype(jnp.float32))
    assert "jnp.asarray" in hint_for(exc)


def test_numpy_on_tracer_and_string_argument_hints() -> None:
    """Do NumPy on a tracer and a string passed to jit get their hints?"""
    import numpy as np

    assert hint_name(_error_of(lambda: jax.jit(lambda x: np.asarray(x))(1.0))) == "numpy-on-tracer"
    exc = _error_of(lambda: jax.jit(lambda x, mode: x)(1.0, "l2"))
    assert "static_argnames" in hint_for(exc)


def test_pmap_of_a_shared_scalar() -> None:
    """Does mapping a scalar parameter over devices with pmap name in_axes=None (any JAX)?"""
    exc = _error_of(lambda: jax.pmap(lambda p, x: x * p["b"])({"b": 1.0}, jnp.ones((1, 3))))
    assert hint_name(exc) == "pmap-shared-mapped" and "None" in hint_for(exc)


def test_scalar_placed_with_a_split_spec() -> None:
    """Does a scalar placed with P("data") get the replicate-parameters hint, and is JAX's own
    bare AssertionError (JAX 0.10) not mistaken for a test's message?"""
    import numpy as np
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((1,), ("data",))
    exc = _error_of(lambda: jax.device_put(np.float32(1.0), NamedSharding(mesh, P("data"))))
    assert hint_name(exc) == "scalar-split" and "P()" in hint_for(exc)
    assert not explain(exc).own
    # JAX 0.11 says it in its own words (seen on a GPU machine with JAX 0.11.2)
    newer = ValueError("Length of sharding.spec (1) must be equal to aval's ndim (0). Got "
                       "sharding.spec P('data',), aval.ndim 0")
    assert hint_name(newer) == "scalar-split"


def test_explicit_sharding_errors_get_hints() -> None:
    """Do an ambiguous layout on explicit axes (ShardingTypeError), a bare P() with no current
    mesh, and out_specs=P() for a value that varies between devices each get their hint?"""
    import numpy as np
    from jax.sharding import AxisType, NamedSharding

    mesh = jax.make_mesh((1,), ("data",), axis_types=(AxisType.Explicit,))
    x = jax.device_put(np.ones((4, 2), np.float32), NamedSharding(mesh, jax.P("data")))
    exc = _error_of(lambda: x.T @ x)
    assert hint_name(exc) == "sharding-type-error" and "out_sharding=P()" in hint_for(exc)
    exc = _error_of(lambda: jax.device_put(np.ones(3, np.float32), jax.P("data")))
    assert hint_name(exc) == "bare-spec-without-mesh" and "jax.set_mesh" in hint_for(exc)
    gathered = jax.shard_map(lambda b: jax.lax.all_gather(b, "data", tiled=True), mesh=mesh,
                             in_specs=jax.P("data"), out_specs=jax.P())
    exc = _error_of(lambda: gathered(x))
    assert hint_name(exc) == "out-specs-replication" and "psum" in hint_for(exc)


def test_jit_result_on_a_mesh_from_unplaced_inputs() -> None:
    """Does a jitted function whose result is laid out on explicit mesh axes, called with NumPy
    inputs only (so jit compiles for one device), get the hint to place the inputs or set the
    mesh, and do both fixes it names work?"""
    import numpy as np
    from jax.sharding import AxisType, NamedSharding

    mesh = jax.make_mesh((1,), ("data",), axis_types=(AxisType.Explicit,))
    rows = NamedSharding(mesh, jax.P("data"))
    # a one-device mesh never disagrees with one device: JAX's message on larger meshes (JAX
    # 0.7.2, 0.10.2 and 0.12.0.1 on eight simulated devices) is matched here as it reads there
    exc = ValueError("Length of device assignment 1 is not equal to the size of the mesh 8 of "
                     "aval f32[8@data]({Explicit: ('data',)}). Please enter your `jit` into a "
                     "mesh context via `jax.set_mesh`.")
    assert hint_name(exc) == "shard-map-mesh-context"
    assert "jax.device_put(x, NamedSharding(mesh, P(...)))" in hint_for(exc)
    assert "with jax.set_mesh(mesh):" in hint_for(exc)
    f = jax.jit(lambda w: jax.sharding.reshard(w, rows) * 2)
    with jax.set_mesh(mesh):
        assert f(np.ones(4, np.float32)).sharding.spec == jax.P("data")
    assert f(jax.device_put(np.ones(4, np.float32), rows)).sharding.spec == jax.P("data")


def test_scalar_split_message_of_jax_0_12() -> None:
    """Does JAX 0.12's wording of the same mistake (a ValueError about sharding.spec's length and
    a rank-0 aval, seen on the newest-JAX runtime) get the same hint?"""
    exc = ValueError("Length of sharding.spec (1) must be equal to aval's ndim (0). Got "
                     "sharding.spec P('data',), aval.ndim 0 and sharding NamedSharding(...)")
    assert hint_name(exc) == "scalar-split" and "P()" in hint_for(exc)
    longer = ValueError("Length of sharding.spec (3) must be equal to aval's ndim (2).")
    assert hint_name(longer) != "scalar-split"


def test_hint_matchers_ignore_learner_files_named_pmap() -> None:
    """Is a `pmap` hint given only for frames of JAX's own code, not a file named like it?"""
    exc = IndexError("tuple index out of range")
    try:
        exec(compile("raise exc", "pmap_answers.py", "exec"), {"exc": exc})
    except IndexError as raised:
        exc = raised
    assert hint_name(exc) != "pmap-shared-mapped"


def test_feedback_runs_checks_with_default_jax_settings(capsys: pytest.CaptureFixture) -> None:
    """Does feedback put jax_disable_jit (and x64) back before the checks, and say so, so that
    code that cannot be traced does not pass a jit question?"""
    jax.config.update("jax_disable_jit", True)
    jax.config.update("jax_enable_x64", True)
    try:
        with pytest.raises(jax.errors.ConcretizationTypeError):
            with feedback("Q1"):
                jax.jit(lambda x: x if float(x) > 0 else -x)(1.0)
        assert not jax.config.jax_disable_jit and not jax.config.jax_enable_x64
        assert "set jax_disable_jit, jax_enable_x64 back" in capsys.readouterr().out
    finally:
        jax.config.update("jax_disable_jit", False)
        jax.config.update("jax_enable_x64", False)


def _error_of(fn) -> BaseException:
    """The exception ``fn()`` raises."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("expected an error")


def _python_if(x):
    if x > 0:
        return x
    return -x


def test_if_hint_names_the_transformation_in_play() -> None:
    """Is a Python `if` on a traced value under vmap told about vmap (and jnp.where), not
    "inside jit", while under jit the hint still says jit?"""
    under_vmap = hint_for(_error_of(lambda: jax.vmap(_python_if)(jnp.ones(3))))
    under_jit = hint_for(_error_of(lambda: jax.jit(_python_if)(1.0)))
    assert "inside vmap" in under_vmap and "jnp.where" in under_vmap
    assert "inside jit" not in under_vmap
    assert "inside jit" in under_jit and "lax.cond" in under_jit
    # JAX 0.12 names the tracer a VmapTracer (BatchTracer before)
    newer = TypeError("Attempted boolean conversion of traced array with shape bool[].\n"
                      "This VmapTracer with object id 1 was created on line:")
    assert transformation(newer) == "vmap"


def test_python_max_on_a_tracer_suggests_at_max() -> None:
    """Does `max(y[-1], 0.0)` under jit get the chapter 01 fix (`.at[-1].max`, jnp.maximum)
    rather than lax.cond?"""
    def clip_last(y):
        return y.at[-1].set(max(y[-1], 0.0))

    exc = _error_of(lambda: jax.jit(clip_last)(jnp.ones(3)))
    assert hint_name(exc) == "python-max-on-tracer"
    assert ".at[-1].max(0.0)" in hint_for(exc) and "lax.cond" not in hint_for(exc)


def test_one_based_argnums_gets_a_hint() -> None:
    """Is `argnums=[1, 2]` for a two-argument function told that argnums counts from 0?"""
    exc = _error_of(lambda: jax.grad(lambda x, y: x * y, argnums=[1, 2])(1.0, 2.0))
    assert hint_name(exc) == "argnums-one-based" and "from 0" in hint_for(exc)


def test_summary_keeps_the_lines_after_a_colon() -> None:
    """Does the one-line summary of `vmap got inconsistent sizes ...:` keep which argument had
    which size, and a one-line message stay as it is?"""
    exc = _error_of(lambda: jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4)))
    line = first_line(exc)
    assert line.startswith("ValueError: vmap got inconsistent sizes for array axes to be mapped:")
    assert "size 3" in line and "size 4" in line and "\n" not in line
    assert first_line(ValueError("short")) == "ValueError: short"
    assert len(first_line(ValueError("a:\n" + "x" * 1000))) <= 320


def test_case_names_the_failing_case(capsys: pytest.CaptureFixture) -> None:
    """Does an error inside `case(...)` say which case failed, in the printed feedback and in
    the explanation, and is the case recorded in each check's options?"""
    from autograder.kernel.reporter import collecting

    with pytest.raises(ZeroDivisionError) as info:
        with feedback("Q9 (hidden tests)"):
            with case("an empty batch"):
                1 / 0  # noqa: B018
    assert "Case: an empty batch." in capsys.readouterr().out
    assert explain(info.value).message.startswith("Case: an empty batch.")
    seen = []
    with collecting(seen.append), case("a batch of one example"):
        check_array(jnp.ones(2), name="x")
    assert seen[0].options["case"] == "a batch of one example"


def test_bincount_without_length_under_jit_gets_a_hint() -> None:
    """Is `jnp.bincount(labels, minlength=n)` under jit told to pass a static `length` (which
    drops labels at or above it)?"""
    count = jax.jit(lambda labels, n: jnp.bincount(labels, minlength=n), static_argnums=1)
    exc = _error_of(lambda: count(jnp.array([0, 5]), 3))
    assert hint_name(exc) == "bincount-length" and "length=num_classes" in hint_for(exc)


def _centre_with_pmap_axis(x, mesh):
    """12 Question 2 ported to shard_map with pmap's axis name "i" kept in the collective."""
    def per_device(block):
        return block - jax.lax.psum(block.sum(axis=0), "i")

    return jax.shard_map(per_device, mesh=mesh, in_specs=jax.P("data"),
                         out_specs=jax.P("data"))(x)


def test_unknown_mesh_axis_in_a_collective_names_the_mesh_axes() -> None:
    """Does a collective inside shard_map naming an axis the mesh lacks (JAX 0.10 to 0.12: an
    empty AssertionError; 0.7: a bare KeyError 'i') get a hint naming the collective, the axis
    it asked for and the mesh's own axes, so the message is never bare?"""
    import numpy as np
    from jax.sharding import AxisType, NamedSharding

    mesh = jax.make_mesh((1,), ("data",), axis_types=(AxisType.Explicit,))
    x = jax.device_put(np.ones((4, 2), np.float32), NamedSharding(mesh, jax.P("data")))
    exc = _error_of(lambda: _centre_with_pmap_axis(x, mesh))
    text = hint_for(exc)
    assert hint_name(exc) == "unbound-axis", first_line(exc)
    assert "names the axis 'i', and the mesh's axes are 'data'" in text
    assert "jax.lax.psum(..., 'data')" in text
    # JAX's empty assert is not a check's own message: the learner reads the hint alone.
    assert not explain(exc).own and explain(exc).message.startswith("Hint: ")

    def old_jax(block):  # JAX 0.7's KeyError, raised on the line that calls the collective
        return {"data": 0}["i"] + jax.lax.psum(block, "i")

    exc = _error_of(lambda: old_jax(1.0))
    assert hint_name(exc) == "unbound-axis" and "names the axis 'i'" in hint_for(exc)
    assert not explain(exc).own and "Hint: " in explain(exc).message
    # A KeyError from a line with no collective is the learner's own dict lookup: no hint.
    assert hint_name(_error_of(lambda: {"data": 0}["i"])) is None


def test_sharding_type_error_hint_points_to_the_question_s_layout() -> None:
    """Does the ambiguous-layout hint ask for the layout the question wants, showing both the
    split-rows layout (11 Question 4) and the whole-copy one (Question 3), never P() alone?"""
    error = type("ShardingTypeError", (TypeError,), {})(
        "Contracting dimensions are sharded and it is ambiguous how the output should be "
        "sharded. Got lhs_contracting_spec=('model',) and rhs_contracting_spec=('model',)")
    text = hint_for(error)
    assert "split over 'model'" in text and "the layout the question asks for" in text
    assert 'out_sharding=P("data", None)' in text and "`out_sharding=P()` puts the whole" in text


def _loop_count(x, steps):
    for _ in range(steps):
        x = x + 1.0
    return x


def _run_in_cell(chapter: str, code: str, namespace: dict) -> BaseException:
    """Run ``code`` as a test cell of ``chapter`` (its code name as the harness names it)."""
    try:
        exec(compile(code, f"<{chapter} tests q5_tests>", "exec"), namespace)
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("expected an exception")


def test_a_hint_says_where_an_api_is_taught_in_an_earlier_chapter(
        capsys: pytest.CaptureFixture) -> None:
    """Shown in chapter 06, does the hint for a traced loop count suggest static_argnames (taught
    there) first and say that lax.fori_loop is taught in chapter 09; shown in chapter 09, does
    it suggest fori_loop (what that chapter's questions ask for), unannotated; and does the
    exception remember its question and chapter?"""
    from autograder.kernel.hints.where import where_of

    code = "with feedback('Question 5'):\n    jax.jit(_loop_count)(1.0, 3)\n"
    exc = _run_in_cell("06_jit", code, {"feedback": feedback, "jax": jax,
                                        "_loop_count": _loop_count})
    printed = capsys.readouterr().out
    assert where_of(exc).chapter == "06_jit" and where_of(exc).question == "Question 5"
    assert "mark it static, `jax.jit(f, static_argnames=\"n\")`" in printed
    assert "`lax.fori_loop` (chapter 09)" in printed and "(chapter 06)" not in printed
    exc = _run_in_cell("09_control_flow", code, {"feedback": feedback, "jax": jax,
                                                 "_loop_count": _loop_count})
    printed = capsys.readouterr().out
    assert "Loop with `lax.fori_loop(0, n, body, init)`" in printed
    assert "(chapter" not in printed
    assert "(chapter" not in explain(exc).message  # the harness's explain: the same words


def test_the_chapter_of_a_test_cell() -> None:
    """Is a test cell's chapter read from its expected_values line (a released exercise), from
    the test cell id it names (a graded cell's proof line), then from its code name, and
    unknown (None) for an anonymous cell?"""
    import linecache

    from autograder.kernel.hints.where import chapter_of_cell

    name = "<released cell 7>"
    source = 'expected_values("09_control_flow", "q1_ema_scan_tests", "abc")\n'
    linecache.cache[name] = (len(source), None, [source], name)
    try:
        assert chapter_of_cell(name) == "09_control_flow"
    finally:
        del linecache.cache[name]
    graded = "<graded cell 3>"  # a graded test cell: its proof line names its id
    source = "__import__('IPython.display')  # 'q2_static_mode_tests 0123abcd'\n"
    linecache.cache[graded] = (len(source), None, [source], graded)
    try:
        assert chapter_of_cell(graded) == "06_jit"
    finally:
        del linecache.cache[graded]
    assert chapter_of_cell("<12_shard_map tests q2_center_columns_tests>") == "12_shard_map"
    assert chapter_of_cell("/tmp/ipykernel_1/2.py", {}) is None
    assert chapter_of_cell("<99_unknown tests>") is None
