"""Notebook transforms of the course, shaped like nbgrader's preprocessors (verb + noun)."""

from autograder.grader.preprocessors.hide_test_source import HideTestSource
from autograder.grader.preprocessors.mark_answer_cells import (
           MarkAnswerCells,
           answer_marker,
           read_marker,
)
from autograder.grader.preprocessors.sanitize_outputs import SanitizeOutputs
from autograder.grader.preprocessors.summarize_questions import SummarizeQuestions
from autograder.grader.preprocessors.write_expected_values import WriteExpectedValues

__all__ = ["HideTestSource", "MarkAnswerCells", "SanitizeOutputs", "SummarizeQuestions",
           "WriteExpectedValues", "answer_marker", "read_marker"]
