"""Out-of-core dense APSP: the n×n result in host memory, tiles streamed to the device.

Katz & Kider's blocked Floyd-Warshall (their §4.4 "pages") over a g × g grid of
b × b tiles of D (and of the predecessors P) held in host memory: a NumPy array
(page-locked on the GPU path where it fits), or a caller's array such as a
``numpy.memmap``. Round k (k = 0 … g-1):

1. the pivot tile: D_kk ← D_kk* (``closure``);
2. the pivot row: D_kj ⊕= D_kk* ⊗ D_kj for every j ≠ k; these tiles stay on the
   device for the whole round;
3. block row by block row, from k+1 on: the column tile D_ik ⊕= D_ik ⊗ D_kk*, then
   every trailing tile D_ij ⊕= D_ik ⊗ D_kj, each loaded, updated and stored back.

Only the pivot row stays resident; the column tile is the first tile of each block
row's sweep, so it is read once per round like every other tile. Every step is a
``closure`` or ``mxm_accumulate`` on tiles (products need an idempotent add, as
for the in-core methods: Buluç et al. §2.2).

The schedule is written once, here, against a small device interface (``load``,
``star``, ``acc``, ``store``, ``finish``, ``diagonal``, ``close``). On the CPU the
"device" is :class:`_CpuTiles`: each tile a ``Matrix`` copy in RAM, the working
set capped by ``memory_limit``. On the GPU it is
``kleene.backends.cuda.tile_stream.TileStream``: device buffers per slot and three CUDA
streams (host→device, products, device→host) ordered by events, so that the next
tile's copy in and the previous tile's copy out overlap the current product.
Stores may finish late (``finish``): the schedule finishes a pending store before
it reloads that slot or that host tile, and keeps at most one pending, on both
devices, so CI runs the GPU's ordering rules on the CPU.

Working set on the device, in tiles of b² entries of (s + 8·preds) bytes: the
g−1 pivot-row tiles, the pivot, 2 column tiles (one in use, one loading), 3
trailing tiles (loading, in the product, storing) and 2 tiles of the products'
temporaries: g + 7 tiles (3 when one tile holds everything).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from kleene.backends import MEMORY_SHARE, gpu_memory_free, host_memory_free, to_host
from kleene.core import Matrix
from kleene.engine import closure, mxm_accumulate, pinned_empty, tile_stream
from kleene.errors import DimensionMismatch, InvalidValue, NegativeCycleError, OutOfMemory
from kleene.progress import progress_for
from kleene.semiring import Semiring

from .apsp_memory import (
    OUT_OF_CORE,
    SLAB_ENTRIES,
    MemoryNeed,
    gib,
    out_of_core_extra,
    out_of_core_need,
)
from .dense_closure import FINAL_UNITS, INITIAL_UNITS, check_diagonal, repair, repair_units

MIN_TILE = 8  # smaller tiles: a memory_limit too small to be useful (an InvalidValue)
_ALIGN = 128  # tiles of 1024 and more are rounded up to the GPU products' 128-row blocks
_COLUMN_SLOTS = 2  # the column tile in use and the next one loading
_TRAILING_SLOTS = 3  # loading, in the product, storing
# the products' temporaries: an aliased operand's copy (values and predecessors) on
# the GPU, up to 1.7 tiles in the CPU kernels (closure, aliased products with
# predecessors) and the copy a CPU store makes (measured with tracemalloc)
_TEMP_SLOTS = 2
GPU_RESERVE = 16 << 20  # device bytes besides the tiles: flags, diagonals, pool rounding
CPU_SHARE = 0.4  # of the free host memory for the CPU's working set (the result needs room too)
PIN_SHARE = 0.25  # page-lock a result of the GPU path only up to this share of free host memory
_FILL_CHUNK = SLAB_ENTRIES  # entries a host thread fills or copies at a time

PIVOT = "pivot"


@dataclass(frozen=True)
class Tiles:
    """The g × g grid of b × b tiles of an n × n matrix (the last row and column of
    tiles narrower when b does not divide n).

    Example
    -------
    >>> t = Tiles(10, 4)
    >>> t.count, t.span(2), t.size(2)
    (3, slice(8, 10, None), 2)
    """

    n: int
    b: int

    @property
    def count(self) -> int:
        return -(-self.n // self.b) if self.n else 0

    def span(self, i: int) -> slice:
        return slice(i * self.b, min(self.n, (i + 1) * self.b))

    def size(self, i: int) -> int:
        return min(self.n, (i + 1) * self.b) - i * self.b


def slots(g: int) -> int:
    """Tiles on the device at once for a g × g grid (see the module docstring).

    Example
    -------
    >>> slots(1), slots(8)
    (3, 15)
    """
    if g <= 1:
        return 1 + _TEMP_SLOTS
    return (g - 1) + 1 + _COLUMN_SLOTS + _TRAILING_SLOTS + _TEMP_SLOTS


def working_set_bytes(n: int, b: int, itemsize: int, preds: bool, reserve: int = 0) -> int:
    """Device bytes of the out-of-core closure of n vertices in b × b tiles.

    Example
    -------
    >>> working_set_bytes(1000, 250, 8, False)  # 4 tiles a side: 3 row tiles + 8
    5500000
    """
    per = itemsize + (8 if preds else 0)
    g = -(-n // b)
    return slots(g) * b * b * per + reserve


def choose_tile(n: int, itemsize: int, preds: bool, limit: int, reserve: int = 0) -> int | None:
    """The tile side b for a working set of at most ``limit`` bytes, or None.

    The fewest tiles a side g whose balanced tiles (b = ⌈n/g⌉, rounded up to a
    multiple of 128 from 1024 on when that still fits and keeps g) fit: fewer
    rounds move fewer bytes (each round reads and writes every tile once). None
    when even tiles of ``MIN_TILE`` (or n, if smaller) do not fit.

    Example
    -------
    >>> choose_tile(1000, 8, False, 10**9), choose_tile(1000, 8, False, 5_500_000)
    (1000, 250)
    """
    if n == 0:
        return 0
    floor = min(n, MIN_TILE)
    for g in range(1, n + 1):
        b = -(-n // g)
        if b <= floor:  # the last candidate: the smallest tiles
            fits = working_set_bytes(n, floor, itemsize, preds, reserve) <= limit
            return floor if fits else None
        if -(-n // b) != g:  # (several g give this b: the smallest came first)
            continue
        aligned = -(-b // _ALIGN) * _ALIGN
        if b >= 1024 and aligned < n and -(-n // aligned) == g:
            if working_set_bytes(n, aligned, itemsize, preds, reserve) <= limit:
                return aligned
        if working_set_bytes(n, b, itemsize, preds, reserve) <= limit:
            return b
    return None


def smallest_working_set(n: int, itemsize: int, preds: bool, reserve: int = 0) -> int:
    """Bytes of the smallest working set ``choose_tile`` accepts (tiles of MIN_TILE).

    Example
    -------
    >>> smallest_working_set(50, 8, False)  # 7 tiles a side of 8 × 8
    7168
    """
    return working_set_bytes(n, min(n, MIN_TILE), itemsize, preds, reserve) if n else 0


def device_limit(limit: int | None, gpu: bool) -> int:
    """The working-set cap: ``memory_limit`` (on the GPU at most ``MEMORY_SHARE`` of the
    free GPU memory), or without one that share of the free GPU memory / ``CPU_SHARE``
    of the free host memory."""
    if gpu:
        free = int(MEMORY_SHARE * gpu_memory_free())
        return free if limit is None else min(limit, free)
    return int(CPU_SHARE * host_memory_free()) if limit is None else limit


# ---- the caller's out= ----------------------------------------------------------


def check_out(out, n: int, dtype, preds: bool):
    """(dist_out, pred_out), each None or a checked writable (n, n) host array.

    ``out`` is None, an array for the distances, or with ``return_predecessors`` a
    pair (distances, predecessors), either None. Checked before anything is written.

    Example
    -------
    >>> d = np.empty((4, 4))
    >>> check_out((d, None), 4, np.float64, True)[0] is d
    True
    """
    if out is None:
        return None, None
    if isinstance(out, tuple):
        if not preds:
            raise InvalidValue(
                "apsp: out=(dist, pred) is for return_predecessors=True; pass one array"
            )
        if len(out) != 2:
            raise InvalidValue(f"apsp: out must be an array or a pair (dist, pred), got {len(out)}")
        dist, pred = out
    else:
        dist, pred = out, None
    if dist is not None:
        _check_array("out", dist, n, np.dtype(dtype))
    if pred is not None:
        _check_array("out (predecessors)", pred, n, np.dtype(np.int64))
    if dist is not None and pred is not None and np.may_share_memory(dist, pred):
        raise InvalidValue("apsp: the distance and predecessor outputs share memory")
    return dist, pred


def _check_array(name: str, a, n: int, dtype: np.dtype) -> None:
    if not isinstance(a, np.ndarray):
        raise InvalidValue(
            f"apsp: {name} must be a NumPy array in host memory (numpy.empty, numpy.memmap, "
            f"cupyx.empty_pinned), got {type(a).__module__}.{type(a).__name__}"
        )
    if a.shape != (n, n):
        raise DimensionMismatch(f"apsp: {name} has shape {a.shape}, the result is ({n}, {n})")
    if a.dtype != dtype:
        raise InvalidValue(
            f"apsp: {name} has dtype {a.dtype}, the result has dtype {dtype} (the closure "
            "runs in place in the result's dtype)"
        )
    if not a.flags.writeable:
        raise InvalidValue(f"apsp: {name} is read-only (a numpy.memmap needs mode 'w+' or 'r+')")
    if not a.flags.c_contiguous:
        raise InvalidValue(f"apsp: {name} must be C-contiguous (row-major), as numpy.empty gives")


# ---- host memory ---------------------------------------------------------------


def host_empty(n: int, dtype, pin: bool) -> np.ndarray:
    """An (n, n) host array for a result: page-locked if ``pin`` (the GPU then copies
    tiles straight from and to it) and the pinning succeeds, else ordinary memory (the
    GPU copies through pinned staging buffers)."""
    dtype = np.dtype(dtype)
    if pin and n:
        pinned = pinned_empty((n, n), dtype)
        if pinned is not None:
            return pinned
    return np.empty((n, n), dtype=dtype)


_POOL: ThreadPoolExecutor | None = None


def _threads() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def _by_rows(fn, a: np.ndarray) -> None:
    """``fn(rows)`` over slabs of a's rows, on a few threads when a is large (NumPy
    releases the GIL for fills and copies)."""
    global _POOL
    n = a.shape[0]
    rows = max(1, _FILL_CHUNK // max(1, a[0].size if n else 1))
    slabs = [slice(lo, min(n, lo + rows)) for lo in range(0, n, rows)]
    if len(slabs) < 2 or _threads() < 2:
        for s in slabs:
            fn(s)
        return
    if _POOL is None:
        _POOL = ThreadPoolExecutor(_threads(), thread_name_prefix="kleene-host")
    list(_POOL.map(fn, slabs))


# ---- the initial D and P, written into host memory -----------------------------


def build(A: Matrix, sr: Semiring, D: np.ndarray, P: np.ndarray | None) -> None:
    """D = the edge values (the semiring's zero where no edge), diagonal ⊕= one; P(i, j) = i
    for every edge i → j (i ≠ j), -1 elsewhere: what the in-core
    ``dense_closure.initial`` builds.

    A dense graph is copied a slab of rows at a time (each slab's ``to_dense`` with the
    zero where no edge, straight into D's rows), never turned into n² coordinates; a
    sparse one is scattered into a D filled with the zero."""
    n = A.nrows
    zero, one = sr.zero_for(D.dtype), sr.one_for(D.dtype)
    if P is not None:
        _by_rows(lambda r: P[r].fill(-1), P)
    if A.format == "dense":

        def slab(r: slice) -> None:
            part = A.block(r, slice(None))
            if A.xp is np and D.dtype == A.dtype:  # one copy, straight into D's rows
                part.to_dense(missing=zero, out=D[r])
            else:
                _copy_into(D[r], part.to_dense(missing=zero))
            if P is not None:  # the tails of the slab's edges
                rows, cols, _ = part.to_coo()
                _scatter(None, P, r.start, rows, cols, None)

        if A.xp is np:  # host memory: a few threads (NumPy's copies release the GIL)
            _by_rows(slab, D)
        else:  # the device's slabs one after another, each copied straight into D
            step = max(1, _FILL_CHUNK // max(n, 1))
            for lo in range(0, n, step):
                slab(slice(lo, min(n, lo + step)))
    else:
        _by_rows(lambda r: D[r].fill(zero), D)
        _scatter(D, P, 0, *A.to_coo())
    idx = np.arange(n)
    D[idx, idx] = sr.add.op(D[idx, idx], D.dtype.type(one))


def _copy_into(dst: np.ndarray, src) -> None:
    """dst[...] = src, a host or device array of dst's shape (a device one copied
    straight into dst, with no host array in between)."""
    if isinstance(src, np.ndarray):
        np.copyto(dst, src, casting="unsafe")
    elif src.dtype == dst.dtype and dst.flags.c_contiguous:
        src.get(out=dst)
    else:
        np.copyto(dst, to_host(src), casting="unsafe")


def _scatter(D, P, row0: int, rows, cols, vals) -> None:
    rows, cols = to_host(rows).astype(np.int64) + row0, to_host(cols).astype(np.int64)
    if D is not None:
        D[rows, cols] = to_host(vals)
    if P is not None:
        off = rows != cols
        P[rows[off], cols[off]] = rows[off]


# ---- the schedule -----------------------------------------------------------------


class _Stores:
    """Stores a device has not finished, oldest first (at most ``lag``).

    A store's host side may finish late (the GPU's staged copies finish after the
    next product is queued); it must finish before its slot is loaded again or its
    host tile is read again.
    """

    def __init__(self, dev, lag: int = 1):
        self.dev, self.lag, self.queue = dev, lag, deque()

    def add(self, slot, key, handle) -> None:
        self.queue.append((slot, key, handle))
        while len(self.queue) > self.lag:
            self.dev.finish(self.queue.popleft()[2])

    def settle(self, slot, key) -> None:
        """Finish every store up to the last one into ``slot`` or from host tile ``key``."""
        last = -1
        for i, (s, k, _) in enumerate(self.queue):
            if s == slot or k == key:
                last = i
        for _ in range(last + 1):
            self.dev.finish(self.queue.popleft()[2])

    def drain(self) -> None:
        while self.queue:
            self.dev.finish(self.queue.popleft()[2])


def stream_closure(
    dev, D: np.ndarray, P: np.ndarray | None, tiles: Tiles, sr: Semiring, bar
) -> None:
    """D ← D* (and P with it) in place, tile by tile through ``dev``; ``bar`` counts the
    n³ multiply-adds. Raises NegativeCycleError as soon as a pivot tile's closure
    shows a cycle better than the empty path (checked one round late, so the host
    never waits for the device mid-round), after storing what is pending: D then
    holds a partial closure (every entry the value of some walk, or the zero) whose
    diagonal shows the cycle at the vertex the message names."""
    g = tiles.count
    stores = _Stores(dev)

    def view(i: int, j: int):
        r, c = tiles.span(i), tiles.span(j)
        return D[r, c], None if P is None else P[r, c]

    def load(slot, i: int, j: int) -> None:
        stores.settle(slot, (i, j))
        dev.load(slot, (i, j), *view(i, j))

    def store(slot, i: int, j: int) -> None:
        stores.add(slot, (i, j), dev.store(slot, (i, j), *view(i, j)))

    pending = None  # (first vertex, diagonal getter) of the last pivot tile

    def check() -> None:
        try:
            check_diagonal(pending[1](), sr, pending[0])
        except NegativeCycleError:
            stores.drain()  # the host then shows the cycle: the pivot tile is stored
            raise

    ring = 0
    for k in range(g):
        if pending is not None:
            check()
        hk = tiles.size(k)
        load(PIVOT, k, k)
        dev.star(PIVOT)
        pending = (k * tiles.b, dev.diagonal(PIVOT))
        store(PIVOT, k, k)
        bar.step(hk**3)
        # row k+1 first: its tiles are the next round's pivot and pivot row, long
        # stored when that round loads them
        others = [(k + d) % g for d in range(1, g)]
        rows = {j: ("row", t) for t, j in enumerate(others)}  # g-1 slots, reused every round
        for j in others:
            row = rows[j]
            load(row, k, j)
            dev.acc(PIVOT, row, row)
            store(row, k, j)
            bar.step(hk * hk * tiles.size(j))
        for t, i in enumerate(others):
            col, hi = ("col", t % _COLUMN_SLOTS), tiles.size(i)
            load(col, i, k)
            dev.acc(col, PIVOT, col)
            store(col, i, k)
            bar.step(hi * hk * hk)
            for j in others:
                rest = ("rest", ring % _TRAILING_SLOTS)
                ring += 1
                load(rest, i, j)
                dev.acc(col, rows[j], rest)
                store(rest, i, j)
                bar.step(hi * hk * tiles.size(j))
    stores.drain()
    if pending is not None:
        check()


class _CpuTiles:
    """The CPU "device": each slot a ``Matrix`` copy of its tile (the working set in
    RAM), updated by ``closure`` / ``mxm_accumulate``; stores finish late like the
    GPU's staged copies."""

    def __init__(self, sr: Semiring):
        self.sr = sr
        self.d: dict = {}
        self.p: dict = {}

    def load(self, slot, key, dv, pv) -> None:
        self.d[slot] = None  # free the old tile before the copy: the working set stays capped
        self.d[slot] = Matrix.from_dense(dv, missing=None)
        if pv is not None:
            self.p[slot] = None
            self.p[slot] = Matrix.from_dense(pv, missing=None)

    def star(self, slot) -> None:
        closure(self.d[slot], self.sr, out=self.d[slot], pred=self.p.get(slot))

    def acc(self, a, b, c) -> None:
        mxm_accumulate(
            self.d[a], self.d[b], self.d[c], self.sr, pred_b=self.p.get(b), pred_c=self.p.get(c)
        )

    def store(self, slot, key, dv, pv):
        return self.d[slot], self.p.get(slot), dv, pv

    def finish(self, handle) -> None:
        d, p, dv, pv = handle
        np.copyto(dv, d.to_dense())
        if pv is not None:
            np.copyto(pv, p.to_dense())

    def diagonal(self, slot):
        diag = np.diagonal(self.d[slot].to_dense()).copy()
        return lambda: diag

    def close(self) -> None:
        self.d.clear()
        self.p.clear()


