"""Triangles of an undirected graph on the CPU, compiled with Numba, rows over the cores.

Two optional fused primitives (``kleene/ops/primitives.md``) behind
``kleene.triangle_count`` and ``kleene.triangles``, whose composed twins (masked
``plus_times`` products, ``kleene.algorithms.analytics.triangles``) define the
answers; tests/test_triangles.py runs the two against each other and NetworkX:

- ``triangle_count(indptr, indices, n)`` → int: the number of triangles;
- ``triangle_vertices(indptr, indices, n)`` → int64 array: the triangles through
  each vertex.

Both read a symmetric pattern (CSR, each row's entries distinct; values are not
read), and a self-loop is no edge. Each edge is oriented from the lower to the
higher of its ends in the order (degree, id) (the orientation of Schank and
Wagner's "forward" algorithm, and of LAGraph's degree-sorted Sandia count): every
triangle is then found exactly once, from its lowest vertex u, as a w among the
out-neighbours of both u and v for an out-edge u → v, and a vertex's out-degree is
at most ``sqrt(2 m)``, so hubs (RMAT's, a social graph's) are never scanned whole.
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


def _count(idx, span, n, workers):
    """Σ over out-edges u → v of |out(u) ∩ out(v)|: every triangle once."""
    totals = np.zeros(workers, dtype=np.int64)
    for w in numba.prange(workers):
        mark = np.zeros(n, dtype=np.bool_)
        s = 0
        for u in range(w, n, workers):
            p0, p1 = span[u, 0], span[u, 1]
            if p1 - p0 < 2:
                continue
            for p in range(p0, p1):
                mark[idx[p]] = True
            for p in range(p0, p1):
                v = idx[p]
                for q in range(span[v, 0], span[v, 1]):
                    s += mark[idx[q]]
            for p in range(p0, p1):
                mark[idx[p]] = False
        totals[w] = s
    return totals.sum()


def _per_vertex(idx, span, n, workers):
    """Triangles through each vertex: as ``_count``, each found triangle {u, v, w}
    added to the three in the finding thread's own row of counts, which are summed."""
    acc = np.zeros((workers, n), dtype=np.int64)
    for w in numba.prange(workers):
        mark = np.zeros(n, dtype=np.bool_)
        t = acc[w]
        for u in range(w, n, workers):
            p0, p1 = span[u, 0], span[u, 1]
            if p1 - p0 < 2:
                continue
            for p in range(p0, p1):
                mark[idx[p]] = True
            s = 0
            for p in range(p0, p1):
                v = idx[p]
                c = 0
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


def _oriented(indptr, indices, n: int):
    indptr = np.ascontiguousarray(indptr)
    indices = np.ascontiguousarray(indices)
    if indptr.dtype not in (np.int32, np.int64):
        indptr = indptr.astype(np.int64)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    return _orient(indptr, indices, int(n))


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
    of n rows, each row's entries distinct; self-loops ignored)."""
    n = int(n)
    if n == 0:
        return 0
    with _threads(len(indices)) as workers:
        idx, span = _oriented(indptr, indices, n)
        return int(_count(idx, span, n, min(n, workers)))


def triangle_vertices(indptr, indices, n: int):
    """int64 array: the triangles through each vertex of the symmetric pattern."""
    n = int(n)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    with _threads(len(indices)) as workers:
        idx, span = _oriented(indptr, indices, n)
        return _per_vertex(idx, span, n, min(n, workers))
