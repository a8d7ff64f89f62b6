"""Notebook transforms of the course, shaped like nbgrader's preprocessors (verb + noun)."""

from autograder.preprocessors.hide_test_source import HideTestSource
from autograder.preprocessors.mark_answer_cells import MarkAnswerCells, answer_marker, read_marker

__all__ = ["HideTestSource", "MarkAnswerCells", "answer_marker", "read_marker"]
