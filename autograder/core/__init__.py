"""Pure code both sides use: evidence as data, comparisons with messages, deciding a check.

Imports neither :mod:`autograder.kernel` nor :mod:`autograder.grader` (a contract
``make test`` checks), and runs no code from a notebook.

- :mod:`autograder.core.evidence`: what a check saw or expects, as JSON data.
- :mod:`autograder.core.compare`: array comparisons whose messages say what differed.
- :mod:`autograder.core.decide`: one check decided from a record and its evidence.
- :mod:`autograder.core.notebook`: nbgrader cell metadata (answers, tests, questions).
- :mod:`autograder.core.released`: the values files of released exercises, and the line a
  released test cell names its values with.
"""
