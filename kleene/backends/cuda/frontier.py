"""Fused frontier loops for BFS and Bellman-Ford (kernels/frontier.cu).

A BFS level is ``q = vxm(q, A, any_pair | min_first, mask=~levels.S, replace=True)``
then ``levels<q.S> = depth``; a Bellman-Ford round is ``t = vxm(q, A, min_plus)``,
``q = t<t < d>``, ``d<q.S> = q``. Composed from separate operations each costs
several launches and a host read per level, which dominates on road graphs with
hundreds of levels. Here each level is one pass over the frontier's edges, and
all levels run in one cooperative launch (a grid barrier between levels): one
host read per search. Where a cooperative launch is refused, the same level
kernels run one launch (and one read) per level, switching direction by the same
rule (:func:`kleene.backends.direction.next_direction`) on the same counts.
"""

from __future__ import annotations

import cupy
import numpy as np

from kleene.backends import direction
from kleene.errors import InvalidValue

from . import codegen, jit

_THREADS = 256
# Resident blocks per SM for the whole-run kernels: more warps hide gather latency,
# fewer make each level's barrier and bookkeeping cheaper. BFS on a graph of mean
# out-degree under _THIN_DEGREE (road networks: small frontiers, thousands of levels)
# runs one block per SM: there a level's barrier and bookkeeping cost more than the
# gathers that extra warps would hide, while dense graphs (RMAT, mean degree 30) need the
# warps.
_RUN_BLOCKS_PER_SM = 2
# kl_bfs_run on the other graphs: 4 blocks per SM (its launch bounds), the latency of its
# pull levels hidden by twice the warps now that its appends no longer contend.
_BFS_RUN_BLOCKS_PER_SM = 4
_THIN_DEGREE = 8
# Levels a round of the thin graphs' BFS takes (kl_bfs_rounds: a warp expands what it
# claims that many levels deep before the grid barrier).
ROUND_LEVELS = 4
_LEVEL_UNSET = np.iinfo(np.int32).max  # kl_bfs_rounds' levels start here
_METHOD = {"direction-optimizing": 0, "auto": 0, "push": 1, "pull": 2}
_NO_PARENT = np.iinfo(np.int32).max
# Frontier vertices with more out-edges than this are spread over the grid.
_HEAVY = 128

# Devices where a cooperative launch failed: use the per-level kernels there.
_no_cooperative: set[int] = set()


def _function(cooperative: bool, name: str):
    """A whole-run kernel (compiled for cooperative launches) or a one-level one."""
    return jit.function(codegen.frontier_spec(cooperative), name)


def _run_blocks(per_sm: int | None = None) -> int:
    return jit.sm_count(jit.device_id()) * (per_sm or _RUN_BLOCKS_PER_SM)


def _cooperative(name: str, args, per_sm: int | None = None) -> bool:
    """Launch ``name`` over the resident grid (``per_sm`` blocks per SM, default
    _RUN_BLOCKS_PER_SM); False if the device refuses. Another count per SM than the
    default (kl_bfs_run's 4 hold 82 KB of staging per SM) is retried at the default
    before the device is given up on, for SMs with less shared memory than Hopper's."""
    dev = jit.device_id()
    if dev in _no_cooperative:
        return False
    for blocks in dict.fromkeys((per_sm or _RUN_BLOCKS_PER_SM, _RUN_BLOCKS_PER_SM)):
        try:
            _function(True, name)((_run_blocks(blocks),), (_THREADS,), args)
            break
        except cupy.cuda.driver.CUDADriverError:
            continue
    else:
        _no_cooperative.add(dev)
        return False
    return True


def _step_blocks(items: int, per_item_threads: int) -> int:
    return jit.blocks_for(items * per_item_threads, _THREADS, cap=jit.sm_count(jit.device_id()) * 8)


def _run_work():
    """The whole-run kernels' counters, zeroed: (work, counts, state, bar, hcounts, edges).

    In one uint64 array: counts (3 int32) | state (4 int32: what the kernel reports, or
    a loop's own) | pad | a grid barrier (one u64 as 2 uint32) | hcounts (3 packed heavy
    counters) | edges (3) | work[11:16] free for a loop's own (near-far: least).
    """
    work = cupy.zeros(16, dtype=np.uint64)
    w32 = work.view(np.int32)
    return work, w32[0:3], w32[3:7], w32[8:10].view(np.uint32), work[5:8], work[8:11]


def _row_lists(n: int):
    """Two row lists beside the queues (kernels/frontier.cu ``kl_next.rows``): each
    frontier entry's CSR row bounds, 16 bytes an entry."""
    return cupy.empty(2 * max(n, 1), dtype=np.int64), cupy.empty(2 * max(n, 1), dtype=np.int64)


