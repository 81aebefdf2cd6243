"""PageRank with NetworkX's semantics (``nx.pagerank``), computed by ``kleene.pagerank``.

NetworkX's power iteration (``_pagerank_scipy``): the transition matrix is the
adjacency with each row divided by its weight sum (an undirected edge is an arc
both ways, parallel edges of a multigraph add their weights), dangling rows jump
by the ``dangling`` distribution (the personalization by default), and the
iteration stops once the L1 change falls below ``n * tol``. kleene runs that
iteration as ``plus_times`` products; vertex ``i`` is node ``G.nodes[i]``.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

import kleene
from kleene.core import Matrix

from ._engine import host
from .graph import KleeneGraph

__all__ = ["pagerank"]


def _node_vector(G: KleeneGraph, values: dict | None) -> np.ndarray | None:
    """The dict ``values`` as a float vector in ``G``'s node order (absent nodes: 0)."""
    if values is None:
        return None
    return np.array([values.get(v, 0) for v in G.nodes], dtype=np.float64)


def transition_weights(G: KleeneGraph, weight) -> Matrix:
    """The adjacency NetworkX's PageRank reads: the weight of each arc, parallel
    edges of a multigraph summed (``nx.to_scipy_sparse_array``), 1 with ``weight=None``."""
    if not G.multigraph:
        G.no_hidden_arcs(weight, "pagerank")
        return G.matrix(weight, unit=weight is None)

    def build() -> Matrix:
        if G.edges is None:  # the lightest parallel edge is all that was converted
            raise NotImplementedError(
                "kleene: pagerank sums the weights of parallel edges; this multigraph "
                "was converted without its edges (NetworkX runs the call with fallback on)"
            )
        index = G.index
        src, dst, w = [], [], []
        for u, v, _key, data in G.edges:
            x = 1 if weight is None else data.get(weight, 1)
            if x is None:
                raise TypeError(f"edge ({u!r}, {v!r}) has weight attribute {weight!r} None")
            pairs = ((u, v),) if G.directed or u == v else ((u, v), (v, u))
            for a, b in pairs:
                src.append(index[a])
                dst.append(index[b])
                w.append(x)
        s, d = np.asarray(src, np.int64), np.asarray(dst, np.int64)
        vals = np.asarray(w, dtype=np.float64)
        return Matrix.from_edges(s, d, vals, G.n, dup="plus")

    from .config import device

    A = G.cached(("pagerank-sum", weight), build)
    return A if device() == "cpu" else A.to(device())


def pagerank(
    G,
    alpha=0.85,
    personalization=None,
    max_iter=100,
    tol=1.0e-6,
    nstart=None,
    weight="weight",
    dangling=None,
):
    """{node: PageRank}, NetworkX's power iteration (``kleene.pagerank``)."""
    n = len(G)
    if n == 0:
        return {}
    A = transition_weights(G, weight)
    p = _node_vector(G, personalization)
    if p is not None and p.sum() == 0:
        raise ZeroDivisionError("personalization values sum to zero")
    x0 = _node_vector(G, nstart)
    dang = _node_vector(G, dangling)
    if max_iter <= 0:  # NetworkX runs no iteration, so none converged
        raise nx.PowerIterationFailedConvergence(max_iter)
    if weight is not None and G.has_negative_weight(weight):
        raise NotImplementedError(
            "kleene: pagerank with negative edge weights (not a transition matrix); "
            "NetworkX runs the call with fallback on"
        )
    try:
        rank = kleene.pagerank(
            A,
            alpha=alpha,
            personalization=p,
            max_iter=max_iter,
            tol=tol,
            nstart=x0,
            dangling=dang,
            weight=True,  # A holds each arc's weight (1 with weight=None)
        )
    except kleene.PowerIterationFailedConvergence as e:
        raise nx.PowerIterationFailedConvergence(e.num_iterations) from e
    return dict(zip(G.nodes, host(rank).tolist(), strict=True))
