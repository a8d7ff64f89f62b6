"""The set-up cell every course notebook starts with, and what it installs in Colab.

Colab already has JAX, NumPy and matplotlib; the course's own ``autograder`` package is
installed from the repository. Elsewhere (``make lab``, the book build, grading) the package
is already in the environment and the cell does nothing.
"""

from __future__ import annotations

import sys

REPOSITORY = "https://github.com/learn-jax/learn-jax"
BRANCH = "main"

SETUP_CELL = f"""\
# Set-up: in Google Colab this installs the course's helper package; elsewhere it does nothing.
import sys

if "google.colab" in sys.modules:
    %pip install --quiet "learn-jax-autograder @ git+{REPOSITORY}@{BRANCH}"
"""


def in_colab() -> bool:
    """True inside a Google Colab runtime."""
    return "google.colab" in sys.modules
