"""Dijkstra through the backend with many tied paths: the returned dicts' order and the
paths among equal-length ones are NetworkX's own (kleene/nx/_order.py ``settle``),
on string node ids, zero and float weights, directed, undirected and multigraphs."""

from __future__ import annotations

import random
import warnings

import pytest

nx = pytest.importorskip("networkx")


def _graph(trial: int):
    directed = trial % 2 == 0
    G = nx.gnm_random_graph(50, 160, seed=trial, directed=directed)
    if trial >= 6:
        G = nx.MultiDiGraph(G) if directed else nx.MultiGraph(G)
        G.add_edges_from(list(G.edges())[:20])  # parallel arcs: the lightest counts
    G = nx.relabel_nodes(G, {i: f"n{i:02d}·{'xyz'[i % 3]}" for i in G})
    rng = random.Random(trial)
    edges = G.edges(keys=True) if G.is_multigraph() else G.edges
    for e in edges:
        G.edges[e]["weight"] = rng.randint(0, 6) if trial < 4 else round(rng.random() * 2, 1)
    return G


CALLS = {
    "single_source_dijkstra": lambda G, s, t, b: nx.single_source_dijkstra(G, s, backend=b),
    "single_source_dijkstra_path_length": lambda G, s, t, b: list(
        nx.single_source_dijkstra_path_length(G, s, backend=b).items()
    ),
    "multi_source_dijkstra": lambda G, s, t, b: nx.multi_source_dijkstra(G, [t, s], backend=b),
    "dijkstra_path": lambda G, s, t, b: nx.dijkstra_path(G, s, t, backend=b),
    "shortest_path (weighted, all targets)": lambda G, s, t, b: nx.shortest_path(
        G, s, weight="weight", backend=b
    ),
    "all_pairs_dijkstra": lambda G, s, t, b: [
        (k, list(d.items()), p) for k, (d, p) in nx.all_pairs_dijkstra(G, backend=b)
    ],
    "all_pairs_dijkstra_path": lambda G, s, t, b: list(nx.all_pairs_dijkstra_path(G, backend=b)),
}


@pytest.mark.parametrize("trial", range(8))
@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_order_and_paths_as_networkx(trial, name):
    warnings.filterwarnings("ignore", category=UserWarning)
    nx.config.warnings_to_ignore.add("cache")
    G = _graph(trial)
    nodes = list(G)
    s, t = nodes[0], nodes[23]
    call = CALLS[name]
    try:
        want = call(G, s, t, "networkx")
    except nx.NetworkXNoPath:
        with pytest.raises(nx.NetworkXNoPath):
            call(G, s, t, "kleene")
        return
    assert call(G, s, t, "kleene") == want