def _heavy_threshold(nnz: int) -> int:
    """Out-degree above which a frontier vertex's edges are spread over the grid.

    The heavy list's packed counter holds up to 2**24 vertices, so the threshold
    grows on graphs with more than 2**24 * 128 edges.
    """
    return max(_HEAVY, nnz >> 24)


def bfs_levels(
    indptr, indices, t_indptr, t_indices, n: int, source: int, parents: bool, method: str = "auto"
):
    """BFS levels (int64, -1 unreachable) and parents (int64, -1 none; None unless asked).

    ``t_indptr``/``t_indices`` are Aᵀ's CSR (A's own for a symmetric graph) for the
    pull levels. A vertex's parent is its smallest-numbered neighbour one level up
    (what the ``min_first`` product gives). "direction-optimizing" (= "auto")
    switches by Beamer's rule (:mod:`kleene.backends.direction`: pull once the frontier's
    out-edges exceed 1/TO_PULL of the edges still to check, push once the frontier
    is under n/TO_PUSH vertices and shrinking). Without parents, "auto" on a graph of
    mean out-degree under _THIN_DEGREE (a road network: never pulls) takes
    ROUND_LEVELS levels per grid barrier (``kl_bfs_rounds``, same levels).
    """
    if method not in _METHOD:
        raise InvalidValue(f"bfs_levels: method must be one of {tuple(_METHOD)}, got {method!r}")
    ptr, idx = jit.contiguous(indptr, np.int64), jit.contiguous(indices, np.int32)
    tptr, tidx = jit.contiguous(t_indptr, np.int64), jit.contiguous(t_indices, np.int32)
    nnz = int(idx.size)
    heavy = _heavy_threshold(nnz)
    thin = nnz < _THIN_DEGREE * n
    rounds = thin and not parents and method in ("auto", "direction-optimizing")
    levels = cupy.full(n, _LEVEL_UNSET if rounds else -1, dtype=np.int32)
    par = cupy.full(n if parents else 1, _NO_PARENT, dtype=np.int32)
    qa, qb = cupy.empty(max(n, 1), dtype=np.int32), cupy.empty(max(n, 1), dtype=np.int32)
    ra, rb = _row_lists(n)
    hcap = max(1, min(n, nnz // (heavy + 1) + 1))
    hva, hvb = cupy.empty(hcap, dtype=np.int32), cupy.empty(hcap, dtype=np.int32)
    hoa, hob = cupy.empty(hcap, dtype=np.int64), cupy.empty(hcap, dtype=np.int64)
    _, counts, state, bar, hcounts, edges = _run_work()
    _function(False, "kl_bfs_init")(
        (1,),
        (1,),
        (
            ptr,
            np.int32(source),
            np.int64(heavy),
            np.int32(parents),
            levels,
            par,
            qa,
            ra,
            counts[0:1],
            hva,
            hoa,
            hcounts[0:1],
            edges[0:1],
        ),
    )
    p = "true" if parents else "false"
    if rounds:
        name = "kl_bfs_rounds"
        stamp = cupy.zeros(n, dtype=np.int32)  # the round a vertex last went on the frontier
        args = (
            ptr,
            idx,
            np.int32(ROUND_LEVELS),
            np.int64(heavy),
            levels,
            stamp,
            qa,
            qb,
            ra,
            rb,
            hva,
            hvb,
            hoa,
            hob,
            counts,
            hcounts,
            edges,
            bar,
            state,
        )
    else:
        name = f"kl_bfs_run<{p}, {_METHOD[method]}>"
        args = (
            ptr,
            idx,
            tptr,
            tidx,
            np.int32(n),
            np.int64(nnz),
            np.int64(heavy),
            levels,
            par,
            qa,
            qb,
            ra,
            rb,
            hva,
            hvb,
            hoa,
            hob,
            counts,
            hcounts,
            edges,
            bar,
            state,
        )
    if not _cooperative(name, args, per_sm=1 if thin else _BFS_RUN_BLOCKS_PER_SM):
        if rounds:  # the per-level kernels claim by compare-and-swap on -1
            levels.fill(-1)
            levels[source] = 0
        _bfs_by_level(ptr, idx, tptr, tidx, n, source, levels, par, qa, qb, p, _METHOD[method])
    lv = levels.astype(np.int64)
    if rounds:
        lv[lv == _LEVEL_UNSET] = -1
    if not parents:
        return lv, None
    out = par.astype(np.int64)
    out[out == _NO_PARENT] = -1
    return lv, out


def _bfs_by_level(ptr, idx, tptr, tidx, n, source, levels, par, qa, qb, p, method) -> None:
    """The same search, one launch and one host read per level, after kl_bfs_init.

    Switches as kl_bfs_run does (:class:`kleene.backends.direction.Switch`): on the
    frontier's out-edges m_f against the edges still to check, and on its size.
    """
    # One 24-byte header written and read whole each level: count_in, count_out
    # (int32) | unused heavy counter | m_f of the level's output (uint64, kl_next.edges).
    work = cupy.zeros(3, dtype=np.uint64)
    w32 = work.view(np.int32)
    count_in, count_out, scratch = w32[0:1], w32[1:2], work[1:3]
    head = np.zeros(3, dtype=np.uint64)
    head32 = head.view(np.int32)  # the same layout on the host
    nnz = int(idx.size)
    beg, end = (int(x) for x in ptr[source : source + 2].get())
    nq, mf = 1, end - beg  # the source's level, as kl_bfs_init left it
    switch, pull, depth = direction.Switch(nnz, n), False, 0
    q_in, q_out = qa, qb
    while nq:
        depth += 1
        if method == 0:
            pull = switch.next(mf, nq)
        else:
            pull = method == 2
        head32[0] = nq  # count_in; count_out and both scratch words zero
        work.set(head)
        name = f"kl_bfs_step<{p}, {'true' if pull else 'false'}>"
        grid = _step_blocks(n, 1) if pull else _step_blocks(nq, 32)
        _function(False, name)(
            (grid,),
            (_THREADS,),
            (
                ptr,
                idx,
                tptr,
                tidx,
                np.int32(n),
                q_in,
                count_in,
                q_out,
                count_out,
                scratch,
                levels,
                par,
                np.int32(depth),
            ),
        )
        out = work.get()
        nq, mf = int(out[0:1].view(np.int32)[1]), int(out[2])
        q_in, q_out = q_out, q_in


def bellman_ford(indptr, indices, weights, n: int, source: int, nonnegative: bool = False):
    """Shortest distances (float64, inf unreachable) from ``source`` and whether a
    negative cycle is reachable (the n-th round still improved something).

    ``nonnegative``: the caller knows every weight is >= 0 (then each update is one
    integer atomicMin). Frontier vertices of high out-degree have their edges spread
    over the grid, as in BFS.
    """
    ptr, idx = jit.contiguous(indptr, np.int64), jit.contiguous(indices, np.int32)
    lean = getattr(weights, "dtype", None) == np.float32  # read as stored: no float64 copy
    w = jit.contiguous(weights, np.float32 if lean else np.float64)
    kind = f"{'float' if lean else 'double'}, {'true' if nonnegative else 'false'}"
    nnz = int(idx.size)
    heavy = _heavy_threshold(nnz)
    dist = cupy.full(n, np.inf, dtype=np.float64)
    dist[source] = 0.0
    stamp = cupy.full(n, -1, dtype=np.int32)
    qa = cupy.empty(max(n, 1), dtype=np.int32)
    qa[0] = source
    qb = cupy.empty_like(qa)
    hcap = max(1, min(n, nnz // (heavy + 1) + 1))
    hva, hvb = cupy.empty(hcap, dtype=np.int32), cupy.empty(hcap, dtype=np.int32)
    hoa, hob = cupy.empty(hcap, dtype=np.int64), cupy.empty(hcap, dtype=np.int64)
    _, counts, state, bar, hcounts, edges = _run_work()
    beg, end = (int(x) for x in ptr[source : source + 2].get())
    if end - beg > heavy:  # the source starts on the heavy list
        hva[0], hoa[0] = source, 0
        hcounts[0] = ((end - beg) << 24) + 1  # kernels/frontier.cu: KL_SLOT_BITS
    args = (
        ptr,
        idx,
        w,
        np.int32(n),
        np.int64(heavy),
        dist,
        stamp,
        qa,
        qb,
        hva,
        hvb,
        hoa,
        hob,
        counts,
        hcounts,
        edges,
        bar,
        state,
    )
    if _cooperative(f"kl_bf_run<{kind}>", args):
        negative = int(state[1].get()) > 0
    else:
        negative = _bf_by_round(ptr, idx, w, kind, n, dist, stamp, qa, qb)
    return dist, negative


def _bf_by_round(ptr, idx, w, kind: str, n, dist, stamp, qa, qb) -> bool:
    counts = cupy.zeros(2, dtype=np.int32)
    scratch = cupy.zeros(2, dtype=np.uint64)
    counts[0] = 1
    nq, q_in, q_out = 1, qa, qb
    for rnd in range(1, n + 1):
        counts[1] = 0
        _function(False, f"kl_bf_step<{kind}>")(
            (_step_blocks(nq, 32),),
            (_THREADS,),
            (
                ptr,
                idx,
                w,
                q_in,
                counts[0:1],
                q_out,
                counts[1:2],
                scratch,
                dist,
                stamp,
                np.int32(rnd),
            ),
        )
        nq = int(counts[1].get())
        if not nq:
            return False
        counts[0] = nq
        q_in, q_out = q_out, q_in
    return True
