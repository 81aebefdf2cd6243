"""The fused GPU multi-source BFS (MS-BFS, 64 sources per word) equals its composed twin.

``kleene.engine.frontier_bfs_multi`` on the GPU runs ``bfs_multi``
(kernels/multi_frontier.cu); with ``fused=False`` it runs the composed loop (one
masked mxm of the (k, n) frontier per level). Both are compared, levels and parents
(the smallest in-neighbour one level up), on random graphs with every method
(push, pull, direction-optimizing), on RMAT with 1 to 3 groups of 64 sources, run
to run (no dependence on scheduling), and the MemoryError. Skipped without CuPy
or a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.gpu

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

import cupy  # noqa: E402
from scipy.sparse.csgraph import shortest_path  # noqa: E402

import kleene  # noqa: E402
from kleene.backends.cuda import multi_frontier  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from graph_data import graphs  # noqa: E402


def _parts(g: sp.csr_matrix):
    """CuPy (indptr, indices) of g's pattern and of its transpose (sorted rows)."""
    g = sp.csr_matrix(g)
    g.sort_indices()
    t = sp.csr_matrix(g.T)
    t.sort_indices()
    return [cupy.asarray(a) for a in (g.indptr, g.indices, t.indptr, t.indices)]


def _composed(A, sources, parents=True):
    lv, par = kleene.engine.frontier_bfs_multi(A, sources, parents=parents, fused=False)
    return lv.get(), (par.get() if parents else None)


@settings(max_examples=60, deadline=None)
@given(
    data=graphs(max_n=40),
    sources=st.lists(st.integers(0, 1000), min_size=1, max_size=140),
    method=st.sampled_from(["push", "pull", "direction-optimizing"]),
    directed=st.booleans(),
)
def test_fused_bfs_multi_equals_composed(data, sources, method, directed):
    g, _, n = data
    if not directed:
        g = (g + g.T).tocsr()
    src = np.array(sources, np.int64) % n
    A = kleene.Matrix.from_scipy(g).to("gpu")
    want_lv, want_par = _composed(A, src)
    ptr, idx, tptr, tidx = _parts(g)
    lv, par = multi_frontier.bfs_multi(ptr, idx, tptr, tidx, n, cupy.asarray(src), True, method)
    np.testing.assert_array_equal(lv.get(), want_lv)
    np.testing.assert_array_equal(par.get(), want_par)
    alone, none = multi_frontier.bfs_multi(
        ptr, idx, tptr, tidx, n, cupy.asarray(src), False, method
    )
    assert none is None and np.array_equal(alone.get(), want_lv)
    got_lv, got_par = kleene.bfs(A, src.tolist(), directed=directed, return_predecessors=True)
    np.testing.assert_array_equal(got_lv.get(), want_lv)
    np.testing.assert_array_equal(got_par.get(), want_par)


def _rmat(scale: int, seed: int, undirected: bool = False):
    src, dst = kleene.generators.rmat(scale, 16, seed=seed, undirected=undirected)
    n = 1 << scale
    g = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    g.sum_duplicates()
    return g, n


