"""Yen's K shortest loopless paths: each spur path one bounded Dijkstra search.

Yen's algorithm is a search over paths, not a semiring product: the K-th path is the
best of the candidates that leave the (K-1)-th one at some vertex (the spur) and go on
by the shortest path of the graph without the edges the earlier paths took there and
without the vertices before the spur.
With non-negative weights (and Numba) each spur path is one compiled Dijkstra search
on the graph's CSR (``_spur_search``): the removed edges and vertices are flags set
and cleared around it, the search stops once it settles the sink and resets only
what it reached, so no graph is built and nothing of size n is cleared per spur.
Otherwise (negative weights) a spur path is kleene's ``sssp`` on the graph without
those edges; removing a vertex's out-edges is enough to keep paths out of it: a path
cannot pass through a vertex it cannot leave.
"""

from __future__ import annotations

import heapq

import numpy as np
import scipy.sparse as sp

import kleene
from kleene.core import Matrix
from kleene.engine import frontier_delta_stepping

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

from .errors import scipy_cycles
from .ties import parents
from .validation import InvalidValue, validate


@scipy_cycles
def yen(csgraph, source, sink, K, *, directed=True, return_predecessors=False, unweighted=False):
    """The ``K`` shortest loopless paths from ``source`` to ``sink``, as
    ``scipy.sparse.csgraph.yen``: their lengths (ascending, fewer if fewer exist) and,
    with ``return_predecessors``, a (K, n) int32 array whose row k holds path k's
    predecessors (-9999 off the path). Negative weights are allowed
    (``NegativeCycleError`` on a cycle reachable from ``source``).

    Example
    -------
    >>> from kleene import csgraph
    >>> G = [[0, 1, 3], [0, 0, 1], [0, 0, 0]]
    >>> csgraph.yen(G, 0, 2, 3).tolist()
    [2.0, 3.0]
    """
    g = validate(csgraph, directed, unweighted=unweighted, dense=False)
    n = g.n
    if not (0 <= int(source) < n and 0 <= int(sink) < n):
        raise InvalidValue(
            "For csgraph with shape (N, N), must have 0 <= source < N and 0 <= sink < N. "
            f"Got N={n}, source={source}, sink={sink}."
        )
    source, sink, K = int(source), int(sink), int(K)
    S = g.data if g.xp is np else sp.csr_matrix(g.data.get())
    S = sp.csr_matrix(S)
    if not directed:  # both directions, the lighter where both exist
        S = kleene.ops.symmetrize(kleene.Matrix.from_scipy(S)).to_scipy()
    S.sort_indices()
    fast = _spur is not None and (S.nnz == 0 or float(S.data.min()) >= 0)
    paths = (_k_paths_compiled if fast else _k_paths)(S, source, sink, K)
    dist = np.array([c for c, _ in paths], dtype=np.float64)
    if not return_predecessors:
        return g.xp.asarray(dist)
    pred = np.full((len(paths), n), -9999, dtype=np.int32)
    for k, (_, path) in enumerate(paths):
        pred[k, path[1:]] = path[:-1]
    return g.xp.asarray(dist), g.xp.asarray(pred)


def _shortest(S, keep, s: int, t: int, positive: bool):
    """(length, path) of a shortest s→t path of S without the edges ``keep`` leaves
    out (None: all kept), or None if there is none."""
    if keep is None:
        G = S
    else:
        kept = np.zeros(keep.size + 1, dtype=np.int64)
        np.cumsum(keep, out=kept[1:])
        G = sp.csr_matrix((S.data[keep], S.indices[keep], kept[S.indptr]), shape=S.shape)
    if positive:  # distances alone; the parents by one pass (ties.py)
        d = _distances(G, s)
        if not np.isfinite(d[t]):
            return None
        p = parents(G, True, d[None, :], [s])
        p = p[0] if p is not None else kleene.sssp(G, s, return_predecessors=True)[1]
    else:
        d, p = kleene.sssp(G, s, return_predecessors=True)
        if not np.isfinite(d[t]):
            return None
    return float(d[t]), kleene.reconstruct_path(p, s, t)


def _distances(G, s: int):
    """Distances from ``s`` (non-negative weights): the engine's delta-stepping loop on
    the CSR as it is (``kleene.sssp`` checks the weights, which Yen's spur graphs,
    subgraphs of a checked graph, need not repeat); ``kleene.sssp`` where the back end
    has no fused loop."""
    try:
        d = frontier_delta_stepping(Matrix.from_scipy(G, copy=False), s, fused=True)
    except ValueError:
        return kleene.sssp(G, s)
    return d.to_dense(missing=np.inf)


def _edge(S, u: int, v: int) -> int:
    """Position of edge u→v in S's (sorted) row u."""
    lo, hi = S.indptr[u], S.indptr[u + 1]
    return lo + int(np.searchsorted(S.indices[lo:hi], v))


def _k_paths(S, source: int, sink: int, K: int):
    if K < 1:
        return []
    positive = S.nnz == 0 or float(S.data.min()) > 0
    first = _shortest(S, None, source, sink, positive)
    if first is None:
        return []
    found = [first]
    seen = {tuple(first[1])}
    heap: list = []  # (length, path) candidates
    w = S.data
    for _ in range(K - 1):
        _, prev = found[-1]
        for i in range(len(prev) - 1):
            spur, root = prev[i], prev[: i + 1]
            keep = np.ones(w.size, dtype=bool)
            for _, p in found:  # the edges earlier paths take out of this root
                if len(p) > i + 1 and p[: i + 1] == root:
                    keep[_edge(S, p[i], p[i + 1])] = False
            for u in root[:-1]:  # the root's vertices: no way out of them
                keep[S.indptr[u] : S.indptr[u + 1]] = False
            spur_path = _shortest(S, keep, spur, sink, positive)
            if spur_path is None:
                continue
            path = root[:-1] + spur_path[1]
            if tuple(path) in seen:
                continue
            seen.add(tuple(path))
            cost = sum(float(w[_edge(S, a, b)]) for a, b in zip(root[:-1], root[1:], strict=True))
            heapq.heappush(heap, (cost + spur_path[0], path))
        if not heap:
            break
        found.append(heapq.heappop(heap))
    return found


