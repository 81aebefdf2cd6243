"""The built-in demo, end to end on the CPU, and its command line."""

from __future__ import annotations

import doctest
import io
import re
import subprocess
import sys

import numpy as np
import pytest

import kleene.progress
from kleene import demo
from kleene._info import gpu_available


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kleene", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_demo_end_to_end_cpu():
    proc = _run("demo", "--device", "cpu")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    for task in ("sssp", "widest path", "bfs levels", "apsp", "karate bfs", "karate apsp"):
        assert task in out
    assert "FAIL" not in out
    assert "all 11 checks OK" in out
    # warm times in the table; the first calls' one-time cost on its own line
    once = r"^times are warm calls; the first calls took \d+\.\d s more in all"
    assert re.search(once, out, re.M)


def test_run_demo_rows_all_ok():
    buf = io.StringIO()
    rows = demo.run_demo("cpu", side=9, seed=3, source=40, out=buf)
    assert len(rows) == 11  # 8 on the grid, 3 on the karate club
    assert all(r.ok for r in rows), buf.getvalue()
    assert all(r.device == "cpu" and (r.iters is None or r.iters > 0) for r in rows)
    assert "method" in buf.getvalue()


def test_road_graph_is_deterministic_and_well_formed():
    g1, g2 = demo.road_graph(12, seed=7), demo.road_graph(12, seed=7)
    for name in ("src", "dst", "travel_time", "capacity"):
        np.testing.assert_array_equal(getattr(g1, name), getattr(g2, name))
    assert g1.n == 144 and g1.n_shortcuts > 0
    keys = g1.src * g1.n + g1.dst
    assert np.unique(keys).size == keys.size  # one edge per (src, dst)
    assert not np.any(g1.src == g1.dst)
    assert np.all(g1.travel_time > 0) and np.all(np.isfinite(g1.travel_time))
    assert set(np.unique(g1.capacity)) <= set(range(1, 13))
    g3 = demo.road_graph(12, seed=8)
    assert not np.array_equal(g1.travel_time, g3.travel_time)


def test_default_graph_has_a_few_hundred_vertices():
    g = demo.road_graph()
    assert 200 <= g.n <= 1000
    assert g.n_edges > 2 * g.n


def test_checks_catch_wrong_answers():
    """The demo's checks are not vacuous: a perturbed answer fails each one."""
    g = demo.road_graph(8, seed=1)
    from scipy.sparse import csgraph

    ref = csgraph.dijkstra(g.scipy(g.travel_time), indices=0)
    assert demo.check_sssp(g, 0, ref)[0]
    bad = ref.copy()
    bad[5] += 0.5
    assert not demo.check_sssp(g, 0, bad)[0]

    hops = csgraph.dijkstra(g.scipy(np.ones(g.n_edges)), indices=0, unweighted=True)
    levels = np.where(np.isinf(hops), -1, hops).astype(np.int64)
    assert demo.check_bfs(g, 0, levels)[0]
    levels[7] += 1
    assert not demo.check_bfs(g, 0, levels)[0]

    wrong_width = np.full(g.n, 1.0)
    assert not demo.check_widest(g, 0, wrong_width)[0]


def test_main_without_arguments_prints_help():
    proc = _run()
    assert proc.returncode == 0, proc.stderr
    assert "demo" in proc.stdout and "info" in proc.stdout


def test_info_reports_versions():
    proc = _run("info")
    assert proc.returncode == 0, proc.stderr
    for name in ("kleene", "numpy", "scipy", "numba", "cupy", "gpu"):
        assert name in proc.stdout


@pytest.mark.skipif(gpu_available(), reason="a GPU is visible here")
def test_demo_gpu_without_gpu_is_a_clear_error():
    proc = _run("demo", "--device", "gpu")
    assert proc.returncode == 2
    assert "--device gpu needs CuPy" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_demo_rejects_bad_source():
    proc = _run("demo", "--side", "4", "--source", "16")
    assert proc.returncode == 2
    assert "--source" in proc.stderr


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA GPU")
def test_demo_end_to_end_gpu():
    buf = io.StringIO()
    rows = demo.run_demo("gpu", side=10, out=buf)
    assert all(r.ok for r in rows), buf.getvalue()
    assert all(r.device == "gpu" for r in rows)


def test_warm_timing_skips_calls_that_compile(monkeypatch):
    """The timed call is never the first, nor one that compiled a kernel (bfs compiles
    one more on its second call); what the earlier calls took beyond it is reported."""
    clock = [0.0]
    monkeypatch.setattr(demo.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(kleene.progress, "_clock", lambda: clock[0])
    costs = iter([5.0, 2.0, 0.5, 0.5])  # load+compile, compile a late kernel, warm, warm

    def fn():
        cost = next(costs)
        if cost > 0.5:
            with kleene.progress.one_time():
                clock[0] += cost - 0.5
        clock[0] += 0.5
        return "result"

    out, secs, once = demo._warm_timed(fn)
    assert (out, secs, once) == ("result", 0.5, 6.0)  # 5 + 2 - 2 * 0.5
    assert next(costs) == 0.5  # stopped at the first warm call


def test_first_calls_line_doctest():
    result = doctest.testmod(demo, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 1 and result.failed == 0
