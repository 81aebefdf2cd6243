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


def _bfs(indptr, indices, indptr2, indices2, both, start, n):
    order = np.empty(n, np.int32)
    pred = np.full(n, NULL, np.int32)
    seen = np.zeros(n, np.bool_)
    order[0] = start
    seen[start] = True
    head, tail = 0, 1
    while head < tail:
        u = order[head]
        head += 1
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if not seen[v]:
                seen[v] = True
                order[tail] = v
                pred[v] = u
                tail += 1
        if both:
            for e in range(indptr2[u], indptr2[u + 1]):
                v = indices2[e]
                if not seen[v]:
                    seen[v] = True
                    order[tail] = v
                    pred[v] = u
                    tail += 1
    return order[:tail], pred


def _dfs(indptr, indices, indptr2, indices2, both, start, n):
    # SciPy's iterative search: take the first unseen neighbour of the vertex on top of
    # the stack, else pop it. A cursor per stack entry resumes the scan where it stopped
    # (the neighbours before it are all seen by then, so the order is the same).
    order = np.empty(n, np.int32)
    pred = np.full(n, NULL, np.int32)
    seen = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    cursor = np.zeros(n, np.int64)
    order[0] = start
    seen[start] = True
    stack[0] = start
    top, tail = 0, 1
    while top >= 0:
        u = stack[top]
        d1 = indptr[u + 1] - indptr[u]
        d = d1 + (indptr2[u + 1] - indptr2[u] if both else 0)
        c = cursor[top]
        child = -1
        while c < d:
            v = indices[indptr[u] + c] if c < d1 else indices2[indptr2[u] + c - d1]
            c += 1
            if not seen[v]:
                child = v
                break
        cursor[top] = c
        if child < 0:
            top -= 1
            continue
        seen[child] = True
        order[tail] = child
        pred[child] = u
        tail += 1
        top += 1
        stack[top] = child
        cursor[top] = 0
    return order[:tail], pred


if numba is not None:
    bfs_walk = numba.njit(cache=True, nogil=True)(_bfs)
    dfs_walk = numba.njit(cache=True, nogil=True)(_dfs)
else:  # pragma: no cover
    bfs_walk, dfs_walk = _bfs, _dfs
