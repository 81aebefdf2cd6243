"""Progress reporting for long runs: off by default, a bar or a callback when asked."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


class Progress:
    """``progress`` argument of long-running functions.

    None/False: silent. True: a one-line bar on stderr. A callable: called as
    ``callback(done, total)`` after each step.

    Example
    -------
    >>> seen = []
    >>> p = Progress(lambda done, total: seen.append(done), total=3, label="demo")
    >>> for _ in range(3):
    ...     p.step()
    >>> seen
    [1, 2, 3]
    """

    def __init__(self, progress: bool | Callable | None, total: int, label: str = ""):
        self.total = max(int(total), 1)
        self.done = 0
        self.label = label
        self.callback = progress if callable(progress) else None
        self.bar = progress is True
        self.start = time.perf_counter()
        self._last = 0.0

    def step(self, n: int = 1) -> None:
        self.done = min(self.total, self.done + n)
        if self.callback is not None:
            self.callback(self.done, self.total)
        elif self.bar:
            now = time.perf_counter()
            if now - self._last > 0.2 or self.done == self.total:
                self._last = now
                frac = self.done / self.total
                filled = int(30 * frac)
                elapsed = now - self.start
                sys.stderr.write(
                    f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                    f"{100 * frac:5.1f}% {elapsed:6.1f}s"
                )
                if self.done == self.total:
                    sys.stderr.write("\n")
                sys.stderr.flush()
