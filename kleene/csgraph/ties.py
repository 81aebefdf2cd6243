"""SciPy's choice among equally short paths: the predecessor settled first.

Several shortest paths may reach a vertex. kleene's shortest-path tree takes, among the
tight in-edges (those with d[u] + w = d[v]), the smallest-numbered parent; SciPy keeps
the parent that reached the vertex first, which in Dijkstra's order (and in
Floyd-Warshall's strict improvements) is the tight parent nearest the source. So here
each vertex's parent is the tight in-edge with the least d[u] (then the smallest u).

With positive weights every tight edge climbs (d[u] < d[v]), so any such choice is a
tree and one pass over the edges per source gives it from kleene's distances
(:func:`parents`, compiled with Numba). With zero or negative weights a choice could
close a cycle of zero weight: there :func:`settled_first` re-picks kleene's own tree
(keeping kleene's parent on a tie) and a row that would cycle keeps kleene's tree.
On the GPU kleene's tree stays as it is (docs/csgraph.md).
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

# (rows × edges) entries per block of work
_BLOCK = 1 << 22


def _parents(indptr, indices, data, both, dist, srcs, out):
    """``out`` as :func:`parents` says; returns how many reachable vertices other than
    their row's source found no tight in-edge."""
    # Indices through np.uint64: no negative-index wraparound check per edge.
    one = np.uint64(1)
    k, n = dist.shape
    least = np.empty(n, np.float64)
    lost = 0
    for r in range(k):
        d = dist[r]
        p = out[r]
        least[:] = np.inf
        p[:] = -1
        for a in range(n):
            ua = np.uint64(a)
            da = d[ua]
            if da == np.inf:
                continue
            for e in range(np.uint64(indptr[ua]), np.uint64(indptr[ua + one])):
                b = np.uint64(indices[e])
                if b == ua:
                    continue
                w = data[e]
                if da + w == d[b] and (da < least[b] or (da == least[b] and a < p[b])):
                    least[b] = da
                    p[b] = a
                if both:
                    db = d[b]
                    if db + w == da and (db < least[ua] or (db == least[ua] and b < p[ua])):
                        least[ua] = db
                        p[ua] = b
        p[srcs[r]] = -1
        for v in range(n):
            if p[v] < 0 and d[v] < np.inf and v != srcs[r]:
                lost += 1
    return lost


_parents_compiled = numba.njit(cache=True, nogil=True)(_parents) if numba else _parents


def parents(S, directed: bool, dist, srcs):
    """(k, n) int64 predecessors (-1: none) for positive weights, or None where a
    reachable vertex found no tight in-edge (rounding: the caller asks kleene then).

    ``S`` is the SciPy CSR the distances were computed on (undirected: each stored
    edge counts both ways), ``dist`` (k, n) from ``srcs`` (k,)."""
    dist = np.ascontiguousarray(dist, dtype=np.float64).reshape(-1, S.shape[0])
    out = np.empty(dist.shape, np.int64)
    srcs = np.asarray(srcs, np.int64)
    lost = _parents_compiled(S.indptr, S.indices, S.data, not directed, dist, srcs, out)
    return None if lost else out


def settled_first(S, dist, pred):
    """``pred`` (k, n) int64, -1 for none) re-picked by SciPy's rule for the graph ``S``
    (a SciPy CSR, the directed graph the distances were computed on) and ``dist`` (k, n),
    keeping kleene's parent on a tie and kleene's row where a choice would cycle."""
    n = S.shape[0]
    u = np.repeat(np.arange(n, dtype=np.int64), np.diff(S.indptr))
    v = S.indices.astype(np.int64)
    w = S.data.astype(np.float64)
    keep = u != v
    order = np.argsort(v[keep], kind="stable")
    u, v, w = u[keep][order], v[keep][order], w[keep][order]
    if v.size == 0:
        return pred
    starts = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    heads = v[starts]
    counts = np.diff(np.r_[starts, v.size])
    out = pred.copy()
    step = max(1, _BLOCK // max(v.size, 1))
    for r0 in range(0, dist.shape[0], step):
        D, P = dist[r0 : r0 + step], pred[r0 : r0 + step]
        du = D[:, u]
        tight = (du + w == D[:, v]) & np.isfinite(du)
        key = np.where(tight, du, np.inf)
        least = np.repeat(np.minimum.reduceat(key, starts, axis=1), counts, axis=1)
        cand = tight & (key == least)
        mine = P[:, v] == u[None, :]
        score = np.where(cand & mine, -1, np.where(cand, u[None, :], n))
        best = np.minimum.reduceat(score, starts, axis=1)
        had = P[:, heads]
        pick = np.where(best == -1, had, np.where(best < n, best, had))
        block = P.copy()
        block[:, heads] = np.where(had < 0, had, pick)
        cyclic = _cyclic(block)
        block[cyclic] = P[cyclic]
        out[r0 : r0 + step] = block
    return out


def _cyclic(pred):
    """Bool per row: do the parent pointers of the row close a cycle?"""
    n = pred.shape[1]
    q = pred.copy()
    for _ in range(int(n).bit_length() + 1):
        nxt = np.take_along_axis(q, np.maximum(q, 0), axis=1)
        q = np.where((q >= 0) & (nxt >= 0), nxt, q)
    at = np.take_along_axis(pred, np.maximum(q, 0), axis=1)
    return ((q >= 0) & (at >= 0)).any(axis=1)
