"""NetworkX's BFS queue order in one compiled pass (the fused twin of ``_engine.bfs_levels``).

``_engine.bfs_levels`` finds each level's vertices in NetworkX's queue order with one
masked min_plus ``vxm`` over the rank matrix per level (the composed form, which also
runs on the GPU). On the CPU, with Numba, this walks the same order directly: a queue,
each vertex's neighbours in NetworkX's adjacency order (the rank matrix's rows sorted by
rank), the first discoverer as parent — the order the product's least key gives. A road
graph's hundreds of levels then cost no per-level products. Without Numba it is None.
"""

from __future__ import annotations

import numpy as np

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


def ordered_adjacency(R):
    """(indptr, adj) of the rank matrix ``R`` (a CPU kleene.Matrix, values = ranks) with
    each row's neighbours sorted by rank: NetworkX's adjacency order."""
    ptr, idx, rank = R._csr()
    rows = np.repeat(np.arange(ptr.size - 1), np.diff(ptr))
    order = np.lexsort((rank, rows))
    return np.asarray(ptr, np.int64), np.asarray(idx, np.int64)[order]
