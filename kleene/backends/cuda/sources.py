"""Fused multi-source shortest paths on the GPU (kernels/sssp_rows.cu): ``sssp_rows``.

The CUDA back end's hook behind ``kleene.engine.multi_source_sssp`` (the CPU's is a
search per source, ``cpu/sources.py``). Sources go in groups of up to 64, one bit
of a per-vertex frontier word each, with the group's distances vertex-major so the
sources of one vertex share cache lines; frontier Bellman-Ford relaxes every
(edge, set bit) pair of the frontier per round, all rounds in one cooperative launch
(one launch per round where the device refuses a cooperative one). Groups that fit
in memory together run in the same launch as disjoint copies of the graph: sparse
APSP on a few thousand vertices is one launch, not one per group.

Distances are the least float sum over paths (a monotone fixed point), so they equal
the composed form's and the CPU Dijkstra's exactly and do not depend on scheduling.
Predecessors come from a second pass: per source a BFS over the tight edges
(``dist[u] + w == dist[v]``, u != v), each vertex's parent the smallest-numbered one
one level up — the composed form's rule (``kleene.engine.sources._tree``), so they equal
its predecessors, and the chains reach the source across zero-weight cycles.
"""

from __future__ import annotations

import cupy
import numpy as np

from kleene.backends.device import gpu_memory_free
from kleene.errors import InvalidValue, OutOfMemory

from . import jit
from .codegen.sources import sources_spec

_THREADS = 256
# Resident blocks per SM for the whole-run kernels (the kernels' __launch_bounds__).
_RUN_BLOCKS_PER_SM = 2
_WORD = 64  # sources per group: the bits of a frontier word
# Out-degree above which a frontier vertex's edges go out in 32-edge chunks to any warp
# (one warp handles up to 64 * this many (edge, source) pairs of a light vertex).
_HEAVY = 64
# Share of the free GPU memory (after the results) one launch's scratch may take.
_SCRATCH_SHARE = 0.6
# Per group vertex besides the distances: 3 frontier words (8 B), 3 queues (4 B) and
# 2 heavy-list entries (4 + 8 B); plus a fixed allowance for counters and CuPy's pool.
_PER_GROUP_VERTEX = 3 * 8 + 3 * 4 + 2 * 12
_FIXED = 1 << 20
_NO_PARENT = np.iinfo(np.int32).max

# Devices where a cooperative launch failed: use the per-round kernels there.
_no_cooperative: set[int] = set()


def _function(cooperative: bool, name: str):
    return jit.function(sources_spec(cooperative), name)


def sssp_rows(indptr, indices, weights, sources, predecessors: bool = False, out=None):
    """Shortest distances from each of ``sources`` over a CSR graph, one row per source.

    ``indptr``/``indices``/``weights``: the graph's CSR on the GPU (int64 / int32 /
    float32, float64, integer or bool weights, converted once if need be); weights
    must be >= 0 (ValueError otherwise). ``sources``: 1-D ints (host or device;
    repeats allowed). Returns (dist float64 (k, n), inf where unreachable; pred int64
    (k, n), -1 for the source and unreachable vertices, or None unless
    ``predecessors``), CuPy arrays. ``out``: optional (dist, pred or None)
    C-contiguous CuPy arrays of those shapes and dtypes to write into and return
    (e.g. row blocks of a larger result). A MemoryError names the bytes needed and
    free when the results do not fit.
    """
    ptr, idx = jit.contiguous(indptr, np.int64), jit.contiguous(indices, np.int32)
    n = int(ptr.size) - 1
    if n < 0 or ptr.ndim != 1 or idx.ndim != 1 or (n and int(ptr[-1]) > idx.size):
        raise InvalidValue("sssp_rows: indptr/indices are not a CSR matrix")
    w = jit.contiguous(weights, np.float64)
    if w.shape != idx.shape:
        raise InvalidValue("sssp_rows: weights must have one value per stored edge")
    if w.size and not bool(w.min() >= 0):  # NaN fails this too
        raise InvalidValue("sssp_rows: weights must be non-negative (reweight first)")
    host = sources.get() if isinstance(sources, cupy.ndarray) else sources
    src = np.ascontiguousarray(host, dtype=np.int64).reshape(-1)
    if src.size and (int(src.min()) < 0 or int(src.max()) >= n):
        bad = src[(src < 0) | (src >= n)][0]
        raise IndexError(f"sssp_rows: source {bad} is out of range for {n} vertices")
    k = src.size
    preds = bool(predecessors)
    dist, pred = _outputs(out, k, n, preds)
    if k and n:
        _solve(ptr, idx, w, src, n, dist, pred)
    return dist, pred


