"""Brandes' betweenness on the CPU, compiled with Numba, sources over the cores.

The optional fused primitive behind ``kleene.betweenness_centrality`` and
``kleene.edge_betweenness_centrality``, whose composed twins (kleene operations,
``kleene.algorithms.analytics.betweenness``) define the answers;
tests/test_betweenness.py runs the two against each other and NetworkX:

- ``brandes(indptr, indices, weights, sources, n, endpoints, edges, in_indptr,
  in_indices)`` →
  ``(bc, ebc)``: the dependencies of every vertex summed over ``sources`` (float64,
  length n; with ``endpoints`` NetworkX's end-vertex terms added), and, with
  ``edges``, those of every arc (float64, one per CSR position; else None).

The graph is the CSR of its arcs (out-neighbours; an undirected graph has each edge
both ways), each row's entries distinct. ``weights=None`` counts edges: one
breadth-first search per source. Otherwise ``weights`` (float64, one per CSR
position, non-negative, checked by the caller) are lengths: one Dijkstra search per
source (a binary heap with lazy deletion), as NetworkX's
``_single_source_dijkstra_path_basic``: a vertex's shortest paths come from the
vertices settled before it whose distance plus the arc's weight equals its own
(the same float sum NetworkX compares), so ties count as equal paths. With
zero-weight arcs the order of settling breaks ties between equally long paths.

Both passes read out-neighbours only: forward, a settled vertex pushes its path count
σ to the vertices it reaches first; backward, in the reverse order of settling, a
vertex pulls the coefficients ``(1 + δ(w)) / σ(w)`` of its successors w on the
shortest-path DAG (one division per vertex, kept in an array, none per arc), so
``δ(v) = σ(v) Σ_w (1 + δ(w)) / σ(w)`` and the arc v → w gets ``σ(v) (1 + δ(w)) / σ(w)``.

Sources are shared among the threads with ``numba.prange`` in fixed groups (group g
takes sources g, g + G, ...; G = min(sources, threads)), each group summing into its
own arrays, and the groups are added in their order at the end: no two threads write
the same place, and the sums do not depend on the scheduling (the same thread count
gives the same bits on every run).
"""

from __future__ import annotations

import heapq

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None


def _bfs_group(indptr, indices, srcs, n, endpoints, edges, bc, ebc, dist, sigma, coef, order):
    """Brandes by breadth-first search from each of ``srcs``, adding into bc (and ebc)."""
    for i in range(srcs.size):
        s = srcs[i]
        dist[s] = 0
        sigma[s] = 1.0
        order[0] = s
        head = 0
        tail = 1
        while head < tail:
            v = order[head]
            head += 1
            dn = dist[v] + 1
            sv = sigma[v]
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                dw = dist[w]
                if dw < 0:
                    dist[w] = dw = dn
                    order[tail] = w
                    tail += 1
                # branch-free: whether an arc is on a shortest path is unpredictable
                sigma[w] += sv if dw == dn else 0.0
        for q in range(tail - 1, -1, -1):
            v = order[q]
            dn = dist[v] + 1
            sv = sigma[v]
            acc = 0.0
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                c = coef[w] if dist[w] == dn else 0.0
                acc += c
                if edges:
                    ebc[p] += sv * c
            d = sv * acc
            coef[v] = (1.0 + d) / sv
            if v != s:
                bc[v] += d + 1.0 if endpoints else d
        if endpoints:
            bc[s] += tail - 1
        for q in range(tail):
            v = order[q]
            dist[v] = -1
            sigma[v] = 0.0


