"""kleene.nx functions against NetworkX's own answers, on random graphs with string nodes.

The functions are called directly on a converted ``KleeneGraph`` (no entry point
needed); tests/test_nx_backend.py covers NetworkX's dispatching to them.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from kleene.nx import graph as kgraph  # noqa: E402
from kleene.nx.interface import FUNCTIONS  # noqa: E402

KINDS = {
    "Graph": nx.Graph,
    "DiGraph": nx.DiGraph,
    "MultiGraph": nx.MultiGraph,
    "MultiDiGraph": nx.MultiDiGraph,
}


@st.composite
def graphs(draw, *, kinds=tuple(KINDS), negative=False, max_nodes=8, odd=False):
    """(G, nodes): a networkx graph on string nodes, some edges without a weight.
    ``odd``: some weights are inf, and (not in multigraphs, where NetworkX cannot take
    the least of None and a number) some are None: edges NetworkX's Dijkstra skips."""
    kind = draw(st.sampled_from(kinds))
    n = draw(st.integers(1, max_nodes))
    names = draw(st.permutations([f"v{i}" for i in range(n)]))
    G = KINDS[kind]()
    G.add_nodes_from(names)
    lo = -3 if negative else 0
    weights = st.one_of(st.none(), st.integers(lo, 9))
    if odd:
        special = ["inf"] if kind.startswith("Multi") else ["inf", "None"]
        weights = st.one_of(weights, st.sampled_from(special))
    edges = draw(
        st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names), weights), max_size=3 * n)
    )
    for u, v, w in edges:
        if w is None:
            G.add_edge(u, v)
        else:
            G.add_edge(u, v, weight={"inf": math.inf, "None": None}.get(w, w))
    return G


# Every cutoff / depth_limit NetworkX takes: negative, zero, fractional, inf, NaN.
LIMITS = st.one_of(
    st.none(),
    st.integers(-2, 4),
    st.sampled_from([-0.5, 0.5, 1.5, 2.5, math.inf, math.nan]),
    st.floats(-3, 12, allow_nan=False),
)


def kl(name, G, *args, weight="weight", preserve=False, **kw):
    """Run kleene's ``name`` on a conversion of G (as NetworkX's dispatcher would)."""
    attrs = None if weight is None else {weight: 1}
    keep = dict.fromkeys(
        ("preserve_edge_attrs", "preserve_node_attrs", "preserve_graph_attrs"), preserve
    )
    KG = kgraph.convert_from_nx(G, edge_attrs=attrs, **keep)
    func = FUNCTIONS[name]
    if "weight" in inspect.signature(func).parameters:
        kw["weight"] = weight
    return func(KG, *args, **kw)


def ref(name, G, *args, **kw):
    return getattr(nx, name)(G, *args, backend="networkx", **kw)


def path_weight(G, path, weight="weight"):
    total = 0
    for u, v in zip(path, path[1:], strict=False):
        d = G[u][v]
        total += (
            min(e.get(weight, 1) for e in d.values()) if G.is_multigraph() else d.get(weight, 1)
        )
    return total


def check_paths(G, paths, dist, weight="weight"):
    for t, p in paths.items():
        assert p[-1] == t
        assert all(G.has_edge(u, v) for u, v in zip(p, p[1:], strict=False))
        assert path_weight(G, p, weight) == dist[t]


def no_numpy(obj):
    if isinstance(obj, dict):
        return all(no_numpy(k) and no_numpy(v) for k, v in obj.items())
    if isinstance(obj, list | tuple | set):
        return all(no_numpy(x) for x in obj)
    return not isinstance(obj, np.generic)


