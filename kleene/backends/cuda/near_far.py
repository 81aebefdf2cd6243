"""Fused delta-stepping for one source on the GPU: the near-far pile in one cooperative
launch (kernels/near_far.cu), and the one-pass shortest-path tree beside it.

``delta_stepping`` is the CUDA back end's primitive behind
``kleene.engine.frontier_delta_stepping`` (the composed twin: buckets of ``relax`` in
``frontier.py``). Every round is one pass over the near frontier's edges, all rounds and
the far-pile splits in one launch (a grid barrier between rounds), and a warp relaxes the
low-degree vertices it improves itself, ``CHASE`` levels deep from each frontier vertex,
instead of waiting a round for each (module docstring of the kernel). Where the device
refuses a cooperative launch, Bellman-Ford's per-round kernels run (same distances).
Predecessors are one more pass over the edges, queued behind the search (a small part of
it on road graphs); over the in-edges, each read up to its first tight one, where the
caller has Aᵀ (the cached transpose, or A itself when symmetric).
"""

from __future__ import annotations

import cupy
import numpy as np

from kleene.backends.strict_sums import strict_sums
from kleene.errors import InvalidValue

from . import jit
from .frontier import (
    _THREADS,
    _cooperative,
    _function,
    _heavy_threshold,
    _row_lists,
    _run_work,
    bellman_ford,
)

# Levels a warp relaxes what it improves itself, from each frontier vertex in a round (the
# kernel's `chase`): deeper chases save rounds on road graphs until a warp's own work
# outlasts the round; 3 to 4 levels were best on every graph swept.
CHASE = 3
# The default threshold step, in mean positive weights (kleene.engine.frontier_delta_stepping):
# each step costs two grid barriers, so wider than the CPU's one mean weight.
DELTA_SCALE = 8.0
_NO_PARENT = np.iinfo(np.int32).max
_KIND = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}


