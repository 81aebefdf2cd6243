"""The NetworkX analytics functions kleene implements, against NetworkX's own answers.

PageRank, connected / weakly / strongly connected components, betweenness,
triangles, clustering and transitivity, called on converted ``KleeneGraph``s (as
NetworkX's dispatcher calls them) on random graphs with string nodes in a shuffled
order, directed and undirected, multigraphs, self-loops; then NetworkX's errors and
the arguments kleene declines (``can_run``). tests/test_nx_backend.py runs NetworkX's
own test modules for them with fallback off.
"""

from __future__ import annotations

import inspect
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from kleene.nx.graph import convert_from_nx  # noqa: E402
from kleene.nx.interface import FUNCTIONS, backend_interface  # noqa: E402
from kleene.nx.interface import convert_from_nx as dispatch_convert  # noqa: E402

KINDS = {
    "Graph": nx.Graph,
    "DiGraph": nx.DiGraph,
    "MultiGraph": nx.MultiGraph,
    "MultiDiGraph": nx.MultiDiGraph,
}


@st.composite
def graphs(draw, *, kinds=tuple(KINDS), max_nodes=12, weighted=False):
    """A networkx graph on string nodes (shuffled order), self-loops and parallel edges
    allowed; ``weighted``: positive integer weights on some edges."""
    kind = draw(st.sampled_from(kinds))
    n = draw(st.integers(1, max_nodes))
    names = draw(st.permutations([f"v{i}" for i in range(n)]))
    G = KINDS[kind]()
    G.add_nodes_from(names)
    node = st.sampled_from(names)
    weight = st.one_of(st.none(), st.integers(1, 9)) if weighted else st.none()
    for u, v, w in draw(st.lists(st.tuples(node, node, weight), max_size=3 * n)):
        G.add_edge(u, v, **({} if w is None else {"weight": w}))
    return G


def kl(name, G, *args, name_for_conversion=None, **kw):
    """kleene's ``name`` on G converted as NetworkX's dispatcher converts it."""
    KG = dispatch_convert(G, edge_attrs={"weight": 1}, name=name_for_conversion or name)
    return FUNCTIONS[name](KG, *args, **kw)


def ref(name, G, *args, **kw):
    return getattr(nx, name)(G, *args, backend="networkx", **kw)


def close(a: dict, b: dict, tol: float) -> None:
    assert list(a) == list(b)
    for v in a:
        both_nan = math.isnan(a[v]) and math.isnan(b[v])  # NetworkX's k=1 scaling
        assert both_nan or abs(a[v] - b[v]) <= tol, (v, a[v], b[v])


# -- PageRank -------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(graphs(weighted=True), st.data())
def test_pagerank_matches_networkx(G, data):
    nodes = list(G)
    kw = {"alpha": data.draw(st.sampled_from([0.5, 0.85, 0.99])), "tol": 1e-12}
    kw["max_iter"] = 5000
    if data.draw(st.booleans()):
        kw["personalization"] = {v: data.draw(st.integers(0, 3)) for v in nodes[:3]}
        if sum(kw["personalization"].values()) == 0:
            kw["personalization"][nodes[0]] = 1
    if data.draw(st.booleans()):
        kw["dangling"] = {nodes[-1]: 1}
    if data.draw(st.booleans()):
        kw["nstart"] = {v: i + 1 for i, v in enumerate(nodes)}
    weight = data.draw(st.sampled_from(["weight", None]))
    got = kl("pagerank", G, weight=weight, **kw)
    want = ref("pagerank", G, weight=weight, **kw)
    assert list(got) == nodes and all(type(x) is float for x in got.values())
    assert sum(abs(got[v] - want[v]) for v in nodes) <= 1e-9


def test_pagerank_multigraph_sums_parallel_edges():
    G = nx.MultiDiGraph([("a", "b"), ("a", "b"), ("a", "c"), ("c", "a"), ("b", "a")])
    G.add_edge("c", "b", weight=5)
    G.add_edge("c", "b", weight=2)
    for weight in ("weight", None):
        close(kl("pagerank", G, weight=weight), ref("pagerank", G, weight=weight), 1e-7)
    # converted without its edges (as for the path algorithms), kleene declines it
    KG = convert_from_nx(G, edge_attrs={"weight": 1})
    assert "multigraph" in backend_interface.can_run("pagerank", (KG,), {})
    with pytest.raises(NotImplementedError, match="parallel edges"):
        FUNCTIONS["pagerank"](KG)


