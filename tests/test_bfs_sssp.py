"""BFS and SSSP against scipy.sparse.csgraph, on generated and real graphs, CPU and GPU."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from graph_data import check_shortest_path_tree, graphs, load_scipy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

import kleene

BFS_METHODS = ("auto", "push", "pull", "direction-optimizing")
SSSP_METHODS = ("bellman-ford", "delta-stepping")


def _pattern(g, symmetric=False):
    """Structure only (explicit zeros are edges), optionally both directions."""
    c = g.tocoo()
    r, k = (
        (np.concatenate([c.row, c.col]), np.concatenate([c.col, c.row]))
        if symmetric
        else (c.row, c.col)
    )
    p = sp.csr_matrix((np.ones(r.size), (r, k)), shape=g.shape)
    p.data[:] = 1.0
    return p


def _on(backend, g):
    A = kleene.Matrix.from_scipy(g)
    return A.to(backend)


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _bfs_ref(g, s):
    d = shortest_path(g, unweighted=True, indices=s)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def check_bfs_tree(g, levels, parents, s):
    """Each reached vertex but the source has a parent one level up with an edge to it."""
    stored = np.zeros(g.shape, bool)
    coo = g.tocoo()
    stored[coo.row, coo.col] = True  # explicit zeros are edges too
    for v in range(levels.size):
        if levels[v] > 0:
            p = parents[v]
            assert levels[p] == levels[v] - 1 and stored[p, v], (v, p)
        else:
            assert parents[v] == -1


@settings(max_examples=40)
@given(data=graphs(), method=st.sampled_from(BFS_METHODS), directed=st.booleans())
def test_bfs_matches_scipy(backend, data, method, directed):
    ref_g, raw, n = data
    s = n // 2
    g_ref = _pattern(ref_g, symmetric=not directed)
    A = _on(backend, raw)
    levels, parents = kleene.bfs(A, s, method=method, directed=directed, return_predecessors=True)
    levels, parents = _host(levels), _host(parents)
    assert np.array_equal(levels, _bfs_ref(g_ref, s))
    check_bfs_tree(g_ref, levels, parents, s)
    assert np.array_equal(_host(kleene.bfs(A, s, method=method, directed=directed)), levels)


@settings(max_examples=25)
@given(data=graphs(), k=st.integers(1, 4))
def test_multi_source_bfs_matches_scipy_per_source(backend, data, k):
    ref_g, raw, n = data
    srcs = [i % n for i in range(0, 3 * k, 3)]
    A = _on(backend, raw)
    L, P = kleene.bfs(A, srcs, return_predecessors=True)
    L, P = _host(L), _host(P)
    assert L.shape == (len(srcs), n)
    pat = _pattern(ref_g)
    for i, s in enumerate(srcs):
        assert np.array_equal(L[i], _bfs_ref(pat, s))
        check_bfs_tree(pat, L[i], P[i], s)


@settings(max_examples=40)
@given(data=graphs(), method=st.sampled_from(("auto", *SSSP_METHODS)))
def test_sssp_matches_scipy(backend, data, method):
    ref_g, raw, n = data
    s = n - 1
    A = _on(backend, raw)
    dist, pred = kleene.sssp(A, s, method=method, return_predecessors=True)
    dist, pred = _host(dist), _host(pred)
    np.testing.assert_allclose(dist, shortest_path(ref_g, indices=s))
    check_shortest_path_tree(ref_g, dist, pred, s)


@settings(max_examples=40)
@given(data=graphs(negative=True))
def test_bellman_ford_negative_weights_match_scipy(backend, data):
    ref_g, raw, n = data
    A = _on(backend, raw)
    try:
        ref = shortest_path(ref_g, method="BF", indices=0)
    except Exception:  # scipy: a negative cycle somewhere in the graph
        ref = None
    try:
        dist, pred = kleene.sssp(A, 0, method="bellman-ford", return_predecessors=True)
    except kleene.NegativeCycleError:
        assert ref is None  # ours raises only for a cycle reachable from the source
        return
    if ref is not None:
        np.testing.assert_allclose(_host(dist), ref)
    check_shortest_path_tree(ref_g, _host(dist), _host(pred), 0)


def test_negative_cycle_raises(backend):
    g = sp.csr_matrix(([1.0, -3.0, 1.0], ([0, 1, 2], [1, 2, 1])), shape=(3, 3))
    with pytest.raises(kleene.NegativeCycleError):
        kleene.sssp(_on(backend, g), 0, method="bellman-ford")
    with pytest.raises(ValueError, match="bellman-ford"):
        kleene.sssp(_on(backend, g), 0, method="delta-stepping")


def test_bad_source_shape_or_nan_raise(backend):
    g = _on(backend, sp.csr_matrix(np.ones((3, 3))))
    for f in (kleene.bfs, kleene.sssp):
        with pytest.raises(IndexError, match="out of range"):
            f(g, 3)
        with pytest.raises(IndexError):
            f(g, -1)
    nan = sp.csr_matrix(([np.nan], ([0], [1])), shape=(2, 2))
    with pytest.raises(ValueError, match="NaN"):
        kleene.sssp(_on(backend, nan), 0)
    with pytest.raises(ValueError, match="square"):
        kleene.bfs(_on(backend, sp.csr_matrix(np.ones((2, 3)))), 0)


def test_empty_graph_and_isolated_source_give_unreachable(backend):
    empty = _on(backend, sp.csr_matrix((0, 0)))
    with pytest.raises(IndexError):
        kleene.bfs(empty, 0)
    g = _on(backend, sp.csr_matrix(([1.0], ([1], [2])), shape=(4, 4)))
    assert _host(kleene.bfs(g, 0)).tolist() == [0, -1, -1, -1]
    assert _host(kleene.sssp(g, 0)).tolist() == [0.0, np.inf, np.inf, np.inf]


@pytest.mark.parametrize("name", ["p2p-Gnutella08.txt", "facebook_combined.txt.gz"])
def test_bfs_real_graphs_match_scipy(backend, name):
    g = load_scipy(name, symmetric=name.startswith("facebook"))
    A = _on(backend, g)
    for s in (0, 17):
        levels, parents = kleene.bfs(A, s, return_predecessors=True)
        levels, parents = _host(levels), _host(parents)
        assert np.array_equal(levels, _bfs_ref(g, s))
        check_bfs_tree(g, levels, parents, s)


def test_bfs_new_york_road_matches_scipy(backend):
    g = load_scipy("USA-road-NY.pace.gr.xz", symmetric=True)
    levels = _host(kleene.bfs(_on(backend, g), 0))
    assert np.array_equal(levels, _bfs_ref(g, 0))
    assert 400 < levels.max() < 700


def test_sssp_rome_matches_scipy(backend):
    """Every method's distances equal scipy's and its predecessors form shortest-path trees."""
    g = load_scipy("rome99.gr")
    A = _on(backend, g)
    want = shortest_path(g, indices=0)
    for method in SSSP_METHODS:
        dist, pred = kleene.sssp(A, 0, method=method, return_predecessors=True)
        dist, pred = _host(dist), _host(pred)
        np.testing.assert_allclose(dist, want, err_msg=method)
        check_shortest_path_tree(g, dist, pred, 0)


@pytest.mark.gpu
def test_gpu_runs_repeat_the_first_run_exactly():
    """Atomics must not make results depend on scheduling: 20 runs, one answer."""
    pytest.importorskip("cupy")
    if not kleene.gpu_available():
        pytest.skip("no GPU")
    g = load_scipy("p2p-Gnutella08.txt")
    A = _on("gpu", g)
    first = [_host(x) for x in kleene.bfs(A, 0, return_predecessors=True)]
    d0 = _host(kleene.sssp(A, 0))
    for _ in range(20):
        again = [_host(x) for x in kleene.bfs(A, 0, return_predecessors=True)]
        assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
        assert np.array_equal(_host(kleene.sssp(A, 0)), d0)


@pytest.mark.parametrize("limit", [0.0, 7.5, 40.0, np.inf])
def test_sssp_limit_is_scipys(limit):
    """``limit``: distances past it are inf and their predecessors -1, as SciPy's
    dijkstra(limit=); from many sources (the CPU rows stop there) and from one."""
    from scipy.sparse.csgraph import dijkstra

    rng = np.random.default_rng(3)
    G = sp.random(600, 600, density=0.01, random_state=4, format="csr")
    G.data = rng.integers(1, 20, G.nnz).astype(np.float64)
    bound = None if limit == np.inf else limit
    sources = list(range(0, 600, 37))
    dist, pred = kleene.sssp(G, sources, limit=bound, return_predecessors=True)
    np.testing.assert_array_equal(dist, dijkstra(G, indices=sources, limit=limit))
    assert (pred[np.isinf(dist)] == -1).all()
    for row, s in zip(range(len(sources)), sources, strict=True):
        check_shortest_path_tree(G, dist[row], pred[row], s)
    one = kleene.sssp(G, 5, limit=bound)
    np.testing.assert_array_equal(one, dijkstra(G, indices=5, limit=limit))
    with pytest.raises(ValueError, match="limit must be >= 0"):
        kleene.sssp(G, 5, limit=-1.0)
