"""Batched multi-source BFS with bit-packed frontiers (kernels/multi_frontier.cu).

MS-BFS (Then et al., VLDB 2015): the sources go in groups of 64, one uint64 word
per vertex per group for each of ``seen``, the frontier and the next frontier, so
one pass over a frontier vertex's edges serves every search of the group that has
it in its frontier. Each level is pushed (atomicOr into the next words) or pulled
(each vertex ORs its in-neighbours' words until it has every bit it still needs),
chosen per level by Beamer's rule (:mod:`kleene.backends.direction`, with its batched
alpha ``TO_PULL_MULTI``) on the union frontier; a pulled level leaves the searches
whose own frontier is still tiny to a push beside it (``_SPARSE_SHIFT``). One launch
per kernel and one host read per level (two on a pulled one); parents go straight
into the (k, n) int64 results, levels are kept as each level's words and written
once at the end (``kl_ms_expand``; directly past ``_HIST`` levels).
"""

from __future__ import annotations

import cupy
import numpy as np

from kleene.backends import direction
from kleene.backends.device import gpu_memory_free
from kleene.errors import InvalidValue, OutOfMemory

from . import jit
from .codegen.multi_frontier import multi_frontier_spec

_THREADS = 256
_GROUP = 64  # sources per word
_METHODS = ("auto", "direction-optimizing", "push", "pull")
# Frontier vertices with more out-edges than this are spread over the grid (push).
_HEAVY = 128
# Pull: vertices with more in-edges than this are deferred to the whole grid (KL_MS_DEFER).
_DEFER = 512
# Levels kept as words before kl_ms_expand writes them (KL_MS_HIST in the kernel).
_HIST = 16
# Blocks an SM of kl_ms_push / kl_ms_pull (KL_MS_BLOCKS) and kl_ms_pull_deferred
# (KL_MS_DEFER_BLOCKS), their launch bounds: grids of exactly the resident blocks, since
# their warps split the work evenly (push, deferred) or take it from a counter (pull),
# and a second, partial wave would run alone at the end.
_BLOCKS_PER_SM = 4
_DEFER_BLOCKS_PER_SM = 6
# A pull level pushes instead the searches whose frontier (estimated from a sample of the
# queue, kl_ms_stats) holds fewer than n >> _SPARSE_SHIFT vertices: a pulled vertex stops
# only once it has every search's bit, so one search still near its source made every
# hub scan all its in-edges. Shifts 13 to 16 were swept on RMAT-24 and -25 with 64
# random sources: 15 was at or near the best on both, and every shift beat none.
_SPARSE_SHIFT = 15
_HEAD = 4 + 64 + 1  # count, heavy, m_f, alive bits; kl_ms_stats' 64 counts and sample size


def _function(name: str):
    return jit.function(multi_frontier_spec(), name)


def _blocks(items: int, per_item_threads: int) -> int:
    cap = jit.sm_count(jit.device_id()) * 8
    return jit.blocks_for(items * per_item_threads, _THREADS, cap=cap)


def _resident(per_sm: int, threads: int) -> int:
    """A grid of at most ``per_sm`` blocks an SM, fewer where ``threads`` need fewer."""
    return min(jit.sm_count(jit.device_id()) * per_sm, jit.blocks_for(threads, _THREADS))