def test_pagerank_errors_are_networkx_errors():
    G = nx.complete_graph(4)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        kl("pagerank", G, max_iter=0)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        kl("pagerank", nx.path_graph(30, create_using=nx.DiGraph), max_iter=2, tol=1e-15)
    with pytest.raises(ZeroDivisionError):
        kl("pagerank", G, personalization=dict.fromkeys(G, 0))
    assert kl("pagerank", nx.Graph()) == {}
    neg = nx.DiGraph([(0, 1, {"weight": -1}), (1, 0, {"weight": 2})])
    with pytest.raises(NotImplementedError, match="negative"):
        kl("pagerank", neg)


# -- components ----------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(graphs(kinds=("Graph", "MultiGraph")))
def test_connected_components_match_networkx(G):
    got = kl("connected_components", G)
    assert iter(got) is got  # a generator, as NetworkX's
    assert list(got) == list(ref("connected_components", G))  # same sets, same order
    n = ref("number_connected_components", G)
    assert kl("number_connected_components", G) == n
    assert kl("is_connected", G) is (n == 1)
    v = next(iter(G))
    assert kl("node_connected_component", G, v) == ref("node_connected_component", G, v)


@settings(max_examples=80, deadline=None)
@given(graphs(kinds=("DiGraph", "MultiDiGraph")))
def test_directed_components_match_networkx(G):
    weak = list(kl("weakly_connected_components", G))
    assert weak == list(ref("weakly_connected_components", G))
    strong = list(kl("strongly_connected_components", G))
    want = list(ref("strongly_connected_components", G))
    assert {frozenset(c) for c in strong} == {frozenset(c) for c in want}
    assert sum(map(len, strong)) == len(G)
    # sinks first: an edge between two components leads to one listed earlier
    where = {v: i for i, c in enumerate(strong) for v in c}
    assert all(where[v] <= where[u] for u, v in G.edges())


def test_component_errors_are_networkx_errors():
    D = nx.DiGraph([(1, 2)])
    for name in ("connected_components", "number_connected_components", "is_connected"):
        with pytest.raises(nx.NetworkXNotImplemented):
            kl(name, D)
    with pytest.raises(nx.NetworkXNotImplemented):
        kl("node_connected_component", D, 1)
    for name in ("strongly_connected_components", "weakly_connected_components"):
        with pytest.raises(nx.NetworkXNotImplemented):
            kl(name, nx.Graph([(1, 2)]))
    with pytest.raises(nx.NetworkXPointlessConcept):
        kl("is_connected", nx.Graph())
    assert list(kl("connected_components", nx.Graph())) == []
    assert list(kl("strongly_connected_components", nx.DiGraph())) == []
    # NetworkX's not_implemented_for runs before dispatch, on the NetworkX graph too
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.number_connected_components(D, backend="kleene")


# -- betweenness ---------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(graphs(weighted=True), st.data())
def test_betweenness_matches_networkx(G, data):
    kw = {
        "normalized": data.draw(st.booleans()),
        "endpoints": data.draw(st.booleans()),
        "weight": data.draw(st.sampled_from([None, "weight"])),
    }
    if data.draw(st.booleans()):
        kw["k"] = data.draw(st.integers(1, len(G)))
        seed = data.draw(st.integers(0, 2**16))
        got = kl("betweenness_centrality", G, seed=random.Random(seed), **kw)
        want = ref("betweenness_centrality", G, seed=seed, **kw)
    else:
        got = kl("betweenness_centrality", G, **kw)
        want = ref("betweenness_centrality", G, **kw)
    assert all(type(x) is float for x in got.values())
    close(got, want, 1e-9)