# -- traversal: exact order -----------------------------------------------------
@given(graphs(), st.data())
def test_bfs_functions_match_networkx_exactly(G, data):
    s = data.draw(st.sampled_from(list(G)))
    depth = data.draw(st.one_of(st.none(), st.integers(0, 3)))
    for name in ("bfs_edges", "bfs_predecessors", "bfs_successors"):
        assert list(kl(name, G, s, depth_limit=depth)) == list(ref(name, G, s, depth_limit=depth))
    assert list(kl("bfs_edges", G, s, reverse=True)) == list(ref("bfs_edges", G, s, reverse=True))
    T = kl("bfs_tree", G, s, depth_limit=depth)
    assert nx.utils.graphs_equal(T, ref("bfs_tree", G, s, depth_limit=depth))
    sources = data.draw(st.lists(st.sampled_from(list(G)), min_size=1, max_size=3))
    assert list(kl("bfs_layers", G, sources)) == list(ref("bfs_layers", G, sources))
    for name in ("descendants", "ancestors"):
        assert kl(name, G, s) == ref(name, G, s)
    assert kl("descendants_at_distance", G, s, 2) == ref("descendants_at_distance", G, s, 2)
    t = data.draw(st.sampled_from(list(G)))
    assert kl("has_path", G, s, t) is ref("has_path", G, s, t)


@given(graphs(), st.data())
def test_unweighted_paths_match_networkx(G, data):
    s = data.draw(st.sampled_from(list(G)))
    cutoff = data.draw(st.one_of(st.none(), st.integers(0, 3)))
    for name in (
        "single_source_shortest_path",
        "single_source_shortest_path_length",
        "single_target_shortest_path_length",
    ):
        got, want = kl(name, G, s, cutoff=cutoff), ref(name, G, s, cutoff=cutoff)
        assert got == want and list(got) == list(want)  # same BFS order
    assert dict(kl("all_pairs_shortest_path_length", G)) == dict(
        ref("all_pairs_shortest_path_length", G)
    )
    got = kl("shortest_path", G, s, weight=None)
    assert got == ref("shortest_path", G, s)
    t = data.draw(st.sampled_from(list(G)))
    if ref("has_path", G, s, t):
        p = kl("shortest_path", G, s, t, weight=None)
        assert p[0] == s and p[-1] == t and len(p) == len(ref("shortest_path", G, s, t))
        assert kl("shortest_path_length", G, s, t, weight=None) == len(p) - 1
    else:
        with pytest.raises(nx.NetworkXNoPath):
            kl("shortest_path", G, s, t, weight=None)


@given(graphs(), st.data())
def test_every_depth_limit_and_cutoff_matches_networkx(G, data):
    s = data.draw(st.sampled_from(list(G)))
    limit = data.draw(LIMITS, label="limit")
    for name in ("bfs_edges", "bfs_predecessors", "bfs_successors"):
        assert list(kl(name, G, s, depth_limit=limit)) == list(ref(name, G, s, depth_limit=limit))
    T = kl("bfs_tree", G, s, depth_limit=limit)
    assert nx.utils.graphs_equal(T, ref("bfs_tree", G, s, depth_limit=limit))
    assert list(T) == list(ref("bfs_tree", G, s, depth_limit=limit))
    for name in (
        "single_source_shortest_path",
        "single_source_shortest_path_length",
        "single_target_shortest_path",
        "single_target_shortest_path_length",
    ):
        got, want = kl(name, G, s, cutoff=limit), ref(name, G, s, cutoff=limit)
        assert got == want and list(got) == list(want)
    for name in ("all_pairs_shortest_path", "all_pairs_shortest_path_length"):
        got, want = dict(kl(name, G, cutoff=limit)), dict(ref(name, G, cutoff=limit))
        assert got == want


def _same_or_same_error(got, want):
    """Call both; equal answers (in any order: Bellman-Ford's is kleene's), or both a
    TypeError (a None weight that NetworkX adds)."""
    try:
        expected = want()
    except TypeError:
        with pytest.raises(TypeError, match="None"):
            got()
        return None
    answer = got()
    assert answer == expected
    return answer


