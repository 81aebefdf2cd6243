"""SciPy's visit orders: a FIFO queue (breadth first) and a stack (depth first).

A visit order is a queue discipline, not a semiring product: kleene's ``bfs`` gives each
vertex's level and its smallest-numbered parent, while SciPy's ``breadth_first_order``
lists the vertices in the order a queue pops them, each with its first discoverer as
predecessor. Deriving that order from the levels costs a pass over the edges as long as
the walk itself, so the walk below gives it directly (``kleene.nx`` walks NetworkX's
order the same way). Depth-first order has no product form at all. Both scan a vertex's
out-edges (its CSR row) and then, undirected, its in-edges (its row in the transpose),
as SciPy does, so the orders are SciPy's exactly. Compiled with Numba where it imports
(a dependency of kleene), plain Python otherwise.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

NULL = -9999


# Indices go through np.uint64: an unsigned index needs no negative-index wraparound
# check in compiled code, which otherwise costs a branch on every edge.


def _bfs(indptr, indices, indptr2, indices2, both, start, n):
    order = np.empty(n, np.int32)
    pred = np.full(n, NULL, np.int32)  # also the visited mark (the start marks itself)
    one = np.uint64(1)
    order[0] = start
    pred[start] = start
    head, tail = np.uint64(0), one
    while head < tail:
        u = np.uint64(order[head])
        head += one
        for e in range(np.uint64(indptr[u]), np.uint64(indptr[u + one])):
            v = np.uint64(indices[e])
            if pred[v] == NULL:
                pred[v] = u
                order[tail] = v
                tail += one
        if both:
            for e in range(np.uint64(indptr2[u]), np.uint64(indptr2[u + one])):
                v = np.uint64(indices2[e])
                if pred[v] == NULL:
                    pred[v] = u
                    order[tail] = v
                    tail += one
    pred[start] = NULL
    return order[:tail], pred


def _dfs(indptr, indices, indptr2, indices2, both, start, n):
    # SciPy's iterative search: take the first unseen neighbour of the vertex on top of
    # the stack, else pop it. A cursor per stack entry resumes the scan where it stopped
    # (the neighbours before it are all seen by then, so the order is the same).
    order = np.empty(n, np.int32)
    pred = np.full(n, NULL, np.int32)  # also the visited mark (the start marks itself)
    stack = np.empty(n, np.int64)
    cursor = np.zeros(n, np.uint64)
    one = np.uint64(1)
    order[0] = start
    pred[start] = start
    stack[0] = start
    top, tail = 0, one
    while top >= 0:
        u = np.uint64(stack[top])
        lo = np.uint64(indptr[u])
        d1 = np.uint64(indptr[u + one]) - lo
        c = cursor[top]
        child = -1
        while c < d1:  # the out-edges, then the in-edges: one loop each
            v = np.uint64(indices[lo + c])
            c += one
            if pred[v] == NULL:
                child = np.int64(v)
                break
        if child < 0 and both:
            lo2 = np.uint64(indptr2[u])  # (c counts on from the out-edges)
            d = d1 + np.uint64(indptr2[u + one]) - lo2
            while c < d:
                v = np.uint64(indices2[lo2 + (c - d1)])
                c += one
                if pred[v] == NULL:
                    child = np.int64(v)
                    break
        cursor[top] = c
        if child < 0:
            top -= 1
            continue
        pred[child] = u
        order[tail] = child
        tail += one
        top += 1
        stack[top] = child
        cursor[top] = 0
    pred[start] = NULL
    return order[:tail], pred


def _in_edges(indptr, indices, n):
    """The transpose's pattern (indptr int64, indices int32) of an n-vertex CSR: a
    counting sort of the entries by column, rows taken in order, so each row of the
    transpose lists its in-neighbours in increasing order, as SciPy's ``S.T.tocsr()``
    lists them; no values are moved."""
    one = np.uint64(1)
    tptr = np.zeros(n + 1, np.int64)
    for e in range(np.uint64(indptr[n])):
        tptr[np.uint64(indices[e]) + one] += 1
    for v in range(n):
        tptr[v + 1] += tptr[v]
    at = tptr[:n].copy()
    tidx = np.empty(np.uint64(indptr[n]), np.int32)
    for u in range(n):
        for e in range(np.uint64(indptr[u]), np.uint64(indptr[u + 1])):
            v = np.uint64(indices[e])
            tidx[at[v]] = u
            at[v] += 1
    return tptr, tidx


if numba is not None:
    bfs_walk = numba.njit(cache=True, nogil=True)(_bfs)
    dfs_walk = numba.njit(cache=True, nogil=True)(_dfs)
    in_edges = numba.njit(cache=True, nogil=True)(_in_edges)
else:  # pragma: no cover
    bfs_walk, dfs_walk = _bfs, _dfs
    in_edges = None
