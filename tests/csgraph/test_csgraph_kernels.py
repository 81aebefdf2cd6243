"""kleene.csgraph's compiled routes against its composed ones: Yen's spur searches."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

yen_module = importlib.import_module("kleene.csgraph.yen")

pytestmark = pytest.mark.skipif(yen_module._spur is None, reason="needs Numba")


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