def _outputs(out, k: int, n: int, preds: bool):
    """(dist, pred or None): ``out``'s arrays checked, or new ones (MemoryError that
    says how many bytes they need and how many are free when they do not fit)."""
    if out is not None:
        dist, pred = out
        wants = [(dist, np.float64)] + ([(pred, np.int64)] if preds else [])
        for a, dtype in wants:
            if not (
                isinstance(a, cupy.ndarray)
                and a.shape == (k, n)
                and a.dtype == dtype
                and a.flags.c_contiguous
            ):
                raise InvalidValue(
                    f"sssp_rows: out arrays must be C-contiguous CuPy "
                    f"({k}, {n}) float64 / int64 arrays"
                )
        return dist, (pred if preds else None)
    need = k * n * (16 if preds else 8)
    free = gpu_memory_free()
    least = _scratch_bytes(1, n, 1, preds)  # the smallest launch besides the results
    what = f"sssp_rows: {k} x {n} distances" + (" and predecessors" if preds else "")
    if need + least > free:
        raise OutOfMemory(
            f"{what} need {need:,} bytes of GPU memory (plus {least:,} of scratch); "
            f"{free:,} bytes are free: fewer sources at a time fit"
        )
    try:
        dist = cupy.empty((k, n), dtype=np.float64)
        return dist, (cupy.empty((k, n), dtype=np.int64) if preds else None)
    except cupy.cuda.memory.OutOfMemoryError as e:
        raise OutOfMemory(f"{what} need {need:,} bytes of GPU memory; {free:,} were free") from e


def _scratch_bytes(groups: int, n: int, per_group: int, preds: bool) -> int:
    """Device scratch of a launch of ``groups`` groups of ``per_group`` sources."""
    per_source = n * (16 if preds else 8)  # distances (+ levels and parents), vertex-major
    return groups * (per_group * per_source + n * _PER_GROUP_VERTEX) + _FIXED


