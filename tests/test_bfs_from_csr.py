"""kleene.bfs from a SciPy CSR on the CPU (issue 40, item 2): the same answers as scipy
and as a prebuilt Matrix, for canonical and non-canonical CSRs (duplicates, unsorted
indices), explicit zeros (edges), NaN weights (edges: levels read no weights),
``directed=False``, predecessors and every method; and the transpose policy: a search
with no Aᵀ at hand pushes every level, a graph passed as a CSR never has Aᵀ built, and
a Matrix whose search wanted to pull has Aᵀ built by its next search.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

pytest.importorskip("numba", reason="the fused CPU loops are compiled with numba")

from graph_data import min_parents  # noqa: E402

import kleene  # noqa: E402
from kleene.backends import cpu  # noqa: E402
from kleene.backends.cpu import frontier as cf  # noqa: E402
from kleene.engine import frontier as fr  # noqa: E402

fused = pytest.mark.skipif(cpu.bfs_levels is None, reason="KLEENE_CPU=numpy: no fused BFS")

METHODS = ["auto", "push", "pull", "direction-optimizing"]


def _hops(g, s, directed=True):
    d = shortest_path(g, unweighted=True, directed=directed, indices=s)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


@st.composite
def csr_inputs(draw, max_n=30):
    """(a scipy CSR as a user may hold it, its canonical pattern with values 1, source)."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 4 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, np.nan]), min_size=m, max_size=m))
    pattern = sp.csr_matrix((np.ones(m), (src, dst)), shape=(n, n))
    pattern.sum_duplicates()
    pattern.data[:] = 1.0
    # built from raw arrays: duplicates and row order kept, so not canonical
    order = np.argsort(np.array(src, dtype=np.int64), kind="stable")
    indptr = np.searchsorted(np.array(src, dtype=np.int64)[order], np.arange(n + 1))
    indices = np.array(dst, dtype=np.int32)[order]
    if draw(st.booleans()) and m:  # reverse each row's order: unsorted indices
        rows = zip(indptr[:-1], indptr[1:], strict=True)
        indices = np.concatenate([indices[a:b][::-1] for a, b in rows])
    g = sp.csr_matrix((np.array(w)[order], indices, indptr), shape=(n, n))
    if draw(st.booleans()):  # (an integer or Boolean CSR holds no NaN)
        g.data[np.isnan(g.data)] = 1.0
        g = g.astype(draw(st.sampled_from([np.int64, np.float32, np.bool_])))
    return g, pattern, draw(st.integers(0, n - 1))


@settings(max_examples=80, deadline=None)
@given(data=csr_inputs(), method=st.sampled_from(METHODS), directed=st.booleans())
def test_bfs_from_csr_matches_scipy(data, method, directed):
    g, pattern, s = data
    if not directed:
        if np.isnan(np.asarray(g.data, dtype=np.float64)).any():
            g = g.copy()  # directed=False checks weights (it merges A with Aᵀ)
            g.data[np.isnan(g.data)] = 1.0
        pattern = ((pattern + pattern.T) != 0).astype(np.float64).tocsr()
    want = _hops(pattern, s)
    lv = kleene.bfs(g, s, method=method, directed=directed)
    np.testing.assert_array_equal(lv, want)
    lv2, par = kleene.bfs(g, s, method=method, directed=directed, return_predecessors=True)
    np.testing.assert_array_equal(lv2, want)
    np.testing.assert_array_equal(par, min_parents(pattern, want))


@settings(max_examples=40, deadline=None)
@given(data=csr_inputs())
def test_csr_and_prebuilt_matrix_agree_call_after_call(data):
    g, _, s = data
    M = kleene.Matrix.from_scipy(g)
    first = kleene.bfs(g, s, return_predecessors=True)
    for _ in range(3):  # a Matrix's later searches may build and keep Aᵀ
        for out in (
            kleene.bfs(M, s, return_predecessors=True),
            kleene.bfs(g, s, return_predecessors=True),
        ):
            np.testing.assert_array_equal(out[0], first[0])
            np.testing.assert_array_equal(out[1], first[1])


