"""kleene.csgraph against scipy.sparse.csgraph on random graphs: the same answers.

Distances, orders, trees, components and conversions must equal SciPy's exactly;
predecessors, where several shortest paths tie, must describe shortest paths
(``construct_dist_matrix`` of them gives the distances).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as scipy_csgraph
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import kleene.errors
from kleene import csgraph


@st.composite
def graphs(draw, negative=False, max_n=10):
    """(dense float array with 0 = no edge, its CSR with the same edges, directed)."""
    n = draw(st.integers(1, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    density = draw(st.sampled_from([0.1, 0.3, 0.6]))
    mask = rng.random((n, n)) < density
    w = rng.integers(1, 6, size=(n, n)).astype(float)
    if negative:  # a DAG (edges i -> j > i): negative weights, no cycle
        mask &= np.triu(np.ones((n, n), bool), 1)
        w -= 3.0
        w[w == 0] = 1.0
    dense = np.where(mask, w, 0.0)
    return dense, sp.csr_array(dense), draw(st.booleans())


@given(graphs())
def test_shortest_path_all_methods(g):
    dense, S, directed = g
    want = scipy_csgraph.shortest_path(S, directed=directed)
    for method in ("auto", "FW", "D", "BF", "J"):
        for G in (dense, S):
            d, p = csgraph.shortest_path(G, method, directed=directed, return_predecessors=True)
            assert_allclose(d, want)
            assert p.dtype == np.int32
            assert_allclose(csgraph.construct_dist_matrix(G, p, directed=directed), want)


@given(graphs(negative=True))
def test_negative_weights(g):
    dense, S, _ = g
    want = scipy_csgraph.bellman_ford(S)
    assert_allclose(csgraph.bellman_ford(S), want)
    assert_allclose(csgraph.johnson(dense), want)
    assert_allclose(csgraph.shortest_path(S, indices=[0]), want[:1])


@given(graphs(), st.data())
def test_dijkstra_indices_limit_min_only(g, data):
    dense, S, directed = g
    n = dense.shape[0]
    idx = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))
    limit = data.draw(st.sampled_from([np.inf, 0, 2, 4.5]))
    want = scipy_csgraph.dijkstra(S, directed=directed, indices=idx, limit=limit)
    assert_allclose(csgraph.dijkstra(dense, directed=directed, indices=idx, limit=limit), want)
    d, p, s = csgraph.dijkstra(S, directed, idx, True, limit=limit, min_only=True)
    wd, _, ws = scipy_csgraph.dijkstra(S, directed, idx, True, limit=limit, min_only=True)
    assert_allclose(d, wd)
    assert_array_equal(ws == -9999, s == -9999)
    full = scipy_csgraph.dijkstra(S, directed=directed)
    reached = s != -9999
    assert_allclose(full[s[reached], np.flatnonzero(reached)], d[reached])  # a nearest source
    for v in np.flatnonzero(reached):  # the predecessors lead back to that source
        u = v
        while p[u] != -9999:
            u = p[u]
        assert u == s[v]


@given(graphs(), st.data())
def test_orders_and_trees_are_scipys(g, data):
    dense, S, directed = g
    start = data.draw(st.integers(0, dense.shape[0] - 1))
    for name in ("breadth_first_order", "depth_first_order"):
        got = getattr(csgraph, name)(S, start, directed)
        want = getattr(scipy_csgraph, name)(S, start, directed)
        assert_array_equal(got[0], want[0])
        assert_array_equal(got[1], want[1])
        assert got[0].dtype == want[0].dtype == np.int32
    for name in ("breadth_first_tree", "depth_first_tree"):
        got = getattr(csgraph, name)(dense, start, directed)
        want = getattr(scipy_csgraph, name)(dense, start, directed)
        assert type(got) is type(want)
        assert_array_equal(got.toarray(), want.toarray())


@given(graphs())
def test_components_are_scipys(g):
    dense, S, directed = g
    for connection in ("weak", "strong"):
        n, labels = csgraph.connected_components(S, directed, connection)
        wn, wl = scipy_csgraph.connected_components(S, directed, connection)
        assert n == wn
        assert_array_equal(labels, wl)
    assert csgraph.connected_components(dense, return_labels=False) == (
        scipy_csgraph.connected_components(dense, return_labels=False)
    )


@pytest.mark.parametrize("directed", [True, False])
def test_components_read_every_stored_entry_as_an_edge(directed):
    # SciPy: a sparse graph's stored inf, NaN and 0 are edges like any other value
    S = sp.csr_array(
        (np.array([np.inf, np.nan, 0.0, -np.inf, 2.0]), ([0, 1, 2, 3, 5], [1, 2, 3, 0, 4])),
        shape=(7, 7),
    )
    for connection in ("weak", "strong"):
        n, labels = csgraph.connected_components(S, directed, connection)
        wn, wl = scipy_csgraph.connected_components(S, directed, connection)
        assert n == wn
        assert_array_equal(labels, wl)


@given(graphs(max_n=8), st.data())
def test_yen_lengths_are_scipys(g, data):
    dense, S, directed = g
    assume(S.nnz > 0)  # (SciPy's yen fails on a graph without edges)
    n = dense.shape[0]
    s, t = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    K = data.draw(st.integers(1, 4))
    want = scipy_csgraph.yen(S, s, t, K, directed=directed)
    d, p = csgraph.yen(S, s, t, K, directed=directed, return_predecessors=True)
    assert_allclose(d, want)
    full = scipy_csgraph.shortest_path(S, directed=directed)
    for k in range(len(d)):  # each row a path from s to t of the length given
        length, v, seen = 0.0, t, {t}
        W = np.where(dense > 0, dense, np.inf)
        W = W if directed else np.minimum(W, W.T)
        while v != s:
            u = int(p[k, v])
            length += W[u, v]
            assert u not in seen
            seen.add(u)
            v = u
        assert length == pytest.approx(d[k])
    assert len(d) == 0 or d[0] == pytest.approx(full[s, t])


@given(graphs())
def test_conversions_are_scipys(g):
    dense, S, _ = g
    with_nan = dense.copy()
    with_nan[0, 0] = np.nan
    for G in (dense, with_nan):
        a, b = csgraph.csgraph_from_dense(G), scipy_csgraph.csgraph_from_dense(G)
        assert type(a) is type(b)
        assert_array_equal(a.toarray(), b.toarray())
        m1 = csgraph.csgraph_masked_from_dense(G)
        m2 = scipy_csgraph.csgraph_masked_from_dense(G)
        assert_array_equal(np.ma.getmaskarray(m1), np.ma.getmaskarray(m2))
        assert_array_equal(
            csgraph.csgraph_from_masked(m1).toarray(),
            scipy_csgraph.csgraph_from_masked(m2).toarray(),
        )
    assert_array_equal(
        csgraph.csgraph_to_dense(S, null_value=-1), scipy_csgraph.csgraph_to_dense(S, null_value=-1)
    )


def test_masked_entries_are_no_edge():
    # An unmasked 0 is a zero-weight edge, as csgraph_from_masked reads it and SciPy's
    # Dijkstra, Bellman-Ford and Johnson do (SciPy's Floyd-Warshall alone drops it).
    G = np.ma.masked_array(
        [[0, 1.0, 5.0], [0, 0, 1.0], [0, 0, 0]], mask=[[0, 0, 1], [0, 0, 0], [1, 1, 1]]
    )
    for method in ("auto", "FW", "D", "BF", "J"):
        assert_allclose(csgraph.shortest_path(G, method), scipy_csgraph.shortest_path(G, "D"))
    assert csgraph.shortest_path(G)[0, 2] == 2.0


def test_negative_cycle_error_is_scipys_and_kleenes():
    G = np.array([[0, 1.0], [-2.0, 0]])
    for method in ("BF", "J", "FW", "auto"):
        with pytest.raises(scipy_csgraph.NegativeCycleError):
            csgraph.shortest_path(G, method)
        with pytest.raises(kleene.errors.NegativeCycleError):
            csgraph.shortest_path(G, method)
        with pytest.raises(ValueError):
            csgraph.shortest_path(G, method)
    with pytest.raises(scipy_csgraph.NegativeCycleError):
        csgraph.yen(G, 0, 1, 2)


def test_errors_are_scipys():
    G = np.ones((3, 3))
    with pytest.raises(ValueError, match="unrecognized method"):
        csgraph.shortest_path(G, method="X")
    with pytest.raises(ValueError, match="indices"):
        csgraph.shortest_path(G, method="FW", indices=[0])
    with pytest.raises(ValueError, match="limit"):
        csgraph.dijkstra(G, limit=-1)
    with pytest.raises(ValueError, match="out of range"):
        csgraph.dijkstra(G, indices=[5])
    with pytest.raises(ValueError, match="connection"):
        csgraph.connected_components(G, connection="medium")


def test_overwrite_writes_the_result_into_a_float64_input():
    G = np.array([[0, 1.0, 5.0], [0, 0, 1.0], [0, 0, 0]])
    out = csgraph.floyd_warshall(G, overwrite=True)
    assert out is G
    assert G[0, 2] == 2.0


def test_other_scipy_names_pass_through():
    assert csgraph.minimum_spanning_tree is scipy_csgraph.minimum_spanning_tree
    with pytest.raises(AttributeError):
        csgraph.no_such_function  # noqa: B018


@given(graphs(), st.data())
def test_reconstruct_path_is_scipys(g, data):
    dense, S, directed = g
    S = S.copy()
    S.data[::3] = 0.0  # stored zeros: zero-weight edges
    start = data.draw(st.integers(0, dense.shape[0] - 1))
    _, pred = scipy_csgraph.dijkstra(S, directed, start, return_predecessors=True)
    got = csgraph.reconstruct_path(S, pred, directed)
    want = scipy_csgraph.reconstruct_path(S, pred, directed)
    assert type(got) is type(want)
    assert_array_equal(got.toarray(), want.toarray())
