"""Old module names that notebooks saved before the package was split keep importing.

Until 0.2 the package was one flat folder: ``autograder.hints``, ``autograder.compare``,
``autograder.judge``... A learner's saved Colab copy of an exercise still says
``from autograder.hints import feedback``. Each old name here loads the module's new home
(the same module object, so its state is shared) and warns once that the name goes away in
the next release. Nothing in the course itself imports an old name.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

# old name -> new name: the modules a notebook cell imports (learner side only).
MOVED = {
    "autograder.compare": "autograder.kernel.checks",
    "autograder.judge": "autograder.kernel.reporter",
    "autograder.hints": "autograder.kernel.hints",
    "autograder.timing": "autograder.kernel.timing",
    "autograder.jax_checks": "autograder.kernel.jax_checks",
    "autograder.tracebacks": "autograder.kernel.tracebacks",
    "autograder.runtime": "autograder.kernel.runtime",
    "autograder.compat": "autograder.kernel.compat",
    "autograder.colab": "autograder.kernel.colab",
    "autograder.evidence": "autograder.core.evidence",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name and hands back the module at its new name."""

    def find_spec(self, fullname: str, path: object = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} is now {new}; the old name goes away in the next release "
                      f"of the course package (change the import to `{new}`).", FutureWarning,
                      stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new name is already loaded."""


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