@given(graphs(odd=True), st.data())
def test_dijkstra_cutoffs_inf_and_none_weights_match_networkx(G, data):
    s = data.draw(st.sampled_from(list(G)))
    cutoff = data.draw(LIMITS, label="cutoff")
    sources = list(
        dict.fromkeys(data.draw(st.lists(st.sampled_from(list(G)), min_size=1, max_size=3)))
    )
    for name, args in [
        ("single_source_dijkstra", (s,)),
        ("single_source_dijkstra_path_length", (s,)),
        ("multi_source_dijkstra", (sources,)),
        ("multi_source_dijkstra_path", (sources,)),
    ]:
        got, want = kl(name, G, *args, cutoff=cutoff), ref(name, G, *args, cutoff=cutoff)
        assert got == want  # distances, paths (NetworkX's among ties) and their order
        d = got[0] if isinstance(got, tuple) else got
        assert list(d) == list(want[0] if isinstance(want, tuple) else want)
    pred, dist = kl("dijkstra_predecessor_and_distance", G, s, cutoff=cutoff)
    wpred, wdist = ref("dijkstra_predecessor_and_distance", G, s, cutoff=cutoff)
    assert dist == wdist and {k: set(v) for k, v in pred.items()} == {
        k: set(v) for k, v in wpred.items()
    }
    got = {u: (list(d.items()), p) for u, (d, p) in kl("all_pairs_dijkstra", G, cutoff=cutoff)}
    want = {u: (list(d.items()), p) for u, (d, p) in ref("all_pairs_dijkstra", G, cutoff=cutoff)}
    assert got == want
    for name in ("all_pairs_dijkstra_path", "all_pairs_dijkstra_path_length"):
        got = {u: list(d.items()) for u, d in kl(name, G, cutoff=cutoff)}
        assert got == {u: list(d.items()) for u, d in ref(name, G, cutoff=cutoff)}
    got = kl("multi_source_dijkstra_path_length", G, sources, cutoff=cutoff)
    want = ref("multi_source_dijkstra_path_length", G, sources, cutoff=cutoff)
    assert list(got.items()) == list(want.items())
    t = data.draw(st.sampled_from(list(G)))
    for name in ("dijkstra_path_length", "dijkstra_path", "bidirectional_dijkstra"):
        try:
            want = ref(name, G, s, t)
        except nx.NetworkXNoPath:
            with pytest.raises(nx.NetworkXNoPath):
                kl(name, G, s, t)
            continue
        got = kl(name, G, s, t)
        if name == "bidirectional_dijkstra":  # (its path among ties: NetworkX's search
            got, want = got[0], want[0]  # from both ends; kleene's is Dijkstra's)
        assert got == want


@given(graphs(odd=True), st.data())
def test_other_weighted_functions_with_inf_and_none_weights(G, data):
    s = data.draw(st.sampled_from(list(G)))
    _same_or_same_error(
        lambda: kl("single_source_bellman_ford_path_length", G, s),
        lambda: ref("single_source_bellman_ford_path_length", G, s),
    )
    try:
        wpred, wdist = ref("bellman_ford_predecessor_and_distance", G, s)
    except TypeError:
        with pytest.raises(TypeError, match="None"):
            kl("bellman_ford_predecessor_and_distance", G, s)
    else:
        pred, dist = kl("bellman_ford_predecessor_and_distance", G, s)
        assert dist == wdist
        assert {k: set(v) for k, v in pred.items()} == {k: set(v) for k, v in wpred.items()}
    _same_or_same_error(lambda: kl("negative_edge_cycle", G), lambda: ref("negative_edge_cycle", G))
    _same_or_same_error(
        lambda: dict(kl("all_pairs_bellman_ford_path_length", G)),
        lambda: dict(ref("all_pairs_bellman_ford_path_length", G)),
    )
    jp = _same_or_same_error(
        lambda: {u: set(p) for u, p in kl("johnson", G).items()},
        lambda: {u: set(p) for u, p in ref("johnson", G).items()},
    )
    if jp is None:
        return  # a None weight: NetworkX's Floyd-Warshall raises TypeError too
    fw = _same_or_same_error(
        lambda: {u: dict(d) for u, d in kl("floyd_warshall", G).items()},
        lambda: {u: dict(d) for u, d in ref("floyd_warshall", G).items()},
    )
    assert fw is not None
    pred, _ = kl("floyd_warshall_predecessor_and_distance", G)
    wpred, _ = ref("floyd_warshall_predecessor_and_distance", G)
    assert {u: set(d) for u, d in pred.items()} == {u: set(d) for u, d in wpred.items()}
    np.testing.assert_array_equal(kl("floyd_warshall_numpy", G), ref("floyd_warshall_numpy", G))


