"""Shared fixtures: paths of the repository and of the tiny fixture course."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def tiny_course() -> Path:
    """Folder holding ``00_tiny.ipynb``, a two-question nbgrader source notebook."""
    return FIXTURES / "course"


@pytest.fixture
def submissions() -> Path:
    """Folder of submissions of ``00_tiny``, one file per case."""
    return FIXTURES / "submissions"
