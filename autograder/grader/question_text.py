"""The course's question text on the feedback page: Markdown and math, rendered here, no script.

The book shows each question's text rendered (its Markdown, and its LaTeX typeset by
MathJax). The feedback page may run no script, so the grader renders the same text itself:
Markdown with markdown-it (CommonMark, tables), and math, written between ``$`` or ``$$`` as in
Jupyter, converted to MathML by latex2mathml, which browsers draw without any script.

Only the course's own Markdown comes here: the graded notebook's Markdown cells are the
released notebook's (:mod:`autograder.grader.rebuild` copies nothing but code from a
submission). It is rendered as if it were not trusted all the same:

- Markdown's raw HTML is off: a ``<`` in the text is text (``<float32 scalar>`` shows as
  written), and markdown-it refuses ``javascript:`` and similar links;
- latex2mathml builds a tree of elements; :func:`math_html` writes it out itself, keeping only
  MathML's presentation elements and their layout attributes (no ``href``, no ``style``, no
  event handler), and escaping all text once (latex2mathml's own output writes ``\\text{}``
  content unescaped).

TeX that latex2mathml cannot read is shown as the TeX it is, escaped.
"""

from __future__ import annotations

import functools
import html
import re
from typing import Any
from xml.etree.ElementTree import Element

# MathML's presentation elements (MathML Core and the few older ones latex2mathml writes).
MATHML_TAGS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup",
    "mfrac", "msqrt", "mroot", "mstyle", "mtable", "mtr", "mtd", "mlabeledtr", "mover",
    "munder", "munderover", "mpadded", "mphantom", "menclose", "merror", "mfenced",
    "mmultiscripts", "mprescripts", "none", "semantics", "annotation"})
# Layout attributes only: none holds a URL, a style or a script.
MATHML_ATTRIBUTES = frozenset({
    "display", "displaystyle", "scriptlevel", "mathvariant", "mathcolor", "mathsize",
    "stretchy", "fence", "separator", "form", "largeop", "movablelimits", "symmetric",
    "accent", "accentunder", "lspace", "rspace", "minsize", "maxsize", "width", "height",
    "depth", "voffset", "linethickness", "columnalign", "rowalign", "columnspacing",
    "rowspacing", "columnlines", "rowlines", "frame", "notation", "open", "close",
    "separators", "align", "encoding"})
_VALUE = re.compile(r"[\w .,%#+-]{0,80}")  # what a layout attribute's value may hold
# ``\\[4pt]`` (a line break with extra space) is not read by latex2mathml, which would show
# "[4pt]"; the break is kept, the extra space dropped.
_BREAK_SPACE = re.compile(r"(\\\\)\s*\[[^\]\n]{0,20}\]")


def _text(value: str | None) -> str:
    """Element text from latex2mathml (which writes symbols as character references),
    escaped once."""
    return html.escape(html.unescape(value), quote=False) if value else ""


def _write(element: Element, out: list[str]) -> None:
    """Append ``element`` as MathML to ``out``: allowed elements and attributes only."""
    tag = str(element.tag).rsplit("}", 1)[-1]
    keep = tag in MATHML_TAGS
    if keep:
        attributes = "".join(
            f' {name}="{html.escape(value)}"' for name, value in element.attrib.items()
            if name in MATHML_ATTRIBUTES and _VALUE.fullmatch(value))
        out.append(f"<{tag}{attributes}>")
    out.append(_text(element.text))
    for child in element:
        _write(child, out)
        out.append(_text(child.tail))
    if keep:
        out.append(f"</{tag}>")


def math_html(tex: str, display: bool) -> str:
    """``tex`` as a MathML ``<math>`` element (``display="block"`` when ``display``), or, when
    latex2mathml cannot read it, the TeX itself in a ``<code class="tex">``, escaped.

    Args:
        tex: the formula, without its ``$`` delimiters.
        display: True for a formula on its own line (``$$...$$``).
    """
    from latex2mathml.converter import convert_to_element

    try:
        tree = convert_to_element(_BREAK_SPACE.sub(r"\1", tex),
                                  display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - any TeX it cannot read is shown as written
        return f'<code class="tex">{html.escape(tex, quote=False)}</code>'
    out: list[str] = []
    _write(tree, out)
    return "".join(out)


def _highlight(code: str, language: str, _attributes: str) -> str:
    """A fenced code block in Python, highlighted as the page's answers are (its style sheet
    colours Pygments' classes); empty for other languages (markdown-it then escapes it)."""
    if language.lower() not in ("python", "py", "ipython", "ipython3"):
        return ""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    spans = highlight(code, PythonLexer(), HtmlFormatter(nowrap=True))
    return f'<pre class="highlight"><code>{spans}</code></pre>'


@functools.cache
def _markdown() -> Any:
    """The Markdown renderer: CommonMark and tables, raw HTML off, ``$`` math to MathML."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight})
    md.enable(["table", "strikethrough"])
    dollarmath_plugin(md, allow_labels=False, double_inline=True,
                      renderer=lambda tex, options: math_html(tex, options["display_mode"]))
    amsmath_plugin(md, renderer=lambda tex: math_html(tex, True))
    return md


def question_html(source: str) -> str:
    """The HTML of a Markdown cell of the course: Markdown rendered, math as MathML, no raw
    HTML, no script.

    Args:
        source: the cell's Markdown, as written in the course's notebook.
    """
    return str(_markdown().render(source or ""))
