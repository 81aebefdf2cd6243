"""Progress reporting for long runs: off by default, a bar or a callback when asked.

Work is counted in units proportional to its cost (multiply-adds for the dense
closures, sources for repeated SSSP), so the fraction shown is the fraction of
the work done. The bar stays hidden for short runs (under ``DELAY_S`` seconds),
and 100% is reported exactly once, by :meth:`Progress.finish`, when everything
is done.

The time left is the work left at the rate of the recent steps, leaving out what
is paid once: the first step (converting the input, building the working
matrices, loading kernels) and every step that compiled a kernel (Numba's
compiles are watched; other code marks its own with :func:`one_time`). A first
call on a fresh machine compiles the kernels of each step kind on its first
steps, far more than their later calls cost: counted in, they made the first
estimate many times the time that really remained. The rate is that of the
later half of the time since those steps, as work slows down while it goes (a
closure fills its matrix in, and its products then skip fewer absent entries).
The bar shows the compile time beside the elapsed time, and no estimate until
``ETA_STEPS`` steps over ``ETA_MIN_S`` seconds have been timed.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from kleene.errors import InvalidObject

#: A bar appears only once the work has run this long: quick calls print nothing.
DELAY_S = 0.5
_REDRAW_S = 0.2  # on a terminal, redraw the bar in place at most this often
_LINE_S = 5.0  # elsewhere (logs, pipes), one line at most this often
#: The bar estimates the time left only once this many steps, over at least
#: ``ETA_MIN_S`` seconds, have been timed after the first step and the last that
#: compiled: a rate over less is noise, and the first steps of a closure, on a
#: still sparse matrix, are the cheapest.
ETA_STEPS = 2
ETA_MIN_S = 1.0
_POINTS = 1000  # timed points kept about this far apart: 1/_POINTS of the time since the mark

_clock = time.perf_counter  # the bar's clock (tests put a fake one here)


# ---- one-time costs (compiling kernels), left out of the rate --------------------
class _OneTime:
    """Seconds spent in one-time work so far, in this process: nested and concurrent
    sections count once (the outermost section's span)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.began = 0.0
        self.seconds = 0.0

    def enter(self) -> None:
        with self.lock:
            if self.depth == 0:
                self.began = _clock()
            self.depth += 1

    def exit(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth == 0:
                self.seconds += _clock() - self.began

    def total(self) -> float:
        """Seconds so far, a section still open included."""
        with self.lock:
            return self.seconds + (_clock() - self.began if self.depth else 0.0)


_one_time = _OneTime()
_watching_numba = False


@contextmanager
def one_time() -> Iterator[None]:
    """Mark work paid once per process (or per machine), such as compiling a kernel.

    Bars measure their rate from the end of the last step that ran such work (and
    show its seconds beside the elapsed time): the later steps that the estimate of
    the time left stands for will not pay it. Numba's compiles are marked already.

    Example
    -------
    >>> with one_time():
    ...     pass  # compile something
    """
    _one_time.enter()
    try:
        yield
    finally:
        _one_time.exit()


def one_time_seconds() -> float:
    """Seconds this process has spent in :func:`one_time` sections (Numba's compiles
    among them once :func:`watch_compiles` has run).

    Example
    -------
    >>> one_time_seconds() >= 0.0
    True
    """
    return _one_time.total()


def watch_compiles() -> None:
    """Count Numba's compiles (its ``numba:compile`` events) in :func:`one_time_seconds`
    from now on (a bar starts this itself; calling it again does nothing).

    Example
    -------
    >>> watch_compiles()
    """
    global _watching_numba
    if _watching_numba:
        return
    _watching_numba = True
    try:
        from numba.core import event
    except ImportError:  # no Numba: nothing of it to watch
        return

    class _Compiles(event.Listener):
        def on_start(self, ev) -> None:
            _one_time.enter()

        def on_end(self, ev) -> None:
            _one_time.exit()

    event.register("numba:compile", _Compiles())


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
            raise InvalidObject(
                f"progress must be True, False, None or a callable (done, total), "
                f"got {type(progress).__name__}"
            )
        self.total = max(int(total), 1)
        self.done = 0
        self.label = label
        self.callback = progress if callable(progress) else None
        self.bar = progress is True
        if self.bar:
            watch_compiles()
        self.start = _clock()
        self._one_time0 = _one_time.total()
        # (time, done) after the mark (the first step, or the last that compiled) and
        # after each step since, the oldest dropped once the rate no longer needs them
        self._timed: deque[tuple[float, int]] = deque()
        self._steps = 0  # steps counted after the mark
        self._once = 0.0  # one_time_seconds() at the mark
        self._mark = 0.0  # the mark's time
        self._shown = False  # has the bar written anything?
        self._last = 0.0
        self._width = 0  # of the bar last drawn in place
        self._closed = False

    def step(self, n: int = 1) -> None:
        """Count ``n`` more units done (reported unless that completes the total)."""
        if self._closed or n <= 0:
            return
        self.done = min(self.total, self.done + int(n))
        once, now = _one_time.total(), _clock()
        if not self._timed or once > self._once:
            # The rate starts after the first step and after the last step that
            # compiled: such a step also pays for what the compile leaves out (typing,
            # writing the cache), and later steps will not (see the module).
            self._timed.clear()
            self._steps, self._once, self._mark = 0, once, now
        else:
            self._steps += 1
        timed = self._timed
        if len(timed) > 2 and now - timed[-2][0] < (now - self._mark) / _POINTS:
            timed[-1] = (now, self.done)  # close to the one before: move it instead
        else:
            timed.append((now, self.done))
        self._prune(now)
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
        now = _clock()
        elapsed = now - self.start
        if not self._shown and elapsed < DELAY_S:
            return  # short work stays quiet
        tty = _is_tty()
        if not final and self._shown and now - self._last < (_REDRAW_S if tty else _LINE_S):
            return
        self._shown, self._last = True, now
        line = self._line(elapsed, now)
        if tty:  # pad: a shorter line must cover the previous one
            padded, self._width = line.ljust(self._width), len(line)
            sys.stderr.write("\r" + padded + ("\n" if final else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def _line(self, elapsed: float, now: float) -> str:
        frac = self.done / self.total
        filled = int(30 * frac)
        compiling = _one_time.total() - self._one_time0
        spent = f" ({compiling:.1f}s compiling)" if compiling >= 0.05 else ""
        eta = self.seconds_left(now)
        left = f", about {eta:.0f}s left" if eta is not None and eta >= 1 else ""
        return (
            f"{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
            f"{100 * frac:5.1f}% {elapsed:6.1f}s{spent}{left}"
        )

    def seconds_left(self, now: float | None = None) -> float | None:
        """The estimated seconds left: the work left at the rate of the later half of
        the time timed since the first step (and the last that compiled), which
        follows work that slows down as it goes (a closure filling its matrix in).
        None until ``ETA_STEPS`` steps over ``ETA_MIN_S`` seconds have been timed.

        Example
        -------
        >>> p = Progress(None, total=10)
        >>> p.step(1)
        >>> p.seconds_left() is None  # the first step alone says nothing of the rate
        True
        """
        timed = self._timed
        if self._steps < ETA_STEPS or self.done >= self.total:
            return None
        now = _clock() if now is None else now
        if now - self._mark < ETA_MIN_S or _one_time.total() > self._once:
            return None  # too little timed, or compiling now
        self._prune(now)
        t0, done0 = timed[0]
        if self.done <= done0:
            return None
        return (now - t0) * (self.total - self.done) / (self.done - done0)

    def _prune(self, now: float) -> None:
        """Keep the timed points from the last one at or before the middle of the time
        since the mark: that middle only moves on, so the points before it are done."""
        timed, half = self._timed, (now + self._mark) / 2
        while len(timed) > 2 and timed[1][0] <= half:
            timed.popleft()


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