def delta_stepping(
    indptr,
    indices,
    weights,
    n: int,
    source: int,
    delta: float,
    *,
    bounds=None,
    parents: bool = False,
    in_edges=None,
):
    """Shortest distances (float64, inf unreachable) from ``source``, near-far with
    threshold steps of ``delta`` (finite, > 0); weights non-negative (ValueError).

    ``bounds``: the weights' (least, greatest) where the caller knows them.
    ``parents``: also return each vertex's smallest-numbered tight in-neighbour
    (int64, -1 for none: ``tight_parents``, launched right behind the search); only a
    shortest-path tree where sums grow strictly along edges (``strict_sums``), so
    ValueError otherwise. ``in_edges``: Aᵀ's CSR (indptr, indices, weights; rows sorted)
    where the caller has it, so the parent pass reads in-edges (``tight_parents``).
    """
    n, source = int(n), int(source)
    ptr, idx = jit.contiguous(indptr, np.int64), jit.contiguous(indices, np.int32)
    w = jit.contiguous(weights)
    if w.dtype not in _KIND:
        w = w.astype(np.float64)
    if w.shape != idx.shape:
        raise InvalidValue("delta_stepping: weights must have one value per stored edge")
    if not 0 <= source < n:
        raise IndexError(f"delta_stepping: source {source} is out of range for {n} vertices")
    delta = float(delta)
    if not (np.isfinite(delta) and delta > 0):
        raise InvalidValue(f"delta_stepping: delta must be a finite number > 0, got {delta!r}")
    if bounds is None:
        bounds = (float(w.min()), float(w.max())) if w.size else (0.0, 0.0)
    least, most = float(bounds[0]), float(bounds[1])
    if not least >= 0:  # NaN too
        raise InvalidValue("delta_stepping: weights must be non-negative")
    if parents and not strict_sums(least, most, n):
        raise InvalidValue(
            "delta_stepping: parents need weights that grow every sum "
            "(strict_sums); use shortest_path_tree"
        )
    nnz = int(idx.size)
    heavy = _heavy_threshold(nnz)
    dist = cupy.full(n, np.inf, dtype=np.float64)
    stamp = cupy.full(2 * n, -1, dtype=np.int32)  # near stamps | far stamps
    qa, qb = cupy.empty(max(n, 1), dtype=np.int32), cupy.empty(max(n, 1), dtype=np.int32)
    ra, rb = _row_lists(n)
    fa, fb = cupy.empty(max(n, 1), dtype=np.int32), cupy.empty(max(n, 1), dtype=np.int32)
    hcap = max(1, min(n, nnz // (heavy + 1) + 1))
    hva, hvb = cupy.empty(hcap, dtype=np.int32), cupy.empty(hcap, dtype=np.int32)
    hoa, hob = cupy.empty(hcap, dtype=np.int64), cupy.empty(hcap, dtype=np.int64)
    work, counts, state, bar, hcounts, edges = _run_work()
    fcounts, least_bits = state[2:4], work[11:13].view(np.int64)  # state[0:2]: the report
    _function(False, "kl_nf_init")(
        (1,),
        (1,),
        (ptr, np.int32(source), np.int64(heavy), dist, qa, ra, hva, hoa, hcounts[0:1], least_bits),
    )
    args = (
        ptr,
        idx,
        w,
        np.int32(n),
        np.int64(heavy),
        np.float64(delta),
        np.int32(CHASE),
        dist,
        stamp[:n],
        stamp[n:],
        qa,
        qb,
        ra,
        rb,
        hva,
        hvb,
        hoa,
        hob,
        fa,
        fb,
        counts,
        fcounts,
        hcounts,
        edges,
        least_bits,
        bar,
        state,
    )
    if not _cooperative(f"kl_nf_run<{_KIND[w.dtype]}>", args):
        dist, _ = bellman_ford(ptr, idx, w, n, source, nonnegative=True)
    if not parents:
        return dist
    # queued behind the search: no host wait
    return dist, tight_parents(ptr, idx, w, dist, in_edges=in_edges)


def tight_parents(indptr, indices, weights, dist, *, in_edges=None):
    """Each vertex's smallest-numbered tight in-neighbour u (dist[u] + w(u, v) ==
    dist[v] in float64, u != v, u reached), int64, -1 for none.

    One pass over the out-edges (indptr, indices, weights), offering each tight one to
    its head by atomicMin; or, given ``in_edges`` (Aᵀ's CSR with rows sorted by
    source: the cached transpose, or A's own CSR when A is symmetric), each vertex's
    in-edges read in order up to its first tight one (about half the reads on RMAT-22).
    Same answer either way.
    """
    d = jit.contiguous(dist, np.float64)
    n = int(d.size)
    pull = in_edges is not None
    ptr, idx, w = in_edges if pull else (indptr, indices, weights)
    ptr, idx = jit.contiguous(ptr, np.int64), jit.contiguous(idx, np.int32)
    w = jit.contiguous(w)
    if w.dtype not in _KIND:
        w = w.astype(np.float64)
    if ptr.shape != (n + 1,) or w.shape != idx.shape:
        raise InvalidValue("tight_parents: the edges are not a CSR of len(dist) rows")
    par = cupy.full(max(n, 1), _NO_PARENT, dtype=np.int32)
    big, hv, ho = _parent_lists(n, int(idx.size))
    count = cupy.zeros(1, dtype=np.uint64)
    spec = f"{_KIND[w.dtype]}, {'true' if pull else 'false'}"
    blocks = jit.blocks_for(4 * n, _THREADS, cap=jit.sm_count(jit.device_id()) * 8)  # 4 lanes each
    _function(False, f"kl_tp_light_kernel<{spec}>")(
        (blocks,), (_THREADS,), (ptr, idx, w, np.int32(n), np.int64(big), d, par, hv, ho, count)
    )
    _function(False, f"kl_tp_heavy_kernel<{spec}>")(
        (jit.sm_count(jit.device_id()) * 8,), (_THREADS,), (ptr, idx, w, d, par, hv, ho, count)
    )
    return _parents_out(par[:n])


def _parent_lists(n: int, nnz: int):
    """The parent pass's out-degree split (a warp per vertex up to it, and 4 lanes per
    vertex up to 32; above it the edges spread over the grid, found by a binary search
    of the heavy list, so only hubs go there) and its heavy list (vertex, edge offset;
    the packed counter holds 2**24 vertices)."""
    big = max(4096, nnz >> 24)
    cap = max(1, min(n, nnz // (big + 1) + 1))
    return big, cupy.empty(cap, dtype=np.int32), cupy.empty(cap, dtype=np.int64)


def _parents_out(par):
    out = par.astype(np.int64)
    out[out == _NO_PARENT] = -1
    return out
