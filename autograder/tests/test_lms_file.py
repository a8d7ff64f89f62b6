"""Tests of :mod:`autograder.grader.classroom.lms_file`: an LMS's CSV file read and written
back byte for byte, only the cells asked for changed (and only those defused); and Canvas's
exports with the name split into two columns, semicolons and decimal commas."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from autograder.grader.classroom.classlist import Classroom, read_canvas_gradebook
from autograder.grader.classroom.lms_file import read_lms_file
from autograder.grader.classroom.term import decide
from autograder.grader.reports.exports import write_canvas
from autograder.grader.result import QuestionResult, Result
from autograder.tests.conftest import FIXTURES

CANVAS_SEMICOLONS = ('\ufeffLastName;FirstName;ID;SIS User ID;SIS Login ID;Section;Notes;'
                     'Lab 4: PRNG (51203);Current Score\r\n'
                     '    Points Possible;;;;;;;12,00;(read only)\r\n'
                     'Lovelace;Ada;7301;S0001;ada@uni.example;A;"+1; bonus";;\r\n'
                     'Chen;Bo;7302;S0002;bo@uni.example;A;-2;7,50;62,50\r\n')


@pytest.mark.parametrize("name", sorted(p.name for p in (FIXTURES / "classroom").glob("*.csv")))
def test_every_lms_fixture_comes_back_byte_for_byte(name: str):
    """Is each CSV fixture, read and written with no change, the same bytes (byte-order
    mark, quotes, line endings, a last line with or without its end)?"""
    path = FIXTURES / "classroom" / name
    assert read_lms_file(path, "file").text().encode() == path.read_bytes()


def test_a_changed_cell_is_defused_and_quoted_and_nothing_else_moves(tmp_path: Path):
    """Is only the changed cell rewritten (defused, quoted as CSV needs), a copied formula-like
    cell left as it was, and a short row's missing field written when it is changed?"""
    path = tmp_path / "in.csv"
    path.write_text('a,b,c\r\n=1,"x, y",\r\nshort\r\n', newline="")
    lms = read_lms_file(path, "file")
    assert lms.text({(1, 2): "+3", (2, 2): 'say "hi"'}) == (
        'a,b,c\r\n=1,"x, y",\'+3\r\nshort,,"say ""hi"""\r\n')
    path.write_text('a,"b\n', newline="")
    with pytest.raises(ValueError, match="line 1: a quote is never closed"):
        read_lms_file(path, "file")


def test_canvas_with_split_names_and_semicolons_round_trips(tmp_path: Path):
    """Is a Canvas export with LastName, FirstName columns, semicolons and decimal commas
    read (names joined as Canvas sorts them, points 12,00) and written back with only the
    grade cell changed, in a decimal comma?"""
    path = tmp_path / "canvas.csv"
    path.write_bytes(CANVAS_SEMICOLONS.encode())
    book = read_canvas_gradebook(path)
    assert book.name(book.students[0]) == "Lovelace, Ada" and book.points_possible(7) == 12
    result = Result("7301", "04_prng", "x.ipynb", score=10.5, max_score=12,
                    questions=[QuestionResult("q1", 10.5, 12, "failed")])


    found = decide([result], None, datetime.now(UTC))
    write_canvas([result], tmp_path / "out.csv", Classroom(canvas=book, decisions=found))
    assert (tmp_path / "out.csv").read_bytes().decode() == CANVAS_SEMICOLONS.replace(
        '"+1; bonus";;', '"+1; bonus";10,5;')