@settings(max_examples=60, deadline=None)
@given(graphs(kinds=("Graph", "DiGraph"), weighted=True), st.data())
def test_edge_betweenness_matches_networkx(G, data):
    kw = {
        "normalized": data.draw(st.booleans()),
        "weight": data.draw(st.sampled_from([None, "weight"])),
    }
    if data.draw(st.booleans()):
        kw["k"] = data.draw(st.integers(1, len(G)))
        seed = data.draw(st.integers(0, 2**16))
        got = kl("edge_betweenness_centrality", G, seed=random.Random(seed), **kw)
        want = ref("edge_betweenness_centrality", G, seed=seed, **kw)
    else:
        got = kl("edge_betweenness_centrality", G, **kw)
        want = ref("edge_betweenness_centrality", G, **kw)
    assert all(type(x) is float for x in got.values())
    close(got, want, 1e-9)  # the same keys, in G.edges() order


def test_betweenness_weights_kleene_declines():
    """Negative or infinite weights (no defined answer in NetworkX's Dijkstra) and
    a multigraph's edge betweenness (split among its parallel edges) are NetworkX's."""
    G = nx.path_graph(4)
    assert backend_interface.can_run("betweenness_centrality", (G,), {"weight": "weight"}) is True
    assert backend_interface.can_run("edge_betweenness_centrality", (G,), {"k": 2}) is True
    why = backend_interface.can_run("edge_betweenness_centrality", (nx.MultiGraph(G),), {})
    assert isinstance(why, str) and "multigraphs" in why
    for w in (-1.0, math.inf):
        H = nx.path_graph(4)
        H[1][2]["weight"] = w
        with pytest.raises(NotImplementedError, match="kleene"):
            kl("betweenness_centrality", H, weight="weight")
        with pytest.raises(NotImplementedError, match="kleene"):
            kl("edge_betweenness_centrality", H, weight="weight")
    with pytest.raises(NotImplementedError, match="multigraph"):
        kl("edge_betweenness_centrality", nx.MultiGraph(G))
    assert kl("edge_betweenness_centrality", nx.Graph()) == {}


# -- triangles, clustering, transitivity ---------------------------------------------
@settings(max_examples=80, deadline=None)
@given(graphs(kinds=("Graph",)), st.data())
def test_triangles_and_clustering_match_networkx(G, data):
    assert kl("triangles", G) == ref("triangles", G)
    got = kl("clustering", G)
    assert got == ref("clustering", G)  # NetworkX's formula, exactly (int 0 included)
    assert [type(x) for x in got.values()] == [type(x) for x in ref("clustering", G).values()]
    assert kl("transitivity", G) == ref("transitivity", G)
    zeros = data.draw(st.booleans())
    got = kl("average_clustering", G, count_zeros=zeros) if any(got.values()) or zeros else None
    if got is not None:
        assert got == ref("average_clustering", G, count_zeros=zeros)
    some = data.draw(st.lists(st.sampled_from([*G, "absent"]), max_size=4))
    assert kl("triangles", G, some) == ref("triangles", G, some)
    assert kl("clustering", G, some) == ref("clustering", G, some)
    v = next(iter(G))
    assert kl("triangles", G, v) == ref("triangles", G, v)
    assert kl("clustering", G, v) == ref("clustering", G, v)


def test_triangles_of_multigraphs_and_errors():
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 0), (2, 2)])
    assert kl("triangles", M) == ref("triangles", M) == {0: 1, 1: 1, 2: 1}
    for name, args in [
        ("triangles", ([0],)),
        ("clustering", ()),
        ("transitivity", ()),
        ("average_clustering", ()),
    ]:
        with pytest.raises(nx.NetworkXNotImplemented):
            kl(name, M, *args)
    with pytest.raises(nx.NetworkXNotImplemented):
        kl("triangles", nx.DiGraph([(0, 1)]))
    with pytest.raises(ZeroDivisionError):
        kl("average_clustering", nx.Graph())
    assert kl("transitivity", nx.Graph()) == 0 and kl("triangles", nx.Graph()) == {}
    with pytest.raises(nx.NetworkXError, match="nbunch"):
        kl("triangles", nx.path_graph(3), 7.5)