def test_none_weights_named_and_round_tripped():
    G = nx.DiGraph(
        [("a", "b", {"weight": None}), ("b", "c", {"weight": 2}), ("a", "c", {"weight": 7})]
    )
    assert kl("single_source_dijkstra_path_length", G, "a") == {"a": 0, "c": 7}
    assert type(kl("dijkstra_path_length", G, "a", "c")) is int  # the others are integers
    with pytest.raises(TypeError, match=r"edge \('a', 'b'\) has weight attribute 'weight' None"):
        kl("single_source_bellman_ford", G, "a")
    assert kl("single_source_bellman_ford", G, "b") == (
        {"b": 0, "c": 2},
        {"b": ["b"], "c": ["b", "c"]},
    )
    KG = kgraph.convert_from_nx(G, edge_attrs={"weight": 1})
    back = kgraph.convert_to_nx(KG)
    assert back["a"]["b"]["weight"] is None and back["b"]["c"]["weight"] == 2
    M = nx.MultiDiGraph([("a", "b", {"weight": None}), ("a", "b", {"weight": 3})])
    with pytest.raises(TypeError, match=r"parallel edges \('a', 'b'\) have weight attribute"):
        kl("single_source_dijkstra", M, "a")
    with pytest.raises(ValueError, match="holds NaN"):  # a NaN weight is no weight
        kl("single_source_dijkstra", nx.DiGraph([(0, 1, {"weight": math.nan})]), 0)


def test_weight_none_argument_means_unweighted():
    G = nx.DiGraph([("a", "b", {"weight": None}), ("b", "c", {"weight": 9.5})])
    for name in ("single_source_dijkstra_path_length", "single_source_bellman_ford_path_length"):
        assert kl(name, G, "a", weight=None) == {"a": 0, "b": 1, "c": 2}
    assert kl("floyd_warshall", G, weight=None)["a"]["c"] == 2
    got = nx.single_source_dijkstra_path_length(G, "a", weight=None, backend="kleene")
    assert got == {"a": 0, "b": 1, "c": 2}


# -- weighted: distances exact, paths shortest ------------------------------------
@given(graphs(), st.data())
def test_dijkstra_matches_networkx(G, data):
    s = data.draw(st.sampled_from(list(G)))
    dist, paths = kl("single_source_dijkstra", G, s)
    want = ref("single_source_dijkstra_path_length", G, s)
    assert dist == want and no_numpy(dist) and no_numpy(paths)
    assert set(paths) == set(want)
    check_paths(G, paths, dist)
    cutoff = data.draw(st.integers(0, 12))
    got = kl("single_source_dijkstra_path_length", G, s, cutoff=cutoff)
    assert got == ref("single_source_dijkstra_path_length", G, s, cutoff=cutoff)
    sources = set(data.draw(st.lists(st.sampled_from(list(G)), min_size=1, max_size=3)))
    got = kl("multi_source_dijkstra_path_length", G, sources)
    assert got == ref("multi_source_dijkstra_path_length", G, sources)
    d2, p2 = kl("multi_source_dijkstra", G, sources)
    check_paths(G, {t: p for t, p in p2.items() if t not in sources}, d2)
    assert all(p2[t][0] in sources for t in p2)
    t = data.draw(st.sampled_from(list(G)))
    if t in want:
        assert kl("dijkstra_path_length", G, s, t) == want[t]
        p = kl("dijkstra_path", G, s, t)
        assert p[0] == s and path_weight(G, p) == want[t]
        assert kl("shortest_path_length", G, s, t, weight="weight") == want[t]
    else:
        with pytest.raises(nx.NetworkXNoPath):
            kl("dijkstra_path", G, s, t)
        with pytest.raises(nx.NetworkXNoPath):
            kl("dijkstra_path_length", G, s, t)
    assert dict(kl("all_pairs_dijkstra_path_length", G)) == dict(
        ref("all_pairs_dijkstra_path_length", G)
    )
    pred, d3 = kl("dijkstra_predecessor_and_distance", G, s)
    wpred, wd = ref("dijkstra_predecessor_and_distance", G, s)
    assert d3 == wd and {k: set(v) for k, v in pred.items()} == {
        k: set(v) for k, v in wpred.items()
    }