def solve(
    A: Matrix,
    sr: Semiring,
    preds: bool,
    tile: int,
    D: np.ndarray | None,
    P: np.ndarray | None,
    bar,
    gpu: bool | None = None,
):
    """The closure of ``A`` out of core: (dist, pred or None) host arrays.

    ``gpu``: stream the tiles through the GPU (None: where A lives); a host graph is
    then read where it is, into host memory, and never copied to the device whole.

    D and P are the caller's (checked) outputs or None (allocated here); ``tile``
    comes from :func:`choose_tile`. ``bar`` counts the build (INITIAL_UNITS·n²)
    and the n³ multiply-adds. On an error after the build started, D and P hold
    partial values (neither the graph nor its closure).
    """
    n = A.nrows
    gpu = A.xp is not np if gpu is None else gpu
    # Page-locked results (direct DMA) only where they leave most of the host memory free
    new = (D is None) * bytes_per_pair(A.dtype, False) + (preds and P is None) * 8
    pin = gpu and new * n * n <= PIN_SHARE * host_memory_free()
    if D is None:
        D = host_empty(n, A.dtype, pin)
    if preds and P is None:
        P = host_empty(n, np.int64, pin)
    if n == 0:
        return D, P
    build(A, sr, D, P)
    bar.step(INITIAL_UNITS * n * n)
    if gpu:
        dev = tile_stream(sr, D.dtype, tile, preds, (D, P))
    else:
        dev = _CpuTiles(sr)
    try:
        stream_closure(dev, D, P, Tiles(n, tile), sr, bar)
    finally:
        dev.close()  # nothing is in flight into D or P after this
    check_diagonal(np.diagonal(D).copy(), sr)  # later rounds improve earlier pivots
    return D, P