def _dijkstra_group(
    indptr, indices, weights, srcs, n, endpoints, edges, bc, ebc, dist, sigma, coef, order, pos
):
    """Brandes by Dijkstra's search from each of ``srcs``, adding into bc (and ebc)."""
    for i in range(srcs.size):
        s = srcs[i]
        dist[s] = 0.0
        sigma[s] = 1.0
        heap = [(0.0, s)]
        settled = 0
        while heap:
            d, v = heapq.heappop(heap)
            if pos[v] >= 0 or d > dist[v]:
                continue  # settled already, or a stale entry
            pos[v] = settled
            order[settled] = v
            settled += 1
            sv = sigma[v]
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                if pos[w] >= 0:
                    continue
                nd = d + weights[p]
                if nd < dist[w]:
                    dist[w] = nd
                    sigma[w] = sv
                    heapq.heappush(heap, (nd, np.int64(w)))
                elif nd == dist[w]:
                    sigma[w] += sv
        for q in range(settled - 1, -1, -1):
            v = order[q]
            dv = dist[v]
            pv = pos[v]
            sv = sigma[v]
            acc = 0.0
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                c = coef[w] if (pos[w] > pv) & (dv + weights[p] == dist[w]) else 0.0
                acc += c
                if edges:
                    ebc[p] += sv * c
            d = sv * acc
            coef[v] = (1.0 + d) / sv
            if v != s:
                bc[v] += d + 1.0 if endpoints else d
        if endpoints:
            bc[s] += settled - 1
        # every vertex given a distance is reset, reached or only relaxed (none is
        # relaxed without being settled later, so the settled ones are all of them)
        for q in range(settled):
            v = order[q]
            dist[v] = np.inf
            sigma[v] = 0.0
            pos[v] = -1


def _run(indptr, indices, weights, sources, n, endpoints, edges, groups, weighted):
    m = indices.size
    bcs = np.zeros((groups, n), dtype=np.float64)
    ebcs = np.zeros((groups, m if edges else 0), dtype=np.float64)
    for g in numba.prange(groups):
        srcs = sources[g::groups]
        sigma = np.zeros(n, dtype=np.float64)
        coef = np.zeros(n, dtype=np.float64)  # (1 + δ) / σ of the vertices done
        order = np.empty(n, dtype=np.int32)
        ebc = ebcs[g]
        if weighted:
            dist = np.full(n, np.inf)
            pos = np.full(n, -1, dtype=np.int32)
            _dijkstra_group(
                indptr,
                indices,
                weights,
                srcs,
                n,
                endpoints,
                edges,
                bcs[g],
                ebc,
                dist,
                sigma,
                coef,
                order,
                pos,
            )
        else:
            hops = np.full(n, -1, dtype=np.int32)
            _bfs_group(
                indptr, indices, srcs, n, endpoints, edges, bcs[g], ebc, hops, sigma, coef, order
            )
    bc = bcs[0].copy() if groups else np.zeros(n, dtype=np.float64)
    for g in range(1, groups):  # fixed order: the same sums on every run
        bc += bcs[g]
    ebc = ebcs[0].copy() if edges and groups else np.zeros(m if edges else 0, dtype=np.float64)
    if edges:
        for g in range(1, groups):
            ebc += ebcs[g]
    return bc, ebc


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _seq = numba.njit(cache=True, nogil=True)
    _bfs_group = _seq(_bfs_group)
    _dijkstra_group = _seq(_dijkstra_group)
    _run = numba.njit(cache=True, nogil=True, parallel=True)(_run)


def brandes(
    indptr,
    indices,
    weights,
    sources,
    n: int,
    endpoints=False,
    edges=False,
    in_indptr=None,
    in_indices=None,
):
    """(bc, ebc): Brandes' dependencies summed over ``sources`` (see the module).

    ``in_indptr``/``in_indices`` (the in-arcs, which the GPU kernel pulls along) are
    not read: both passes here read out-neighbours only."""
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    weighted = weights is not None
    w = np.ascontiguousarray(weights, dtype=np.float64) if weighted else np.zeros(1)
    groups = max(0, min(int(sources.size), numba.get_num_threads()))
    bc, ebc = _run(
        indptr, indices, w, sources, int(n), bool(endpoints), bool(edges), groups, weighted
    )
    return bc, (ebc if edges else None)