@given(graphs(kinds=("DiGraph", "MultiDiGraph"), negative=True), st.data())
def test_bellman_ford_matches_networkx(G, data):
    s = data.draw(st.sampled_from(list(G)))
    try:
        want = ref("single_source_bellman_ford_path_length", G, s)
    except nx.NetworkXUnbounded:
        with pytest.raises(nx.NetworkXUnbounded):
            kl("single_source_bellman_ford", G, s)
        with pytest.raises(nx.NetworkXUnbounded):
            kl("bellman_ford_predecessor_and_distance", G, s)
        return
    dist, paths = kl("single_source_bellman_ford", G, s)
    assert dist == want
    check_paths(G, {t: p for t, p in paths.items() if t != s}, dist)
    try:  # NetworkX checks every self-loop here, reachable or not
        wpred, wd = ref("bellman_ford_predecessor_and_distance", G, s)
    except nx.NetworkXUnbounded:
        with pytest.raises(nx.NetworkXUnbounded):
            kl("bellman_ford_predecessor_and_distance", G, s)
        return
    pred, d2 = kl("bellman_ford_predecessor_and_distance", G, s)
    assert d2 == wd
    assert {k: set(v) for k, v in pred.items()} == {k: set(v) for k, v in wpred.items()}
    assert kl("negative_edge_cycle", G) is ref("negative_edge_cycle", G)


@given(graphs(negative=True))
def test_negative_edge_cycle_matches_networkx(G):
    assert kl("negative_edge_cycle", G) is ref("negative_edge_cycle", G)


@given(graphs(max_nodes=6))
def test_all_pairs_dense_match_networkx(G):
    fw = kl("floyd_warshall", G)
    want = ref("floyd_warshall", G)
    assert {u: dict(d) for u, d in fw.items()} == {u: dict(d) for u, d in want.items()}
    pred, dist = kl("floyd_warshall_predecessor_and_distance", G)
    wpred, _ = ref("floyd_warshall_predecessor_and_distance", G)
    assert set(pred) == set(wpred)
    for u in pred:
        assert set(pred[u]) == set(wpred[u])
        for v in pred[u]:
            if u != v:
                path = nx.reconstruct_path(u, v, pred)
                assert path_weight(G, path) == dist[u][v]
    nodes = list(G)[::-1]
    np.testing.assert_array_equal(
        kl("floyd_warshall_numpy", G, nodelist=nodes),
        ref("floyd_warshall_numpy", G, nodelist=nodes),
    )
    jp = kl("johnson", G)
    assert {u: set(p) for u, p in jp.items()} == {u: set(p) for u, p in ref("johnson", G).items()}
    for u, paths in jp.items():
        check_paths(G, {t: p for t, p in paths.items() if t != u}, want[u])


@given(graphs(), st.sampled_from([False, True, None]))
def test_transitive_closure_matches_networkx(G, reflexive):
    G.graph["name"] = "g"
    nx.set_node_attributes(G, "x", "color")
    got = kl("transitive_closure", G, reflexive, weight=None, preserve=True)
    assert nx.utils.graphs_equal(got, ref("transitive_closure", G, reflexive))
    if G.is_directed():
        try:
            want = ref("transitive_closure_dag", G)
        except nx.NetworkXUnfeasible:
            with pytest.raises(nx.NetworkXUnfeasible):
                kl("transitive_closure_dag", G, weight=None, preserve=True)
        else:
            got = kl("transitive_closure_dag", G, weight=None, preserve=True)
            assert nx.utils.graphs_equal(got, want)


