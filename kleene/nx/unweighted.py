"""Unweighted shortest paths (hop counts) with NetworkX's semantics.

Paths follow NetworkX's BFS parents exactly (``_engine.bfs_levels``); the
all-pairs lengths run ``kleene.bfs`` with a batch of sources at a time
(``kleene.engine.frontier_bfs_multi``: one masked ``mxm`` per level for the batch).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from ._engine import bfs_levels, bfs_levels_many
from .graph import KleeneGraph

__all__ = [
    "all_pairs_shortest_path",
    "all_pairs_shortest_path_length",
    "bidirectional_shortest_path",
    "single_source_shortest_path",
    "single_source_shortest_path_length",
    "single_target_shortest_path",
    "single_target_shortest_path_length",
]

BATCH = 256  # sources per kleene.bfs call in the all-pairs functions


def _limit(cutoff):
    return None if cutoff is None else cutoff


def bfs_paths(G: KleeneGraph, source: int, *, reverse=False, cutoff=None) -> dict:
    """{node: path} from vertex ``source`` (to it, reversed, with ``reverse``), BFS order."""
    nodes = G.nodes
    paths: dict = {}
    by_id: dict[int, list] = {}
    for vs, ps in bfs_levels(G, [source], reverse=reverse, depth_limit=_limit(cutoff)):
        for v, p in zip(vs.tolist(), ps.tolist(), strict=True):
            path = [nodes[v]] if p < 0 else by_id[p] + [nodes[v]]
            by_id[v] = path
            paths[nodes[v]] = path
    return paths


def bfs_lengths(G: KleeneGraph, source: int, *, reverse=False, cutoff=None) -> dict:
    nodes = G.nodes
    out: dict = {}
    depth = 0
    for vs, _ps in bfs_levels(G, [source], reverse=reverse, depth_limit=_limit(cutoff)):
        for v in vs.tolist():
            out[nodes[v]] = depth
        depth += 1
    return out


def single_source_shortest_path_length(G, source, cutoff=None):
    """{node: hops from source}, in BFS order."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    return bfs_lengths(G, G.index[source], cutoff=cutoff)


def single_target_shortest_path_length(G, target, cutoff=None):
    """{node: hops to target}, in BFS order of the reverse graph."""
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return bfs_lengths(G, G.index[target], reverse=G.directed, cutoff=cutoff)


def single_source_shortest_path(G, source, cutoff=None):
    """{node: shortest path from source}, NetworkX's BFS paths."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    return bfs_paths(G, G.index[source], cutoff=cutoff)


def single_target_shortest_path(G, target, cutoff=None):
    """{node: shortest path from node to target}."""
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} not in G")
    paths = bfs_paths(G, G.index[target], reverse=G.directed, cutoff=cutoff)
    return {v: p[::-1] for v, p in paths.items()}


def all_pairs_shortest_path(G, cutoff=None):
    """(node, {target: path}) for every node (a generator)."""
    for v in G.nodes:
        yield v, bfs_paths(G, G.index[v], cutoff=cutoff)


def all_pairs_shortest_path_length(G, cutoff=None):
    """(node, {target: hops}) for every node (a generator); batches of kleene.bfs."""
    nodes = G.nodes
    for lo in range(0, G.n, BATCH):
        batch = list(range(lo, min(lo + BATCH, G.n)))
        levels = bfs_levels_many(G, batch, cutoff=cutoff)
        for row, s in zip(levels, batch, strict=True):
            reached = np.flatnonzero(row >= 0)
            reached = reached[np.argsort(row[reached], kind="stable")]
            yield nodes[s], {nodes[v]: int(row[v]) for v in reached.tolist()}


def bidirectional_shortest_path(G, source, target):
    """A shortest path (a list of nodes) from source to target."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    path = hop_path(G, source, target)
    if path is None:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return path


def hop_path(G: KleeneGraph, source, target):
    """The BFS path from source to target, or None when there is none."""
    nodes = G.nodes
    t = G.index[target]
    parent: dict[int, int] = {}
    for vs, ps in bfs_levels(G, [G.index[source]]):
        parent.update(zip(vs.tolist(), ps.tolist(), strict=True))
        if t in parent:
            path = []
            u = t
            while u >= 0:
                path.append(nodes[u])
                u = parent[u]
            return path[::-1]
    return None