def _layout(k: int, n: int, preds: bool) -> tuple[int, int]:
    """(log2 of the sources per group, sources per launch), the launch as large as
    the free memory allows (a multiple of the group), at most k."""
    if k <= _WORD:
        lb = max(0, (k - 1).bit_length())
        return lb, k
    free = gpu_memory_free()
    groups = int((_SCRATCH_SHARE * free - _FIXED) // (_scratch_bytes(1, n, _WORD, preds) - _FIXED))
    # Virtual vertex ids are int32; the output kernel's grid has at most 65535 rows of 32.
    limit = min((2**31 - 1) // max(n, 1), 65535 * 32 // _WORD)
    groups = max(1, min(groups, limit, -(-k // _WORD)))
    return 6, min(k, groups * _WORD)


class _Scratch:
    """Device arrays of one launch size, reused by every launch of a call."""

    def __init__(self, n: int, nnz: int, lb: int, chunk: int, preds: bool):
        groups = -(-chunk // (1 << lb))
        need = _scratch_bytes(groups, n, 1 << lb, preds)
        free = gpu_memory_free()
        if need > free:
            raise OutOfMemory(
                f"sssp_rows: a launch of {chunk} sources on {n} vertices needs {need:,} "
                f"bytes of GPU scratch; {free:,} bytes are free"
            )
        nv = groups * n
        self.nv_max = nv
        # Heavy slots: the packed counter holds up to 2^24 of them per round.
        self.heavy = max(_HEAVY, (groups * nnz) >> 23)
        self.hcap = max(1, min(nv, groups * (nnz // (self.heavy + 1) + 1)))
        slots = nv << lb
        self.dist = cupy.empty(slots, dtype=np.float64)
        self.level = cupy.empty(slots if preds else 1, dtype=np.int32)
        self.parent = cupy.empty(slots if preds else 1, dtype=np.int32)
        self.words = cupy.zeros(3 * nv, dtype=np.uint64)
        self.queues = cupy.empty(3 * nv, dtype=np.int32)
        self.hv = cupy.empty(2 * self.hcap, dtype=np.int32)
        self.ho = cupy.empty(2 * self.hcap, dtype=np.int64)
        # counts (3 int32) | pad | barrier (2 uint32) | state (2 int32) | hcounts (3 uint64)
        self.work = cupy.zeros(8, dtype=np.uint64)
        w32 = self.work.view(np.int32)
        self.counts, self.bar = w32[0:3], w32[4:6].view(np.uint32)
        self.state, self.hcounts = w32[6:8], self.work[4:7]


def _solve(ptr, idx, w, src: np.ndarray, n: int, dist, pred) -> None:
    """All rows, one launch (or one launch per round) per chunk of sources."""
    preds = pred is not None
    k = src.size
    lb, chunk = _layout(k, n, preds)
    s = _Scratch(n, int(idx.size), lb, chunk, preds)
    dummy = s.level  # a one-entry int32 array where MODE 0 needs none
    for lo in range(0, k, chunk):
        hi = min(k, lo + chunk)
        kc = hi - lo
        nv = -(-kc // (1 << lb)) * n
        dev_src = cupy.asarray(src[lo:hi])
        _search(0, ptr, idx, w, n, nv, lb, s, dev_src, kc)
        if preds:
            _search(1, ptr, idx, w, n, nv, lb, s, dev_src, kc)
        name = f"kl_msp_out<{'true' if preds else 'false'}>"
        grid = (-(-n // 32), -(-kc // 32))
        _function(False, name)(
            grid,
            (32, 8),
            (
                s.dist,
                s.parent if preds else dummy,
                np.int32(n),
                np.int32(lb),
                np.int32(kc),
                dist[lo:hi],
                pred[lo:hi] if preds else s.work,
            ),
        )


def _search(mode: int, ptr, idx, w, n, nv, lb, s: _Scratch, dev_src, kc: int) -> None:
    """One pass over a chunk: distances (mode 0) or the tight-edge BFS (mode 1)."""
    slots = nv << lb
    if mode == 0:
        s.dist[:slots].fill(np.inf)
    else:
        s.level[:slots].fill(-1)
        s.parent[:slots].fill(_NO_PARENT)
    s.words[: 3 * nv].fill(0)
    s.work.fill(0)
    _function(False, f"kl_msp_init<{mode}>")(
        (jit.blocks_for(kc, _THREADS),),
        (_THREADS,),
        (
            dev_src,
            np.int32(kc),
            ptr,
            np.int32(n),
            np.int32(lb),
            np.int64(s.heavy),
            s.dist,
            s.level,
            s.words,
            s.queues,
            s.counts[0:1],
            s.hv,
            s.ho,
            s.hcounts[0:1],
        ),
    )
    common = (
        ptr,
        idx,
        w,
        np.int32(n),
        np.int32(nv),
        np.int32(lb),
        np.int64(s.heavy),
        s.dist,
        s.level,
        s.parent,
        s.words,
        s.queues,
        s.hv,
        s.ho,
        np.int64(s.hcap),
        s.counts,
        s.hcounts,
    )
    max_rounds = n + 1  # non-negative weights: round n improves nothing
    if _cooperative(f"kl_msp_run<{mode}>", (*common, s.bar, s.state, np.int32(max_rounds))):
        rounds, left = (int(x) for x in s.state.get())
    else:
        rounds, left = _by_round(mode, common, s, max_rounds)
    if left:
        raise RuntimeError(f"sssp_rows: no fixed point after {rounds} rounds (a kernel fault)")


def _cooperative(name: str, args) -> bool:
    """Launch ``name`` over the whole resident grid; False if the device refuses."""
    dev = jit.device_id()
    if dev in _no_cooperative:
        return False
    blocks = jit.sm_count(dev) * _RUN_BLOCKS_PER_SM
    try:
        _function(True, name)((blocks,), (_THREADS,), args)
    except cupy.cuda.driver.CUDADriverError:
        _no_cooperative.add(dev)
        return False
    return True


def _by_round(mode: int, common, s: _Scratch, max_rounds: int) -> tuple[int, int]:
    """The same rounds, one launch and one host read each (after kl_msp_init)."""
    n_prev, n_in = 0, int(s.counts[0].get())
    blocks = jit.sm_count(jit.device_id()) * 8
    rnd = 0
    while n_in and rnd < max_rounds:
        rnd += 1
        _function(False, f"kl_msp_step<{mode}>")(
            (blocks,), (_THREADS,), (*common, np.int32(rnd), np.int32(n_prev), np.int32(n_in))
        )
        n_prev, n_in = n_in, int(s.counts[rnd % 3].get())
    return rnd, n_in