def work(n: int) -> int:
    """Multiply-adds of the tiled closure: n³ whatever the tiles (Σ_k b_k·n²).

    Example
    -------
    >>> work(10)
    1000
    """
    return n**3


def bytes_per_pair(dtype, preds: bool) -> int:
    """Host bytes a pair of the result (and its predecessors).

    Example
    -------
    >>> bytes_per_pair(np.float32, True)
    12
    """
    return np.dtype(dtype).itemsize + (8 if preds else 0)


# ---- apsp's out-of-core route ----------------------------------------------------


def run(
    A: Matrix, sr: Semiring, preds: bool, limit: int | None, out, progress, gpu: bool | None = None
):
    """``kleene.apsp``'s out-of-core route: plan the tiles and the host memory, then
    :func:`solve`; the cycle check and the predecessor repair as in core. ``gpu``: the
    tiles go through the GPU (None: where A lives; True for a host graph: the graph
    stays in host memory)."""
    n = A.nrows
    gpu = A.xp is not np if gpu is None else gpu
    dist_out, pred_out = check_out(out, n, A.dtype, preds)
    cap = device_limit(limit, gpu)
    reserve = GPU_RESERVE if gpu else 0
    itemsize = np.dtype(A.dtype).itemsize
    tile = choose_tile(n, itemsize, preds, cap, reserve)
    if tile is None:
        least = smallest_working_set(n, itemsize, preds, reserve)
        side = min(n, MIN_TILE)
        where = "GPU memory" if gpu else "host memory"
        if limit is not None and limit <= cap:
            raise InvalidValue(
                f"apsp: memory_limit={limit:,} bytes is too small for the out-of-core closure "
                f"of n={n}: its smallest working set (tiles of {side}×{side}"
                f"{' with predecessors' if preds else ''}, in {where}) needs {least:,} bytes"
            )
        raise OutOfMemory(
            f"apsp: the out-of-core closure of n={n} needs at least {gib(least)} of {where} "
            f"for its tiles; {gib(cap)} is available"
        )
    need = out_of_core_need(
        n, A.dtype, preds, dist_out is None, preds and pred_out is None, out_of_core_extra(A, gpu)
    )
    if need.per_pair and not need.fits():
        raise OutOfMemory(
            f"apsp: {need.describe()}; pass out=numpy.memmap(...) (and for predecessors "
            "out=(dist, pred) with two) to keep the result in a file"
        )
    total = (INITIAL_UNITS + FINAL_UNITS) * n * n + work(n) + repair_units(n, preds)
    at = f"tiles of {tile}×{tile}, at most {gib(cap)} on the {'GPU' if gpu else 'CPU'}"
    with _memory_errors(need, at), progress_for(progress, total, f"apsp {OUT_OF_CORE}") as bar:
        dist, pred = solve(A, sr, preds, tile, dist_out, pred_out, bar, gpu)
        bar.step(FINAL_UNITS * n * n)
        if not preds:
            return dist
        # the check's slabs (about 64 bytes an entry on the device) within the cap too
        return dist, repair(A, sr, dist, pred, max(n, cap // 64))  # the rest: finish()


@contextmanager
def _memory_errors(need: MemoryNeed, tiles: str) -> Iterator[None]:
    """An allocation failing out of core says where: the device's tiles, or host memory."""
    try:
        yield
    except MemoryError as e:
        if type(e).__module__.startswith("cupy"):
            raise OutOfMemory(
                f"apsp: out of GPU memory in the out-of-core closure ({tiles}): {e}; a smaller "
                "memory_limit leaves more room to others"
            ) from e
        host = need.describe() if need.per_pair else f"{gib(need.free)} was free"
        raise OutOfMemory(f"apsp: ran out of host memory out of core: {host}") from e
