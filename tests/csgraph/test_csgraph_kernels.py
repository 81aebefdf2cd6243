"""kleene.csgraph's compiled routes against its composed ones and SciPy: Yen's spur
searches, the dense and masked conversions."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as scipy_csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene import csgraph

yen_module = importlib.import_module("kleene.csgraph.yen")
needs_numba = pytest.mark.skipif(yen_module._spur is None, reason="needs Numba")


@st.composite
def weighted(draw, max_n=9):
    """A sorted CSR with non-negative weights (zeros included) and a source, a sink."""
    n = draw(st.integers(1, max_n))
    cells = st.sampled_from([0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.5])
    dense = np.array(draw(st.lists(cells, min_size=n * n, max_size=n * n))).reshape(n, n)
    edges = np.array(draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))).reshape(n, n)
    rows, cols = np.nonzero(edges)
    S = sp.csr_matrix((dense[rows, cols], (rows, cols)), shape=(n, n))
    S.sort_indices()
    s, t = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
    return S, s, t, draw(st.integers(1, 5))


def _length(S, path):
    total = 0.0
    for u, v in zip(path[:-1], path[1:], strict=True):
        row = slice(S.indptr[u], S.indptr[u + 1])
        hit = np.flatnonzero(S.indices[row] == v)
        assert hit.size == 1  # an edge of the graph
        total += float(S.data[row][hit[0]])
    return total


@needs_numba
@settings(max_examples=150, deadline=None)
@given(weighted())
def test_compiled_spur_searches_find_the_same_k_shortest_paths(case):
    S, s, t, K = case
    want = yen_module._k_paths(S, s, t, K)
    got = yen_module._k_paths_compiled(S, s, t, K)
    assert [c for c, _ in got] == pytest.approx([c for c, _ in want])
    paths = [tuple(p) for _, p in got]
    assert len(set(paths)) == len(paths)  # distinct paths
    for cost, path in got:
        assert path[0] == s and path[-1] == t
        assert len(set(path)) == len(path)  # loopless
        assert _length(S, path) == pytest.approx(cost)


@needs_numba
def test_a_spur_search_leaves_its_scratch_as_it_found_it():
    S = sp.csr_matrix(np.array([[0, 1.0, 4.0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0], [0, 0, 0, 0]]))
    ptr, idx, w = S.indptr.astype(np.int64), S.indices.astype(np.int32), S.data
    n, m = 4, S.nnz
    dist, pred, touched, path = np.full(n, np.inf), *(np.zeros(n, np.int64) for _ in range(3))
    keys, verts = np.zeros(m + 1), np.zeros(m + 1, np.int64)
    voff, eoff = np.zeros(n, np.bool_), np.zeros(m, np.bool_)
    args = (voff, eoff, dist, pred, keys, verts, touched, path)
    assert yen_module._spur(ptr, idx, w, 0, 3, *args) == (4, 3.0)
    assert path[:4].tolist() == [0, 1, 2, 3]
    assert np.isinf(dist).all()
    voff[1] = True  # vertex 1 removed: the direct edge
    assert yen_module._spur(ptr, idx, w, 0, 3, *args) == (3, 5.0)
    assert path[:3].tolist() == [0, 2, 3]
    eoff[1] = True  # and the edge 0 -> 2: no way
    assert yen_module._spur(ptr, idx, w, 0, 3, *args)[0] == 0
    assert np.isinf(dist).all()


_VALUES = [0.0, 1.0, 2.0, -1.0, np.inf, -np.inf, np.nan, 1e-9, 3.5, 1.0 + 1e-7]
_DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.uint8, np.bool_]


def _same_csr(a, b):
    return (
        type(a) is type(b)
        and a.indptr.dtype == b.indptr.dtype
        and a.indices.dtype == b.indices.dtype
        and a.data.dtype == b.data.dtype
        and np.array_equal(a.indptr, b.indptr)
        and np.array_equal(a.indices, b.indices)
        and np.array_equal(a.data, b.data, equal_nan=True)
    )


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # (NumPy's)
@settings(max_examples=120, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.lists(st.sampled_from(_VALUES), min_size=n * n, max_size=n * n)
    ),
    st.sampled_from(_DTYPES),
    st.sampled_from([0, 1, 2, np.inf, np.nan, None]),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["C", "F", "reversed"]),
)
def test_dense_and_masked_conversions_are_scipys(cells, dtype, null, inf_null, nan_null, layout):
    n = int(round(len(cells) ** 0.5))
    a = np.array(cells).reshape(n, n)
    if np.dtype(dtype).kind != "f":
        a = np.nan_to_num(a, posinf=5, neginf=-5)
    with np.errstate(over="ignore", invalid="ignore"):
        a = a.astype(dtype)
    a = {"C": a, "F": np.asfortranarray(a), "reversed": a[::-1, ::-1]}[layout]
    args = (null, nan_null, inf_null)
    with np.errstate(over="ignore", invalid="ignore"):
        got, want = (
            csgraph.csgraph_masked_from_dense(a, *args),
            (scipy_csgraph.csgraph_masked_from_dense(a, *args)),
        )
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    np.testing.assert_array_equal(got.data, want.data)
    if got.dtype.kind == "f":
        assert got.fill_value == want.fill_value or (
            np.isnan(got.fill_value) and np.isnan(want.fill_value)
        )
    try:  # (SciPy's own fails where the mask shrinks to nomask; kleene's reads it)
        want_csr = scipy_csgraph.csgraph_from_masked(want)
    except Exception:
        want_csr = None
    if want_csr is not None:
        assert _same_csr(csgraph.csgraph_from_masked(want), want_csr)
    try:
        want_dense = scipy_csgraph.csgraph_from_dense(a, *args)
    except Exception:
        want_dense = None
    if want_dense is not None:
        assert _same_csr(csgraph.csgraph_from_dense(a, *args), want_dense)


def test_from_masked_reads_a_masked_array_without_a_mask():
    got = csgraph.csgraph_from_masked(np.ma.masked_array(np.arange(9.0).reshape(3, 3)))
    assert got.nnz == 9 and got.toarray().tolist() == np.arange(9.0).reshape(3, 3).tolist()


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_undirected_walks_are_scipys_on_symmetric_and_other_patterns(n, seed, symmetric):
    # a symmetric pattern (weights differing both ways) skips the in-edge scan
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < 0.3
    if symmetric:
        mask |= mask.T
    S = sp.csr_array(np.where(mask, rng.integers(1, 6, size=(n, n)), 0).astype(float))
    walks = importlib.import_module("kleene.csgraph.walks")
    if walks.in_edges is not None:
        ptr, idx = walks.in_edges(S.indptr, S.indices, n)
        T = S.T.tocsr()
        assert ptr.tolist() == T.indptr.tolist() and idx.tolist() == T.indices.tolist()
    start = int(rng.integers(0, n))
    for name in ("breadth_first_order", "depth_first_order"):
        got = getattr(csgraph, name)(S, start, directed=False)
        want = getattr(scipy_csgraph, name)(S, start, directed=False)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    for name in ("breadth_first_tree", "depth_first_tree"):
        got = getattr(csgraph, name)(S, start, directed=False)
        want = getattr(scipy_csgraph, name)(S, start, directed=False)
        assert (got != want).nnz == 0


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_the_transpose_test_is_the_transpose(n, seed, mirror, zeros):
    # explicit zeros are edges: (i, j, 0) stored needs (j, i, 0) stored
    sources = importlib.import_module("kleene.csgraph.shortest_paths")
    if sources.numba is None:
        pytest.skip("needs Numba")
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < 0.4
    w = rng.integers(0 if zeros else 1, 3, size=(n, n)).astype(float)
    if mirror:
        mask |= mask.T
        w = np.minimum(w, w.T)
    rows, cols = np.nonzero(mask)
    S = sp.csr_array((w[rows, cols], (rows, cols)), shape=(n, n))
    S.sum_duplicates()
    T = sp.csr_array(S.T)
    T.sort_indices()
    want = (
        np.array_equal(S.indptr, T.indptr)
        and np.array_equal(S.indices, T.indices)
        and np.array_equal(S.data, T.data)
    )
    assert sources._equals_transpose(S.indptr, S.indices, S.data) == want
    if mirror:
        assert want
