"""kleene.engine.shortest_path_tree: the compiled tight-edge BFS (CPU back end) against
its composed form (tight_edges + frontier_bfs), and every parent edge on a shortest
path; zero-weight cycles, self loops, integer and float weights."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from graph_data import record_in_edges
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import kleene
from kleene.core import Matrix, Vector
from kleene.engine import shortest_path_tree

needs_fused = pytest.mark.skipif(
    getattr(kleene.backends.device.backend(np), "tight_tree", None) is None,
    reason="the CPU back end has no compiled tree (no Numba, or KLEENE_CPU=numpy)",
)


def _graph(n, density, seed, zero_share, integral):
    rng = np.random.default_rng(seed)
    g = sp.random(n, n, density=density, random_state=rng, format="csr")
    w = rng.integers(0, 5, g.nnz).astype(np.float64) if integral else g.data * 3
    w[rng.random(g.nnz) < zero_share] = 0.0  # zero-weight edges, and so zero cycles
    g.data = w
    g.sum_duplicates()
    return g


def _check_tree(g, dist, pred, source):
    """Each reached vertex but the source has a parent on a tight edge; chains end at
    the source (no cycle)."""
    n = dist.size
    c = g.tocoo()  # stored entries, explicit zeros too (zero-weight edges)
    dense = {(int(i), int(j)): w for i, j, w in zip(c.row, c.col, c.data, strict=True)}
    for v in range(n):
        if v == source or not np.isfinite(dist[v]):
            assert pred[v] == -1
            continue
        u = int(pred[v])
        assert u >= 0 and dist[u] + dense[(u, v)] == dist[v]
    for v in range(n):
        seen, x = 0, v
        while x != -1 and x != source:
            x = int(pred[x])
            seen += 1
            assert seen <= n, "a cycle in the predecessors"


@needs_fused
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60),
    density=st.floats(0.02, 0.3),
    seed=st.integers(0, 10**6),
    zero_share=st.sampled_from([0.0, 0.3, 1.0]),
    integral=st.booleans(),
)
def test_compiled_tree_equals_the_composed_one(n, density, seed, zero_share, integral):
    g = _graph(n, density, seed, zero_share, integral)
    A = Matrix.from_scipy(g)
    source = seed % n
    dist = dijkstra(g, indices=source)
    d = Vector.from_dense(dist, missing=None)
    fused = shortest_path_tree(A, d, source, fused=True)
    composed = shortest_path_tree(A, d, source, fused=False)
    np.testing.assert_array_equal(fused, composed)
    _check_tree(g, dist, fused, source)


def test_sssp_predecessors_on_a_road_graph_are_shortest_path_trees():
    g = kleene.generators.road_graph(60, seed=3)
    S = g.to_scipy().astype(np.float64)
    S.data = np.random.default_rng(1).integers(1, 100, S.nnz).astype(np.float64)
    dist, pred = kleene.sssp(S, 0, return_predecessors=True)
    np.testing.assert_allclose(dist, dijkstra(S, indices=0))
    _check_tree(S, dist, pred, 0)


def test_bad_inputs_are_named():
    A = Matrix.from_edges([0], [1], [1.0], n=2)
    with pytest.raises(ValueError, match="d has 3 entries"):
        shortest_path_tree(A, Vector.from_dense(np.zeros(3), missing=None), 0)
    with pytest.raises(IndexError, match="out of range"):
        shortest_path_tree(A, Vector.from_dense(np.zeros(2), missing=None), 5)


@needs_fused
def test_unreached_vertices_and_infinite_weights_stay_out_of_the_tree():
    """An explicit inf weight, and edges among unreached vertices (inf == inf), are
    not tight: the compiled tree leaves them out as the composed form does."""
    inf = np.inf
    rows = [0, 1, 2, 3, 4, 3]
    cols = [1, 2, 3, 4, 3, 5]
    w = [1.0, inf, 1.0, 1.0, 2.0, 0.0]  # 2 is only reached through an inf edge
    A = Matrix.from_edges(rows, cols, w, n=6)
    d = Vector.from_dense(np.array([0.0, 1.0, inf, inf, inf, inf]), missing=None)
    fused = shortest_path_tree(A, d, 0, fused=True)
    np.testing.assert_array_equal(fused, shortest_path_tree(A, d, 0, fused=False))
    assert fused.tolist() == [-1, 0, -1, -1, -1, -1]


def _bellman_ford32(g, source):
    """float32 distances, each the float32 sum d[u] + w(u, v) of its last relaxation."""
    c = g.tocoo()
    d = np.full(g.shape[0], np.inf, np.float32)
    d[source] = 0
    for _ in range(g.shape[0]):
        changed = False
        for u, v, w in zip(c.row, c.col, c.data, strict=True):
            t = np.float32(d[u] + w)
            if t < d[v]:
                d[v], changed = t, True
        if not changed:
            break
    return d


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 10**6))
def test_float32_distances_get_a_full_tree(n, seed):
    """float32 weights and distances (as the APSP repair passes them): every reached
    vertex but the source gets a parent on a tight float32 edge (a float64-sum tree
    would miss the vertices whose float32 sums rounded)."""
    g = _graph(n, 0.2, seed, 0.2, integral=False).astype(np.float32)
    source = seed % n
    dist32 = _bellman_ford32(g, source)
    A = Matrix.from_scipy(g)
    pred = shortest_path_tree(A, Vector.from_dense(dist32, missing=None), source)
    c = g.tocoo()
    w = {(int(i), int(j)): np.float32(x) for i, j, x in zip(c.row, c.col, c.data, strict=True)}
    for v in range(n):
        if v == source or not np.isfinite(dist32[v]):
            continue
        u = int(pred[v])
        assert u >= 0 and np.float32(dist32[u] + w[(u, v)]) == dist32[v]


def test_fused_true_needs_float64():
    A = Matrix.from_edges([0], [1], np.array([1.0], np.float32), n=2)
    d = Vector.from_dense(np.array([0.0, 1.0], np.float32), missing=None)
    with pytest.raises(ValueError, match="float64"):
        shortest_path_tree(A, d, 0, fused=True)


def test_positive_weights_take_the_smallest_tight_in_neighbour():
    """Where every weight grows every sum (strict_sums) the parent is the smallest tight
    in-neighbour, one BFS level deeper or not: here 0 (2 hops) beats the source 3 (one
    hop) as 2's parent. Composed, compiled and kleene.sssp agree."""
    A = Matrix.from_edges([3, 3, 0], [2, 0, 2], [2.0, 1.0, 1.0], n=4)
    d = Vector.from_dense(np.array([1.0, np.inf, 2.0, 0.0]), missing=None)
    assert kleene.engine.strict_sums(1.0, 2.0, 4)
    want = [3, -1, 0, -1]
    assert shortest_path_tree(A, d, 3, fused=False).tolist() == want
    assert kleene.sssp(A, 3, return_predecessors=True)[1].tolist() == want
    if getattr(kleene.backends.device.backend(np), "tight_parents", None) is not None:
        assert shortest_path_tree(A, d, 3, fused=True).tolist() == want