@pytest.mark.parametrize("k", [1, 63, 64, 65, 130])
def test_fused_bfs_multi_rmat_equals_composed_and_scipy(k):
    g, n = _rmat(13, seed=k)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    rng = np.random.default_rng(k)
    src = rng.integers(0, n, k)
    src[k // 2] = src[0]  # a repeat
    lv, par = kleene.engine.frontier_bfs_multi(A, src, parents=True)
    want_lv, want_par = _composed(A, src)
    np.testing.assert_array_equal(lv.get(), want_lv)
    np.testing.assert_array_equal(par.get(), want_par)
    ref = shortest_path(g, unweighted=True, indices=src)
    np.testing.assert_array_equal(want_lv, np.where(np.isinf(ref), -1, ref).astype(np.int64))
    for method in ("push", "pull"):
        ptr, idx, tptr, tidx = _parts(g)
        lv_m, par_m = multi_frontier.bfs_multi(
            ptr, idx, tptr, tidx, n, cupy.asarray(src), True, method
        )
        np.testing.assert_array_equal(lv_m.get(), want_lv)
        np.testing.assert_array_equal(par_m.get(), want_par)


def test_fused_bfs_multi_symmetric_rmat_equals_composed():
    g, n = _rmat(12, seed=7, undirected=True)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    src = np.arange(0, n, n // 100)[:100]  # hubs (low labels) and leaves, two groups
    lv, par = kleene.engine.frontier_bfs_multi(A, src, parents=True, symmetric=True)
    want_lv, want_par = _composed(A, src)
    np.testing.assert_array_equal(lv.get(), want_lv)
    np.testing.assert_array_equal(par.get(), want_par)


def test_fused_bfs_multi_runs_are_identical():
    """Levels and parents do not depend on scheduling (atomicOr claims, ascending scans)."""
    g, n = _rmat(15, seed=3)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    src = np.random.default_rng(3).integers(0, n, 100)
    lv0, par0 = (x.get() for x in kleene.engine.frontier_bfs_multi(A, src, parents=True))
    for _ in range(5):
        lv, par = (x.get() for x in kleene.engine.frontier_bfs_multi(A, src, parents=True))
        assert np.array_equal(lv, lv0) and np.array_equal(par, par0)


def test_fused_bfs_multi_too_large_names_the_bytes(monkeypatch):
    g, n = _rmat(10, seed=1)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    monkeypatch.setattr(multi_frontier, "gpu_memory_free", lambda: 1000)
    with pytest.raises(MemoryError, match=r"need \d+ bytes .* 1000 bytes free"):
        kleene.engine.frontier_bfs_multi(A, [0, 1, 2])


def test_fused_bfs_multi_no_sources_and_fused_true():
    A = kleene.Matrix.from_edges([0, 1], [1, 2], n=3).to("gpu")
    lv, par = kleene.engine.frontier_bfs_multi(A, [], parents=True, fused=True)
    assert lv.shape == (0, 3) and par.shape == (0, 3)
    lv, _ = kleene.engine.frontier_bfs_multi(A, 2, fused=True)
    assert lv.get().tolist() == [[-1, -1, 0]]


@pytest.mark.parametrize("k", [4, 8, 64, 70])
def test_levels_past_the_kept_words_equal_scipy(k):
    """A search deeper than the levels kept as words (_HIST: 16; k // 4 rows for small
    k) switches to writing the rest directly: a 300-vertex path plus a few shortcuts
    and an unreachable tail, levels and parents against SciPy and the composed form."""
    n = 300
    rows = list(range(n - 21)) + [5, 40, 200]
    cols = list(range(1, n - 20)) + [60, 120, 230]
    g = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    src = np.random.default_rng(k).integers(0, n - 20, k)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    lv, par = kleene.engine.frontier_bfs_multi(A, src, parents=True)
    ref = shortest_path(g, unweighted=True, indices=src)
    np.testing.assert_array_equal(lv.get(), np.where(np.isinf(ref), -1, ref).astype(np.int64))
    want_lv, want_par = _composed(A, src)
    np.testing.assert_array_equal(lv.get(), want_lv)
    np.testing.assert_array_equal(par.get(), want_par)
    assert int(lv.get().max()) > multi_frontier._HIST


@pytest.mark.parametrize("shift", [12, 4])
def test_pull_with_lagging_searches_pushed_equals_composed(monkeypatch, shift):
    """A pull level pushes the searches whose frontier is still tiny (kl_ms_stats,
    kl_ms_filter, kl_ms_push with its bit mask) beside a pull of the others: an RMAT
    graph with a long path hung off it, some sources on the path (their frontiers stay
    one vertex for hundreds of levels) and some in the RMAT part. Every level of every
    search, parents too, as the composed form gives; some level was split; three more
    runs give the same."""
    g, n0 = _rmat(13, seed=5, undirected=True)
    tail = 400
    path = sp.csr_matrix(
        (np.ones(tail), (np.arange(n0, n0 + tail), np.r_[np.arange(n0 + 1, n0 + tail), 0])),
        shape=(n0 + tail, n0 + tail),
    )
    n = n0 + tail
    g = sp.csr_matrix((g.data, g.indices, np.r_[g.indptr, np.full(tail, g.indptr[-1])]), (n, n))
    g = (g + path + path.T).tocsr()
    g.data[:] = 1
    rng = np.random.default_rng(shift)
    src = np.r_[rng.integers(0, n0, 50), n0 + rng.integers(0, tail, 14)]
    monkeypatch.setattr(multi_frontier, "_SPARSE_SHIFT", shift)
    hybrid = []
    orig = multi_frontier._sparse_searches

    def counted(f_in, q_in, h_in, nq, alive, n, got=None):
        few = orig(f_in, q_in, h_in, nq, alive, n, got)
        hybrid.append(0 < few != alive)  # some searches pulled, the others pushed
        return few

    monkeypatch.setattr(multi_frontier, "_sparse_searches", counted)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    lv, par = kleene.engine.frontier_bfs_multi(A, src, parents=True)
    want_lv, want_par = _composed(A, src)
    np.testing.assert_array_equal(lv.get(), want_lv)
    np.testing.assert_array_equal(par.get(), want_par)
    assert any(hybrid)
    for _ in range(3):  # the pull and the push set bits of the same words: no races
        again_lv, again_par = kleene.engine.frontier_bfs_multi(A, src, parents=True)
        assert np.array_equal(again_lv.get(), want_lv) and np.array_equal(again_par.get(), want_par)
