"""The classroom side of grading: who the learners are and how work comes in and goes back.

Rosters and the LMS's gradebook export (:mod:`.classlist`), the instructor's decisions laid on
top of the grader's scores (:mod:`.decisions`), fetching learners' repositories from a GitHub
organisation (:mod:`.fetch`) and returning feedback to them (:mod:`.feedback_return`), and the
LMS's bulk zips: submissions in (:mod:`.lms_zips`), feedback files back (:mod:`.lms_feedback`).

It runs in the grader's process, never in a learner's kernel, and it never runs a submission:
``pyproject.toml``'s import contracts keep it away from the sandbox and nbgrader.
"""