def _hist_rows(k: int) -> int:
    """Levels kept as words (n each): at most a quarter of a group's result bytes, and
    none below 2 (then the kernels write the levels as they go)."""
    rows = min(_HIST, min(k, _GROUP) // 4)
    return rows if rows >= 2 else 0


def _check_memory(k: int, n: int, nnz: int, parents: bool) -> None:
    """MemoryError naming the bytes needed and free when results and work space do not fit."""
    result = k * n * 8 * (2 if parents else 1)
    heavy = nnz // (max(_HEAVY, nnz >> 24) + 1) + 1
    work = 3 * 8 * n + 3 * 4 * n + 3 * 12 * min(n, heavy) + 28 * min(n, nnz // _DEFER + 1)
    work += 8 * n * _hist_rows(k)
    free = gpu_memory_free()
    if result + work > free:
        what = "levels and parents" if parents else "levels"
        raise OutOfMemory(
            f"bfs_multi: {k} sources x {n} vertices need {result + work} bytes on the GPU "
            f"({result} for the int64 {what}, {work} of work space), {free} bytes free; "
            f"run fewer sources per call (about {max(0, (free - work) // (result // k))} fit)"
        )


def bfs_multi(
    indptr,
    indices,
    t_indptr,
    t_indices,
    n: int,
    sources,
    parents: bool = False,
    method: str = "auto",
):
    """BFS from each of ``sources`` (int64, repeats allowed): (levels, parents), (k, n)
    int64 CuPy arrays with -1 where unreachable / no parent; parents None unless asked.

    Row b is the search from ``sources[b]``. ``t_indptr``/``t_indices`` are Aᵀ's CSR
    (A's own for a symmetric graph), for pull levels and parents. A vertex's parent is
    its smallest-numbered in-neighbour one level up (what ``min_first`` gives).
    ``method``: "push", "pull", or "direction-optimizing" (= "auto", Beamer's switch
    on the union of the group's frontiers). Raises MemoryError when the results and
    the work space do not fit in free GPU memory.
    """
    if method not in _METHODS:
        raise InvalidValue(f"bfs_multi: method must be one of {_METHODS}, got {method!r}")
    ptr, idx = jit.contiguous(indptr, np.int64), jit.contiguous(indices, np.int32)
    tptr, tidx = jit.contiguous(t_indptr, np.int64), jit.contiguous(t_indices, np.int32)
    src = jit.contiguous(sources, np.int64)
    k, nnz = int(src.size), int(idx.size)
    _check_memory(k, n, nnz, parents)
    # The levels are kept as each level's words (hist, up to _HIST levels, at most a
    # quarter of the result's bytes) and written once at the end (kl_ms_expand), -1
    # included; a deeper search writes the rest as it goes (levels filled first then).
    hist_rows = _hist_rows(k)
    levels = cupy.empty((k, n), dtype=np.int64)
    if not hist_rows:
        levels.fill(-1)
    par = cupy.full((k, n), -1, dtype=np.int64) if parents else None
    if k == 0 or n == 0:
        return levels, par
    hist = cupy.empty((hist_rows, n), dtype=np.uint64) if hist_rows else None
    heavy = max(_HEAVY, nnz >> 24)  # the heavy list's packed counter holds 2**24 slots
    hcap = max(1, min(n, nnz // (heavy + 1) + 1))
    seen = cupy.empty(n, dtype=np.uint64)
    fa, fb = cupy.empty(n, dtype=np.uint64), cupy.empty(n, dtype=np.uint64)
    qa, qb = cupy.empty(n, dtype=np.int32), cupy.empty(n, dtype=np.int32)
    hva, hvb = cupy.empty(hcap, dtype=np.int32), cupy.empty(hcap, dtype=np.int32)
    hoa, hob = cupy.empty(hcap, dtype=np.int64), cupy.empty(hcap, dtype=np.int64)
    head = cupy.empty((3, _HEAD), dtype=np.uint64)  # per buffer (and the sparse searches')
    bufs = ((fa, qa, hva, hoa, head[0]), (fb, qb, hvb, hob, head[1]))
    sparse = (
        cupy.empty(n, dtype=np.int32),
        cupy.empty(hcap, dtype=np.int32),
        cupy.empty(hcap, dtype=np.int64),
        head[2],
    )
    dcap = max(1, min(n, nnz // (_DEFER + 1) + 1))
    dv, dof = cupy.empty(dcap, dtype=np.int32), cupy.empty(dcap, dtype=np.int64)
    dneed, dacc = cupy.empty(dcap, dtype=np.uint64), cupy.empty(dcap, dtype=np.uint64)
    deferred = (dv, dof, dneed, dacc, cupy.empty(2, dtype=np.uint64))  # [1]: pull chunks
    for g0 in range(0, k, _GROUP):
        kg = min(_GROUP, k - g0)
        lv = levels[g0 : g0 + kg]
        pr = par[g0 : g0 + kg] if parents else None
        for a in (seen, fa, fb, head):
            a.fill(0)
        keep = _Kept(hist, lv, kg, n)
        _function("kl_ms_init")(
            (1,),
            (_GROUP,),
            (
                ptr,
                src[g0:],
                np.int32(kg),
                np.int64(n),
                np.int64(heavy),
                np.int32(parents),
                seen,
                fa,
                keep.target(),
                pr if parents else lv,
                qa,
                hva,
                hoa,
                head[0],
            ),
        )
        keep.level(0, fa)
        _run_group(ptr, idx, tptr, tidx, n, heavy, method, seen, bufs, deferred, sparse, keep, pr)
    return levels, par


class _Kept:
    """Where a group's levels go: kept as words per level in ``hist`` while it has rows
    (the kernels get a null levels pointer), written by kl_ms_expand when the search
    ends or outgrows ``hist``, directly by the kernels after that."""

    def __init__(self, hist, lv, kg: int, n: int):
        self.hist, self.lv, self.kg, self.n = hist, lv, kg, n
        self.kept = 0 if hist is None else None  # None: still keeping

    def target(self):
        """The levels pointer for this level's kernels (null while keeping)."""
        return np.uint64(0) if self.kept is None else self.lv

    def row(self, depth: int):
        """Where a pull level writes its words as well (null unless keeping)."""
        return self.hist[depth] if self.kept is None else np.uint64(0)

    def before(self, depth: int) -> None:
        if self.kept is None and depth >= self.hist.shape[0]:
            self._expand(depth)  # levels 0..depth-1 and -1; the kernels write the rest

    def level(self, depth: int, words, written: bool = False) -> None:
        if self.kept is None and not written:
            self.hist[depth] = words

    def finish(self, depth: int | None = None) -> None:
        if self.kept is None:
            self._expand(self.hist.shape[0] if depth is None else depth + 1)

    def _expand(self, rows: int) -> None:
        vpt = 2 if self.n % 2 == 0 else 1  # 16-byte stores where every row starts aligned
        _function(f"kl_ms_expand<{vpt}>")(
            (_blocks(-(-self.n // vpt), 1),),
            (_THREADS,),
            (self.hist, np.int32(rows), np.int64(self.n), np.int32(self.kg), self.lv),
        )
        self.kept = rows


def _stats(f, q, h) -> None:
    """kl_ms_stats: the frontier's per-search sizes, sampled, into h[4:]."""
    _function("kl_ms_stats")((256,), (_THREADS,), (f, q, h))


def _sparse_searches(f_in, q_in, h_in, nq: int, alive: int, n: int, got=None) -> int:
    """The alive searches (bits) whose frontier is estimated below n >> _SPARSE_SHIFT;
    ``got``: h_in[4:] as read already, else kl_ms_stats runs now and is read."""
    if got is None:
        _stats(f_in, q_in, h_in)
        got = h_in[4:].get()
    taken = max(1, int(got[64]))
    small = 0
    for b in range(64):
        if (alive >> b) & 1 and int(got[b]) * nq // taken < n >> _SPARSE_SHIFT:
            small |= 1 << b
    return small


def _run_group(
    ptr, idx, tptr, tidx, n, heavy, method, seen, bufs, deferred, sparse, keep, pr
) -> None:
    """The levels of one group, after kl_ms_init seeded buffer 0: one read per level. A
    level that expanded a large frontier (or pulled) reads the next one's per-search
    sizes with it; a pull after a small frontier reads them first, a second read."""
    nnz = int(idx.size)
    nq, _, mf, alive = (int(x) for x in bufs[0][4][:4].get())
    everything = (1 << 64) - 1
    switch = direction.Switch(nnz, n, to_pull=direction.TO_PULL_MULTI)
    pull, depth, cur = False, 0, 0
    unsettled = False  # the last level was pushed: its words are not in seen yet
    sizes = None  # the frontier's per-search sizes (h_in[4:]), where read with its head
    while nq:
        depth += 1
        keep.before(depth)
        lv = keep.target()
        if method in ("auto", "direction-optimizing"):
            pull = switch.next(mf, nq)
        else:
            pull = method == "pull"
        f_in, q_in, hv_in, ho_in, h_in = bufs[cur]
        f_out, q_out, hv_out, ho_out, h_out = bufs[1 - cur]
        few = 0  # the searches a pull level leaves to a push ("auto" only)
        if pull and method != "pull":
            few = _sparse_searches(f_in, q_in, h_in, nq, alive, n, sizes)
            if few == alive:  # every search's frontier is small: push them all
                pull, few = False, 0
                switch.pull, switch.unexplored = False, switch.unexplored - mf  # as pushed
        if not pull:  # the output takes atomicOr: clear its non-zero words (its last queue)
            _function("kl_ms_clear")((_blocks(n, 1),), (_THREADS,), (f_out, q_out, h_out))
            if unsettled:  # a push reads seen; a pull adds cur to it itself
                _function("kl_ms_settle")((_blocks(n, 1),), (_THREADS,), (seen, f_in, q_in, h_in))
        h_out.fill(0)
        d = np.int64(depth)
        if pull:
            dv, dof, dneed, dacc, dhead = deferred
            dhead.fill(0)
            _function("kl_ms_pull")(
                (_resident(_BLOCKS_PER_SM, n),),
                (_THREADS,),
                (
                    ptr,
                    tptr,
                    tidx,
                    np.int64(n),
                    np.int64(heavy),
                    f_in,
                    seen,
                    f_out,
                    lv,
                    h_in,
                    q_out,
                    hv_out,
                    ho_out,
                    h_out,
                    d,
                    dv,
                    dof,
                    dneed,
                    dacc,
                    dhead,
                    np.uint64(0) if few else keep.row(depth),
                    np.uint64(few),
                ),
            )
            _function("kl_ms_pull_deferred")(
                (_resident(_DEFER_BLOCKS_PER_SM, int(tidx.size)),),
                (_THREADS,),
                (tptr, tidx, f_in, dv, dof, dneed, dacc, dhead),
            )
            _function("kl_ms_pull_finish")(
                (_blocks(dv.size, 1),),
                (_THREADS,),
                (
                    ptr,
                    np.int64(n),
                    np.int64(heavy),
                    seen,
                    f_out,
                    lv,
                    dv,
                    dneed,
                    dacc,
                    dhead,
                    q_out,
                    hv_out,
                    ho_out,
                    h_out,
                    d,
                    np.uint64(0) if few else keep.row(depth),
                ),
            )
            if few:  # the searches left out of the pull, pushed from their own queue
                qs, hvs, hos, hs = sparse
                hs.fill(0)
                _function("kl_ms_filter")(
                    (_blocks(nq, 1),),
                    (_THREADS,),
                    (ptr, np.int64(heavy), f_in, q_in, h_in, np.uint64(few), qs, hvs, hos, hs),
                )
                _function("kl_ms_push")(
                    (_resident(_BLOCKS_PER_SM, 32 * nq),),
                    (_THREADS,),
                    (
                        ptr,
                        idx,
                        np.int64(n),
                        np.int64(heavy),
                        f_in,
                        seen,
                        f_out,
                        lv,
                        qs,
                        hvs,
                        hos,
                        hs,
                        q_out,
                        hv_out,
                        ho_out,
                        h_out,
                        d,
                        np.uint64(few),
                    ),
                )
        else:
            _function("kl_ms_push")(
                (_resident(_BLOCKS_PER_SM, 32 * max(nq, mf // 32)),),
                (_THREADS,),
                (
                    ptr,
                    idx,
                    np.int64(n),
                    np.int64(heavy),
                    f_in,
                    seen,
                    f_out,
                    lv,
                    q_in,
                    hv_in,
                    ho_in,
                    h_in,
                    q_out,
                    hv_out,
                    ho_out,
                    h_out,
                    d,
                    np.uint64(everything),
                ),
            )
        if pr is not None:
            _function("kl_ms_parents")(
                (_blocks(n, 32),),
                (_THREADS,),
                (tptr, tidx, np.int64(n), f_in, f_out, q_out, h_out, pr),
            )
        keep.level(depth, f_out, written=pull and not few)
        unsettled = not pull or bool(few)
        if method in ("auto", "direction-optimizing") and (pull or nq * direction.TO_PUSH >= n):
            _stats(f_out, q_out, h_out)  # a pull may come next: its sizes in the same read
            got = h_out.get()
            sizes = got[4:]
        else:
            got, sizes = h_out[:4].get(), None
        nq, _, mf, alive = (int(x) for x in got[:4])
        cur = 1 - cur
    keep.finish(depth)
