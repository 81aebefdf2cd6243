"""Bad container and algorithm arguments get a ValueError that names the problem,
and nothing is built or changed from them."""

from __future__ import annotations

import numpy as np
import pytest

import kleene


@pytest.mark.parametrize("src", [[0.5, 1.0], [0.0, 1.9], [np.nan, 1.0], [np.inf, 0.0]])
def test_from_edges_rejects_non_integral_float_ids(src):
    with pytest.raises(ValueError, match="source vertex ids must be integers"):
        kleene.Matrix.from_edges(src, [1, 0], [1.0, 2.0])


def test_from_edges_accepts_whole_float_ids():
    A = kleene.Matrix.from_edges([0.0, 2.0], [1.0, 0.0], [1.0, 2.0])
    assert A.shape == (3, 3) and A.to_coo()[0].tolist() == [0, 2]


def test_from_edges_rejects_string_ids():
    with pytest.raises(ValueError, match="target vertex ids must be integers"):
        kleene.Matrix.from_edges([0, 1], np.array(["a", "b"]), [1.0, 2.0])


@pytest.mark.parametrize("weights", [[1.0], [1.0, 2.0], [1.0, 2.0, 3.0, 4.0]])
def test_from_edges_needs_one_weight_per_edge(weights):
    with pytest.raises(ValueError, match=f"weights has {len(weights)} entries for 3 edges"):
        kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], weights)


def test_from_edges_scalar_weight_applies_to_every_edge():
    A = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], 4.0)
    assert A.to_coo()[2].tolist() == [4.0, 4.0, 4.0]


def test_vector_from_coo_checks_ids_and_values_the_same_way():
    with pytest.raises(ValueError, match="vector index ids must be integers"):
        kleene.Vector.from_coo([0.5], [1.0], 3)
    with pytest.raises(ValueError, match="values has 1 entries for 2 indices"):
        kleene.Vector.from_coo([0, 1], [1.0], 3)
    assert kleene.Vector.from_coo([0, 2], 7.0, 3).to_dense().tolist() == [7.0, np.inf, 7.0]


@pytest.mark.parametrize("delta", [0, -1, -0.5, np.nan, np.inf, "1", True])
def test_sssp_rejects_invalid_delta(delta):
    G = np.array([[0.0, 1.0], [np.inf, 0.0]])
    with pytest.raises(ValueError, match="delta must be"):
        kleene.sssp(G, 0, delta=delta)


def test_sssp_delta_with_bellman_ford_is_an_error():
    G = np.array([[0.0, 1.0], [np.inf, 0.0]])
    with pytest.raises(ValueError, match="bellman-ford takes none"):
        kleene.sssp(G, 0, method="bellman-ford", delta=1.0)


def test_sssp_with_delta_runs_delta_stepping():
    G = np.array([[0.0, 1.0, 5.0], [np.inf, 0.0, 1.0], [np.inf, np.inf, 0.0]])
    assert kleene.sssp(G, 0, delta=0.5).tolist() == [0.0, 1.0, 2.0]


def test_block_takes_slices():
    D = kleene.Matrix.from_dense(np.zeros((3, 3)), missing=None)
    with pytest.raises(TypeError, match="two slices"):
        D.block([0, 1], slice(0, 2))
    with pytest.raises(ValueError, match="dense-format"):
        kleene.Matrix.from_edges([0], [1], [1.0]).block(slice(0, 1), slice(0, 1))


def test_from_scipy_takes_a_canonical_csr_as_is_and_copies_it():
    import scipy.sparse as sp

    S = sp.random(50, 50, density=0.1, format="csr", random_state=1)
    assert S.has_canonical_format
    A = kleene.Matrix.from_scipy(S)
    assert (A.to_scipy() != S).nnz == 0
    S.data[:] = -1.0  # the Matrix owns its arrays: the caller's edits do not leak in
    assert (A.to_coo()[2] >= 0).all()
    U = sp.csr_matrix((np.array([3.0, 1.0]), np.array([1, 1]), np.array([0, 2, 2])), (2, 2))
    assert kleene.Matrix.from_scipy(U).to_coo()[2].tolist() == [1.0]  # duplicates: min


def test_csr_transpose_matches_the_dense_transpose():
    import scipy.sparse as sp

    from kleene.core import layout

    S = sp.random(40, 30, density=0.2, format="csr", random_state=2)
    ptr, idx, val = layout.csr_transpose(np, S.indptr, S.indices, S.data, S.shape)
    T = sp.csr_matrix((val, idx, ptr), shape=(30, 40))
    np.testing.assert_array_equal(T.toarray(), S.toarray().T)
    assert ptr.dtype == np.int64 and idx.dtype == np.int32
    assert all((np.diff(idx[ptr[i] : ptr[i + 1]]) > 0).all() for i in range(30))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.bool_])
def test_dense_array_graphs_are_borrowed_and_never_written(dtype):
    # A C-contiguous float or bool array passed as a graph is used as it is (no n² copy)
    # and no algorithm writes it.
    from kleene.algorithms.graph_input import as_graph

    rng = np.random.default_rng(4)
    n = 40
    g = rng.uniform(1.0, 9.0, (n, n))
    g[rng.random((n, n)) < 0.7] = np.inf
    g = (g < np.inf) if dtype == np.bool_ else g.astype(dtype)
    before = g.copy()
    assert not np.shares_memory(as_graph(g, fmt=None).to_dense(), g)  # (a copy out)
    assert as_graph(g, fmt=None)._values is g
    calls = [
        lambda: kleene.bfs(g, 0),
        lambda: kleene.transitive_closure(g),
        lambda: kleene.bfs(g, [0, 3], directed=False),
    ]
    if dtype != np.bool_:
        calls += [
            lambda: kleene.apsp(g),
            lambda: kleene.apsp(g, return_predecessors=True),
            lambda: kleene.sssp(g, 0),
            lambda: kleene.sssp(g, [1, 2]),
            lambda: kleene.apsp(g, method="johnson"),
            lambda: kleene.apsp(g, directed=False),
        ]
    for call in calls:
        call()
        np.testing.assert_array_equal(g, before)
