"""Graphs come in at memory speed: a canonical CSR is borrowed, not sorted or copied;
symmetric graphs are recognised (``kleene.ops.is_symmetric``) and not doubled or
transposed; float32 weights stay float32; GPU out-of-memory errors name the call.

CPU here; tests/gpu/test_ingest_gpu.py checks the GPU kernels behind the same calls.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import breadth_first_order, dijkstra

import kleene
from kleene.core import Matrix, layout
from kleene.errors import names_gpu_memory
from kleene.ops import is_symmetric


def _random_csr(n: int, density: float, seed: int, dtype=np.float64) -> sp.csr_matrix:
    g = sp.random(n, n, density=density, random_state=seed, format="csr", dtype=dtype)
    g.data = (g.data * 9 + 1).astype(dtype)
    g.sum_duplicates()
    assert g.has_canonical_format
    return g


def _refuse_sorting_the_graph(monkeypatch, nnz: int):
    """Fail any conversion that sorts the graph's entries (COO to CSR, or a
    sort-and-combine of that many keys; the composed BFS sorts its small frontiers)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a canonical CSR was sorted again")

    sort_and_combine = layout.sort_and_combine

    def guarded(xp, keys, *rest, **kwargs):
        if keys.size >= nnz:
            refuse()
        return sort_and_combine(xp, keys, *rest, **kwargs)

    monkeypatch.setattr(layout, "coo_to_csr", refuse)
    monkeypatch.setattr(layout, "sort_and_combine", guarded)


def test_canonical_csr_is_not_resorted(monkeypatch):
    g = _random_csr(200, 0.03, 1)
    _refuse_sorting_the_graph(monkeypatch, g.nnz)
    A = Matrix.from_scipy(g)
    assert A.nvals == g.nnz
    lv = kleene.bfs(g, 0)
    order = breadth_first_order(g, 0, return_predecessors=False)
    assert set(np.flatnonzero(lv >= 0)) == set(order.tolist())
    np.testing.assert_allclose(kleene.sssp(g, 0), dijkstra(g, indices=0))


def test_borrowed_arrays_are_shared_and_copies_are_not():
    g = _random_csr(50, 0.1, 2)
    g.indptr = g.indptr.astype(np.int64)  # the Matrix's own dtypes: nothing to convert
    borrowed = Matrix.from_scipy(g, copy=False)
    owned = Matrix.from_scipy(g)
    ptr_b, idx_b, val_b = borrowed._csr()
    ptr_o, idx_o, val_o = owned._csr()
    assert np.shares_memory(val_b, g.data) and np.shares_memory(idx_b, g.indices)
    assert np.shares_memory(ptr_b, g.indptr)
    assert not np.shares_memory(val_o, g.data) and not np.shares_memory(idx_o, g.indices)
    assert not np.shares_memory(ptr_o, g.indptr)


def test_unsorted_csr_still_sorted_and_combined():
    g = sp.csr_matrix(
        (np.array([5.0, 2.0, 7.0]), np.array([2, 1, 2]), np.array([0, 3, 3, 3])), shape=(3, 3)
    )
    g.has_sorted_indices = False
    A = Matrix.from_scipy(g)
    assert A.to_coo()[1].tolist() == [1, 2] and A.to_coo()[2].tolist() == [2.0, 5.0]


@st.composite
def square_matrices(draw):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(0, n * n))
    rows = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    cols = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    vals = draw(st.lists(st.sampled_from([0.0, -0.0, 1.0, 2.5]), min_size=m, max_size=m))
    mirror = draw(st.booleans())
    if mirror:
        rows, cols, vals = rows + cols, cols + rows, vals + vals
    return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


@given(square_matrices())
def test_is_symmetric_matches_the_transpose(g):
    g.sum_duplicates()
    A = Matrix.from_scipy(g)
    pattern = g.copy()
    pattern.data[:] = 1
    assert is_symmetric(A) == (abs(g - g.T).nnz == 0 and (pattern != pattern.T).nnz == 0)
    assert is_symmetric(A, values=False) == ((pattern != pattern.T).nnz == 0)


def test_is_symmetric_edge_cases():
    assert not is_symmetric(Matrix.from_edges([0], [1], [1.0], 2, ncols=3))
    assert is_symmetric(Matrix.empty((4, 4)))
    B = Matrix.from_edges([0, 1], [1, 0], n=2)  # Boolean: the pattern decides
    assert is_symmetric(B) and is_symmetric(B, values=False)
    D = Matrix.from_dense(np.array([[0.0, 2.0], [2.0, np.inf]]))
    assert is_symmetric(D)


def test_is_symmetric_follows_writes():
    A = Matrix.from_dense(np.array([[0.0, 2.0], [2.0, 0.0]]), missing=None)
    assert is_symmetric(A)
    kleene.apply(A, "plus", right=1.0, out=A, mask=Matrix.from_edges([0], [1], n=2).S)
    assert not is_symmetric(A) and is_symmetric(A, values=False)


