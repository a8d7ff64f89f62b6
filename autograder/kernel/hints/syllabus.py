"""Which chapter teaches each API a hint names, so a hint never points past the learner's chapter.

A hint may suggest an API that the chapter the learner is working on has not taught yet (the
fix for a traced loop count in chapter 06 can be ``lax.fori_loop``, which chapter 09 teaches).
:func:`annotate` adds where each such API is taught, ``(chapter 09)``, after its first mention,
for the chapter the hint is shown in (:mod:`.where`); an API the chapter so far has taught is
left as it is. Where the chapter is unknown (a notebook that does not say which exercise it
is), every API taught after chapter 01 says where.

:data:`TAUGHT` is the course's syllabus as the hints see it: every JAX name a hint writes, with
the chapter (the two-digit prefix of a ``notebooks/`` stem) whose text teaches it. Chapters are
compared in :data:`READING_ORDER`, the order of the book's table of contents, which is the order
of the chapters' numbers since they were renumbered in reading order (2026-11-29).
``autograder/tests/test_hint_table.py`` checks that each name appears in its chapter's notebook
and that every ``jax.``/``lax.``/``jnp.`` name any hint writes is listed here.
"""

from __future__ import annotations

import re

# API, as a hint writes it inside backticks -> the chapter that teaches it.
TAUGHT: dict[str, str] = {
    # 01 arrays: jnp, .at[] updates
    "jnp": "01", "jax.numpy": "01", ".at[": "01",
    # 02 key concepts (read after 01): a first look at jax.jit and tracing
    "jax.jit": "02", "jit": "02",
    # 03 pure functions: transformations as functions, pytrees
    "jax.grad": "03", "grad": "03", "jax.tree.map": "03",
    # 04 PRNG: keys, and carrying a key through lax.scan
    "jax.random.split": "04", "fold_in": "04", "lax.scan": "04", "scan": "04",
    # 05 grad in depth
    "argnums": "05", "has_aux": "05", "jax.jacrev": "05", "stop_gradient": "05",
    # 06 jit in depth
    "static_argnames": "06", "static_argnums": "06",
    # 08 performance
    "jax.export": "08",
    # 09 control flow
    "lax.cond": "09", "lax.switch": "09", "lax.while_loop": "09", "while_loop": "09",
    "lax.fori_loop": "09", "fori_loop": "09",
    # 10 vmap
    "jax.vmap": "10", "vmap": "10", "in_axes": "10",
    # 11 sharding with jit
    "out_sharding": "11", "reshard": "11", "jax.set_mesh": "11",
    "NamedSharding": "11", "PartitionSpec": "11", "P(": "11", "Explicit": "11",
    "jax.device_put": "11",
    # 12 shard_map and collectives (read after 11)
    "jax.pmap": "12", "pmap": "12", "axis_name": "12", "jax.shard_map": "12",
    "shard_map": "12", "in_specs": "12", "out_specs": "12", "psum": "12", "pmean": "12",
    "all_gather": "12",
}

# The chapters' two-digit prefixes in the order the book reads them (``_toc.yml``).
READING_ORDER: tuple[str, ...] = ("01", "02", "03", "04", "05", "06", "07", "08", "09",
                                  "10", "11", "12", "13")

_SPAN = re.compile(r"`[^`]+`")


def _pattern(api: str) -> re.Pattern[str]:
    """Where ``api`` is named: not inside a longer dotted name (``vmap`` is not
    ``jax.vmap``'s tail; ``grad`` is not ``jax.grad``'s)."""
    head = r"(?<![\w.])" if api[0].isalnum() or api[0] == "_" else ""
    tail = r"(?!\w)" if api[-1].isalnum() or api[-1] == "_" else ""
    return re.compile(head + re.escape(api) + tail)


_PATTERNS = {api: _pattern(api) for api in TAUGHT}


def _names(span: str) -> str:
    """A backtick span as the syllabus writes names (``jax.lax.cond`` is ``lax.cond``,
    ``jax.sharding.reshard`` is ``reshard``)."""
    return span.replace("jax.lax.", "lax.").replace("jax.sharding.", "")


def chapter_number(chapter: str | None) -> str | None:
    """``"06"`` for ``"06_jit"`` (or ``"06"``); None for None or a name without the prefix."""
    found = re.match(r"(\d\d)(?:_|$)", chapter or "")
    return found.group(1) if found else None


def apis_in(text: str) -> list[tuple[str, str]]:
    """``(api, chapter)`` of each :data:`TAUGHT` API named inside a backtick span of ``text``,
    in order of first mention (a span that names ``jax.lax.fori_loop`` names ``lax.fori_loop``).
    """
    found: dict[str, str] = {}
    for span in _SPAN.findall(text):
        for api, pattern in _PATTERNS.items():
            if api not in found and pattern.search(_names(span)):
                found[api] = TAUGHT[api]
    return list(found.items())


def later_apis(text: str, chapter: str | None) -> list[tuple[str, str]]:
    """The APIs ``text`` names that chapter ``chapter`` has not taught yet (all after chapter
    01 when the chapter is unknown), with the chapter that teaches each."""
    now = _position(chapter_number(chapter) or "01")
    return [(api, taught) for api, taught in apis_in(text) if _position(taught) > now]


def _position(number: str) -> int:
    """Where chapter ``number`` is read (an unknown number reads last)."""
    return READING_ORDER.index(number) if number in READING_ORDER else len(READING_ORDER)


def annotate(text: str, chapter: str | None) -> str:
    """``text`` with ``(chapter NN)`` after the first backtick span naming an API that chapter
    ``chapter`` has not taught yet, for each such chapter the text does not name already.

    Args:
        text: a hint.
        chapter: the chapter the hint is shown in (a ``notebooks/`` stem or its two-digit
            prefix), None when unknown.
    """
    pending = {taught for _, taught in later_apis(text, chapter)
               if f"chapter {taught}" not in text}
    if not pending:
        return text
    parts, last = [], 0
    for match in _SPAN.finditer(text):
        parts.append(text[last:match.end()])
        last = match.end()
        here = sorted({TAUGHT[api] for api, pattern in _PATTERNS.items()
                       if TAUGHT[api] in pending and pattern.search(_names(match.group()))})
        if here:
            parts.append(" (" + ", ".join(f"chapter {n}" for n in here) + ")")
            pending -= set(here)
    parts.append(text[last:])
    return "".join(parts)