# -- errors ---------------------------------------------------------------------------
def test_errors_match_networkx():
    G = nx.DiGraph([("a", "b", {"weight": 2}), ("c", "a", {"weight": 1})])
    for name, args in [
        ("single_source_shortest_path", ("z",)),
        ("single_source_shortest_path_length", ("z",)),
        ("single_source_dijkstra", ("z",)),
        ("dijkstra_path_length", ("z", "a")),
        ("single_source_bellman_ford", ("z",)),
        ("bellman_ford_predecessor_and_distance", ("z",)),
        ("has_path", ("a", "z")),
        ("bidirectional_shortest_path", ("a", "z")),
    ]:
        with pytest.raises(nx.NodeNotFound):
            kl(name, G, *args)
        with pytest.raises(nx.NodeNotFound):
            ref(name, G, *args)
    for name in ("dijkstra_path", "bellman_ford_path", "bidirectional_shortest_path"):
        with pytest.raises(nx.NetworkXNoPath):
            kl(name, G, "b", "c")
    with pytest.raises(nx.NetworkXNoPath):
        kl("shortest_path", G, "b", "c", weight="weight")
    with pytest.raises(nx.NetworkXError):
        list(kl("bfs_edges", G, "z"))
    with pytest.raises(nx.NetworkXError):
        list(kl("bfs_layers", G, ["a", "z"]))
    with pytest.raises(nx.NetworkXError):
        kl("descendants", G, "z")
    with pytest.raises(ValueError, match="method not supported"):
        kl("shortest_path", G, "a", method="spam")
    with pytest.raises(ValueError, match="sources must not be empty"):
        kl("multi_source_dijkstra", G, set())
    with pytest.raises(nx.NetworkXError, match="nodelist"):
        kl("floyd_warshall_numpy", G, nodelist=["a", "b"])
    with pytest.raises(nx.NetworkXError, match="reflexive"):
        kl("transitive_closure", G, "yes", weight=None, preserve=True)
    C = nx.DiGraph([(0, 1, {"weight": 1}), (1, 0, {"weight": -3})])
    for name in ("single_source_bellman_ford", "bellman_ford_predecessor_and_distance"):
        with pytest.raises(nx.NetworkXUnbounded):
            kl(name, C, 0)
    with pytest.raises(nx.NetworkXUnbounded):
        kl("johnson", C)
    assert kl("negative_edge_cycle", C) is True
    with pytest.raises(NotImplementedError, match="negative"):
        kl("dijkstra_path", C, 0, 1)
    with pytest.raises(NotImplementedError, match="negative cycle"):
        kl("floyd_warshall", C)
    with pytest.raises(nx.NetworkXUnfeasible):
        kl("transitive_closure_dag", C, weight=None, preserve=True)
    with pytest.raises(nx.NetworkXNotImplemented):
        kl("transitive_closure_dag", nx.Graph([(0, 1)]), weight=None, preserve=True)


def test_float_and_int_results_are_python_numbers():
    G = nx.Graph([("a", "b", {"w": 0.5}), ("b", "c", {"w": 2})])
    d = kl("single_source_dijkstra_path_length", G, "a", weight="w")
    assert d == {"a": 0, "b": 0.5, "c": 2.5} and all(type(x) is float for x in d.values())
    d = kl("single_source_dijkstra_path_length", nx.path_graph(3), 0)
    assert d == {0: 0, 1: 1, 2: 2} and all(type(x) is int for x in d.values())
    assert math.isinf(kl("floyd_warshall", nx.empty_graph(2))[0][1])


def test_negative_cycle_errors_name_no_inner_kleene_call():
    C = nx.DiGraph([(0, 1, {"weight": 1}), (1, 0, {"weight": -3})])
    for name, args in [
        ("single_source_bellman_ford", (0,)),
        ("johnson", ()),
        ("floyd_warshall", ()),
    ]:
        with pytest.raises((nx.NetworkXUnbounded, NotImplementedError)) as err:
            kl(name, C, *args)
        assert err.value.__cause__ is None and err.value.__suppress_context__
        assert "sssp" not in str(err.value) and "apsp" not in str(err.value)


def test_negative_infinite_weight_is_declined_naming_the_edge():
    G = nx.DiGraph([("a", "b", {"weight": 1}), ("b", "c", {"weight": -math.inf})])
    calls = [
        ("single_source_bellman_ford_path_length", ("a",)),
        ("floyd_warshall", ()),
        ("johnson", ()),
        ("negative_edge_cycle", ()),
    ]
    for name, args in calls:
        with pytest.raises(NotImplementedError, match=r"edge \('b', 'c'\) has weight .* -inf"):
            kl(name, G, *args)
    with pytest.raises(NotImplementedError, match="negative"):  # Dijkstra: negative already
        kl("single_source_dijkstra", G, "a")