def _social(scale=10, seed=4, directed=True):
    """An RMAT graph whose BFS from vertex 0 wants to pull (a hub, a fast-growing frontier)."""
    src, dst = kleene.generators.rmat(scale, 16, seed=seed)
    n = 1 << scale
    g = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    g.sum_duplicates()
    return g if directed else (g + g.T).tocsr()


def _count_transposes(monkeypatch):
    calls = []
    real = fr.transposed_pattern

    def counting(A):
        calls.append(A)
        return real(A)

    monkeypatch.setattr(fr, "transposed_pattern", counting)
    return calls


@fused
def test_a_csr_never_builds_the_transpose(monkeypatch):
    g = _social()
    calls = _count_transposes(monkeypatch)
    want = _hops(g, 0)
    for _ in range(3):
        np.testing.assert_array_equal(kleene.bfs(g, 0), want)
        lv, par = kleene.bfs(g, 0, return_predecessors=True)
        np.testing.assert_array_equal(par, min_parents(g, want))
    assert calls == []
    np.testing.assert_array_equal(kleene.bfs(g, 0, method="pull"), want)  # asked for: built
    assert len(calls) == 1


@fused
def test_a_matrix_builds_the_transpose_on_its_second_search(monkeypatch):
    g = _social()
    M = kleene.Matrix.from_scipy(g)
    calls = _count_transposes(monkeypatch)
    want = _hops(g, 0)
    np.testing.assert_array_equal(kleene.bfs(M, 0), want)
    assert calls == [] and M.known("csr_T") is None
    assert M.known("bfs_pull_wanted")  # the rule wanted to pull: the next search builds Aᵀ
    np.testing.assert_array_equal(kleene.bfs(M, 0), want)
    assert len(calls) == 1 and M.known("csr_T") is not None
    np.testing.assert_array_equal(kleene.bfs(M, 0), want)
    assert len(calls) == 1  # kept: not built again


@fused
def test_a_road_like_matrix_never_builds_the_transpose(monkeypatch):
    G = kleene.generators.from_spec("grid:30x30")
    calls = _count_transposes(monkeypatch)
    for _ in range(3):
        kleene.bfs(G, 0)
    assert calls == [] and G.known("bfs_pull_wanted") is None


def test_no_in_edges_gives_the_same_answer_as_pulling():
    g = _social(directed=True)
    ptr, idx = g.indptr, g.indices
    t = g.T.tocsr()
    wanted = []
    got = cf.bfs_levels(
        ptr,
        idx,
        None,
        None,
        g.shape[0],
        0,
        True,
        "auto",
        on_pull_wanted=lambda: wanted.append(True),
    )
    assert wanted == [True]
    for method in ("auto", "pull"):
        ref = cf.bfs_levels(ptr, idx, t.indptr, t.indices, g.shape[0], 0, True, method)
        np.testing.assert_array_equal(got[0], ref[0])
        np.testing.assert_array_equal(got[1], ref[1])
    with pytest.raises(ValueError, match="pull.*transpose"):
        cf.bfs_levels(ptr, idx, None, None, g.shape[0], 0, False, "pull")


def test_nan_and_zero_weights_are_edges():
    g = sp.csr_matrix(([np.nan, 0.0, 1.0], ([0, 1, 2], [1, 2, 3])), shape=(5, 5))
    assert kleene.bfs(g, 0).tolist() == [0, 1, 2, 3, -1]


def test_bad_input_is_named():
    g = sp.csr_matrix(np.ones((2, 3)))
    with pytest.raises(ValueError, match="square"):
        kleene.bfs(g, 0)
    with pytest.raises(IndexError, match="out of range"):
        kleene.bfs(sp.eye(3, format="csr"), 3)
    with pytest.raises(ValueError, match="method"):
        kleene.bfs(sp.eye(3, format="csr"), 0, method="sideways")
