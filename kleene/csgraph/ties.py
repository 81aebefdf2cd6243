"""SciPy's choice among equally short paths: the predecessor settled first.

Several shortest paths may reach a vertex. kleene's shortest-path tree takes, among the
tight in-edges (those with d[u] + w = d[v]), the smallest-numbered parent; SciPy keeps
the parent that reached the vertex first, which in Dijkstra's order (and in
Floyd-Warshall's strict improvements) is the tight parent nearest the source. This pass
re-picks each vertex's parent by that rule: the tight in-edge with the least d[u], and
on a tie kleene's parent where it is one of them, else the smallest u. Any choice among
tight edges is a shortest path; a row where zero-weight edges would close a cycle keeps
kleene's tree. On the GPU kleene's tree stays as it is (docs/csgraph.md).
"""

from __future__ import annotations

import numpy as np

# (rows × edges) entries per block of work
_BLOCK = 1 << 22


def settled_first(S, dist, pred):
    """``pred`` (k, n) int64, -1 for none) re-picked by SciPy's rule for the graph ``S``
    (a SciPy CSR, the directed graph the distances were computed on) and ``dist`` (k, n)."""
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
