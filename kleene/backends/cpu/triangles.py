"""Triangles of an undirected graph on the CPU, compiled with Numba, rows over the cores.

Two optional fused primitives (``kleene/engine/primitives.md``) behind
``kleene.triangle_count`` and ``kleene.triangles``, whose composed twins (masked
``plus_times`` products, ``kleene.algorithms.analytics.triangles``) define the
answers; tests/test_triangles.py runs the two against each other and NetworkX:

- ``triangle_count(indptr, indices, n)`` → int: the number of triangles;
- ``triangle_vertices(indptr, indices, n)`` → int64 array: the triangles through
  each vertex.

Both read a symmetric pattern (CSR, each row's entries sorted and distinct; values
are not read), and a self-loop is no edge. Each edge is oriented from the lower to
the higher of its ends in the order (degree, id) (the orientation of Schank and
Wagner's "forward" algorithm, and of LAGraph's degree-sorted Sandia count): every
triangle is then found exactly once, from its lowest vertex u, as a w among the
out-neighbours of both u and v for an out-edge u → v, and a vertex's out-degree is
at most ``sqrt(2 m)``, so hubs (RMAT's, a social graph's) are never scanned whole.
One branch-free pass writes the out-lists in place of the rows. Where every degree
is at most ``ID_ORDER_MAX_DEGREE`` (road networks, meshes) the id order serves as
well and costs no pass: a row's out-list is the end of the sorted row above its id.
Row u marks its out-neighbours in a scratch array of the thread's own, then reads
each out-neighbour's out-list against the marks: O(Σ_{u→v} d⁺(v)) reads, no search.

Rows are shared among the threads with ``numba.prange``, interleaved (u, u +
workers, ...) so that rows of unequal cost spread evenly (on one thread below
``PARALLEL_MIN`` stored entries). A thread's counts are its own: for the per-vertex
counts every found triangle {u, v, w} adds one to its three vertices in the finding
thread's own row of counts, and the rows are summed. Integer sums: the answers do
not depend on the scheduling or the thread count. Without Numba, or with
``KLEENE_CPU=numpy``, the back end exports neither name and the composed forms run.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None
# Stored entries from which the passes run on all of numba's threads. A parallel
# region ends when its slowest thread does, and a thread whose core another process
# holds waits for the scheduler's next slice; a pass over fewer entries is short
# beside that wait, so it runs on the calling thread alone.
PARALLEL_MIN = 1 << 22
# Where no vertex has more neighbours than this, the out-lists are taken in the id
# order: each row's entries above its own id, read in place, so no orienting pass
# runs. The (degree, id) order bounds out-lists by sqrt(2 m) however skewed the
# degrees; with every degree this small, the id order's are as short.
ID_ORDER_MAX_DEGREE = 64


def _orient(indptr, indices, n):
    """The out-lists of the orientation lower → higher in (degree, id): row u's at
    ``out[span[u, 0] : span[u, 1]]``, a prefix of the row's place in ``indices``, in
    the row's order (so no pass counts them first); the two bounds of a row share a
    cache line."""
    key = np.empty(n, dtype=np.int64)  # degree << 32 | id: the order in one compare
    for u in numba.prange(n):
        key[u] = (np.int64(indptr[u + 1] - indptr[u]) << 32) | u
    out = np.empty(indices.size, dtype=indices.dtype)
    span = np.empty((n, 2), dtype=indptr.dtype)
    for u in numba.prange(n):
        p0 = indptr[u]
        ku = key[u]
        q = p0
        for p in range(p0, indptr[u + 1]):  # branch-free: kept ones advance q (q <= p)
            v = indices[p]
            out[q] = v
            q += key[v] > ku
        span[u, 0] = p0
        span[u, 1] = q
    return out, span


def _max_degree(indptr, n):
    m = 0
    for u in range(n):
        m = max(m, indptr[u + 1] - indptr[u])
    return m


def _count(indptr, idx, span, n, workers, by_id):
    """Σ over out-edges u → v of |out(u) ∩ out(v)|: every triangle once. ``by_id``:
    the out-lists are the sorted rows' entries above the row's own id (the ends of
    the rows of ``indptr``/``idx``, found from the row's end); otherwise
    ``idx[span[u, 0] : span[u, 1]]`` (``_orient``)."""
    totals = np.zeros(workers, dtype=np.int64)
    for w in numba.prange(workers):
        mark = np.zeros(n, dtype=np.bool_)
        s = 0
        for u in range(w, n, workers):
            if by_id:
                p1 = indptr[u + 1]
                p0 = p1
                while p0 > indptr[u] and idx[p0 - 1] > u:
                    p0 -= 1
            else:
                p0, p1 = span[u, 0], span[u, 1]
            if p1 - p0 < 2:
                continue
            for p in range(p0, p1):
                mark[idx[p]] = True
            for p in range(p0, p1):
                v = idx[p]
                if by_id:  # v's entries above v, read from its row's end
                    q = indptr[v + 1] - 1
                    while q >= indptr[v] and idx[q] > v:
                        s += mark[idx[q]]
                        q -= 1
                else:
                    for q in range(span[v, 0], span[v, 1]):
                        s += mark[idx[q]]
            for p in range(p0, p1):
                mark[idx[p]] = False
        totals[w] = s
    return totals.sum()


def _per_vertex(indptr, idx, span, n, workers, by_id):
    """Triangles through each vertex: as ``_count``, each found triangle {u, v, w}
    added to the three in the finding thread's own row of counts, which are summed."""
    acc = np.zeros((workers, n), dtype=np.int64)
    for w in numba.prange(workers):
        mark = np.zeros(n, dtype=np.bool_)
        t = acc[w]
        for u in range(w, n, workers):
            if by_id:
                p1 = indptr[u + 1]
                p0 = p1
                while p0 > indptr[u] and idx[p0 - 1] > u:
                    p0 -= 1
            else:
                p0, p1 = span[u, 0], span[u, 1]
            if p1 - p0 < 2:
                continue
            for p in range(p0, p1):
                mark[idx[p]] = True
            s = 0
            for p in range(p0, p1):
                v = idx[p]
                c = 0
                if by_id:
                    q = indptr[v + 1] - 1
                    while q >= indptr[v] and idx[q] > v:
                        x = idx[q]
                        m = mark[x]
                        c += m
                        t[x] += m
                        q -= 1
                else:
                    for q in range(span[v, 0], span[v, 1]):  # branch-free: hits are common
                        x = idx[q]
                        m = mark[x]
                        c += m
                        t[x] += m
                t[v] += c
                s += c
            t[u] += s
            for p in range(p0, p1):
                mark[idx[p]] = False
    total = np.empty(n, dtype=np.int64)
    for v in numba.prange(n):
        c = 0
        for w in range(workers):
            c += acc[w, v]
        total[v] = c
    return total


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _par = numba.njit(cache=True, nogil=True, parallel=True)
    _orient, _count, _per_vertex = _par(_orient), _par(_count), _par(_per_vertex)
    _max_degree = numba.njit(cache=True, nogil=True)(_max_degree)


def _out_lists(indptr, indices, n: int):
    """(indptr, idx, span, by_id): the out-lists ``_count`` reads (module docstring)."""
    indptr = np.ascontiguousarray(indptr)
    indices = np.ascontiguousarray(indices)
    if indptr.dtype not in (np.int32, np.int64):
        indptr = indptr.astype(np.int64)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    if _max_degree(indptr, n) <= ID_ORDER_MAX_DEGREE:
        return indptr, indices, np.zeros((0, 2), dtype=indptr.dtype), True
    idx, span = _orient(indptr, indices, n)
    return indptr, idx, span, False


class _threads:
    """All the threads for a pattern of at least PARALLEL_MIN stored entries, else one
    (numba's thread count is per calling thread; restored on exit)."""

    def __init__(self, nnz: int) -> None:
        self.one = nnz < PARALLEL_MIN

    def __enter__(self) -> int:
        self.before = numba.get_num_threads()
        if self.one:
            numba.set_num_threads(1)
        return numba.get_num_threads()

    def __exit__(self, *exc) -> None:
        numba.set_num_threads(self.before)


def triangle_count(indptr, indices, n: int) -> int:
    """The number of triangles of the symmetric pattern ``indptr``/``indices`` (a CSR
    of n rows, each row's entries sorted and distinct; self-loops ignored)."""
    n = int(n)
    if n == 0:
        return 0
    with _threads(len(indices)) as workers:
        ptr, idx, span, by_id = _out_lists(indptr, indices, n)
        return int(_count(ptr, idx, span, n, min(n, workers), by_id))


def triangle_vertices(indptr, indices, n: int):
    """int64 array: the triangles through each vertex of the symmetric pattern."""
    n = int(n)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    with _threads(len(indices)) as workers:
        ptr, idx, span, by_id = _out_lists(indptr, indices, n)
        return _per_vertex(ptr, idx, span, n, min(n, workers), by_id)
