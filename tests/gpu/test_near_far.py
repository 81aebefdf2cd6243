"""The fused GPU near-far delta-stepping (kernels/near_far.cu) against its composed twin
(``frontier_delta_stepping(fused=False)``: buckets of ``relax``), SciPy's Dijkstra and
Bellman-Ford's per-round fallback; the predecessors queued behind it (``tight_parents``) against
``shortest_path_tree``'s composed form; repeated runs give the same bits (the kernel's
atomics and chasing warps must not make the answer depend on scheduling).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.gpu

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

import cupy  # noqa: E402
from scipy.sparse.csgraph import dijkstra  # noqa: E402

import kleene  # noqa: E402
from kleene.backends.cuda import near_far  # noqa: E402
from kleene.core import Matrix, Vector  # noqa: E402
from kleene.engine import frontier_delta_stepping, shortest_path_tree  # noqa: E402
from kleene.generators import rmat, road_graph  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from graph_data import check_shortest_path_tree, record_in_edges  # noqa: E402


@st.composite
def graphs(draw, max_n=60, zero=True):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 5 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = draw(st.lists(st.integers(0 if zero else 1, 40), min_size=m, max_size=m))
    g = sp.coo_matrix((np.array(w, float), (src, dst)), shape=(n, n)).tocsr()  # sums dups
    return g, draw(st.integers(0, n - 1))


@contextmanager
def _chase(budget: int):
    """near_far.CHASE set for a block (not monkeypatch: hypothesis runs many examples)."""
    old = near_far.CHASE
    near_far.CHASE = budget
    try:
        yield
    finally:
        near_far.CHASE = old


def _fused(S, s, delta=None, predecessors=False, dtype=np.float64):
    A = Matrix.from_scipy(S.astype(dtype)).to("gpu")
    out = frontier_delta_stepping(A, s, delta=delta, fused=True, predecessors=predecessors)
    if predecessors:
        return out[0].to_dense().get(), cupy.asnumpy(out[1])
    return out.to_dense().get()


@settings(max_examples=60, deadline=None)
@given(
    case=graphs(),
    delta=st.sampled_from([None, 0.5, 3.0, 1e9]),
    chase=st.sampled_from([0, 1, 8, 32]),
)
def test_fused_equals_composed_and_dijkstra(case, delta, chase):
    g, s = case
    A = Matrix.from_scipy(g).to("gpu")
    with _chase(chase):
        fused = frontier_delta_stepping(A, s, delta=delta, fused=True).to_dense().get()
    composed = frontier_delta_stepping(A, s, delta=delta or 1.0, fused=False).to_dense().get()
    np.testing.assert_array_equal(fused, composed)
    np.testing.assert_array_equal(fused, dijkstra(g, indices=s))


@settings(max_examples=40, deadline=None)
@given(case=graphs(zero=False), chase=st.sampled_from([0, 8]))
def test_predecessors_equal_the_composed_tree(case, chase):
    """Positive integer weights: sums grow strictly, the one-pass rule applies."""
    g, s = case
    with _chase(chase):
        dist, pred = _fused(g, s, predecessors=True)
    np.testing.assert_array_equal(dist, dijkstra(g, indices=s))
    A = Matrix.from_scipy(g)  # the CPU composed form
    composed = shortest_path_tree(A, Vector.from_dense(dist, missing=None), s, fused=False)
    np.testing.assert_array_equal(pred, composed)
    check_shortest_path_tree(g, dist, pred, s)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_road_graph_all_vertices_and_float32_weights(dtype):
    S = road_graph(120, seed=2).to_scipy().astype(np.float64)
    ref = dijkstra(S, indices=0)
    dist, pred = _fused(S, 0, predecessors=True, dtype=dtype)
    np.testing.assert_array_equal(dist, ref)  # weights are integers: exact in float32
    check_shortest_path_tree(S, dist, pred, 0)
    np.testing.assert_array_equal(dist, _fused(S, 0, delta=1.0, dtype=dtype))  # 1,000 phases


def test_hubs_go_on_the_heavy_list():
    """RMAT: vertices of thousands of edges, relaxed by the whole grid."""
    src, dst = rmat(14, edge_factor=16, seed=5)
    w = np.random.default_rng(0).integers(1, 100, src.size).astype(np.float64)
    S = sp.coo_matrix((w, (src, dst)), shape=(1 << 14, 1 << 14)).tocsr()
    assert np.diff(S.indptr).max() > 1000
    s = int(np.argmax(np.diff(S.indptr)))
    dist, pred = _fused(S, s, predecessors=True)
    np.testing.assert_array_equal(dist, dijkstra(S, indices=s))
    check_shortest_path_tree(S, dist, pred, s)


def test_repeated_runs_give_identical_bits():
    S = road_graph(200, seed=4).to_scipy().astype(np.float64)
    S.data = S.data / 7.0  # inexact sums: the order of additions would show
    first = _fused(S, 5, predecessors=True)
    for _ in range(10):
        again = _fused(S, 5, predecessors=True)
        np.testing.assert_array_equal(first[0].view(np.int64), again[0].view(np.int64))
        np.testing.assert_array_equal(first[1], again[1])


def test_zero_weights_fall_back_to_the_bfs_tree():
    """A zero-weight cycle: no one-pass rule; the tight-edge BFS tree, still acyclic."""
    S = sp.csr_matrix(([0.0, 0.0, 2.0, 1.0], ([0, 1, 1, 2], [1, 0, 2, 3])), shape=(4, 4))
    dist, pred = kleene.sssp(cupyx_csr(S), 0, return_predecessors=True)
    np.testing.assert_array_equal(cupy.asnumpy(dist), [0.0, 0.0, 2.0, 3.0])
    assert cupy.asnumpy(pred).tolist() == [-1, 0, 1, 2]


def test_refused_cooperative_launch_runs_bellman_ford(monkeypatch):
    from kleene.backends.cuda import frontier

    S = road_graph(40, seed=1).to_scipy().astype(np.float64)
    monkeypatch.setattr(frontier, "_no_cooperative", {frontier.jit.device_id()})
    dist, pred = _fused(S, 3, predecessors=True)
    np.testing.assert_array_equal(dist, dijkstra(S, indices=3))
    check_shortest_path_tree(S, dist, pred, 3)


def test_tight_parents_kernel_equals_the_cpu_one():
    from kleene.backends.cpu.tree import _tight_parents

    S = road_graph(80, seed=6).to_scipy().astype(np.float64)
    dist = dijkstra(S, indices=0)
    gpu = near_far.tight_parents(
        cupy.asarray(S.indptr), cupy.asarray(S.indices), cupy.asarray(S.data), cupy.asarray(dist)
    )
    cpu = _tight_parents(S.indptr, S.indices, S.data, dist)
    np.testing.assert_array_equal(cupy.asnumpy(gpu), cpu)


@pytest.mark.parametrize("ties", [True, False])
def test_tight_parents_from_in_edges_equal_the_push_pass(ties):
    """The pull pass (each vertex's in-edges, sorted, up to the first tight one) against
    the push pass and the CPU's, on a directed RMAT whose in-rows take every path: 4
    lanes, a warp, and hubs over the heavy list (chunks skip entries above a found
    parent). Integer weights 1..3 give many tight in-edges (the smallest must win);
    real ones give one. Repeated runs give the same answer (atomicMin on hubs)."""
    from kleene.backends.cpu.tree import _tight_parents

    n = 1 << 16
    src, dst = rmat(16, edge_factor=16, seed=9)
    rng = np.random.default_rng(2)
    w = rng.integers(1, 4, src.size).astype(np.float64) if ties else rng.uniform(1, 100, src.size)
    S = sp.coo_matrix((w, (src, dst)), shape=(n, n)).tocsr()
    T = S.T.tocsr()
    T.sort_indices()
    assert np.diff(T.indptr).max() > 4096  # in-rows on the heavy list
    s = int(np.argmax(np.diff(S.indptr)))
    dist = dijkstra(S, indices=s)
    gpu = [cupy.asarray(a) for a in (S.indptr, S.indices, S.data, dist)]
    in_edges = tuple(cupy.asarray(a) for a in (T.indptr, T.indices, T.data))
    push = cupy.asnumpy(near_far.tight_parents(*gpu))
    pull = cupy.asnumpy(near_far.tight_parents(*gpu, in_edges=in_edges))
    np.testing.assert_array_equal(pull, push)
    np.testing.assert_array_equal(pull, _tight_parents(S.indptr, S.indices, S.data, dist))
    check_shortest_path_tree(S, dist, pull, s)
    for _ in range(5):
        again = near_far.tight_parents(*gpu, in_edges=in_edges)
        np.testing.assert_array_equal(cupy.asnumpy(again), pull)


def test_sssp_predecessors_pull_on_a_symmetric_graph(monkeypatch):
    """A symmetric graph serves as its own transpose: kleene.sssp's parent pass reads
    in-edges (no transpose built); a directed one without a cached transpose pushes."""
    seen = record_in_edges(monkeypatch, near_far)
    S = road_graph(90, seed=3).to_scipy().astype(np.float64)
    dist, pred = kleene.sssp(cupyx_csr(S), 0, return_predecessors=True)
    check_shortest_path_tree(S, cupy.asnumpy(dist), cupy.asnumpy(pred), 0)
    D = sp.triu(S, format="csr")  # directed
    dist, pred = kleene.sssp(cupyx_csr(D), 0, return_predecessors=True)
    check_shortest_path_tree(D, cupy.asnumpy(dist), cupy.asnumpy(pred), 0)
    assert seen == [True, False]


def test_sssp_auto_on_the_gpu_matches_scipy_with_predecessors():
    S = road_graph(100, seed=8).to_scipy().astype(np.float64)
    dist, pred = kleene.sssp(cupyx_csr(S), 0, return_predecessors=True)
    dist, pred = cupy.asnumpy(dist), cupy.asnumpy(pred)
    np.testing.assert_array_equal(dist, dijkstra(S, indices=0))
    check_shortest_path_tree(S, dist, pred, 0)


def test_bad_delta_is_named():
    A = Matrix.from_scipy(road_graph(10, seed=1).to_scipy()).to("gpu")
    with pytest.raises(ValueError, match="delta"):
        frontier_delta_stepping(A, 0, delta=-1.0, fused=True)


def cupyx_csr(S):
    import cupyx.scipy.sparse as csp

    return csp.csr_matrix(S)