def test_undirected_graph_already_symmetric_is_not_doubled(monkeypatch):
    g = _random_csr(120, 0.05, 3)
    g = (g + g.T).tocsr()
    g.sum_duplicates()
    import kleene.ops.operations as operations

    def refuse(*a, **k):
        raise AssertionError("a symmetric graph was merged with its transpose")

    monkeypatch.setattr(operations, "ewise_add", refuse)
    monkeypatch.setattr(operations, "transpose", refuse)
    np.testing.assert_allclose(kleene.sssp(g, 0, directed=False), dijkstra(g, indices=0))
    assert (kleene.bfs(g, 0, directed=False) == kleene.bfs(g, 0)).all()


@pytest.mark.parametrize("seed", [4, 5])
def test_undirected_results_match_scipy(seed):
    g = _random_csr(150, 0.02, seed)
    expect = dijkstra(g, indices=0, directed=False)
    np.testing.assert_allclose(kleene.sssp(g, 0, directed=False), expect)
    reach = kleene.bfs(g, 0, directed=False) >= 0
    assert (reach == np.isfinite(expect)).all()
    # A symmetric pattern with asymmetric weights: BFS takes it as is, SSSP takes
    # the lighter direction of each edge.
    sym = (g + g.T).tocsr()
    sym.data = np.arange(1, sym.nnz + 1, dtype=np.float64)
    np.testing.assert_allclose(
        kleene.sssp(sym, 0, directed=False), dijkstra(sym, indices=0, directed=False)
    )


def test_float32_weights_give_float64_distances():
    g = _random_csr(300, 0.02, 6, dtype=np.float32)
    d = kleene.sssp(g, 0)
    assert d.dtype == np.float64
    np.testing.assert_allclose(d, dijkstra(g.astype(np.float64), indices=0))
    d2, pred = kleene.sssp(g, 0, return_predecessors=True)
    np.testing.assert_array_equal(d, d2)
    reached = np.flatnonzero(np.isfinite(d) & (np.arange(d.size) != 0))
    assert (pred[reached] >= 0).all()


def test_gpu_out_of_memory_names_the_call():
    class OutOfMemoryError(MemoryError):  # what CuPy raises, as far as the rule sees
        pass

    OutOfMemoryError.__module__ = "cupy.cuda.memory"

    @names_gpu_memory("bfs")
    def run():
        raise OutOfMemoryError("Out of memory allocating 20,971,520,000 bytes")

    with pytest.raises(MemoryError, match=r"bfs: out of GPU memory .*20,971,520,000 bytes"):
        run()

    @names_gpu_memory("bfs")
    def ours():
        raise MemoryError("apsp: needs 9 GiB, 2 GiB free")

    with pytest.raises(MemoryError, match="^apsp: needs 9 GiB"):
        ours()


def test_symmetrize_matches_the_composed_union():
    g = _random_csr(80, 0.05, 7)
    A = Matrix.from_scipy(g)
    S = kleene.ops.symmetrize(A)
    expect = kleene.ewise_add(A, kleene.transpose(A), "min")
    assert S.isequal(expect)
    assert kleene.ops.symmetrize(S) is S  # already symmetric: returned as it is
    with pytest.raises(ValueError, match="square"):
        kleene.ops.symmetrize(Matrix.from_edges([0], [1], [1.0], 2, ncols=3))


def test_float32_bellman_ford_composed_equals_fused():
    g = _random_csr(200, 0.03, 9, dtype=np.float32)
    A = Matrix.from_scipy(g)
    composed = kleene.engine.frontier_bellman_ford(A, 0, fused=False).to_dense()
    np.testing.assert_array_equal(kleene.engine.frontier_bellman_ford(A, 0).to_dense(), composed)
    np.testing.assert_allclose(composed, dijkstra(g.astype(np.float64), indices=0))


def test_edges_of_many_empty_rows_cost_one_row_array():
    # A header may declare millions of vertices for a few edges: the row pointers
    # are built in place, not from a bincount plus its cumulative sum.
    import tracemalloc

    n = 2_000_000
    tracemalloc.start()
    try:
        A = Matrix.from_edges([5, n - 1, 5], [0, 3, 0], [2.0, 1.0, 7.0], n=n)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 8 * n <= peak < 1.25 * 8 * n, peak
    rows, cols, vals = A.to_coo()
    assert rows.tolist() == [5, n - 1] and cols.tolist() == [0, 3] and vals.tolist() == [2.0, 1.0]
    indptr = layout._sorted_rows_to_offsets(np.array([0, 0, 2, 4, 4, 4]), 6)
    assert indptr.tolist() == [0, 2, 2, 3, 3, 6, 6]
    assert layout._sorted_rows_to_offsets(np.zeros(0, np.int64), 3).tolist() == [0, 0, 0, 0]