def _spur_search(indptr, indices, w, s, t, voff, eoff, dist, pred, keys, verts, touched, path):
    """Dijkstra from ``s`` until ``t`` is settled, on the CSR without the edges ``eoff``
    marks and the vertices ``voff`` marks (never entered): (vertices on the path, its
    length), the path ``s .. t`` in ``path[:count]``; (0, inf) when ``t`` is not reached.

    Scratch: ``dist`` all inf on entry and on return (only the vertices the search
    reached, listed in ``touched``, are reset: a spur search costs in proportion to what
    it reaches before it settles ``t``); ``pred``, ``touched`` (n) and the lazy heap
    ``keys``/``verts`` (m + 1 entries: one per improvement at most) any contents.
    ``pred[v]`` is the vertex whose scan last improved v: a tree towards ``s``, since
    weights are >= 0 and a vertex is scanned once, at its final distance."""
    dist[s] = 0.0
    pred[s] = -1
    touched[0] = s
    reached = 1
    keys[0] = 0.0
    verts[0] = s
    size = 1
    found = False
    while size:
        du = keys[0]  # pop the least (a binary heap, sifted down from the root)
        u = verts[0]
        size -= 1
        if size:
            k = keys[size]
            x = verts[size]
            at = 0
            while True:
                c = 2 * at + 1
                if c >= size:
                    break
                if c + 1 < size and keys[c + 1] < keys[c]:
                    c += 1
                if k <= keys[c]:
                    break
                keys[at] = keys[c]
                verts[at] = verts[c]
                at = c
            keys[at] = k
            verts[at] = x
        if du > dist[u]:  # a stale entry: u was settled nearer
            continue
        if u == t:
            found = True
            break
        for e in range(indptr[u], indptr[u + 1]):
            if eoff[e]:
                continue
            v = indices[e]
            if voff[v]:
                continue
            nd = du + w[e]
            if nd < dist[v]:
                if dist[v] == np.inf:
                    touched[reached] = v
                    reached += 1
                dist[v] = nd
                pred[v] = u
                at = size  # push (nd, v), sifted up
                size += 1
                while at > 0:
                    parent = (at - 1) >> 1
                    if keys[parent] <= nd:
                        break
                    keys[at] = keys[parent]
                    verts[at] = verts[parent]
                    at = parent
                keys[at] = nd
                verts[at] = v
    count = 0
    length = np.inf
    if found:
        length = dist[t]
        v = t
        while v >= 0:  # t back to s, then reversed
            path[count] = v
            count += 1
            v = pred[v]
        path[:count] = path[:count][::-1].copy()
    for j in range(reached):
        dist[touched[j]] = np.inf
    return count, length


_spur = numba.njit(cache=True, nogil=True)(_spur_search) if numba else None


def _k_paths_compiled(S, source: int, sink: int, K: int):
    """``_k_paths`` for non-negative weights: every spur path one compiled Dijkstra
    (``_spur_search``) on S itself, which stops once it settles the sink and skips the
    removed edges and root vertices by two flag arrays set and cleared per spur: no
    graph is built per spur and no search costs more than what it reaches."""
    if K < 1:
        return []
    n, m = S.shape[0], S.nnz
    ptr = S.indptr.astype(np.int64)
    idx = S.indices.astype(np.int32)
    w = np.ascontiguousarray(S.data, dtype=np.float64)
    voff = np.zeros(n, dtype=np.bool_)
    eoff = np.zeros(max(m, 1), dtype=np.bool_)
    dist = np.full(n, np.inf)
    pred = np.empty(n, dtype=np.int64)
    keys = np.empty(m + 1, dtype=np.float64)
    verts = np.empty(m + 1, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    buf = np.empty(n, dtype=np.int64)

    def search(spur):
        count, length = _spur(
            ptr, idx, w, spur, sink, voff, eoff, dist, pred, keys, verts, touched, buf
        )
        return None if count == 0 else (float(length), buf[:count].tolist())

    first = search(source)
    if first is None:
        return []
    found = [first]
    seen = {tuple(first[1])}
    heap: list = []  # (length, path) candidates
    for _ in range(K - 1):
        _, prev = found[-1]
        cost = 0.0  # the root's length, summed left to right as it grows
        for i in range(len(prev) - 1):
            spur, root = prev[i], prev[: i + 1]
            if i:
                cost += float(w[_edge(S, prev[i - 1], spur)])
            off = [
                _edge(S, p[i], p[i + 1]) for _, p in found if len(p) > i + 1 and p[: i + 1] == root
            ]
            eoff[off] = True  # the edges earlier paths take out of this root
            voff[root[:-1]] = True  # the root's vertices: never entered
            spur_path = search(spur)
            eoff[off] = False
            voff[root[:-1]] = False
            if spur_path is None:
                continue
            path = root[:-1] + spur_path[1]
            if tuple(path) in seen:
                continue
            seen.add(tuple(path))
            heapq.heappush(heap, (cost + spur_path[0], path))
        if not heap:
            break
        found.append(heapq.heappop(heap))
    return found
