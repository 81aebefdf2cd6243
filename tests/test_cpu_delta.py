"""The fused CPU delta-stepping (kleene.backends.cpu.delta, Numba) against its composed twin
(``kleene.engine.frontier_delta_stepping(..., fused=False)``), SciPy's Dijkstra and
itself; the op's errors, and ``kleene.sssp`` choosing it.

``delta_stepping`` is called directly with the arrays the op hands a back end (A's
CSR), and through the op. Both loops stop at the fixed point d(v) <= d(u) + w of
every edge, as Dijkstra does, so the distances are equal bit for bit — for float
weights too, whatever the bucket width. Skipped without Numba.
"""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

pytest.importorskip("numba", reason="the fused CPU loops are compiled with numba")

from graph_data import check_shortest_path_tree, graphs, load_scipy  # noqa: E402

import kleene  # noqa: E402
import kleene.backends.cpu as cpu  # noqa: E402
from kleene.backends.cpu import delta as cd  # noqa: E402
from kleene.engine import frontier, frontier_delta_stepping  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DTYPES = [np.float64, np.float32, np.int64, np.int32]
DELTAS = [None, 1e-300, 0.01, 0.5, 1.0, 3.0, 1e12]  # None: the default (mean weight)


def _fused(A, s, delta):
    ptr, idx, w = A._csr()
    return cd.delta_stepping(ptr, idx, w, A.nrows, s, delta)


def _composed(A, s, delta=None):
    return frontier_delta_stepping(A, s, delta=delta, fused=False).to_dense()


@settings(max_examples=80, deadline=None)
@given(
    data=graphs(),
    source=st.integers(0, 100),
    delta=st.sampled_from(DELTAS),
    dtype=st.sampled_from(DTYPES),
)
def test_fused_equals_composed_equals_dijkstra(data, source, delta, dtype):
    ref, raw, n = data  # integer weights 0..9: zero-weight edges, loops, duplicates
    s = source % n
    A = kleene.Matrix.from_scipy(raw).astype(dtype)  # duplicates keep the lightest
    want = dijkstra(ref, indices=s)
    got = frontier_delta_stepping(A, s, delta=delta)  # the fused loop, by default on the CPU
    assert got.dtype == np.float64 and got.size == n
    np.testing.assert_array_equal(got.to_dense(), want)
    np.testing.assert_array_equal(_composed(A, s, delta), want)
    np.testing.assert_array_equal(_fused(A, s, 1.0 if delta is None else delta), want)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), delta=st.sampled_from([None, 1e-3, 0.1, 10.0]))
