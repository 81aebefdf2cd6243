"""NetworkX's BFS queue order in one compiled pass (the fused twin of ``_engine.bfs_levels``).

``_engine.bfs_levels`` finds each level's vertices in NetworkX's queue order with one
masked min_plus ``vxm`` over the rank matrix per level (the composed form, which also
runs on the GPU). On the CPU, with Numba, this walks the same order directly: a queue,
each vertex's neighbours in NetworkX's adjacency order (the rank matrix's rows sorted by
rank), the first discoverer as parent — the order the product's least key gives. A road
graph's hundreds of levels then cost no per-level products. Without Numba it is None.

``settle`` does the same for Dijkstra: given kleene's distances, the order NetworkX's
heap settles the vertices in and the parents its paths take (compiled with Numba,
plain Python without).
"""

from __future__ import annotations

import heapq

import numpy as np

from kleene.errors import InvalidValue

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None


def _walk(indptr, adj, sources, n, depth_limit):
    """(queue, parents, level starts): vertices in visit order, each one's parent (-1 for
    the sources), and the queue offset where each level begins (plus the end)."""
    queue = np.empty(n, np.int64)
    parent = np.empty(n, np.int64)
    seen = np.zeros(n, np.bool_)
    starts = np.empty(n + 2, np.int64)
    tail = 0
    for s in sources:
        if not seen[s]:
            seen[s] = True
            queue[tail] = s
            parent[tail] = -1
            tail += 1
    levels = 0
    starts[0] = 0
    head = 0
    while head < tail and (depth_limit < 0 or levels < depth_limit):
        end = tail
        levels += 1
        starts[levels] = end
        for i in range(head, end):
            u = queue[i]
            for e in range(indptr[u], indptr[u + 1]):
                v = adj[e]
                if not seen[v]:
                    seen[v] = True
                    queue[tail] = v
                    parent[tail] = u
                    tail += 1
        head = end
    starts[levels + 1] = tail
    return queue[:tail], parent[:tail], starts[: levels + 2]


walk = numba.njit(cache=True)(_walk) if numba is not None else None


def _csr(M):
    """(indptr, indices, values) of a CPU kleene.Matrix, through its public SciPy view
    (a CSR matrix's entries are shared with it, not copied)."""
    S = M.to_scipy()
    return S.indptr, S.indices, S.data


def ordered_adjacency(R):
    """(indptr, adj) of the rank matrix ``R`` (a CPU kleene.Matrix, values = ranks) with
    each row's neighbours sorted by rank: NetworkX's adjacency order."""
    ptr, idx, rank = _csr(R)
    rows = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    order = np.lexsort((rank, rows))
    return np.asarray(ptr, np.int64), np.asarray(idx, np.int64)[order]


def ordered_weights(R, W) -> np.ndarray:
    """The arc weights of ``W`` (a CPU kleene.Matrix with R's pattern) in the order
    :func:`ordered_adjacency` lists R's arcs."""
    ptr, idx, rank = _csr(R)
    wptr, widx, w = _csr(W)
    if not (np.array_equal(ptr, wptr) and np.array_equal(idx, widx)):
        raise InvalidValue("ordered_weights: the rank and weight matrices differ in pattern")
    rows = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    return np.asarray(w, np.float64)[np.lexsort((rank, rows))]


def _settle(indptr, adj, wts, dist, sources):
    """(order, pred): the order in which NetworkX's Dijkstra settles the reached
    vertices, and the parent its paths take, given the final distances ``dist``.

    NetworkX pops (distance, push count, vertex) from a heap; a vertex's last push
    is made by the first settled neighbour v whose arc is tight (dist[v] + w =
    dist[u]), which also gives its path; later tight arcs tie and change nothing.
    Pushes happen in settle order, each vertex's arcs in adjacency order, so
    replaying only the tight arcs in that order gives the same pops."""
    n = dist.size
    order = np.empty(n, np.int64)
    pred = np.full(n, -1, np.int64)
    pushed = np.zeros(n, np.bool_)
    done = np.zeros(n, np.bool_)
    heap = [(0.0, np.int64(0), np.int64(0))]
    heap.pop()
    count = np.int64(0)
    for s in sources:
        if not pushed[s]:
            pushed[s] = True
            heapq.heappush(heap, (dist[s], count, np.int64(s)))
            count += 1
    k = 0
    while len(heap) > 0:
        item = heapq.heappop(heap)
        v = item[2]
        if done[v]:
            continue
        done[v] = True
        order[k] = v
        k += 1
        dv = dist[v]
        for e in range(indptr[v], indptr[v + 1]):
            u = adj[e]
            if pushed[u] or dv + wts[e] != dist[u]:
                continue
            pushed[u] = True
            pred[u] = v
            heapq.heappush(heap, (dist[u], count, u))
            count += 1
    return order[:k], pred


settle = numba.njit(cache=True)(_settle) if numba is not None else _settle


def _settle_rows(indptr, adj, wts, dist, sources):
    """``settle`` for each row of ``dist`` (k, n) from ``sources[b]``, rows in parallel:
    (orders, counts, preds), row b's order in ``orders[b, :counts[b]]``."""
    k, n = dist.shape
    orders = np.empty((k, n), np.int64)
    counts = np.empty(k, np.int64)
    preds = np.empty((k, n), np.int64)
    for b in _prange(k):
        order, pred = _settle(indptr, adj, wts, dist[b], sources[b : b + 1])
        counts[b] = order.size
        orders[b, : order.size] = order
        preds[b] = pred
    return orders, counts, preds


if numba is not None:
    _prange = numba.prange
    _settle = numba.njit(cache=True)(_settle)
    settle_rows = numba.njit(cache=True, parallel=True)(_settle_rows)
else:
    _prange = range
    settle_rows = _settle_rows
