"""What grading one submission gives: :class:`Result` (``result.json``) and its questions.

Its own module, so that every step that reads or writes results (the course's gradebooks,
grading, reports, merge) can use the type without importing one another.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class QuestionResult:
    """The outcome of one question."""

    id: str
    score: float
    max_score: float
    status: str  # passed | failed | error | timeout | missing
    message: str = ""


@dataclass
class Result:
    """What ``result.json`` holds for one submission."""

    student: str
    assignment: str
    submission: str
    score: float = 0.0
    max_score: float = 0.0
    status: str = "graded"  # graded | invalid | error | not_submitted (left as released)
    message: str = ""
    questions: list[QuestionResult] = field(default_factory=list)
    timings: dict[str, dict[str, float]] = field(default_factory=dict)
    stages: dict[str, float] = field(default_factory=dict)  # seconds per step (STAGES)
    # CPU seconds (user and system) by part: "kernel", the kernel's processes (its start, the
    # import ahead, the notebook), where it could be measured
    cpu: dict[str, float] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    isolation: str = "none"  # bubblewrap | none (see autograder/SECURITY.md)
    # the runtime that ran it (autograder.grader.runtime_choice): name, JAX, Python, why
    runtime: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """A result read back from ``result.json``."""
        fields = dict(data)
        fields["questions"] = [QuestionResult(**q) for q in fields.get("questions", [])]
        return cls(**fields)

    def write(self, out: Path) -> Path:
        """Write ``out/<student>/<assignment>/result.json``; return its path.

        Raises:
            ValueError: a student or assignment name outside the safe alphabet
                (:func:`autograder.grader.submissions.is_safe_name`), which could lead out of
                ``out``; grading and merge only make safe ones.
        """
        from autograder.grader.submissions import is_safe_name

        for name in (self.student, self.assignment):
            if not is_safe_name(name):
                raise ValueError(f"{name!r} is not a student or assignment name the grader "
                                 "writes (letters, digits, '_', '.', '-')")
        dest = out / self.student / self.assignment
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "result.json").write_text(json.dumps(asdict(self), indent=2) + "\n")
        return dest / "result.json"
