"""Progress reporting for long runs: off by default, a bar or a callback when asked.

Work is counted in units proportional to its cost (multiply-adds for the dense
closures, sources for repeated SSSP), so the fraction shown is the fraction of
the work done. The bar stays hidden for short runs (under ``DELAY_S`` seconds),
and 100% is reported exactly once, by :meth:`Progress.finish`, when everything
is done.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

#: A bar appears only once the work has run this long: quick calls print nothing.
DELAY_S = 0.5
_REDRAW_S = 0.2  # on a terminal, redraw the bar in place at most this often
_LINE_S = 5.0  # elsewhere (logs, pipes), one line at most this often

ProgressArg = bool | Callable[[int, int], object] | None


class Progress:
    """The ``progress=`` argument of long-running functions, counting units of work.

    None/False: silent. True: a one-line bar on stderr, shown once the run has
    lasted ``DELAY_S`` seconds. A callable: called as ``callback(done, total)``;
    ``done`` never decreases, and ``done == total`` comes exactly once, last,
    from :meth:`finish` (or the end of a ``with`` block) when all the work is done.

    Example
    -------
    >>> seen = []
    >>> with Progress(lambda done, total: seen.append((done, total)), total=4) as p:
    ...     p.step(1)
    ...     p.step(3)  # reaches the total: reported by finish(), at the end
    >>> seen
    [(1, 4), (4, 4)]
    """

    def __init__(self, progress: ProgressArg, total: int, label: str = ""):
        if not (progress is None or isinstance(progress, bool) or callable(progress)):
            raise TypeError(
                f"progress must be True, False, None or a callable (done, total), "
                f"got {type(progress).__name__}"
            )
        self.total = max(int(total), 1)
        self.done = 0
        self.label = label
        self.callback = progress if callable(progress) else None
        self.bar = progress is True
        self.start = time.perf_counter()
        self._shown = False  # has the bar written anything?
        self._last = 0.0
        self._width = 0  # of the bar last drawn in place
        self._closed = False

    def step(self, n: int = 1) -> None:
        """Count ``n`` more units done (reported unless that completes the total)."""
        if self._closed or n <= 0:
            return
        self.done = min(self.total, self.done + int(n))
        if self.done < self.total:  # 100% belongs to finish(): once, after all the work
            self._report(final=False)

    def finish(self) -> None:
        """All the work is done: report ``(total, total)`` (once)."""
        if self._closed:
            return
        self._closed = True
        self.done = self.total
        self._report(final=True)

    def close(self) -> None:
        """Stop without claiming completion (after an error): end the bar's line."""
        if self._closed:
            return
        self._closed = True
        if self._shown and _is_tty():
            sys.stderr.write("\n")
            sys.stderr.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.finish()
        else:
            self.close()

    def _report(self, *, final: bool) -> None:
        if self.callback is not None:
            self.callback(self.done, self.total)
        elif self.bar:
            self._draw(final)

    def _draw(self, final: bool) -> None:
        now = time.perf_counter()
        elapsed = now - self.start
        if not self._shown and elapsed < DELAY_S:
            return  # short work stays quiet
        tty = _is_tty()
        if not final and self._shown and now - self._last < (_REDRAW_S if tty else _LINE_S):
            return
        self._shown, self._last = True, now
        line = self._line(elapsed)
        if tty:  # pad: a shorter line must cover the previous one
            padded, self._width = line.ljust(self._width), len(line)
            sys.stderr.write("\r" + padded + ("\n" if final else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def _line(self, elapsed: float) -> str:
        frac = self.done / self.total
        filled = int(30 * frac)
        left = ""
        eta = elapsed * (self.total - self.done) / self.done if self.done else 0.0
        if eta >= 1:
            left = f", about {eta:.0f}s left"
        return (
            f"{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
            f"{100 * frac:5.1f}% {elapsed:6.1f}s{left}"
        )


def _is_tty() -> bool:
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def progress_for(progress, total: int, label: str = "") -> AbstractContextManager[Progress]:
    """A context giving a :class:`Progress` of ``total`` units for a ``progress=`` argument.

    An existing Progress is used as it is: its owner counted this work in its own
    total and finishes it. Anything else gets a new Progress, finished on leaving
    the block (closed without reaching 100% if the block raises).

    Example
    -------
    >>> seen = []
    >>> with progress_for(lambda d, t: seen.append(d), 2, "demo") as bar:
    ...     bar.step()
    ...     bar.step()
    >>> seen
    [1, 2]
    """
    if isinstance(progress, Progress):
        return nullcontext(progress)
    return Progress(progress, total, label)
