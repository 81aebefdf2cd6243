"""CUDA graphs for fixed sequences of dense device work (R-Kleene, blocked FW).

A dense closure of n = 8192 issues ~440 block operations; from Python each costs
far more host time than the GPU needs for the small ones, so small and mid-size
closures would run at host speed. Captured once into a CUDA graph and replayed, the
same sequence costs the driver's launch of each node and nothing from Python.

A graph holds raw pointers, so each entry owns the buffers its graph works on
(the caller copies its data in and the result out) and a private memory pool that
keeps every temporary the captured work allocated (the int8 tensor-core products'
scratch, Bᵀ copies): returned to CuPy's shared pool, those blocks could be handed
to a live array that a later replay would overwrite. Inside the capture the
private pool reuses freed blocks as usual (one stream: in order), so it holds the
sequence's peak temporaries, not their sum.

Entries are cached per (device, thread, key, buffer shapes and dtypes), at most
``MAX_ENTRIES`` and ``MAX_BYTES`` of buffers and pools together, oldest dropped
first; :func:`release` drops them all. ``KLEENE_CUDA_GRAPHS=0`` turns graphs off.
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable

import cupy
import numpy as np

from kleene.backends.device import forget_gpu_memory_reading

from . import cublas_int8

MAX_ENTRIES = 4
MAX_BYTES = 1 << 30  # buffers plus private pools of all entries (buffers: half at most)


def enabled() -> bool:
    return os.environ.get("KLEENE_CUDA_GRAPHS", "1") != "0"


def fits(specs) -> bool:
    """Whether buffers of these (shape, dtype) specs may be held by a graph entry
    (half the cache: the captured work's temporaries come on top)."""
    return enabled() and _bytes(specs) <= MAX_BYTES // 2


def _bytes(specs) -> int:  # (math.prod: NumPy's prod is slower on small shapes)
    return sum(math.prod(shape) * np.dtype(dtype).itemsize for shape, dtype in specs)


class Entry:
    """One captured sequence: its buffers, graph (None until captured) and pool."""

    def __init__(self, specs):
        self.arrays = [cupy.empty(shape, dtype=dtype) for shape, dtype in specs]
        self.matrices = None  # kleene Matrices over the arrays, made by ops.replay
        self.graph = None
        self.pool: cupy.cuda.MemoryPool | None = None
        self.stream: cupy.cuda.Stream | None = None
        self.failed: str | None = None  # why capture failed: run eagerly from then on
        self.arena: Arena | None = None  # the captured steps' scratch
        self.key: tuple | None = None  # its key in the cache (device, thread, key, specs)

    @property
    def nbytes(self) -> int:
        pool = 0 if self.pool is None else self.pool.total_bytes()  # the arena is in it
        return sum(a.nbytes for a in self.arrays) + pool

    def drop(self) -> None:
        self.graph = self.arena = None
        self.arrays, self.matrices = [], None
        if self.pool is not None:
            self.pool.free_all_blocks()
            self.pool = None


class Arena:
    """Scratch for the steps of one capture. Those of one stream run in order, so one
    buffer serves them all; a step that needs more gets one twice as large, and the
    old one goes back to the entry's private pool: only this graph's later steps can
    get that memory again, after the steps that used it (stream order), so nothing
    outside the graph ever shares it. Kept per-step temporaries had grown the pool
    to 0.9 GiB at n = 16384 for a 0.32 GiB largest step."""

    def __init__(self):
        # One block per stream: steps on a side lane (kleene.engine.lanes) run beside
        # the main lane's, so the two must not share scratch.
        self.blocks: dict[int, cupy.ndarray] = {}
        self.cublas: dict[int, cupy.ndarray] = {}  # per stream: the captured GEMMs' workspace

    def take(self, nbytes: int) -> cupy.ndarray:
        lane = cupy.cuda.get_current_stream().ptr
        block = self.blocks.get(lane)
        if block is None or block.size < nbytes:
            size = max(nbytes, 0 if block is None else 2 * block.size)
            self.blocks[lane] = block = None
            self.blocks[lane] = block = cupy.empty(size, dtype=cupy.uint8)
        return block[:nbytes]


_local = threading.local()  # per thread: .arena, the arena of its capture under way


def _arena() -> Arena | None:
    return getattr(_local, "arena", None)


def scratch(nbytes: int) -> cupy.ndarray:
    """``nbytes`` of uint8 scratch for one step: inside a capture, the capture's arena
    (valid until the step's next call to this); otherwise a new array."""
    arena = _arena()
    if arena is not None:
        return arena.take(nbytes)
    return cupy.empty(nbytes, dtype=cupy.uint8)


# A capture's own cuBLAS workspace: cuBLAS's pre-Hopper default size (its int8
# GEMMs here take no split-K reduction space), not the 32 MiB that the shared handle
# keeps, since each cached graph holds its own.
CAPTURE_WORKSPACE_BYTES = 4 << 20


def cublas_workspace() -> tuple[int, int] | None:
    """(device pointer, bytes) of the capture's own cuBLAS workspace (None outside a
    capture). The captured GEMMs keep using it at every replay, so it belongs to the
    entry, not to the handle, whose workspace eager GEMMs on other streams may use
    meanwhile."""
    arena = _arena()
    if arena is None:
        return None
    lane = cupy.cuda.get_current_stream().ptr
    if lane not in arena.cublas:
        arena.cublas[lane] = cupy.empty(CAPTURE_WORKSPACE_BYTES, dtype=cupy.uint8)
    return arena.cublas[lane].data.ptr, CAPTURE_WORKSPACE_BYTES


def reserve(nbytes: int) -> None:
    """Inside a capture, size its scratch arena for the largest step to come now, so
    that it never doubles (each outgrown block stays in the entry's pool)."""
    arena = _arena()
    if arena is not None and nbytes > 0:
        arena.take(nbytes)


_cache: OrderedDict[tuple, Entry] = OrderedDict()
_lock = threading.RLock()  # the cache's bookkeeping (entries, eviction, release)


def entry(key, specs) -> Entry | None:
    """The cached entry for ``key`` and buffer ``specs`` [(shape, dtype), ...], made
    (buffers allocated, nothing captured yet) if missing, this thread's older ones
    dropped to fit; None when other threads' entries leave no room (run eagerly).

    Entries are per thread: a caller copies its result out of the entry's buffers
    after the replay, so two threads must never share them; and a thread drops only
    its own, since another's graph may still be running on that thread's stream."""
    specs = tuple((tuple(int(s) for s in shape), np.dtype(dtype)) for shape, dtype in specs)
    me = threading.get_ident()
    k = (cupy.cuda.runtime.getDevice(), me, key, specs)
    with _lock:
        e = _cache.get(k)
        if e is not None:
            _cache.move_to_end(k)
            return e
        need = _bytes(specs)

        def full() -> bool:
            return len(_cache) >= MAX_ENTRIES or held_bytes() + need > MAX_BYTES

        mine = [c for c in _cache if c[1] == me]
        while full() and mine:
            _cache.pop(mine.pop(0)).drop()
            forget_gpu_memory_reading()  # its pool goes back to the driver
        if full():
            return None
        e = _cache[k] = Entry(specs)
        e.key = k
        return e


def current(e: Entry) -> bool:
    """Whether ``e`` is still this thread's cached entry for its key (not dropped)."""
    if e.key is None or e.key[1] != threading.get_ident():
        return False
    with _lock:
        return _cache.get(e.key) is e


def held_bytes() -> int:
    """Device bytes the cached entries hold (buffers and their private pools)."""
    return sum(e.nbytes for e in _cache.values())


def release() -> None:
    """Drop every cached graph, its buffers and its pool."""
    with _lock:
        while _cache:
            _cache.popitem(last=False)[1].drop()
    forget_gpu_memory_reading()


def run(e: Entry, fn: Callable[..., None], args, intact: Callable[[], bool]) -> str:
    """Run ``fn(*args)`` (device work over e's buffers) on the current stream: replay
    e's graph if captured, else capture it now and launch it. Returns "replayed"
    (``fn`` not called), "captured" (called while capturing, then launched) or
    "failed": the capture failed now or before, nothing ran, and the caller runs
    ``fn`` eagerly. ``intact()`` says whether ``args`` still hold e's buffers after
    ``fn``'s capture: an op that swapped one for a new array would leave the graph
    reading and writing memory the caller no longer sees."""
    outer = cupy.cuda.get_current_stream()
    if e.graph is not None:
        e.graph.launch(outer)
        return "replayed"
    if e.failed is not None:
        return "failed"
    try:
        cublas_int8.prepare()  # its handle and workspace, made outside the capture
    except Exception:  # noqa: BLE001 - no cuBLAS: only int8 products need it, and they say so
        pass
    stream = cupy.cuda.Stream(non_blocking=True)
    stream.wait_event(outer.record())
    pool = cupy.cuda.MemoryPool()
    graph = None
    try:
        with cupy.cuda.using_allocator(pool.malloc), stream:
            try:
                _local.arena = e.arena = Arena()
                stream.begin_capture()
                try:
                    fn(*args)
                finally:
                    graph = stream.end_capture()
            finally:
                _local.arena = None
        if not intact():
            raise RuntimeError("the captured work replaced one of the buffers it was given")
    except Exception as exc:  # noqa: BLE001 - anything the capture cannot take: run eagerly
        e.failed = f"{type(exc).__name__}: {exc}"
        e.arena = graph = None
        pool.free_all_blocks()
        return "failed"
    e.graph, e.pool, e.stream = graph, pool, stream
    forget_gpu_memory_reading()  # the capture's own pool took device memory
    graph.launch(outer)
    return "captured"
