"""Fused multi-source BFS on the CPU: one compiled search per source, sources over the cores.

The CPU back end's ``bfs_multi`` primitive behind ``kleene.engine.frontier_bfs_multi``
(whose composed twin, one masked ``mxm`` of the (k, n) frontier matrix per level,
defines the results; tests/test_frontier_multi.py checks the two against each
other, tests/test_cpu_bfs_multi.py against scipy on real graphs). Each source
runs the single-source loop of ``cpu/frontier.py`` (push or pull per level by
Beamer's rule, the smallest-parent rule in one state word), written straight
into its row of the (k, n) result; the sources are shared among the threads
with ``numba.prange``, interleaved so that sources of unequal cost spread
evenly. A row depends on nothing but its source, so results do not depend on
the scheduling or the thread count. For levels alone on a low-diameter graph
(as the first source's search tells), the other sources run bit-parallel, up
to 64 to a word (``ms_bfs.py``): the same levels, fewer edge passes.

Why not the composed form: it carries a k × n frontier matrix through a masked
product, a sort and a merge per level, so one level costs O(k · n) bookkeeping
whatever the frontier holds; a road graph has hundreds of levels (New York:
~500), which made 64 sources cost hundreds of times 64 single searches. Here k
sources cost k single searches, divided among the cores.

The result (k · n int64 levels, the same again for parents) is allocated up
front; a request whose result cannot fit in the available host memory raises
MemoryError naming the bytes before any work starts.
"""

from __future__ import annotations

import numpy as np

from kleene.backends import direction
from kleene.errors import InvalidValue

from .frontier import _METHOD, _bfs_kernel, _csr
from .ms_bfs import ms_bfs_levels
from .row_results import check_rows_fit

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None
# Levels only, from several sources: MS-BFS (``ms_bfs.py``) where the first source's
# search ends within this many levels and reaches at least 1% of the vertices. It
# shares edge passes where the searches' frontiers overlap (low-diameter graphs),
# but writes each level across k rows and carries three words per vertex, which
# loses to one search per source over a road graph's hundreds of thin levels.
MS_MAX_LEVELS = 32


def _rows_kernel(
    indptr,
    indices,
    t_indptr,
    t_indices,
    sources,
    levels,
    parents,
    want_parents,
    method,
    to_pull,
    to_push,
    workers,
):
    """Row i of ``levels`` (and ``parents``) from ``sources[i]``; worker w takes rows
    w, w + workers, ... Without parents the level row itself is the search's state
    (level per vertex, -1 unvisited); with them a scratch row of (level << 32 |
    parent) keys is unpacked into both rows."""
    k = sources.size
    n = levels.shape[1]
    for w in numba.prange(workers):
        scratch = np.empty(n if want_parents else 0, dtype=np.int64)
        for i in range(w, k, workers):
            s = sources[i]
            state = scratch if want_parents else levels[i]
            state[:] = -1
            _bfs_kernel(
                indptr,
                indices,
                t_indptr,
                t_indices,
                s,
                state,
                32 if want_parents else 0,
                method,
                to_pull,
                to_push,
                True,
            )
            if want_parents:
                lv, par = levels[i], parents[i]
                for v in range(n):
                    key = state[v]
                    lv[v] = key >> 32
                    par[v] = -1 if key < 0 else key & 0xFFFFFFFF
                par[s] = -1


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _rows_kernel = numba.njit(cache=True, nogil=True, parallel=True)(_rows_kernel)


def _bfs_multi(
    indptr, indices, t_indptr, t_indices, n: int, sources, parents: bool, method: str = "auto"
):
    """BFS levels (k, n) int64 (-1 unreachable) from each of ``sources``, and parents
    (k, n) int64 (-1 for the sources and unreachable vertices; None unless asked).

    ``t_indptr``/``t_indices``: Aᵀ's CSR (A's own for a symmetric graph), for the pull
    levels. A vertex's parent is its smallest-numbered in-neighbour one level up.
    """
    if method not in _METHOD:
        raise InvalidValue(f"bfs_multi: method must be one of {tuple(_METHOD)}, got {method!r}")
    n = int(n)
    src = np.ascontiguousarray(sources, dtype=np.int64).reshape(-1)
    if src.size and (int(src.min()) < 0 or int(src.max()) >= n):
        bad = src[(src < 0) | (src >= n)][0]
        raise IndexError(f"bfs_multi: source {bad} is out of range for {n} vertices")
    k = src.size
    what = "int64 levels and parents" if parents else "int64 levels"
    check_rows_fit("bfs", k, n, what, 16 if parents else 8)
    ptr, idx = _csr("bfs_multi", indptr, indices, n)
    tptr, tidx = _csr("bfs_multi", t_indptr, t_indices, n)
    levels = np.empty((k, n), dtype=np.int64)
    par = np.empty((k, n) if parents else (k, 0), dtype=np.int64)  # (k, 0): never written
    if not (k and n):
        return levels, (par if parents else None)
    threads = numba.get_num_threads()
    one_by_one = (
        ptr,
        idx,
        tptr,
        tidx,
        src,
        levels,
        par,
        bool(parents),
        _METHOD[method],
        direction.TO_PULL,
        direction.TO_PUSH,
    )
    if parents or k == 1:
        _rows_kernel(*one_by_one, max(1, min(k, threads)))
        return levels, (par if parents else None)
    # The first source alone tells the graph's depth from it: few levels reaching a
    # good share of the vertices (a low-diameter graph) make the other searches'
    # frontiers overlap, where MS-BFS shares their edge passes; else one by one.
    _rows_kernel(
        ptr,
        idx,
        tptr,
        tidx,
        src[:1],
        levels[:1],
        par[:1],
        False,
        _METHOD[method],
        direction.TO_PULL,
        direction.TO_PUSH,
        1,
    )
    first = levels[0]
    shallow = first.max() <= MS_MAX_LEVELS and np.count_nonzero(first >= 0) * 100 >= n
    rest = levels[1:]
    if shallow:
        rest[...] = -1
        ms_bfs_levels(
            ptr,
            idx,
            tptr,
            tidx,
            src[1:],
            rest,
            _METHOD[method],
            direction.TO_PULL_MULTI,
            direction.TO_PUSH,
            threads,
        )
    else:
        _rows_kernel(
            ptr,
            idx,
            tptr,
            tidx,
            src[1:],
            rest,
            par[1:],
            False,
            _METHOD[method],
            direction.TO_PULL,
            direction.TO_PUSH,
            max(1, min(k - 1, threads)),
        )
    return levels, None


# None without Numba: the back end then has no such primitive (the composed form runs).
bfs_multi = _bfs_multi if HAVE_NUMBA else None
