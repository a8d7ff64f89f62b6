"""The feedback page's exporter: nbconvert's HTML exporter with the course's template.

nbgrader's ``generate_feedback`` renders each autograded notebook with an HTML exporter; the
course's nbgrader config (:mod:`autograder.grader.course`) names :class:`FeedbackExporter`
and :data:`TEMPLATE` in :data:`TEMPLATES`: a page that starts with the table of what to fix
(:class:`~autograder.grader.preprocessors.SummarizeQuestions`), folds test code, and carries
its own small style sheet and no script. The course's question text is rendered by the grader
with the template's ``question_html`` filter (:mod:`autograder.grader.question_text`: Markdown,
math as MathML, no raw HTML), so the page shows formulas as the book does without MathJax.
Its header keeps a place, between two markers, for
the instructor's decisions (a score set by hand, a late penalty, excused work), which the
reports write in after grading (:mod:`autograder.grader.reports.pages`).

nbconvert builds a new Jinja environment for every page, so every page compiled its templates
again (most of a page's CPU time). The exporter keeps compiled templates for the life of the
process (the nbgrader worker grades many submissions), checked against each template's
source, so an edited template is compiled again.
"""

from __future__ import annotations

import html
import re
import threading
from pathlib import Path
from typing import Any

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from markupsafe import Markup
from nbconvert.exporters import HTMLExporter

from autograder.grader.question_text import question_html

TEMPLATES = Path(__file__).resolve().parent / "templates"  # extra_template_basedirs
TEMPLATE = "learn_jax_feedback"  # its folder in TEMPLATES


class CompiledTemplates(BytecodeCache):
    """Compiled Jinja templates kept in memory, by template and source checksum."""

    def __init__(self) -> None:
        self._code: dict[str, tuple[str, Any]] = {}
        self._lock = threading.Lock()

    def load_bytecode(self, bucket: Bucket) -> None:
        """Give ``bucket`` the code compiled from the same source, if any."""
        with self._lock:
            found = self._code.get(bucket.key)
        if found and found[0] == bucket.checksum:
            bucket.code = found[1]

    def dump_bytecode(self, bucket: Bucket) -> None:
        """Keep ``bucket``'s freshly compiled code."""
        with self._lock:
            self._code[bucket.key] = (bucket.checksum, bucket.code)

    def clear(self) -> None:
        """Forget every compiled template."""
        with self._lock:
            self._code.clear()


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def inline_code(text: str) -> Markup:
    """A message or hint of the table as HTML: ``text`` escaped, and its Markdown code spans
    (```jnp.where```) shown as code, as the notebook's Markdown shows them; nothing else of
    it is markup.

    Args:
        text: a grader's message or a hint (plain text with backticks).
    """
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", html.escape(str(text), quote=False)))


COMPILED = CompiledTemplates()  # shared by every page this process renders


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTML exporter whose templates compile once per process, with the
    ``question_html`` filter for the course's Markdown and ``inline_code`` for the code spans
    of the table's messages and hints."""

    def _create_environment(self) -> Any:
        environment = super()._create_environment()
        environment.bytecode_cache = COMPILED
        environment.filters["question_html"] = question_html
        environment.filters["inline_code"] = inline_code
        return environment