def test_float_weights_bit_for_bit(seed, delta):
    """Non-integer sums round, yet every order of relaxations ends at the same least
    rounded path sum: fused, composed and Dijkstra agree exactly."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    m = int(rng.integers(0, 6 * n))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.random(m) * rng.choice([1e-3, 1.0, 1e3])
    A = kleene.Matrix.from_edges(src, dst, w, n=n, dup="min")
    s = int(rng.integers(0, n))
    want = dijkstra(A.to_scipy(), indices=s)
    np.testing.assert_array_equal(frontier_delta_stepping(A, s, delta=delta).to_dense(), want)
    np.testing.assert_array_equal(_composed(A, s, delta), want)


def test_zero_weights_and_unreachable_vertices():
    # 0 -0-> 1 -0-> 2 -0-> 0 (a zero cycle), 2 -5-> 3, 4 unreachable, 5 -> 4 only
    A = kleene.Matrix.from_edges([0, 1, 2, 2, 5], [1, 2, 0, 3, 4], [0.0, 0.0, 0.0, 5.0, 1.0], n=6)
    want = [0.0, 0.0, 0.0, 5.0, np.inf, np.inf]
    for delta in DELTAS:
        assert frontier_delta_stepping(A, 0, delta=delta).to_dense().tolist() == want
        assert _composed(A, 0, delta).tolist() == want
    zeros = kleene.Matrix.from_edges([0, 1], [1, 2], [0.0, 0.0], n=3)  # no positive weight
    assert frontier_delta_stepping(zeros, 0).to_dense().tolist() == [0.0, 0.0, 0.0]
    empty = kleene.Matrix.from_edges([], [], [], n=3)
    assert frontier_delta_stepping(empty, 1).to_dense().tolist() == [np.inf, 0.0, np.inf]
    assert _composed(empty, 1).tolist() == [np.inf, 0.0, np.inf]


def test_shared_bucket_slots():
    """A delta far below the weights: more buckets ahead than slots (shared slots,
    skipped entries, jumps over empty turns) — and beyond int64 bucket numbers."""
    n = 3000
    rng = np.random.default_rng(1)
    src = np.concatenate([np.arange(n - 1), rng.integers(0, n, 4 * n)])
    dst = np.concatenate([np.arange(1, n), rng.integers(0, n, 4 * n)])
    w = rng.integers(0, 10**6, src.size).astype(np.float64)
    A = kleene.Matrix.from_edges(src, dst, w, n=n, dup="min")
    want = dijkstra(A.to_scipy(), indices=0)
    for delta in (1.0, 1e-3, 1e-300):
        np.testing.assert_array_equal(_fused(A, 0, delta), want)


def test_negative_weights_raise():
    A = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, -1.0], n=3)
    for fused in (None, False):
        with pytest.raises(ValueError, match="non-negative"):
            frontier_delta_stepping(A, 0, fused=fused)
    with pytest.raises(ValueError, match="non-negative"):
        _fused(A, 0, 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        kleene.sssp(A, 0, method="delta-stepping")
    nan = np.array([1.0, np.nan])
    with pytest.raises(ValueError, match="non-negative"):
        cd.delta_stepping(*A._csr()[:2], nan, 3, 0, 1.0)
    # negative weights: auto still runs Bellman-Ford
    assert kleene.sssp(A, 0).tolist() == [0.0, 1.0, 0.0]


def test_bad_source_and_delta():
    A = kleene.Matrix.from_edges([0], [1], [1.0], n=2)
    ptr, idx, w = A._csr()
    for bad in (-1, 2):
        with pytest.raises(IndexError, match="out of range"):
            frontier_delta_stepping(A, bad)
        with pytest.raises(IndexError, match="out of range"):
            cd.delta_stepping(ptr, idx, w, 2, bad, 1.0)
    with pytest.raises(TypeError):
        frontier_delta_stepping(A, 0.5)
    for delta in (0, -1.0, np.inf, np.nan, "1", True):
        with pytest.raises(ValueError, match="delta"):
            frontier_delta_stepping(A, 0, delta=delta)
    for delta in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="delta"):
            cd.delta_stepping(ptr, idx, w, 2, 0, delta)
    with pytest.raises(ValueError, match="square"):
        frontier_delta_stepping(kleene.Matrix.from_edges([0], [1], [1.0], 2, ncols=3), 0)
    with pytest.raises(ValueError, match="one value per stored edge"):
        cd.delta_stepping(ptr, idx, np.ones(2), 2, 0, 1.0)


def test_fused_flag(monkeypatch):
    A = kleene.Matrix.from_edges([0, 1], [1, 2], [2.0, 3.0], n=3)
    calls = []
    monkeypatch.setattr(cpu, "delta_stepping", lambda *a, **k: calls.append(1) or _fused(A, 0, 1.0))
    assert frontier_delta_stepping(A, 0, fused=True).to_dense().tolist() == [0.0, 2.0, 5.0]
    assert calls and frontier_delta_stepping(A, 0, fused=False).to_dense().tolist() == [0, 2, 5]
    assert len(calls) == 1
    monkeypatch.setattr(cpu, "delta_stepping", None)  # as with KLEENE_CPU=numpy
    with pytest.raises(ValueError, match="no fused loop"):
        frontier_delta_stepping(A, 0, fused=True)
    assert frontier_delta_stepping(A, 0).to_dense().tolist() == [0.0, 2.0, 5.0]


def test_sssp_methods(monkeypatch):
    g = load_scipy("rome99.gr")
    A = kleene.Matrix.from_scipy(g)
    want = dijkstra(g, indices=7)
    seen = []
    real = cd.delta_stepping  # the kernel, also where the back end leaves it out
    monkeypatch.setattr(cpu, "delta_stepping", lambda *a, **k: seen.append(1) or real(*a, **k))
    for kw in ({}, {"method": "delta-stepping"}, {"delta": 50}, {"method": "bellman-ford"}):
        dist, pred = kleene.sssp(A, 7, return_predecessors=True, **kw)
        np.testing.assert_array_equal(dist, want)
        check_shortest_path_tree(g, dist, pred, 7)
    assert len(seen) == 3  # auto on the CPU: the fused delta-stepping
    np.testing.assert_array_equal(kleene.sssp(g.astype(np.float32), 7), want)
    np.testing.assert_array_equal(kleene.sssp(A, [7, 3], method="delta-stepping")[0], want)
    assert len(seen) == 4  # float32, one source: fused; several sources: the composed form
    monkeypatch.setattr(cpu, "delta_stepping", None)  # no fused loop: auto runs Bellman-Ford
    np.testing.assert_array_equal(kleene.sssp(A, 7), want)
    np.testing.assert_array_equal(kleene.sssp(A, 7, method="delta-stepping"), want)


def test_composed_real_graph():
    g = load_scipy("rome99.gr")
    A = kleene.Matrix.from_scipy(g)
    np.testing.assert_array_equal(_composed(A, 0), dijkstra(g, indices=0))


def test_new_york_road():
    """NY road with integer weights 1..100 (seed 3, as benchmarks/bench_cpu.py)."""
    g = load_scipy("USA-road-NY.pace.gr.xz").tocsr()
    g.data = np.random.default_rng(3).integers(1, 101, g.nnz).astype(np.float64)
    A = kleene.Matrix.from_scipy(g)
    for s in (0, 100_000):
        want = dijkstra(g, indices=s)
        np.testing.assert_array_equal(_fused(A, s, 50.5), want)  # about the default
        np.testing.assert_array_equal(_fused(A, s, 5.0), want)
    np.testing.assert_array_equal(kleene.sssp(A, 0), dijkstra(g, indices=0))


def test_runs_are_identical():
    src, dst = kleene.generators.rmat(12, 8, seed=3)
    w = np.random.default_rng(3).random(src.size) * 100
    A = kleene.Matrix.from_edges(src, dst, w, 1 << 12, dup="min")
    first = _fused(A, 1, 7.0)
    for delta in (7.0, 0.1, 1000.0):
        assert np.array_equal(_fused(A, 1, delta), first)


def test_op_docstring():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(frontier.frontier_delta_stepping, "frontier_delta_stepping"):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_without_numba_or_compiled_kernels():
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import kleene.backends.cpu.delta as d\n"
        "assert not d.HAVE_NUMBA and d.delta_stepping is None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    env = dict(os.environ, KLEENE_CPU="numpy")
    code = "import kleene.backends.cpu as c; assert c.delta_stepping is None"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)
