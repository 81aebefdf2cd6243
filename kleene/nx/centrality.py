"""Betweenness centrality with NetworkX's semantics (``nx.betweenness_centrality`` and
``nx.edge_betweenness_centrality``).

Computed by ``kleene.betweenness_centrality`` and ``kleene.edge_betweenness_centrality``
(Brandes' algorithm: the compiled kernels, or batches of ``plus_times`` products),
rescaled as NetworkX rescales. ``k`` sampled sources are NetworkX's:
``seed.sample(list(G), k)`` picks positions, and vertex ``i`` is node ``G.nodes[i]``,
so kleene samples the same ones from the same generator (NetworkX's
``py_random_state`` has already turned ``seed`` into a ``random.Random`` when the call
reaches a backend). ``weight``: the converted attribute's values as lengths
(Dijkstra), the lightest of parallel edges, 1 where an edge lacks it (NetworkX's
``_weight_function``); a negative or infinite weight, where NetworkX's Dijkstra has
no defined answer, raises ``NotImplementedError`` (NetworkX runs the call when
fallback is on).
"""

from __future__ import annotations

import numpy as np

import kleene

from ._engine import host
from .graph import KleeneGraph

__all__ = ["betweenness_centrality", "edge_betweenness_centrality"]


def _check_k(G: KleeneGraph, k) -> None:
    if k is not None and not 0 < k <= len(G):
        # NetworkX's own errors: random.sample refuses k > n or k < 0, and its
        # rescaling divides by k = 0 (kleene itself calls every k < 1 an InvalidValue)
        if k == 0:
            raise ZeroDivisionError("betweenness_centrality: k = 0 sources")
        raise ValueError("Sample larger than population or is negative")


def _matrix(G: KleeneGraph, weight, what: str):
    """The adjacency matrix to search: the pattern, or the weights as lengths."""
    if weight is None:
        return G.matrix(None)
    G.no_hidden_arcs(weight, what)  # NetworkX adds the None weight: a TypeError
    if G.has_negative_weight(weight) or G.has_infinite_weight(weight):
        raise NotImplementedError(
            f"kleene: {what} with negative or infinite edge weights (NetworkX's Dijkstra "
            "has no defined answer there)"
        )
    return G.matrix(weight)


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """{node: betweenness}; shortest paths by edge count, or by ``weight``."""
    if len(G) == 0:
        return {}
    _check_k(G, k)
    bc = kleene.betweenness_centrality(
        _matrix(G, weight, "betweenness_centrality"),
        k=k,
        normalized=normalized,
        weight=None if weight is None else True,
        endpoints=endpoints,
        seed=seed,
        directed=G.directed,
    )
    return dict(zip(G.nodes, host(bc).tolist(), strict=True))


def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """{edge: betweenness}, the edges as ``G.edges()`` lists them (in its order)."""
    if G.multigraph:  # can_run declines it: NetworkX splits among the parallel edges
        raise NotImplementedError("kleene: edge betweenness of a multigraph")
    if len(G) == 0:
        return {}
    _check_k(G, k)
    E = kleene.edge_betweenness_centrality(
        _matrix(G, weight, "edge_betweenness_centrality"),
        k=k,
        normalized=normalized,
        weight=None if weight is None else True,
        seed=seed,
        directed=G.directed,
    )
    rows, cols, vals = (host(a) for a in E.to_coo())
    n = len(G)
    # G.edges() order: the arcs in adjacency order, an undirected edge once, from the
    # end that comes first in the node order (a self-loop too)
    keep = np.ones(G.src.size, dtype=bool) if G.directed else G.dst >= G.src
    src, dst = G.src[keep], G.dst[keep]
    at = np.searchsorted(rows * n + cols, src * n + dst)  # E's entries are row-major
    nodes = G.nodes
    return {
        (nodes[u], nodes[v]): x
        for u, v, x in zip(src.tolist(), dst.tolist(), vals[at].tolist(), strict=True)
    }
