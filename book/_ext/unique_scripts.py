"""Sphinx extension: emit each script tag once per page.

Under Jupyter Book 1.0.4, sphinx-thebe registers its inline configuration script twice
(``const THEBE_JS_URL = ...``), and the second copy is a JavaScript SyntaxError in every
page's console. This drops exact duplicates from the page's script list.
"""

from __future__ import annotations

from typing import Any


def _drop_duplicate_scripts(app: Any, pagename: str, templatename: str, context: dict,
                            doctree: Any) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, str]] = set()
    unique = []
    for script in scripts:
        key = (str(getattr(script, "filename", script) or ""),  # None and "" both mean inline
               repr(sorted(getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app: Any) -> dict[str, Any]:
    """Register the page-context hook."""
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
