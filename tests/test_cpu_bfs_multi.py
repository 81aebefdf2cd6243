"""The CPU back end's fused multi-source searches (``cpu/bfs_rows.py``, ``cpu/sources.py``)
on real graphs, every BFS method, and requests whose results cannot fit.

The hypothesis comparisons of the fused and composed multi-source BFS are in
tests/test_frontier_multi.py, those of the multi-source shortest paths in
tests/test_cpu_sources.py; here: scipy on the shared road and peer-to-peer
graphs, each row equal to a single-source call, thread-count independence, and
the MemoryError that refuses a (k, n) result before any search runs.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra, shortest_path

pytest.importorskip("numba", reason="the fused CPU loops are compiled with numba")

from graph_data import check_shortest_path_tree, load_scipy  # noqa: E402

import kleene  # noqa: E402
import kleene.backends.cpu as cpu  # noqa: E402
import kleene.generators  # noqa: E402
from kleene.backends.cpu import bfs_rows as cbm  # noqa: E402
from kleene.backends.cpu import row_results  # noqa: E402
from kleene.backends.cpu import sources as cs  # noqa: E402

needs_fused = pytest.mark.skipif(cpu.bfs_multi is None, reason="KLEENE_CPU=numpy: no fused loops")


@needs_fused
@pytest.mark.parametrize("name", ["rome99.gr", "p2p-Gnutella08.txt"])
def test_real_graph_levels_match_scipy_and_single_calls(name):
    g = load_scipy(name)
    n = g.shape[0]
    sources = np.random.default_rng(1).integers(0, n, 70)  # past 64: more rows than words
    levels, parents = kleene.bfs(g, sources, return_predecessors=True)
    want = shortest_path(g, unweighted=True, indices=sources)
    np.testing.assert_array_equal(levels, np.where(np.isinf(want), -1, want).astype(np.int64))
    for b in (0, 33, 69):
        one, one_par = kleene.bfs(g, int(sources[b]), return_predecessors=True)
        np.testing.assert_array_equal(levels[b], one)
        np.testing.assert_array_equal(parents[b], one_par)


@needs_fused
@pytest.mark.parametrize("method", ["push", "pull", "direction-optimizing"])
def test_every_method_gives_the_same_rows(method):
    g = load_scipy("rome99.gr")
    A = kleene.Matrix.from_scipy(g)
    ptr, idx, _ = A._csr()
    T = kleene.Matrix.from_scipy(g.T.tocsr())
    tptr, tidx, _ = T._csr()
    sources = np.array([0, 5, 5, 3000], dtype=np.int64)
    lv, par = cbm.bfs_multi(ptr, idx, tptr, tidx, A.nrows, sources, True, method)
    want_lv, want_par = kleene.bfs(A, sources, return_predecessors=True)
    np.testing.assert_array_equal(lv, want_lv)
    np.testing.assert_array_equal(par, want_par)


@needs_fused
def test_rows_do_not_depend_on_the_thread_count():
    numba = pytest.importorskip("numba")
    g = load_scipy("p2p-Gnutella08.txt")
    sources = np.arange(0, 6000, 97)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_lv, one_par = kleene.bfs(g, sources, return_predecessors=True)
        one_d = kleene.sssp(g, sources)
        numba.set_num_threads(before)
        lv, par = kleene.bfs(g, sources, return_predecessors=True)
        d = kleene.sssp(g, sources)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(lv, one_lv) and np.array_equal(par, one_par)
    assert np.array_equal(d, one_d)


@needs_fused
def test_multi_source_sssp_by_delta_stepping_matches_scipy_with_a_tree():
    g = load_scipy("rome99.gr")  # positive integer weights: strict sums, tight parents
    sources = np.array([0, 17, 1000, 3352], dtype=np.int64)
    dist, pred = kleene.sssp(g, sources, return_predecessors=True)
    np.testing.assert_array_equal(dist, dijkstra(g, indices=sources))
    for i, s in enumerate(sources):
        check_shortest_path_tree(g, dist[i], pred[i], int(s))


@needs_fused
def test_zero_weights_take_the_dijkstra_predecessors():
    # 0 -> 1 -> 2 -> 1 with zero weights: tight in-edges form a cycle, Dijkstra's do not
    g = kleene.Matrix.from_edges([0, 1, 2, 0], [1, 2, 1, 3], [0.0, 0.0, 0.0, 2.0], n=4)
    dist, pred = kleene.sssp(g, [0, 1], return_predecessors=True)
    assert dist.tolist() == [[0.0, 0.0, 0.0, 2.0], [np.inf, 0.0, 0.0, np.inf]]
    assert pred.tolist() == [[-1, 0, 1, 0], [-1, -1, 1, -1]]


def test_a_result_that_cannot_fit_is_refused_naming_the_bytes(monkeypatch):
    monkeypatch.setattr(row_results, "host_memory_free", lambda: 10**9)
    with pytest.raises(
        MemoryError,
        match=r"bfs: 100,000 sources × 300,000 vertices need "
        r"240,000,000,000 bytes \(223\.5 GiB\) of int64 levels, but "
        r"1,000,000,000 bytes",
    ):
        row_results.check_rows_fit("bfs", 10**5, 3 * 10**5, "int64 levels", 8)


@needs_fused
def test_kleene_bfs_and_sssp_refuse_before_searching(monkeypatch):
    monkeypatch.setattr(row_results, "host_memory_free", lambda: 1000)
    called = []
    monkeypatch.setattr(cbm, "_rows_kernel", lambda *a: called.append(a))
    monkeypatch.setattr(cs, "_delta_rows_kernel", lambda *a: called.append(a))
    A = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 1.0], n=100)
    with pytest.raises(MemoryError, match="bfs: 2 sources × 100 vertices need 3,200 bytes"):
        kleene.bfs(A, [0, 1], return_predecessors=True)
    with pytest.raises(MemoryError, match="sssp: 2 sources × 100 vertices need 1,600 bytes"):
        kleene.sssp(A, [0, 1])
    assert not called
    assert kleene.bfs(A, [0]).shape == (1, 100)  # 800 bytes fit


@needs_fused
@pytest.mark.parametrize("method", [0, 1, 2])  # direction-optimizing, push, pull
def test_ms_bfs_groups_give_the_levels_of_separate_searches(method):
    from kleene.backends import direction
    from kleene.backends.cpu import ms_bfs
    from kleene.backends.cpu.frontier import _csr

    g = kleene.generators.from_spec("rmat:12", seed=3).to_scipy().tocsr()
    n = g.shape[0]
    t = g.T.tocsr()
    t.sort_indices()
    ptr, idx = _csr("t", g.indptr, g.indices, n)
    tptr, tidx = _csr("t", t.indptr, t.indices, n)
    sources = np.random.default_rng(5).integers(0, n, 150)  # groups of 50 (64 at most)
    want = shortest_path(g, unweighted=True, indices=sources)
    want = np.where(np.isinf(want), -1, want).astype(np.int64)
    for workers in (1, 2, 3):
        levels = np.full((sources.size, n), -1, dtype=np.int64)
        ms_bfs.ms_bfs_levels(
            ptr,
            idx,
            tptr,
            tidx,
            sources,
            levels,
            method,
            direction.TO_PULL_MULTI,
            direction.TO_PUSH,
            workers,
        )
        np.testing.assert_array_equal(levels, want)


def test_group_starts_cover_the_sources_in_groups_of_at_most_64():
    from kleene.backends.cpu.ms_bfs import group_starts

    for k, workers in [(1, 2), (7, 2), (64, 2), (65, 1), (1500, 2), (200, 16)]:
        starts = group_starts(k, workers)
        sizes = np.diff(starts)
        assert starts[0] == 0 and starts[-1] == k and sizes.min() >= 1 and sizes.max() <= 64
    assert np.diff(group_starts(64, 2)).tolist() == [32, 32]  # both cores busy


@needs_fused
def test_road_and_social_graphs_take_either_path_with_the_same_levels(monkeypatch):
    from kleene.backends.cpu import bfs_rows

    g = load_scipy("rome99.gr")
    sources = np.arange(0, 3000, 50)
    want = shortest_path(g, unweighted=True, indices=sources)
    want = np.where(np.isinf(want), -1, want).astype(np.int64)
    for limit in (0, 10**6):  # never MS-BFS, always MS-BFS
        monkeypatch.setattr(bfs_rows, "MS_MAX_LEVELS", limit)
        np.testing.assert_array_equal(kleene.bfs(g, sources), want)


@pytest.mark.parametrize("kw", [{"delta": 3.0}, {"method": "delta-stepping", "delta": 0.5}])
def test_multi_source_sssp_with_a_delta_or_negative_weights_runs_per_source(kw, monkeypatch):
    """A given delta, or negative weights, run the single-source loop per source (the
    composed (k, n) loops are never entered) with scipy's answers."""
    from scipy.sparse.csgraph import bellman_ford

    import kleene.algorithms.single_source as ss

    def composed(*args):
        raise AssertionError("the composed multi-source loop ran")

    monkeypatch.setattr(ss, "_delta", composed)
    monkeypatch.setattr(ss, "_bellman_ford", composed)
    rng = np.random.default_rng(2)
    n, m = 300, 1500
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 20, m).astype(float)
    g = sp.csr_matrix((w, (r, c)), shape=(n, n))
    sources = [0, 7, 7, 299]
    dist, pred = kleene.sssp(g, sources, return_predecessors=True, **kw)
    np.testing.assert_array_equal(dist, dijkstra(g, indices=sources))
    for i, s in enumerate(sources):
        check_shortest_path_tree(g, dist[i], pred[i], s)
    lo, hi = np.minimum(r, c), np.maximum(r, c)  # a DAG: negative weights, no cycle
    dag = sp.csr_matrix((w[lo != hi] - 5, (lo[lo != hi], hi[lo != hi])), shape=(n, n))
    dist, pred = kleene.sssp(dag, sources, return_predecessors=True)
    np.testing.assert_allclose(dist, bellman_ford(dag, indices=sources))
    for i, s in enumerate(sources):
        check_shortest_path_tree(dag, dist[i], pred[i], s)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.uint32])
def test_small_weight_dtypes_take_every_path(dtype):
    """A SciPy matrix of a dtype kleene does not store natively (int8, ...) is read as
    float64 weights by sssp, one source or many, as bfs and apsp already did."""
    g = sp.csr_matrix((np.array([1, 2, 3], dtype), ([0, 1, 2], [1, 2, 0])), shape=(3, 3))
    assert kleene.sssp(g, 0).tolist() == [0.0, 1.0, 3.0]
    assert kleene.sssp(g, [0, 2]).tolist() == [[0.0, 1.0, 3.0], [3.0, 4.0, 0.0]]
    assert kleene.apsp(g)[0].tolist() == [0.0, 1.0, 3.0]
