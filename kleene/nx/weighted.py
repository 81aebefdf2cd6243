"""Weighted shortest paths (Dijkstra and Bellman-Ford names) with NetworkX's semantics.

Distances and the shortest-path tree come from ``kleene.sssp`` (Bellman-Ford
over ``min_plus``; predecessors: the BFS tree of the tight edges), whatever
NetworkX's name for the method: the results are the same shortest distances.
Differences from NetworkX:

* none in Dijkstra's ties: the settle order (the order of the returned dicts) and,
  where several shortest paths tie, the path returned are NetworkX's, replayed from
  kleene's distances over the tight arcs (``_order.settle``); the Bellman-Ford names
  keep kleene's tree (fewest hops, then the smallest node position) and order (by
  distance, ties by node position) where paths tie;
* Dijkstra with a negative edge weight (undefined in NetworkX) raises
  ``NotImplementedError``, so NetworkX runs instead when fallback is on.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from kleene.errors import InvalidValue

from ._engine import (
    beyond_cutoff,
    dijkstra_order,
    dijkstra_orders,
    dist_dict,
    distances_many,
    number,
    path_to,
    paths_from_tree,
    settle_order,
    shortest_tree,
)
from .graph import KleeneGraph

__all__ = [
    "all_pairs_bellman_ford_path",
    "all_pairs_bellman_ford_path_length",
    "all_pairs_dijkstra",
    "all_pairs_dijkstra_path",
    "all_pairs_dijkstra_path_length",
    "bellman_ford_path",
    "bellman_ford_path_length",
    "bellman_ford_predecessor_and_distance",
    "bidirectional_dijkstra",
    "dijkstra_path",
    "dijkstra_path_length",
    "dijkstra_predecessor_and_distance",
    "multi_source_dijkstra",
    "multi_source_dijkstra_path",
    "multi_source_dijkstra_path_length",
    "negative_edge_cycle",
    "single_source_bellman_ford",
    "single_source_bellman_ford_path",
    "single_source_bellman_ford_path_length",
    "single_source_dijkstra",
    "single_source_dijkstra_path",
    "single_source_dijkstra_path_length",
]


class Search:
    """One shortest-path search: distances, tree and settle order, as vertex ids.

    What it reaches is what NetworkX's search reaches: Dijkstra (``dijkstra=True``)
    also reaches, at distance inf, the vertices only an inf-weight edge leads to (its
    sums are inf, never above inf) and keeps every source whatever the ``cutoff``;
    Bellman-Ford reaches only finite distances (inf is never below inf). An edge whose
    weight is None is skipped by Dijkstra, a TypeError for Bellman-Ford (as in NetworkX,
    where it is reached)."""

    def __init__(
        self, G: KleeneGraph, sources, weight, *, cutoff=None, dijkstra=True, reverse=False
    ):
        if dijkstra:
            _no_negative_weights(G, weight)
        self.G = G
        self.weight = weight
        self.cutoff = cutoff
        self.sources = [G.index[s] for s in sources]
        dist, pred = shortest_tree(G, self.sources, weight, reverse=reverse)
        if dijkstra:  # NetworkX's settle order and tie-breaking among equal paths
            dist = beyond_cutoff(dist, cutoff, self.sources)
            self.order, pred = dijkstra_order(G, dist, self.sources, weight, reverse=reverse)
        else:
            G.no_hidden_arcs(weight, "Bellman-Ford", tails=np.isfinite(dist))
            self.order = settle_order(dist, self.sources)
        self.reach = np.zeros(G.n, bool)
        self.reach[self.order] = True
        self.dist = np.where(self.reach, dist, np.inf)
        self.pred = np.where(self.reach, pred, -1)

    def lengths(self) -> dict:
        return dist_dict(self.G, self.dist, self.order, self.weight)

    def paths(self) -> dict:
        return paths_from_tree(self.G.nodes, self.pred, self.order)

    def reached(self, target) -> bool:
        return target in self.G and bool(self.reach[self.G.index[target]])

    def length(self, target):
        return number(self.dist[self.G.index[target]], self.G.integral(self.weight))

    def path(self, target) -> list:
        return path_to(self.G.nodes, self.pred, self.G.index[target])


def _no_negative_weights(G: KleeneGraph, weight) -> None:
    if G.has_negative_weight(weight):
        raise NotImplementedError(
            "kleene: Dijkstra with negative edge weights is undefined in NetworkX; "
            "use the bellman_ford functions"
        )


def _check_sources(G, sources):
    if not sources:
        raise InvalidValue("sources must not be empty")
    for s in sources:
        if s not in G:
            raise nx.NodeNotFound(f"Node {s} not found in graph")


# -- Dijkstra ------------------------------------------------------------------
def dijkstra_path(G, source, target, weight="weight"):
    """A shortest weighted path from source to target."""
    length, path = single_source_dijkstra(G, source, target=target, weight=weight)
    return path


def dijkstra_path_length(G, source, target, weight="weight"):
    """The shortest weighted distance from source to target."""
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    S = Search(G, [source], weight)
    if not S.reached(target):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return S.length(target)


def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    return multi_source_dijkstra_path(G, {source}, cutoff=cutoff, weight=weight)


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    return multi_source_dijkstra_path_length(G, {source}, cutoff=cutoff, weight=weight)


def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, {source}, target=target, cutoff=cutoff, weight=weight)


def multi_source_dijkstra_path(G, sources, cutoff=None, weight="weight"):
    length, path = multi_source_dijkstra(G, sources, cutoff=cutoff, weight=weight)
    return path


def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    _check_sources(G, sources)
    return Search(G, sources, weight, cutoff=cutoff).lengths()


def multi_source_dijkstra(G, sources, target=None, cutoff=None, weight="weight"):
    _check_sources(G, sources)
    if target in sources:
        return 0, [target]
    S = Search(G, sources, weight, cutoff=cutoff)
    if target is None:
        return S.lengths(), S.paths()
    if not S.reached(target):
        raise nx.NetworkXNoPath(f"No path to {target}.")
    return S.length(target), S.path(target)


def dijkstra_predecessor_and_distance(G, source, cutoff=None, weight="weight"):
    """({node: [predecessors on shortest paths]}, {node: distance})."""
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} is not found in the graph")
    S = Search(G, [source], weight, cutoff=cutoff)
    return _all_predecessors(S), S.lengths()


def bidirectional_dijkstra(G, source, target, weight="weight"):
    """(distance, path) from source to target."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    if source == target:
        return 0, [source]
    S = Search(G, [source], weight)
    if not S.reached(target):
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return S.length(target), S.path(target)


