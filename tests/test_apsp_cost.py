"""apsp(method="auto")'s cost models (kleene.algorithms.apsp_cost) against the GPU
timings they were fitted to, and where a sparse APSP's result lives on the GPU."""

import numpy as np
import pytest

from kleene.algorithms import apsp_memory
from kleene.algorithms.apsp_cost import (
    cpu_dense_s,
    cpu_sparse_s,
    gpu_dense_s,
    gpu_prefers_sparse,
    gpu_sparse_s,
)

# Timings (ms, one H100) the cost model was fitted to, measured by
# `benchmarks/bench_apsp.py --sparse` (the run: git show
# 21e872b:benchmarks/results/logs/apsp_sparse_cost_2026-11-26_h100.json):
# (graph, n, m, BFS levels, repeated-sssp without / with predecessors, dense without /
# with; None: not run, the dense closure far slower there). Weights 1..99, except
# facebook's: 1 on every edge.
MEASURED = [
    ("road:64", 3824, 9392, 118, 12.5, 31.2, 8.5, 41.0),
    ("road:90", 7553, 18596, 138, 61.0, 139.3, 44.8, 177.1),
    ("road:128", 15351, 38032, 248, 259.1, 616.1, 319.3, 1016.1),
    ("road:181", 31071, 77094, 328, 1140.6, 2569.4, 2534.5, None),
    ("er:4096:d3", 4096, 12283, 14, 6.4, 14.4, 8.5, 44.7),
    ("er:4096:d16", 4096, 65400, 4, 13.8, 26.4, 8.2, 44.4),
    ("er:8192:d3", 8192, 24571, 15, 24.6, 60.1, 49.6, 206.0),
    ("er:8192:d16", 8192, 130948, 5, 66.4, 119.0, 49.8, 214.2),
    ("er:16384:d3", 16384, 49147, 18, 127.2, 280.2, 362.1, 1204.1),
    ("er:16384:d16", 16384, 262013, 5, 307.5, 530.0, 362.1, 1222.7),
    ("er:32768:d3", 32768, 98297, 16, 553.0, 1179.1, 2782.1, None),
    ("er:32768:d16", 32768, 524136, 5, 1364.7, 2307.0, 2782.7, None),
    ("rome99", 3353, 8859, 48, 11.1, 18.3, 6.5, 32.5),
    ("facebook", 4039, 176468, 7, 9.6, 20.5, 9.3, 44.2),
]


@pytest.mark.parametrize("row", MEASURED, ids=[r[0] for r in MEASURED])
@pytest.mark.parametrize("preds", [False, True])
def test_gpu_model_picks_the_measured_faster_method(row, preds):
    _, n, m, levels, sssp, sssp_p, dense, dense_p = row
    ran_sparse, ran_dense = (sssp_p, dense_p) if preds else (sssp, dense)
    uniform = row[0] == "facebook"  # read without weights: every edge weighs 1
    probed = []

    def depth():
        probed.append(True)
        return levels, uniform

    picks_sparse = gpu_prefers_sparse(n, m, np.float32, preds, False, False, depth)
    if ran_dense is None:
        assert picks_sparse
        return
    if picks_sparse != (ran_sparse < ran_dense):
        # only where the depth probe (~1.5 ms) could not pay, and so at a small cost
        assert not picks_sparse and not probed
        assert ran_dense - ran_sparse < 3.0, (ran_sparse, ran_dense)


def test_gpu_model_estimates_within_a_third_of_the_weighted_rows():
    for name, n, m, levels, sssp, sssp_p, dense, _ in MEASURED:
        if name == "facebook":  # unit weights: every search a BFS, cheaper than modelled
            continue
        assert 0.66 < gpu_sparse_s(n, m, levels, False) * 1e3 / sssp < 1.5, name
        assert 0.66 < gpu_sparse_s(n, m, levels, True) * 1e3 / sssp_p < 1.5, name
        assert 0.8 < gpu_dense_s(n, np.float32, False) * 1e3 / dense < 1.25, name


def test_gpu_model_shapes():
    n, m = 8192, 8192 * 3
    # deeper searches, more edges, predecessors, Johnson and host copies all cost more
    assert gpu_sparse_s(n, m, 500, False) > gpu_sparse_s(n, m, 10, False)
    assert gpu_sparse_s(n, 4 * m, 10, False) > gpu_sparse_s(n, m, 10, False)
    assert gpu_sparse_s(n, m, 10, True) > gpu_sparse_s(n, m, 10, False)
    assert gpu_sparse_s(n, m, 10, False, negative=True) > gpu_sparse_s(n, m, 10, False)
    assert gpu_sparse_s(n, m, 10, False, host_results=True) > gpu_sparse_s(n, m, 10, False)
    assert gpu_sparse_s(n, m, 10, False, uniform=True) < gpu_sparse_s(n, m, 10, False)
    # a nearly complete graph stays with the dense closure; 8-byte values run slower
    assert gpu_sparse_s(4096, 4096 * 4000, 2, False) > gpu_dense_s(4096, np.float32, False)
    assert gpu_dense_s(4096, np.float64, False) > gpu_dense_s(4096, np.float32, False)


def test_cpu_model_keeps_its_measured_crossovers():
    # Dijkstra rows at n = 4096, m/n = 9 (0.80 s against 3.64 s); dense at n = 512, m/n 202
    assert cpu_sparse_s(4096, 4096 * 9, False) < cpu_dense_s(4096, np.float64, False)
    assert cpu_sparse_s(512, 512 * 202, False) > cpu_dense_s(512, np.float64, False)


class _FakeGpu:
    """Stands for CuPy in need_for: anything but NumPy is a device array module."""


@pytest.mark.parametrize("preds", [False, True])
def test_sparse_results_stay_in_gpu_memory_where_they_fit(monkeypatch, preds):
    n = 10_000
    per = 16 if preds else 8
    monkeypatch.setattr(apsp_memory, "gpu_memory_free", lambda: 2 * per * n * n)
    need = apsp_memory.need_for("apsp", n, "repeated-sssp", preds, np.float32, _FakeGpu())
    assert need.where == "GPU memory" and need.fits()
    monkeypatch.setattr(apsp_memory, "gpu_memory_free", lambda: per * n * n // 2)
    need = apsp_memory.need_for("apsp", n, "johnson", preds, np.float32, _FakeGpu())
    assert need.where == "host memory"
    cpu = apsp_memory.need_for("apsp", n, "repeated-sssp", preds, np.float32, np)
    assert cpu.where == "host memory"
