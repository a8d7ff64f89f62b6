"""The course's hint table: small groups of hints, one concern each, tried in order.

Each module here is one group, a short list ``HINTS`` of
:class:`~autograder.kernel.hints.Hint` entries, and its docstring says what it covers and which
chapter teaches it. :data:`HINTS` is every group's entries, the groups in :data:`GROUPS`
order (the course's chapter order):

- :mod:`.questions`: one question's typical mistake, matched by the error and the question it
  failed in (first: it wins over the generic hint for the same error);
- :mod:`.basics`: the untouched stub; Python slips with arrays (chapters 01, 03, 05);
- :mod:`.state`: escaped tracers; reused PRNG keys (chapters 03, 04);
- :mod:`.grad`: NaN gradients, a loss that is not one number, ``argnums`` (chapter 05);
- :mod:`.transforms`: a transformation given a value, not a function; exporting a function
  that is not jitted (chapters 03, 08);
- :mod:`.tracing`: Python ``if``/``while``/NumPy on traced values (chapter 06);
- :mod:`.static_args`: ``jit``'s static arguments (chapter 06);
- :mod:`.control_flow`: ``lax.switch``; loops under ``grad`` (chapter 09);
- :mod:`.vmap`: ``in_axes`` and the shape errors they cause (chapter 10);
- :mod:`.pmap`: ``pmap``'s ``in_axes`` and collectives (chapter 11);
- :mod:`.sharding`: meshes, shardings, ``shard_map``, ``in_shardings``, collectives renamed
  between JAX versions (chapter 11).

**The first match wins** (:func:`autograder.kernel.hints.hint_name`). Most hints match one
error class or one phrase of JAX's and no other hint's error, so their order does not matter;
where two can match the same error, the more specific comes first:

- :mod:`.questions` before every other group: its hints match an error another group's hint
  matches too (``checkify-not-assert`` and ``python-if-on-tracer``), only in one question;

- inside :mod:`.tracing`: a Python ``while`` or ``max``/``min`` line, and ``jnp.bincount``,
  before the general ``if`` hint, before ``concrete-value`` (``TracerBoolConversionError`` is
  a ``ConcretizationTypeError``);
- :mod:`.pmap` before :mod:`.sharding`: a scalar mapped by ``pmap`` can raise the "rank at
  least 1" error that ``scalar-split`` matches as well, or (under ``jit``, JAX 0.10 and later,
  where ``pmap`` is a ``shard_map``) the "in_specs entry which is too long" error that
  ``in-specs-too-long`` matches.

A new hint goes in the group of its concern; one that can match the same error as a hint of
another group is listed here, with its case in ``autograder/tests/test_hint_table.py``, which
checks these cases, that every group stays small, and that hint names are unique.
"""

from __future__ import annotations

from types import ModuleType

from autograder.kernel.hints.matchers import Hint
from autograder.kernel.hints.table import (
    basics,
    control_flow,
    grad,
    pmap,
    questions,
    sharding,
    state,
    static_args,
    tracing,
    transforms,
    vmap,
)

GROUPS: tuple[ModuleType, ...] = (
    questions, basics, state, grad, transforms, tracing, static_args, control_flow, vmap, pmap,
    sharding,
)

HINTS: list[Hint] = [hint for group in GROUPS for hint in group.HINTS]
