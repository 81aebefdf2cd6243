"""Bit-parallel multi-source BFS levels on the CPU (MS-BFS, Then et al., VLDB 2015).

Up to 64 searches share one uint64 word per vertex for each of ``seen``, the
frontier and the next frontier, so one pass over a frontier vertex's edges serves
every search of the group that has it in its frontier. On a low-diameter graph
(social networks, web crawls) the searches' frontiers overlap level after level,
and a group of 64 costs a few single searches instead of 64. Each level is
pushed (OR the frontier word into each out-neighbour's next word, minus what it
has seen) or pulled (each vertex not yet seen by every search ORs its
in-neighbours' frontier words, stopping once it has every bit it still needs),
chosen by Beamer's rule on the union frontier with the batched alpha
``direction.TO_PULL_MULTI``, as the GPU's MS-BFS does.

Levels only: a vertex's level in each search is set once, when its bit first
appears, so the results are those of separate searches whatever the direction or
grouping. Parents (the smallest parent one level up) come from the per-source
loop of ``bfs_rows.py``. Groups are spread over the cores (``numba.prange``);
with fewer than 64 sources per core, smaller groups keep every core busy.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None
GROUP = 64  # searches per uint64 word
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
# bit index of an isolated lowest set bit b: _BIT[(b * _DEBRUIJN) >> 58] (mod 2⁶⁴)
_BIT = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _BIT[(((1 << _i) * int(_DEBRUIJN)) % 2**64) >> 58] = _i


def _settle(touched, count, nxt, seen, frontier, active, levels, rows, depth, bit_of):
    """The words found this level become the frontier: each new bit's level is
    written; returns the new frontier's size (its vertices in ``active``)."""
    one = np.uint64(1)
    na = 0
    for i in range(count):
        u = touched[i]
        new = nxt[u]
        nxt[u] = 0
        seen[u] |= new
        frontier[u] = new
        active[na] = u
        na += 1
        while new:
            low = new & (~new + one)
            b = bit_of[(low * _DEBRUIJN) >> np.uint64(58)]
            levels[rows[b], u] = depth
            new ^= low
    return na


def _push(indptr, indices, frontier, seen, nxt, active, na, touched):
    """OR each frontier word into its out-neighbours' next words (bits not seen yet);
    returns how many vertices got a first next bit (listed in ``touched``)."""
    nt = 0
    for i in range(na):
        v = active[i]
        f = frontier[v]
        for e in range(indptr[v], indptr[v + np.uint32(1)]):
            u = indices[e]
            add = f & ~seen[u]
            if add:
                if nxt[u] == 0:
                    touched[nt] = u
                    nt += 1
                nxt[u] |= add
    return nt


def _pull(t_indptr, t_indices, frontier, seen, nxt, touched, everything):
    """Each vertex not seen by every search ORs its in-neighbours' frontier words,
    stopping once it holds every bit it lacks; returns how many found new bits."""
    nt = 0
    n = seen.size
    for u in range(n):
        s = seen[u]
        if s == everything:
            continue
        acc = np.uint64(0)
        for e in range(t_indptr[u], t_indptr[u + 1]):
            acc |= frontier[t_indices[e]]
            if (acc | s) == everything:
                break
        new = acc & ~s
        if new:
            nxt[u] = new
            touched[nt] = u
            nt += 1
    return nt


def _group(
    indptr,
    indices,
    t_indptr,
    t_indices,
    sources,
    rows,
    levels,
    seen,
    frontier,
    nxt,
    active,
    touched,
    bit_of,
    nnz,
    to_pull,
    to_push,
    method,
):
    """Levels of one group (``sources[j]`` writes row ``rows[j]``, all -1 on entry)."""
    n = seen.size
    g = sources.size
    everything = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - g)
    seen[:] = 0
    frontier[:] = 0
    nxt[:] = 0
    na = 0
    for j in range(g):
        s = sources[j]
        if frontier[s] == 0:
            active[na] = s
            na += 1
        frontier[s] |= np.uint64(1) << np.uint64(j)
        seen[s] |= np.uint64(1) << np.uint64(j)
        levels[rows[j], s] = 0
    unexplored = nnz
    previous = 0
    pull = False
    depth = 0
    while na:
        depth += 1
        mf = 0
        for i in range(na):
            v = active[i]
            mf += np.int64(indptr[v + np.uint32(1)] - indptr[v])
        if method == 0:  # Beamer's rule on the union frontier (direction.Switch)
            if not pull:
                pull = mf * to_pull > unexplored
            else:
                pull = not (na * to_push < n and na < previous)
        else:
            pull = method == 2
        if not pull:
            unexplored -= mf
        previous = na
        if pull:
            nt = _pull(t_indptr, t_indices, frontier, seen, nxt, touched, everything)
        else:
            nt = _push(indptr, indices, frontier, seen, nxt, active, na, touched)
        for i in range(na):
            frontier[active[i]] = 0
        na = _settle(touched, nt, nxt, seen, frontier, active, levels, rows, depth, bit_of)


def _groups_kernel(
    indptr, indices, t_indptr, t_indices, sources, starts, levels, to_pull, to_push, method, workers
):
    """Group i is sources[starts[i]:starts[i + 1]] (rows alike); worker w takes groups
    w, w + workers, ..."""
    n = levels.shape[1]
    ngroups = starts.size - 1
    nnz = np.int64(indices.size)
    for w in numba.prange(workers):
        seen = np.empty(n, dtype=np.uint64)
        frontier = np.empty(n, dtype=np.uint64)
        nxt = np.empty(n, dtype=np.uint64)
        active = np.empty(n, dtype=np.uint32)
        touched = np.empty(n, dtype=np.uint32)
        for gi in range(w, ngroups, workers):
            a, b = starts[gi], starts[gi + 1]
            rows = np.arange(a, b)
            _group(
                indptr,
                indices,
                t_indptr,
                t_indices,
                sources[a:b],
                rows,
                levels,
                seen,
                frontier,
                nxt,
                active,
                touched,
                _BIT,
                nnz,
                to_pull,
                to_push,
                method,
            )


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _settle, _push, _pull, _group = _jit(_settle), _jit(_push), _jit(_pull), _jit(_group)
    _groups_kernel = numba.njit(cache=True, nogil=True, parallel=True)(_groups_kernel)


def group_starts(k: int, workers: int) -> np.ndarray:
    """Group boundaries: at most GROUP sources a group, and at least one group per
    worker while each keeps a few sources (fewer, smaller groups share less work)."""
    groups = max(-(-k // GROUP), min(workers, -(-k // 8)), 1)
    return np.linspace(0, k, groups + 1).round().astype(np.int64)


def ms_bfs_levels(
    ptr, idx, tptr, tidx, sources, levels, method: int, to_pull: int, to_push: int, workers: int
) -> None:
    """Fill ``levels`` (k, n) int64, all -1 on entry, with each source's BFS levels
    (CSR arrays as the uint64/uint32 views of ``frontier._csr``)."""
    k = sources.size
    if k == 0:
        return
    starts = group_starts(k, workers)
    _groups_kernel(
        ptr,
        idx,
        tptr,
        tidx,
        sources,
        starts,
        levels,
        to_pull,
        to_push,
        method,
        min(workers, starts.size - 1),
    )