def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    """(node, ({target: distance}, {target: path})) for every node (a generator): the
    sources in batches, as all_pairs_dijkstra_path_length, each row's tree as one
    source's search makes it."""
    for s, dist, order, pred in _all_rows(G, weight, cutoff):
        yield G.nodes[s], (dist_dict(G, dist, order, weight), paths_from_tree(G.nodes, pred, order))


def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    """(node, {target: distance}) for every node (a generator): the sources go in
    batches through one multi-source search each, not one search per node."""
    _no_negative_weights(G, weight)
    for batch in _batches(G.n):
        rows = distances_many(G, batch, weight, cutoff)
        for row, s, (order, _) in zip(
            rows, batch, dijkstra_orders(G, rows, batch, weight), strict=True
        ):
            yield G.nodes[s], dist_dict(G, row, order, weight)


# All-pairs lengths: sources per batch, as many as keep a batch's (k, n) distances
# under this many entries (128 MiB of float64).
_BATCH_ENTRIES = 1 << 24


def _batches(n: int):
    """Source ids 0..n-1 in lists of as many as keep a batch's (k, n) rows in bounds."""
    step = max(1, min(n, _BATCH_ENTRIES // max(n, 1)))
    for lo in range(0, n, step):
        yield list(range(lo, min(n, lo + step)))


def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    """(node, {target: path}) for every node (a generator), in batches of sources."""
    for s, _, order, pred in _all_rows(G, weight, cutoff):
        yield G.nodes[s], paths_from_tree(G.nodes, pred, order)


def _all_rows(G, weight, cutoff):
    """(source id, distances, settle order, predecessors) for every vertex, batch by
    batch: one multi-source search a batch, then NetworkX's settle order and paths
    from the distances (``dijkstra_orders``, the rows in parallel)."""
    _no_negative_weights(G, weight)
    for batch in _batches(G.n):
        rows = distances_many(G, batch, weight, cutoff)
        for s, row, (order, pred) in zip(
            batch, rows, dijkstra_orders(G, rows, batch, weight), strict=True
        ):
            yield s, row, order, pred


# -- Bellman-Ford --------------------------------------------------------------
def _all_predecessors(S: Search) -> dict:
    """{node: every predecessor on a shortest path} (a source: those closing a zero cycle)."""
    G = S.G
    dist = S.dist
    w = G.arc_weights(S.weight)
    w = np.ones(G.src.size, np.int64) if w is None else w
    du, dv = dist[G.src], dist[G.dst]
    tight = S.reach[G.src] & S.reach[G.dst] & (du + w == dv)  # (None weights: NaN, never)
    if S.cutoff is not None:  # NetworkX relaxes no arc past the cutoff (into a source
        with np.errstate(invalid="ignore"):  # at 0 with a cutoff < 0, say)
            tight &= ~(du + w > S.cutoff)
    rank = np.empty(G.n, np.int64)
    rank[S.order] = np.arange(S.order.size)
    us, vs = G.src[tight], G.dst[tight]
    sel = np.lexsort((rank[us], rank[vs]))
    nodes = G.nodes
    pred: dict = {nodes[s]: [] for s in S.sources}
    for v in S.order.tolist():
        pred.setdefault(nodes[v], [])
    for u, v in zip(us[sel].tolist(), vs[sel].tolist(), strict=True):
        lst = pred[nodes[v]]
        if nodes[u] not in lst:
            lst.append(nodes[u])
    return pred


def _negative_selfloop(G: KleeneGraph, weight) -> bool:
    w = G.arc_weights(weight)
    if w is None:
        return False
    loops = G.src == G.dst
    return bool((w[loops] < 0).any())


def bellman_ford_predecessor_and_distance(G, source, target=None, weight="weight", heuristic=False):
    """({node: [predecessors]}, {node: distance}); NetworkXUnbounded on a negative cycle."""
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} is not found in the graph")
    G.no_hidden_arcs(weight, "Bellman-Ford's self-loop check", arcs=G.src == G.dst)
    if _negative_selfloop(G, weight):
        raise nx.NetworkXUnbounded("Negative cycle detected.")
    if len(G) == 1:
        return {source: []}, {source: 0}
    S = Search(G, [source], weight, dijkstra=False)
    return _all_predecessors(S), S.lengths()


def bellman_ford_path(G, source, target, weight="weight"):
    length, path = single_source_bellman_ford(G, source, target=target, weight=weight)
    return path


def bellman_ford_path_length(G, source, target, weight="weight"):
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} not found in graph")
        return 0
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    S = Search(G, [source], weight, dijkstra=False)
    if not S.reached(target):
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}")
    return S.length(target)


