"""Yen's K shortest loopless paths, each spur path one ``kleene.sssp``.

Yen's algorithm is a search over paths, not a semiring product: the K-th path is the
best of the candidates that leave the (K-1)-th one at some vertex (the spur) and go on
by the shortest path of the graph without the edges the earlier paths took there and
without the vertices before the spur. That shortest path is kleene's ``sssp`` on the
graph with those edges' weights set to inf (kleene reads a stored inf as no edge).
Removing a vertex's out-edges is enough to keep paths out of it: a path cannot pass
through a vertex it cannot leave.
"""

from __future__ import annotations

import heapq

import numpy as np
import scipy.sparse as sp

import kleene

from .errors import scipy_cycles
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
    paths = _k_paths(S, source, sink, K)
    dist = np.array([c for c, _ in paths], dtype=np.float64)
    if not return_predecessors:
        return g.xp.asarray(dist)
    pred = np.full((len(paths), n), -9999, dtype=np.int32)
    for k, (_, path) in enumerate(paths):
        pred[k, path[1:]] = path[:-1]
    return g.xp.asarray(dist), g.xp.asarray(pred)


def _shortest(S, data, s: int, t: int):
    """(length, path) of a shortest s→t path of S with weights ``data``, or None."""
    G = sp.csr_matrix((data, S.indices, S.indptr), shape=S.shape)
    d, p = kleene.sssp(G, s, return_predecessors=True)
    if not np.isfinite(d[t]):
        return None
    path = kleene.reconstruct_path(p, s, t)
    return float(d[t]), path


def _edge(S, u: int, v: int) -> int:
    """Position of edge u→v in S's (sorted) row u."""
    lo, hi = S.indptr[u], S.indptr[u + 1]
    return lo + int(np.searchsorted(S.indices[lo:hi], v))


def _k_paths(S, source: int, sink: int, K: int):
    if K < 1:
        return []
    first = _shortest(S, S.data, source, sink)
    if first is None:
        return []
    found = [first]
    seen = {tuple(first[1])}
    heap: list = []  # (length, path) candidates
    w = S.data
    while len(found) < K:
        _, prev = found[-1]
        for i in range(len(prev) - 1):
            spur, root = prev[i], prev[: i + 1]
            data = w.copy()
            for _, p in found:  # the edges earlier paths take out of this root
                if len(p) > i + 1 and p[: i + 1] == root:
                    data[_edge(S, p[i], p[i + 1])] = np.inf
            for u in root[:-1]:  # the root's vertices: no way out of them
                data[S.indptr[u] : S.indptr[u + 1]] = np.inf
            spur_path = _shortest(S, data, spur, sink)
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
