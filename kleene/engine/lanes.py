"""Lanes of device work: independent steps issued side by side.

A blocked closure's critical path (the next pivot block's closure and its row and
column, small operations that fill a few SMs) can run beside the big trailing
products of the current round when they touch disjoint blocks. On the GPU each
lane other than the main one (the current stream) is a CUDA stream
of its own, ordered against the main stream by events: inside a CUDA-graph
capture this records the lanes as parallel branches of the graph. On the CPU every
lane is the caller's thread, so steps run in the order they are issued, which the
caller must make a valid order.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from kleene.errors import InvalidValue

# Lanes and whether their stream has the device's highest priority: "side" carries a
# critical path (its blocks take SMs first as a big product frees them). No second
# lane of normal priority for two of a round's trailing products beside the other
# two: it made the closure slower, not faster.
LANES = {"side": True}

_local = threading.local()  # per thread: {(device, lane): stream}, made once


class Lanes:
    """The current stream (the main lane) and the lanes of :data:`LANES`, on one device.

    Example
    -------
    >>> import numpy as np
    >>> from kleene.ops import Lanes
    >>> lanes = Lanes(np)  # on the CPU every step runs at once, in issue order
    >>> lanes.fork("side")
    >>> with lanes.on("side"):
    ...     x = 1 + 1
    >>> lanes.join("side")
    """

    def __init__(self, xp):
        self.gpu = xp is not np
        if self.gpu:
            import cupy

            self.main = cupy.cuda.get_current_stream()

    def fork(self, lane: str) -> None:
        """``lane``'s next steps wait for everything the main lane issued so far."""
        if self.gpu:
            _stream(lane).wait_event(_record(self.main))

    def join(self, lane: str) -> None:
        """The main lane's next steps wait for everything ``lane`` issued so far."""
        if self.gpu:
            self.main.wait_event(_record(_stream(lane)))

    @contextmanager
    def on(self, lane: str) -> Iterator[None]:
        """Issue the steps of the ``with`` body on ``lane``."""
        if not self.gpu:
            yield
            return
        with _stream(lane):
            yield


def _record(stream):
    import cupy

    ev = cupy.cuda.Event(disable_timing=True)  # timing events are not allowed in captures
    ev.record(stream)
    return ev


def _stream(lane: str):
    """This thread's non-blocking stream for ``lane`` on the current device."""
    import cupy

    if lane not in LANES:
        raise InvalidValue(f"no lane {lane!r}: lanes are {sorted(LANES)}")
    streams = getattr(_local, "streams", None)
    if streams is None:
        streams = _local.streams = {}
    key = (cupy.cuda.Device().id, lane)
    if key not in streams:
        try:
            if not LANES[lane]:
                raise TypeError
            _least, greatest = cupy.cuda.runtime.deviceGetStreamPriorityRange()
            streams[key] = cupy.cuda.Stream(non_blocking=True, priority=greatest)
        except (AttributeError, TypeError):  # normal priority (or no stream priorities)
            streams[key] = cupy.cuda.Stream(non_blocking=True)
    return streams[key]
