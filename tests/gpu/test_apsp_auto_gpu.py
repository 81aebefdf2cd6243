"""apsp on the GPU for sparse graphs: which method ``auto`` picks (the cost model of
kleene.algorithms.apsp_cost against the dense closure), results kept in GPU memory
where they fit (host memory otherwise), and every route equal to SciPy. Skipped
without CuPy or a GPU."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

pytestmark = pytest.mark.gpu

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

import cupy  # noqa: E402
import cupyx.scipy.sparse as cxs  # noqa: E402
from scipy.sparse.csgraph import johnson as scipy_johnson  # noqa: E402
from scipy.sparse.csgraph import shortest_path  # noqa: E402

import kleene  # noqa: E402
from kleene.algorithms import apsp_memory, dense_closure  # noqa: E402
from kleene.algorithms.graph_input import as_graph  # noqa: E402
from kleene.generators import road_graph  # noqa: E402
from kleene.semiring import min_plus  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from graph_data import check_shortest_path_tree, load_scipy  # noqa: E402


def _road(side: int) -> sp.csr_matrix:
    S = road_graph(side, seed=0).to_scipy().astype(np.float32).tocsr()
    S.data = np.random.default_rng(5).integers(1, 100, S.nnz).astype(np.float32)
    return S.maximum(S.T).tocsr()


def _random(n: int, degree: int, seed: int = 1) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, n * degree), rng.integers(0, n, n * degree)
    keep = r != c
    w = rng.integers(1, 100, keep.sum()).astype(np.float32)
    S = sp.csr_matrix((w, (r[keep], c[keep])), shape=(n, n))
    S.sum_duplicates()
    return S


def _picked(S, preds: bool) -> str:
    A = as_graph(cxs.csr_matrix(S), directed=True, fmt=None)
    return dense_closure.resolve_method(A, min_plus, "auto", preds)


@pytest.mark.parametrize(
    "make, preds, want",
    [
        (lambda: _road(128), False, "repeated-sssp"),  # 259 ms against 319 (H100)
        (lambda: _road(64), False, "recursive"),  # 12.5 ms against 8.5
        (lambda: _road(64), True, "repeated-sssp"),  # 31 ms against 41
        (lambda: _random(4096, 16), False, "recursive"),  # 13.8 ms against 8.2
        (lambda: _random(8192, 3), False, "repeated-sssp"),  # 24.6 ms against 49.6
    ],
    ids=["road128", "road64", "road64-preds", "er4096-d16", "er8192-d3"],
)
def test_auto_picks_as_measured(make, preds, want):
    assert _picked(make(), preds) == want


def test_auto_keeps_dense_on_a_complete_graph():
    A = kleene.generators.erdos_renyi(2048, 1.0, seed=3, device="gpu")
    assert dense_closure.resolve_method(A, min_plus, "auto", False) == "recursive"


@pytest.mark.parametrize("method", ["repeated-sssp", "johnson", "auto"])
def test_sparse_results_in_gpu_memory_equal_scipy(method):
    g = load_scipy("rome99.gr")
    dist, pred = kleene.apsp(cxs.csr_matrix(g), method=method, return_predecessors=True)
    assert isinstance(dist, cupy.ndarray) and isinstance(pred, cupy.ndarray)
    dist, pred = dist.get(), pred.get()
    np.testing.assert_array_equal(dist, shortest_path(g, method="D"))
    for s in range(0, g.shape[0], 97):
        check_shortest_path_tree(g, dist[s], pred[s], s)


def test_johnson_negative_weights_on_gpu_equal_scipy():
    S = _random(600, 4, seed=7).astype(np.float64)
    rng = np.random.default_rng(8)
    h = rng.integers(0, 50, S.shape[0]).astype(np.float64)
    S = S.tocoo()
    S.data = S.data + h[S.row] - h[S.col]  # negative edges, no negative cycle
    S = S.tocsr()
    assert S.data.min() < 0
    want = scipy_johnson(S)
    for method in ("johnson", "auto"):
        got = kleene.apsp(cxs.csr_matrix(S), method=method)
        np.testing.assert_allclose(kleene.backends.to_host(got), want, rtol=1e-12, atol=1e-9)


def test_sparse_results_go_to_host_memory_past_the_gpu(monkeypatch):
    g = load_scipy("rome99.gr")
    n = g.shape[0]
    room = 8 * n * n // 2  # half the distances' bytes: they cannot stay on the GPU
    monkeypatch.setattr(apsp_memory, "gpu_memory_free", lambda: room)
    dist = kleene.apsp(cxs.csr_matrix(g), method="repeated-sssp")
    assert isinstance(dist, np.ndarray)
    np.testing.assert_array_equal(dist, shortest_path(g, method="D"))


def test_sparse_on_gpu_repeats_identically():
    g = _road(40)
    first = [
        x.get()
        for x in kleene.apsp(cxs.csr_matrix(g), method="repeated-sssp", return_predecessors=True)
    ]
    for _ in range(3):
        again = kleene.apsp(cxs.csr_matrix(g), method="repeated-sssp", return_predecessors=True)
        assert all(np.array_equal(a.get(), b) for a, b in zip(again, first, strict=True))
