"""The NetworkX backend's BFS order: the compiled walk (kleene/nx/_order.py) gives the same
levels, order and parents as the composed form (a masked min_plus vxm over the rank
matrix per level), on random graphs of every kind, with several sources, reversed, and
with depth limits."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kleene.nx import _engine, convert_from_nx

pytest.importorskip("numba", reason="the walk is compiled with numba")


@st.composite
def nx_graphs(draw):
    kind = draw(st.sampled_from([nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]))
    n = draw(st.integers(1, 30))
    G = kind()
    G.add_nodes_from(f"v{i}" for i in draw(st.permutations(range(n))))
    m = draw(st.integers(0, 4 * n))
    for _ in range(m):
        G.add_edge(f"v{draw(st.integers(0, n - 1))}", f"v{draw(st.integers(0, n - 1))}")
    return G


def _levels(KG, sources, reverse, limit):
    return [
        (v.tolist(), p.tolist())
        for v, p in _engine.bfs_levels(KG, sources, reverse=reverse, depth_limit=limit)
    ]


@given(G=nx_graphs(), data=st.data())
def test_walk_equals_the_composed_levels(G, data):
    KG = convert_from_nx(G)
    n = G.number_of_nodes()
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    reverse = data.draw(st.booleans())
    limit = data.draw(st.sampled_from([None, 0, 1, 3]))
    walked = _levels(KG, sources, reverse, limit)
    saved = _engine.walk
    _engine.walk = None  # the composed form
    try:
        composed = _levels(KG, sources, reverse, limit)
    finally:
        _engine.walk = saved
    assert walked == composed
    seen = [v for vs, _ in walked for v in vs]
    assert len(seen) == len(set(seen))  # every vertex once
    if limit is None:
        want = set()
        for s in sources:
            g = G.reverse(copy=False) if reverse and G.is_directed() else G
            want |= nx.descendants(g, KG.nodes[s]) | {KG.nodes[s]}
        assert {KG.nodes[v] for v in seen} == want
    np.testing.assert_array_equal(walked[0][1], [-1] * len(walked[0][0]))
