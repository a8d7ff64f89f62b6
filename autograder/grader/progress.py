"""A dependency-free progress bar for long jobs (grading, benchmarks)."""

from __future__ import annotations

import sys
import time


class Progress:
    """``[#####.....] 5/10 grading, 12 s elapsed`` on stderr, redrawn in place on a terminal."""

    def __init__(self, total: int, label: str = "", width: int = 30) -> None:
        self.total, self.label, self.width = max(total, 0), label, width
        self.count = 0
        self.start = time.perf_counter()
        self._tty = sys.stderr.isatty()
        self._draw()

    def advance(self, n: int = 1) -> None:
        """Record ``n`` more items done."""
        self.count = min(self.total, self.count + n)
        self._draw()

    def done(self) -> None:
        """Finish the bar's line."""
        if self._tty:
            sys.stderr.write("\n")
        sys.stderr.flush()

    def _draw(self) -> None:
        filled = self.width * self.count // self.total if self.total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        text = (f"[{bar}] {self.count}/{self.total} {self.label}, "
                f"{time.perf_counter() - self.start:.0f} s elapsed")
        sys.stderr.write(("\r" + text) if self._tty else (text + "\n"))
        sys.stderr.flush()
