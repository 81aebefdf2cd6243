"""APSP and transitive closure against scipy and brute force, CPU and GPU."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from graph_data import check_all_paths, check_shortest_path_tree, edge_weights, graphs, load_scipy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycle
from scipy.sparse.csgraph import shortest_path

import kleene

DENSE = ("floyd-warshall", "blocked", "recursive")
ALL = (*DENSE, "repeated-sssp", "johnson", "auto")


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


@settings(max_examples=30)
@given(data=graphs(max_n=14), method=st.sampled_from(ALL), block=st.integers(1, 5))
def test_apsp_matches_scipy(backend, data, method, block):
    ref_g, raw, n = data
    A = kleene.Matrix.from_scipy(raw).to(backend)
    dist, pred = kleene.apsp(A, method=method, return_predecessors=True, block_size=block)
    dist, pred = _host(dist), _host(pred)
    np.testing.assert_allclose(dist, shortest_path(ref_g))
    check_all_paths(edge_weights(ref_g), dist, pred)
    # triangle inequality over every edge
    c = ref_g.tocoo()
    assert np.all(dist[:, c.col] <= dist[:, c.row] + c.data + 1e-9)


@settings(max_examples=30)
@given(data=graphs(negative=True, max_n=12), method=st.sampled_from((*DENSE, "johnson")))
def test_apsp_negative_weights_match_scipy(backend, data, method):
    ref_g, raw, n = data
    try:
        ref = shortest_path(ref_g, method="BF")
    except ScipyNegativeCycle:
        ref = None
    A = kleene.Matrix.from_scipy(raw).to(backend)
    stored_dense = A.to_format("dense")  # (on the GPU: the fill's NaN scan, read late)
    if ref is None:
        for M in (A, stored_dense):
            with pytest.raises(kleene.NegativeCycleError):
                kleene.apsp(M, method=method, block_size=3)
        return
    dist, pred = kleene.apsp(A, method=method, return_predecessors=True, block_size=3)
    np.testing.assert_allclose(_host(dist), ref)
    check_all_paths(edge_weights(ref_g), _host(dist), _host(pred))
    for M in (A, stored_dense):  # distances alone: the closures ⊕ one into the diagonal
        np.testing.assert_allclose(_host(kleene.apsp(M, method=method, block_size=3)), ref)


@settings(max_examples=15)
@given(data=graphs(negative=True, max_n=12))
def test_johnson_takes_potentials_off_a_few_rows_at_a_time(backend, data):
    """Johnson's un-reweighting in sub-blocks of rows (apsp_sparse._UNWEIGHT_ROWS, here 2)
    gives the same distances as one block."""
    from kleene.algorithms import apsp_sparse

    ref_g, raw, n = data
    try:
        ref = shortest_path(ref_g, method="BF")
    except ScipyNegativeCycle:
        return
    A = kleene.Matrix.from_scipy(raw).to(backend)
    whole = _host(kleene.apsp(A, method="johnson"))
    keep = apsp_sparse._UNWEIGHT_ROWS
    apsp_sparse._UNWEIGHT_ROWS = 2
    try:
        parts = _host(kleene.apsp(A, method="johnson"))
    finally:
        apsp_sparse._UNWEIGHT_ROWS = keep
    np.testing.assert_array_equal(parts, whole)
    np.testing.assert_allclose(parts, ref)


@settings(max_examples=20)
@given(n=st.integers(1, 10), seed=st.integers(0, 2**16), method=st.sampled_from(DENSE))
def test_widest_and_reliable_paths_match_numpy_floyd_warshall(backend, n, seed, method):
    rng = np.random.default_rng(seed)
    cap = rng.integers(1, 4, (n, n)).astype(float)
    cap[rng.random((n, n)) < 0.5] = -np.inf
    W, P = kleene.apsp(
        kleene.Matrix.from_dense(cap, missing=-np.inf).to(backend),
        semiring="max_min",
        method=method,
        block_size=2,
        return_predecessors=True,
    )
    W, P = _host(W), _host(P)
    ref = cap.copy()
    np.fill_diagonal(ref, np.inf)
    for k in range(n):
        ref = np.maximum(ref, np.minimum(ref[:, k : k + 1], ref[k : k + 1, :]))
    assert np.array_equal(W, ref)
    for i in range(n):
        for j in range(n):
            path = kleene.reconstruct_path(P, i, j)
            if i != j and W[i, j] > -np.inf:
                assert min(cap[a, b] for a, b in zip(path, path[1:], strict=False)) == W[i, j]
    prob = np.where(cap > 0, cap / 4.0, 0.0)
    R = _host(
        kleene.apsp(
            kleene.Matrix.from_dense(prob, missing=0.0).to(backend),
            semiring="max_times",
            method=method,
            block_size=3,
        )
    )
    ref = prob.copy()
    np.fill_diagonal(ref, 1.0)
    for k in range(n):
        ref = np.maximum(ref, ref[:, k : k + 1] * ref[k : k + 1, :])
    np.testing.assert_allclose(R, ref)


@settings(max_examples=20)
@given(n=st.integers(1, 12), seed=st.integers(0, 2**16), method=st.sampled_from(DENSE))
def test_transitive_closure_matches_boolean_powers(backend, n, seed, method):
    adj = np.random.default_rng(seed).random((n, n)) < 0.2
    xp = np if backend == "cpu" else __import__("cupy")
    got = _host(kleene.transitive_closure(xp.asarray(adj), method=method))
    reach = adj.copy()
    for _ in range(n):
        reach = reach | ((reach.astype(int) @ adj.astype(int)) > 0)
    assert np.array_equal(got, reach)
    refl = _host(kleene.transitive_closure(xp.asarray(adj), reflexive=True, method=method))
    assert np.array_equal(refl, reach | np.eye(n, dtype=bool))


@pytest.mark.parametrize("method", DENSE)
def test_transitive_closure_counts_zero_weight_edges_like_scipy(backend, method):
    """A stored zero weight is an edge (scipy.csgraph's rule), for reachability too."""
    g = sp.csr_matrix(([0.0, 2.0, 0.0], ([0, 1, 3], [1, 2, 3])), shape=(4, 4))
    A = kleene.Matrix.from_scipy(g).to(backend)
    got = _host(kleene.transitive_closure(A, method=method))
    want = np.isfinite(shortest_path(g)) & ~np.eye(4, dtype=bool)
    want[3, 3] = True  # the zero-weight self loop is a cycle through 3
    assert np.array_equal(got, want)


def test_every_method_matches_scipy_on_rome(backend):
    g = load_scipy("rome99.gr")
    sub = g[:400, :400]
    A = kleene.Matrix.from_scipy(sub).to(backend)
    ref = shortest_path(sub)
    for method in ALL:
        np.testing.assert_allclose(_host(kleene.apsp(A, method=method)), ref)


def test_recursive_apsp_matches_scipy_on_facebook_sample(backend):
    """Distances equal scipy's; every row's predecessors form a shortest-path tree, and
    paths walked with reconstruct_path have scipy's lengths."""
    g = load_scipy("facebook_combined.txt.gz", symmetric=True)[:300, :300]
    A = kleene.Matrix.from_scipy(g).to(backend)
    d, p = kleene.apsp(A, method="recursive", return_predecessors=True, block_size=64)
    d, p = _host(d), _host(p)
    want = shortest_path(g)
    np.testing.assert_allclose(d, want)
    for i in range(g.shape[0]):
        check_shortest_path_tree(g, d[i], p[i], i)
    rng = np.random.default_rng(0)
    for i, j in rng.integers(0, g.shape[0], (200, 2)):
        path = kleene.reconstruct_path(p, int(i), int(j))
        if not np.isfinite(want[i, j]):
            assert path == []
        else:  # unit weights: a path of len(path) - 1 edges, each one stored
            assert path[0] == i and path[-1] == j and len(path) - 1 == want[i, j]
            assert all(g[a, b] != 0 for a, b in zip(path, path[1:], strict=False))


def test_bad_arguments_raise(backend):
    with pytest.raises(ValueError, match="method"):
        kleene.apsp(np.zeros((2, 2)), method="magic")
    with pytest.raises(ValueError, match="square"):
        kleene.apsp(sp.csr_matrix(np.ones((2, 3))))
    with pytest.raises(ValueError, match="NaN"):
        kleene.apsp(np.array([[0.0, np.nan], [1.0, 0.0]]))
    with pytest.raises(MemoryError, match="would fit|fit"):
        kleene.algorithms.apsp_memory.check_fits(10**7, np.float64, True, np)


def test_float32_graphs_every_method_matches_scipy(backend):
    # Generators give float32 weights; Johnson's float64 potentials must not clash.
    from kleene.generators import from_spec

    A = from_spec("rmat:6", seed=2)
    ref = shortest_path(A.to_scipy().astype(np.float64))
    A = A.to(backend)
    for method in ALL:
        np.testing.assert_allclose(_host(kleene.apsp(A, method=method)), ref, rtol=1e-6)


def test_auto_method_choice(backend):
    """auto: dense closures where the result fits and they are estimated cheaper (on
    the GPU recursive on one-launch base blocks, blocked up to n = 8192 where those do
    not apply: predecessors), repeated SSSP / Johnson for large very sparse graphs
    (apsp_cost.py: on the GPU with predecessors, or once the dense closure is slow
    enough for the depth probe to pay)."""
    from kleene.algorithms.dense_closure import auto_method
    from kleene.semiring import max_min, min_plus

    n = 5000
    sparse = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 2.0], n=n).to(backend)
    small = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 2.0], n=64).to(backend)
    dense = "blocked" if backend == "gpu" else "recursive"
    assert auto_method(small, min_plus, False, False) == dense
    assert auto_method(small, max_min, False, True) == dense
    if backend == "cpu":
        assert auto_method(sparse, min_plus, False, False) == "repeated-sssp"
        assert auto_method(sparse, min_plus, True, False) == "johnson"
    else:
        # float64, dense estimated at 54 ms (71 with predecessors): the depth probe
        # finds 2 levels, Johnson ~10 ms (~20)
        assert auto_method(sparse, min_plus, True, False) == "johnson"
        assert auto_method(sparse, min_plus, True, True) == "johnson"
        assert auto_method(small, min_plus, False, True) == "repeated-sssp"  # 1 against 6 ms
        # a graph stored dense keeps the dense closure
        assert auto_method(sparse.to_format("dense"), min_plus, True, True) == "blocked"
