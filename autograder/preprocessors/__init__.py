"""Notebook transforms of the course, shaped like nbgrader's preprocessors (verb + noun)."""

from autograder.preprocessors.hide_test_source import HideTestSource
from autograder.preprocessors.mark_answer_cells import MarkAnswerCells, answer_marker, read_marker
from autograder.preprocessors.write_expected_values import WriteExpectedValues

__all__ = ["HideTestSource", "MarkAnswerCells", "WriteExpectedValues", "answer_marker",
           "read_marker"]
