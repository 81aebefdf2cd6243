"""All-pairs functions with NetworkX's semantics: Floyd-Warshall, Johnson, closures.

``kleene.apsp`` (the min_plus closure A*, with predecessors) computes the
Floyd-Warshall and Johnson results, ``kleene.transitive_closure`` (the lor_land
closure) the transitive closures. Differences from NetworkX: a negative cycle
makes Floyd-Warshall's values meaningless in NetworkX (it returns them); here
it raises ``NotImplementedError`` (NetworkX runs instead when fallback is on).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from kleene.algorithms import apsp
from kleene.algorithms import transitive_closure as _closure
from kleene.errors import NegativeCycleError

from ._engine import NEGATIVE_CYCLE, host, number, paths_from_tree
from .graph import KleeneGraph, convert_to_nx

__all__ = [
    "floyd_warshall",
    "floyd_warshall_numpy",
    "floyd_warshall_predecessor_and_distance",
    "johnson",
    "transitive_closure",
    "transitive_closure_dag",
]


def _apsp(G: KleeneGraph, weight, *, preds: bool, drop_loops: bool = False, method="auto"):
    G.no_hidden_arcs(weight, "Floyd-Warshall")
    A = G.matrix(weight, unit=True)
    if drop_loops and G.src.size and bool((G.src == G.dst).any()):
        from kleene.ops import select

        A = select(A, "offdiag")
    try:
        out = apsp(A, method=method, return_predecessors=preds)
    except NegativeCycleError:
        raise NotImplementedError(
            "kleene: the graph has a negative cycle, where NetworkX's Floyd-Warshall "
            "returns undefined values"
        ) from None  # (the kleene call inside is not the user's)
    if preds:
        return host(out[0]), host(out[1])
    return host(out)


def floyd_warshall_predecessor_and_distance(G, weight="weight"):
    """(pred, dist): pred[u][v] is v's predecessor on a shortest u-v path, dist[u][v] the
    distance (inf when v is unreachable)."""
    D, P = _apsp(G, weight, preds=True)
    nodes = G.nodes
    integral = G.integral(weight)
    dist = {}
    for i, u in enumerate(nodes):
        row = D[i]
        dist[u] = {
            v: (number(row[j], integral) if np.isfinite(row[j]) else float("inf"))
            for j, v in enumerate(nodes)
        }
    has_out = np.zeros(G.n, bool)
    has_out[G.src] = True
    loops = set(G.src[G.src == G.dst].tolist())
    pred = {}
    for i in np.flatnonzero(has_out).tolist():
        prow = P[i]
        d = {nodes[j]: nodes[int(prow[j])] for j in np.flatnonzero(prow >= 0).tolist()}
        if i in loops:
            d[nodes[i]] = nodes[i]
        pred[nodes[i]] = d
    _infinite_edges_as_predecessors(G, weight, pred)
    return pred, dist


def _infinite_edges_as_predecessors(G: KleeneGraph, weight, pred: dict) -> None:
    """NetworkX's Floyd-Warshall starts pred[u][v] = u on every edge, an inf-weight one
    too (never improved: nothing beats inf by more than nothing); kleene's closure
    takes an inf weight as no edge, so those entries are added here."""
    w = G.arc_weights(weight)
    if w is None or w.dtype.kind != "f":
        return
    nodes = G.nodes
    for e in np.flatnonzero(np.isposinf(w)).tolist():
        u, v = nodes[int(G.src[e])], nodes[int(G.dst[e])]
        pred.setdefault(u, {}).setdefault(v, u)


def floyd_warshall(G, weight="weight"):
    """{u: {v: distance}} for every pair (inf when unreachable)."""
    return floyd_warshall_predecessor_and_distance(G, weight=weight)[1]


def floyd_warshall_numpy(G, nodelist=None, weight="weight"):
    """The (n, n) distance array, rows and columns in ``nodelist`` order."""
    if nodelist is not None:
        if not len(nodelist) == len(G) == len(set(nodelist)):
            raise nx.NetworkXError(
                "nodelist must contain every node in G with no repeats."
                "If you wanted a subgraph of G use G.subgraph(nodelist)"
            )
    D = _apsp(G, weight, preds=False, drop_loops=True).astype(np.float64)
    if nodelist is not None:
        order = np.asarray([G.index[v] for v in nodelist], dtype=np.int64)
        D = D[np.ix_(order, order)]
    return D


def johnson(G, weight="weight"):
    """{u: {v: shortest path}} for the reachable pairs; NetworkXUnbounded on a negative
    cycle. With an inf weight, NetworkX's Dijkstra passes also reach, at inf, what only
    an inf edge leads to: without negative weights its answer is then exactly
    ``all_pairs_dijkstra_path`` (the potentials are all 0), with them NetworkX runs
    (NotImplementedError)."""
    G.no_hidden_arcs(weight, "Johnson's Bellman-Ford pass")
    G.no_negative_infinity(weight)
    if G.has_infinite_weight(weight):
        if G.has_negative_weight(weight):
            raise NotImplementedError(
                "kleene: johnson with both negative and inf edge weights (NetworkX "
                "reaches vertices at inf distance there)"
            )
        from .weighted import all_pairs_dijkstra_path

        return dict(all_pairs_dijkstra_path(G, weight=weight))
    A = G.matrix(weight, unit=True)
    try:
        D, P = apsp(A, method="auto", return_predecessors=True)
    except NegativeCycleError:
        raise nx.NetworkXUnbounded(NEGATIVE_CYCLE) from None  # (not kleene's call)
    D, P = host(D), host(P)
    out = {}
    for i, u in enumerate(G.nodes):
        reached = np.flatnonzero(np.isfinite(D[i]))
        others = reached[reached != i]
        order = np.concatenate(([i], others[np.argsort(D[i][others], kind="stable")]))
        out[u] = paths_from_tree(G.nodes, P[i], order)
    return out


def _closure_graph(G: KleeneGraph, R: np.ndarray):
    TC = convert_to_nx(G)
    nodes = G.nodes
    rows, cols = np.nonzero(R)
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        u, v = nodes[i], nodes[j]
        if v not in TC[u]:
            TC.add_edge(u, v)
    return TC


def transitive_closure(G, reflexive=False):
    """G with an edge u -> v added wherever a path leads from u to v.

    ``reflexive=False``: a self-loop where a node lies on a cycle; True: at every
    node; None: none added.
    """
    if reflexive not in {None, True, False}:
        raise nx.NetworkXError("Incorrect value for the parameter `reflexive`")
    A = G.matrix(None)
    R = host(_closure(A, reflexive=reflexive is True))
    if reflexive is None or (reflexive is False and not G.directed):
        # NetworkX's edge_bfs of an undirected graph never returns to its start
        R = R.copy()
        np.fill_diagonal(R, False)
    return _closure_graph(G, R)


def transitive_closure_dag(G, topo_order=None):
    """The transitive closure of a directed acyclic graph (no self-loops added)."""
    if not G.directed:
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    R = host(_closure(G.matrix(None)))
    if R.size and R.diagonal().any():
        raise nx.NetworkXUnfeasible("Graph contains a cycle or graph changed during iteration")
    return _closure_graph(G, R)