@settings(max_examples=80, deadline=None)
@given(graphs(kinds=("Graph", "DiGraph"), weighted=True), st.data())
def test_directed_and_weighted_clustering_match_networkx(G, data):
    """Fagiolo's directed clustering, the weighted forms (cube roots of normalized
    weights, possibly negative) and directed transitivity: NetworkX's values (up to
    rounding where weights are summed in another order)."""
    if data.draw(st.booleans()):  # signed weights, as NetworkX's test_k5_signed
        for u, v, d in G.edges(data=True):
            d["weight"] = (
                -d.get("weight", 1) if (int(u[1:]) + int(v[1:])) % 2 else d.get("weight", 1)
            )
    weight = data.draw(st.sampled_from(["weight", None]))
    got, want = kl("clustering", G, weight=weight), ref("clustering", G, weight=weight)
    assert list(got) == list(want)
    for v in got:
        assert got[v] == pytest.approx(want[v], rel=1e-12, abs=1e-12), v
        assert (got[v] == 0) is (want[v] == 0) and type(got[v]) is type(want[v])
    avg = kl("average_clustering", G, weight=weight)
    assert avg == pytest.approx(ref("average_clustering", G, weight=weight), abs=1e-12)
    if G.is_directed():
        assert kl("transitivity", G) == ref("transitivity", G)  # exact: integer counts


def test_what_kleene_declines_runs_in_networkx_with_fallback():
    G = nx.path_graph(3)
    assert backend_interface.can_run("clustering", (G,), {"weight": "weight"}) is True
    assert backend_interface.can_run("transitivity", (nx.DiGraph(G),), {}) is True
    why = backend_interface.can_run("edge_betweenness_centrality", (nx.MultiGraph(G),), {})
    assert isinstance(why, str) and "multigraphs" in why
    # a kleene graph: with fallback on, NetworkX converts it back and computes the call
    # (a negative weight: kleene's call raises NotImplementedError and NetworkX runs it)
    P = nx.path_graph(4)
    P[1][2]["weight"] = -1.0
    KP = convert_from_nx(P, edge_attrs={"weight": 1})
    before = nx.config.fallback_to_nx
    try:
        nx.config.fallback_to_nx = True
        got = nx.betweenness_centrality(KP, weight="weight")
    finally:
        nx.config.fallback_to_nx = before
    assert got == nx.betweenness_centrality(P, weight="weight")
    KG = convert_from_nx(nx.complete_graph(3), edge_attrs={"weight": 1})
    assert nx.clustering(KG) == {0: 1.0, 1: 1.0, 2: 1.0}  # kleene's


def test_dispatch_with_backend_kleene_returns_networkx_types():
    G = nx.karate_club_graph()
    G.__networkx_cache__ = None  # convert on every call (no cache warning)
    tri = nx.triangles(G, backend="kleene")
    assert tri == nx.triangles(G) and all(type(x) is int for x in tri.values())
    comps = nx.connected_components(G, backend="kleene")
    assert [set(c) for c in comps] == [set(G)]
    pr = nx.pagerank(G, backend="kleene", tol=1e-12)
    close(pr, nx.pagerank(G, tol=1e-12), 1e-9)
    bc = nx.betweenness_centrality(G, k=5, seed=3, backend="kleene")
    close(bc, nx.betweenness_centrality(G, k=5, seed=3), 1e-12)
    bc = nx.betweenness_centrality(G, weight="weight", backend="kleene")
    close(bc, nx.betweenness_centrality(G, weight="weight"), 1e-12)
    ebc = nx.edge_betweenness_centrality(G, k=5, seed=3, weight="weight", backend="kleene")
    close(ebc, nx.edge_betweenness_centrality(G, k=5, seed=3, weight="weight"), 1e-12)


def test_signatures_are_networkx_signatures():
    """Every function the backend implements takes NetworkX's parameters, in its
    order, with its defaults (NetworkX binds the call against its own signature)."""
    for name, func in FUNCTIONS.items():
        theirs = inspect.signature(getattr(nx, name)).parameters.values()
        want = [
            (p.name, p.default) for p in theirs if p.name != "backend" and p.kind != p.VAR_KEYWORD
        ]
        got = [(p.name, p.default) for p in inspect.signature(func).parameters.values()]
        assert got == want, name
