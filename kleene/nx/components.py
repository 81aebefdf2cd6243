"""Connected, weakly and strongly connected components with NetworkX's semantics.

The labels come from ``kleene.connected_components`` (weak: the back end's
union-find or Afforest kernel, FastSV's min-label products where it has none;
strong: for directed graphs); this module turns them into NetworkX's answers:
sets of nodes, generated one component at a time. Connected and weakly connected
components come in the order of their first node in ``G`` (NetworkX's order);
strongly connected ones sinks first (a reverse topological order of the
condensation, as NetworkX's Tarjan search yields them), ties by first node.
"""

from __future__ import annotations

import heapq

import networkx as nx
import numpy as np

import kleene

from ._engine import host
from .graph import KleeneGraph

__all__ = [
    "connected_components",
    "is_connected",
    "node_connected_component",
    "number_connected_components",
    "strongly_connected_components",
    "weakly_connected_components",
]


def _not_for(G: KleeneGraph, directed: bool) -> None:
    """NetworkX's ``@not_implemented_for`` (it runs before dispatch; direct calls too)."""
    if G.directed == directed:
        kind = "directed" if directed else "undirected"
        raise nx.NetworkXNotImplemented(f"not implemented for {kind} type")


def component_labels(G: KleeneGraph, connection: str = "weak") -> tuple[int, np.ndarray]:
    """(count, label of every vertex), labels numbered by their first vertex."""

    def compute():
        if G.n == 0:
            return 0, np.zeros(0, np.int64)
        count, labels = kleene.connected_components(
            G.matrix(None), directed=G.directed, connection=connection
        )
        labels = host(labels).astype(np.int64)
        # renumber: component c is the c-th to appear in node order
        _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
        rank = np.empty(first.size, np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        return int(count), rank[inverse.reshape(-1)]

    return G.cached(("components", connection), compute)


def _sets(G: KleeneGraph, labels: np.ndarray, count: int, order=None) -> list[set]:
    comps: list[set] = [set() for _ in range(count)]
    for v, c in zip(G.nodes, labels.tolist(), strict=True):
        comps[c].add(v)
    return comps if order is None else [comps[c] for c in order]


def connected_components(G):
    """The connected components (sets of nodes) of an undirected graph, a generator."""
    _not_for(G, directed=True)
    count, labels = component_labels(G)
    return (c for c in _sets(G, labels, count))


def number_connected_components(G):
    """How many connected components an undirected graph has."""
    _not_for(G, directed=True)
    return component_labels(G)[0]


def is_connected(G):
    """Whether an undirected graph is connected (NetworkXPointlessConcept if empty)."""
    _not_for(G, directed=True)
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return component_labels(G)[0] == 1


def node_connected_component(G, n):
    """The set of nodes in ``n``'s connected component."""
    _not_for(G, directed=True)
    if n not in G:
        raise KeyError(n)  # NetworkX's BFS reads G._adj[n]
    _, labels = component_labels(G)
    c = labels[G.index[n]]
    return {G.nodes[i] for i in np.flatnonzero(labels == c).tolist()}


def weakly_connected_components(G):
    """The weakly connected components (sets of nodes) of a directed graph, a generator."""
    _not_for(G, directed=False)
    count, labels = component_labels(G)
    return (c for c in _sets(G, labels, count))


def _sinks_first(G: KleeneGraph, labels: np.ndarray, count: int) -> list[int]:
    """The components in a reverse topological order of the condensation (every
    component after those it reaches), ties by first node."""
    a, b = labels[G.src], labels[G.dst]
    between = a != b
    pairs = np.unique(np.stack([a[between], b[between]]), axis=1)
    out_deg = np.bincount(pairs[0], minlength=count)
    preds: list[list[int]] = [[] for _ in range(count)]
    for u, v in zip(pairs[0].tolist(), pairs[1].tolist(), strict=True):
        preds[v].append(u)
    ready = [c for c in range(count) if out_deg[c] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        c = heapq.heappop(ready)
        order.append(c)
        for u in preds[c]:
            out_deg[u] -= 1
            if out_deg[u] == 0:
                heapq.heappush(ready, u)
    return order


def strongly_connected_components(G):
    """The strongly connected components (sets of nodes) of a directed graph, a
    generator, sinks first."""
    _not_for(G, directed=False)
    count, labels = component_labels(G, "strong")
    return (c for c in _sets(G, labels, count, _sinks_first(G, labels, count)))