def single_source_bellman_ford_path(G, source, weight="weight"):
    length, path = single_source_bellman_ford(G, source, weight=weight)
    return path


def single_source_bellman_ford_path_length(G, source, weight="weight"):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    return Search(G, [source], weight, dijkstra=False).lengths()


def single_source_bellman_ford(G, source, target=None, weight="weight"):
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} is not found in the graph")
        return 0, [source]
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    S = Search(G, [source], weight, dijkstra=False)
    if target is None:
        return S.lengths(), S.paths()
    if not S.reached(target):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return S.length(target), S.path(target)


def _as_dijkstra(G, weight) -> bool:
    """Whether every Bellman-Ford search of the graph gives Dijkstra's answers: no
    negative weight and no inf one (Dijkstra reaches vertices at inf, Bellman-Ford
    does not). A None weight is a TypeError (every vertex is a source)."""
    G.no_hidden_arcs(weight, "Bellman-Ford")
    return not G.has_negative_weight(weight) and not G.has_infinite_weight(weight)


def all_pairs_bellman_ford_path_length(G, weight="weight"):
    """(node, {target: distance}) for every node (a generator). Without negative
    (or inf) weights the distances are Dijkstra's: the sources go in batches; with
    them, one Bellman-Ford per source (a negative cycle raises at the first source
    reaching it, as in NetworkX)."""
    if _as_dijkstra(G, weight):
        yield from all_pairs_dijkstra_path_length(G, weight=weight)
        return
    for v in G.nodes:
        yield v, single_source_bellman_ford_path_length(G, v, weight=weight)


def all_pairs_bellman_ford_path(G, weight="weight"):
    """(node, {target: path}) for every node (a generator); batched as the lengths."""
    if _as_dijkstra(G, weight):
        yield from all_pairs_dijkstra_path(G, weight=weight)
        return
    for v in G.nodes:
        yield v, single_source_bellman_ford_path(G, v, weight=weight)


def negative_edge_cycle(G, weight="weight", heuristic=True):
    """Whether any negative cycle exists: Bellman-Ford from a virtual source to all nodes."""
    if G.src.size == 0:
        return False
    G.no_hidden_arcs(weight, "Bellman-Ford")
    try:
        shortest_tree(G, range(G.n), weight)
    except nx.NetworkXUnbounded:
        return True
    return False