def test_zero_weights_keep_the_bfs_level_rule():
    """A zero weight: strict_sums fails, the parent is the tight in-neighbour one BFS
    level up (the source 3 here, though 0 is smaller and also tight)."""
    A = Matrix.from_edges([3, 3, 0], [2, 0, 2], [1.0, 0.0, 1.0], n=4)
    d = Vector.from_dense(np.array([0.0, np.inf, 1.0, 0.0]), missing=None)
    assert shortest_path_tree(A, d, 3, fused=False).tolist() == [3, -1, 3, -1]


@pytest.mark.skipif(
    getattr(kleene.backends.device.backend(np), "tight_parents", None) is None,
    reason="the CPU back end has no compiled parent pass (no Numba, or KLEENE_CPU=numpy)",
)
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60),
    density=st.floats(0.02, 0.4),
    seed=st.integers(0, 10**6),
    integral=st.booleans(),
)
def test_parents_from_in_edges_equal_the_pass_over_out_edges(n, density, seed, integral):
    """tight_parents reading each vertex's in-edges (Aᵀ, rows sorted) up to the first
    tight one gives the pass over the out-edges' answer, ties (integer weights) too."""
    from kleene.backends.cpu.tree import _tight_parents

    g = _graph(n, density, seed, 0.0, integral)
    g.data[g.data == 0] = 1.0  # positive: sums grow strictly
    source = seed % n
    dist = dijkstra(g, indices=source)
    t = g.T.tocsr()
    t.sort_indices()
    push = _tight_parents(g.indptr, g.indices, g.data, dist)
    pull = _tight_parents(g.indptr, g.indices, g.data, dist, in_edges=(t.indptr, t.indices, t.data))
    np.testing.assert_array_equal(pull, push)
    composed = shortest_path_tree(
        Matrix.from_scipy(g), Vector.from_dense(dist, missing=None), source, fused=False
    )
    np.testing.assert_array_equal(pull, composed)


def test_the_parent_pass_reads_in_edges_where_the_transpose_is_at_hand(monkeypatch):
    """kleene.ops.transpose_at_hand: the cached transpose, or A itself when it is known
    to be symmetric; nothing is built for it."""
    from kleene.ops import multiply

    directed = Matrix.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], n=3)
    assert multiply.transpose_at_hand(directed) is None
    assert directed.known("csr_T") is None  # asking built nothing
    multiply.transposed_csr(directed)
    tp, ti, tw = multiply.transpose_at_hand(directed)
    assert np.asarray(tp).tolist() == [0, 1, 2, 3] and np.asarray(ti).tolist() == [2, 0, 1]
    undirected = Matrix.from_edges([0, 1, 1, 2], [1, 0, 2, 1], [1.0, 1.0, 2.0, 2.0], n=3)
    if kleene.ops.is_symmetric(undirected):  # cached now (the CPU test builds Aᵀ)
        assert multiply.transpose_at_hand(undirected) is not None
    backend = kleene.backends.device.backend(np)
    if getattr(backend, "tight_parents", None) is None:
        return
    seen = record_in_edges(monkeypatch, backend)
    d = Vector.from_dense(np.array([0.0, 1.0, 3.0]), missing=None)
    assert shortest_path_tree(directed, d, 0, fused=True).tolist() == [-1, 0, 1]
    assert seen == [True]
