"""Tests of autograder.grader's package start-up: what every grader process pays once."""

from __future__ import annotations

import json
import subprocess
import sys


def test_a_grader_process_skips_the_iri_grammars_and_still_validates() -> None:
    """Does a grader process import nbformat (and with it jsonschema) without rfc3987-syntax,
    whose 38 grammars compile at import, and does nbformat still validate notebooks there,
    rejecting a broken one?"""
    code = ("import json, sys, autograder.grader.grade, nbformat\n"
            "nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1')])\n"
            "nbformat.validate(nb)\n"
            "nb.cells[0]['cell_type'] = 'no such type'\n"
            "try:\n    nbformat.validate(nb); rejected = False\n"
            "except nbformat.ValidationError:\n    rejected = True\n"
            "print(json.dumps({'loaded': sys.modules.get('rfc3987_syntax') is not None,"
            " 'rejected': rejected}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert json.loads(out.stdout.splitlines()[-1]) == {"loaded": False, "rejected": True}
