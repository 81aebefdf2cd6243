"""The shortest-path tree from converged distances, compiled: a BFS from the source
over the tight edges (d[u] + w(u, v) == d[v]) read straight from the CSR, with no
tight-edge matrix built (the composed form, ``kleene.engine.shortest_path_tree``, makes
it with two sparse products and then runs a BFS over it: on a road graph ~90% of an
SSSP with predecessors). A vertex's parent is its smallest-numbered tight
in-neighbour one BFS level up, the composed form's ``min_first`` rule."""

from __future__ import annotations

import numpy as np

from kleene.errors import InvalidValue

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None


def _tree_kernel(indptr, indices, w, dist, source, parent, level, q):
    """parent/level all -1 on entry; q a scratch queue of n entries."""
    level[source] = 0
    q[0] = source
    start, end, depth = 0, 1, 0
    while start < end:
        depth += 1
        tail = end
        for i in range(start, end):
            u = q[i]
            du = dist[u]
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                if v == u or du + w[e] != dist[v]:
                    continue
                lv = level[v]
                if lv < 0:
                    level[v] = depth
                    parent[v] = u
                    q[tail] = v
                    tail += 1
                elif lv == depth and u < parent[v]:
                    parent[v] = u
        start, end = end, tail


if HAVE_NUMBA:
    _tree_kernel = numba.njit(cache=True, nogil=True)(_tree_kernel)


def _arrays(name: str, indptr, indices, weights, dist):
    """The CSR and distances as the kernels read them (int64 ids, float64 sums)."""
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    idx = np.ascontiguousarray(indices, dtype=np.int64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    d = np.ascontiguousarray(dist, dtype=np.float64)
    if ptr.shape != (d.size + 1,) or w.shape != idx.shape:
        raise InvalidValue(f"{name}: indptr/indices/weights are not a CSR of len(dist) rows")
    return ptr, idx, w, d


def _tight_tree(indptr, indices, weights, dist, source: int) -> np.ndarray:
    """Parents (int64, -1 for the source and unreached vertices) of the BFS tree of
    the tight edges from ``source``; weights and distances compare as float64 sums."""
    ptr, idx, w, d = _arrays("tight_tree", indptr, indices, weights, dist)
    n = d.size
    parent = np.full(n, -1, dtype=np.int64)
    level = np.full(n, -1, dtype=np.int64)
    _tree_kernel(ptr, idx, w, d, np.int64(source), parent, level, np.empty(n, np.int64))
    return parent


def _parents_kernel(indptr, indices, w, dist, parent):
    """parent all n (none) on entry; the smallest u of each v's tight in-edges."""
    n = dist.size
    for u in range(n):
        du = dist[u]
        if not du < np.inf:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if v != u and du + w[e] == dist[v] and u < parent[v]:
                parent[v] = u


if HAVE_NUMBA:
    _parents_kernel = numba.njit(cache=True, nogil=True)(_parents_kernel)


def _parents_pull_kernel(indptr, indices, w, dist, parent):
    """The same from in-edge rows sorted by source: each reached v's first tight entry."""
    n = dist.size
    for v in range(n):
        dv = dist[v]
        if not dv < np.inf:
            continue
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if u != v and dist[u] + w[e] == dv:
                parent[v] = u
                break


if HAVE_NUMBA:
    _parents_pull_kernel = numba.njit(cache=True, nogil=True)(_parents_pull_kernel)


def _tight_parents(indptr, indices, weights, dist, *, in_edges=None) -> np.ndarray:
    """Each vertex's smallest-numbered tight in-neighbour (dist[u] + w(u, v) == dist[v]
    as float64 sums, u != v, u reached), int64, -1 for none: one pass over the edges,
    or, given ``in_edges`` (Aᵀ's CSR, rows sorted by source), each vertex's in-edges up
    to its first tight one. A shortest-path tree where sums grow strictly
    (``kleene.engine.strict_sums``)."""
    pull = in_edges is not None
    ptr, idx, w, d = _arrays(
        "tight_parents", *(in_edges if pull else (indptr, indices, weights)), dist
    )
    n = d.size
    parent = np.full(n, n, dtype=np.int64)
    (_parents_pull_kernel if pull else _parents_kernel)(ptr, idx, w, d, parent)
    parent[parent == n] = -1
    return parent


# None without Numba: the back end then has no fused tree (the composed form runs).
tight_tree = _tight_tree if HAVE_NUMBA else None
tight_parents = _tight_parents if HAVE_NUMBA else None
