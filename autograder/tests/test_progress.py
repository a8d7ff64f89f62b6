"""Tests of autograder.grader.progress: the progress bar of long jobs."""

from autograder.grader.progress import Progress


def test_progress_counts_and_caps(capsys) -> None:
    """Does the bar count items, never exceed the total, and show elapsed time?"""
    bar = Progress(4, "grading")
    bar.advance()
    bar.advance(10)
    bar.done()
    err = capsys.readouterr().err
    assert "1/4 grading" in err and "4/4 grading" in err and "5/4" not in err
