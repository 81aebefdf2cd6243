"""Breadth-first traversal with NetworkX's semantics: bfs_edges, bfs_tree, bfs_layers, ...

Every function walks ``_engine.bfs_levels`` (one masked ``min_plus`` ``vxm`` per
level over the adjacency-rank matrix), which reproduces NetworkX's visiting
order and parents exactly; ``descendants`` / ``ancestors`` need only the
levels of ``kleene.bfs``.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from ._engine import bfs_levels, bfs_reach
from .graph import KleeneGraph

__all__ = [
    "ancestors",
    "bfs_edges",
    "bfs_layers",
    "bfs_predecessors",
    "bfs_successors",
    "bfs_tree",
    "descendants",
    "descendants_at_distance",
]


def _not_in_graph(node) -> nx.NetworkXError:
    return nx.NetworkXError(f"The node {node} is not in the graph.")


def _edges(G: KleeneGraph, source, reverse=False, depth_limit=None):
    if source not in G:
        raise _not_in_graph(source)
    nodes = G.nodes
    rev = bool(reverse) and G.directed
    for vs, ps in bfs_levels(G, [G.index[source]], reverse=rev, depth_limit=depth_limit):
        if ps.size and ps[0] < 0:
            continue  # level 0
        for p, v in zip(ps.tolist(), vs.tolist(), strict=True):
            yield nodes[p], nodes[v]


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """Edges of a breadth-first search from ``source``, in NetworkX's order (a generator)."""
    yield from _edges(G, source, reverse, depth_limit)


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """The BFS tree from ``source`` as a networkx ``DiGraph``."""
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(_edges(G, source, reverse, depth_limit))
    return T


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """(node, parent) pairs in BFS order (a generator)."""
    for s, t in _edges(G, source, False, depth_limit):
        yield t, s


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """(parent, [children]) pairs in BFS order (a generator)."""
    parent = source
    children: list = []
    for p, c in _edges(G, source, False, depth_limit):
        if p == parent:
            children.append(c)
            continue
        yield parent, children
        children = [c]
        parent = p
    yield parent, children


def bfs_layers(G, sources):
    """Lists of nodes by distance from ``sources`` (a node or an iterable of nodes)."""
    if sources in G:
        sources = [sources]
    first = list(set(sources))  # NetworkX's first layer is a set's order
    for s in first:
        if s not in G:
            raise _not_in_graph(s)
    nodes = G.nodes
    index = G.index
    for vs, _ps in bfs_levels(G, [index[s] for s in first]):
        if vs.size == 0:
            return
        yield [nodes[v] for v in vs.tolist()]


def descendants_at_distance(G, source, distance):
    """The set of nodes at exactly ``distance`` hops from ``source``."""
    if source not in G:
        raise _not_in_graph(source)
    if distance < 0:
        return set()
    levels = bfs_reach(G, G.index[source])
    nodes = G.nodes
    return {nodes[v] for v in np.flatnonzero(levels == distance).tolist()}


def descendants(G, source):
    """All nodes reachable from ``source`` (``source`` itself excluded)."""
    if source not in G:
        raise _not_in_graph(source)
    levels = bfs_reach(G, G.index[source])
    nodes = G.nodes
    return {nodes[v] for v in np.flatnonzero(levels > 0).tolist()}


def ancestors(G, source):
    """All nodes that reach ``source`` (``source`` itself excluded)."""
    if source not in G:
        raise _not_in_graph(source)
    levels = bfs_reach(G, G.index[source], reverse=G.directed)
    nodes = G.nodes
    return {nodes[v] for v in np.flatnonzero(levels > 0).tolist()}
