"""The fused CPU frontier loops (kleene.backends.cpu.frontier, Numba) agree with the
composed operations they replace, with scipy on the shared real graphs, and with
themselves from run to run.

``bfs_levels`` / ``bellman_ford`` are called directly with the arrays the frontier
ops hand a back end (A's CSR and its transpose's), and checked against
``kleene.engine.frontier_bfs`` / ``frontier_bellman_ford`` with ``fused=False``:
levels, parents (the smallest in-neighbour one level up) and negative cycles.
Skipped without Numba.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import breadth_first_order, dijkstra, shortest_path

pytest.importorskip("numba", reason="the fused CPU loops are compiled with numba")

from graph_data import load_scipy, min_parents  # noqa: E402

import kleene  # noqa: E402
from kleene.algorithms.graph_input import as_graph  # noqa: E402
from kleene.backends.cpu import frontier as cf  # noqa: E402
from kleene.engine import frontier_bellman_ford, frontier_bfs  # noqa: E402
from kleene.ops.multiply import transposed_csr  # noqa: E402

METHODS = ["auto", "push", "pull", "direction-optimizing"]


@st.composite
def graphs(draw, negative=False, max_n=40):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 5 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    # integers (and quarters) add exactly, so any relaxation order finds the same sums
    w = draw(st.lists(st.integers(-3 if negative else 0, 9), min_size=m, max_size=m))
    scale = draw(st.sampled_from([1.0, 0.25]))
    A = kleene.Matrix.from_edges(src, dst, np.array(w, float) * scale, n=n, dup="min")
    return A, draw(st.integers(0, n - 1))


def _fused_bfs(A, s, method, parents=True, symmetric=False):
    ptr, idx, _ = A._csr()
    tptr, tidx = (ptr, idx) if symmetric else transposed_csr(A)[:2]
    return cf.bfs_levels(ptr, idx, tptr, tidx, A.nrows, s, parents, method)


def _composed_bfs(A, s, method, symmetric=False):
    lv, par = frontier_bfs(A, s, parents=True, method=method, symmetric=symmetric, fused=False)
    return lv.to_dense(missing=-1), par.to_dense(missing=-1)


@settings(max_examples=60, deadline=None)
@given(data=graphs(), method=st.sampled_from(METHODS), symmetric=st.booleans())
def test_fused_bfs_equals_composed(data, method, symmetric):
    A, s = data
    if symmetric:
        A = as_graph(A, directed=False)
    want_lv, want_par = _composed_bfs(A, s, method, symmetric)
    lv, par = _fused_bfs(A, s, method, symmetric=symmetric)
    assert lv.dtype == np.int64 and par.dtype == np.int64
    np.testing.assert_array_equal(lv, want_lv)
    np.testing.assert_array_equal(par, want_par)
    alone, none = _fused_bfs(A, s, method, parents=False, symmetric=symmetric)
    assert none is None
    np.testing.assert_array_equal(alone, want_lv)


@settings(max_examples=80, deadline=None)
@given(data=graphs(negative=True))
def test_fused_bellman_ford_equals_composed(data):
    A, s = data
    ptr, idx, w = A._csr()
    dist, negative = cf.bellman_ford(ptr, idx, w, A.nrows, s)
    try:
        want = frontier_bellman_ford(A, s, fused=False).to_dense()
    except kleene.NegativeCycleError:
        assert negative is True
        return
    assert negative is False and dist.dtype == np.float64
    np.testing.assert_array_equal(dist, want)


@pytest.mark.parametrize("cycle", [-1.0, 0.0, 1.0])
def test_bellman_ford_cycle_weights_and_self_loops(cycle):
    # 0 -> 1 -> 2 -> 1 with cycle weight `cycle`, and a self-loop on 3 (unreachable)
    A = kleene.Matrix.from_edges([0, 1, 2, 3], [1, 2, 1, 3], [2.0, 1.0, cycle - 1.0, -5.0], n=4)
    ptr, idx, w = A._csr()
    dist, negative = cf.bellman_ford(ptr, idx, w, 4, 0)
    assert negative is (cycle < 0)
    if cycle >= 0:
        assert dist.tolist() == [0.0, 2.0, 3.0, np.inf]
    loop = kleene.Matrix.from_edges([0], [0], [-1.0], n=1)  # n = 1: one round decides
    assert cf.bellman_ford(*loop._csr(), 1, 0)[1] is True


def test_no_edges_and_one_vertex():
    ptr, idx = np.zeros(4, np.int64), np.zeros(0, np.int32)
    for method in METHODS:
        lv, par = cf.bfs_levels(ptr, idx, ptr, idx, 3, 1, True, method)
        assert lv.tolist() == [-1, 0, -1] and par.tolist() == [-1, -1, -1]
    dist, negative = cf.bellman_ford(np.zeros(2, np.int64), np.zeros(0, np.int32), [], 1, 0)
    assert dist.tolist() == [0.0] and negative is False


def test_any_integer_dtypes_are_accepted():
    g = load_scipy("rome99.gr")  # int32 indptr
    A = kleene.Matrix.from_scipy(g)
    want = _fused_bfs(A, 7, "auto")
    t = g.T.tocsr()
    t.sort_indices()
    got = cf.bfs_levels(
        g.indptr,
        g.indices.astype(np.int64),
        t.indptr,
        t.indices,
        g.shape[0],
        np.int16(7),
        True,
        "auto",
    )
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    d, _ = cf.bellman_ford(g.indptr, g.indices, g.data.astype(np.float32), g.shape[0], 7)
    np.testing.assert_allclose(d, dijkstra(g.astype(np.float32), indices=7))


def test_bad_arguments():
    ptr, idx = np.array([0, 1, 1]), np.array([1], np.int32)
    with pytest.raises(ValueError, match="method"):
        cf.bfs_levels(ptr, idx, ptr, idx, 2, 0, False, "sideways")
    with pytest.raises(IndexError, match="out of range"):
        cf.bfs_levels(ptr, idx, ptr, idx, 2, 2, False)
    with pytest.raises(IndexError, match="out of range"):
        cf.bellman_ford(ptr, idx, [1.0], 2, -1)
    with pytest.raises(ValueError, match="CSR"):
        cf.bfs_levels(ptr, idx, ptr, idx, 3, 0, False)
    with pytest.raises(ValueError, match="one value per"):
        cf.bellman_ford(ptr, idx, [1.0, 2.0], 2, 0)


@pytest.mark.parametrize("method", ["auto", "push", "pull"])
@pytest.mark.parametrize(
    "name, symmetric",
    [
        ("USA-road-NY.pace.gr.xz", True),
        ("facebook_combined.txt.gz", True),
        ("p2p-Gnutella08.txt", False),
    ],
)
def test_bfs_real_graphs_against_scipy(name, symmetric, method):
    g = load_scipy(name, symmetric=symmetric)
    A = kleene.Matrix.from_scipy(g)
    # pull scans every unvisited vertex's in-edges per level: slow on a road graph's 600
    for s in (0,) if method == "pull" and name.startswith("USA") else (0, 3):
        lv, par = _fused_bfs(A, s, method, symmetric=symmetric)
        want = shortest_path(g, unweighted=True, indices=s)
        np.testing.assert_array_equal(lv, np.where(np.isinf(want), -1, want).astype(np.int64))
        np.testing.assert_array_equal(par, min_parents(g, lv))
        order = breadth_first_order(g, s, return_predecessors=False)
        assert np.array_equal(np.sort(order), np.flatnonzero(lv >= 0))


def test_sssp_real_graphs_against_scipy():
    for name in ("rome99.gr", "USA-road-NY.pace.gr.xz", "p2p-Gnutella08.txt"):
        g = load_scipy(name).tocsr()
        if name != "rome99.gr":  # unweighted topology: seeded integer weights
            g.data = np.random.default_rng(5).integers(1, 1000, g.nnz).astype(float)
        A = kleene.Matrix.from_scipy(g)
        dist, negative = cf.bellman_ford(*A._csr(), A.nrows, 0)
        assert negative is False
        np.testing.assert_array_equal(dist, dijkstra(g, indices=0))


def test_runs_are_identical():
    src, dst = kleene.generators.rmat(12, 8, seed=3)
    w = np.random.default_rng(3).integers(-1, 50, src.size).astype(float)
    A = kleene.Matrix.from_edges(src, dst, np.abs(w), 1 << 12, dup="min")
    N = kleene.Matrix.from_edges(src, dst, w, 1 << 12, dup="min")  # negative cycles
    U = as_graph(A, directed=False)
    first = None
    for _ in range(10):
        runs = [_fused_bfs(A, 1, m) for m in METHODS] + [_fused_bfs(U, 1, "auto", symmetric=True)]
        got = [x for lv, par in runs for x in (lv, par)]
        got.append(cf.bellman_ford(*A._csr(), A.nrows, 1)[0])
        got.append(cf.bellman_ford(*N._csr(), N.nrows, 1)[1])
        if first is None:
            first = got
        assert all(np.array_equal(a, b) for a, b in zip(got, first, strict=True))


def test_through_the_frontier_ops(monkeypatch):
    """Wired into the CPU back end, the ops run the fused loops with the same results."""
    import kleene.backends.cpu as cpu

    monkeypatch.setattr(cpu, "bfs_levels", cf.bfs_levels, raising=False)
    monkeypatch.setattr(cpu, "bellman_ford", cf.bellman_ford, raising=False)
    g = load_scipy("rome99.gr")
    A = kleene.Matrix.from_scipy(g)
    for method in METHODS:
        lv, par = frontier_bfs(A, 5, parents=True, method=method, fused=True)
        want_lv, want_par = _composed_bfs(A, 5, method)
        assert np.array_equal(lv.to_dense(missing=-1), want_lv)
        assert np.array_equal(par.to_dense(missing=-1), want_par)
    d = frontier_bellman_ford(A, 5, fused=True).to_dense()
    np.testing.assert_array_equal(d, dijkstra(g, indices=5))
    N = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 1], [1.0, -3.0, 1.0], n=3)
    with pytest.raises(kleene.NegativeCycleError):
        frontier_bellman_ford(N, 0, fused=True)


def test_imports_without_numba():
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import kleene.backends.cpu.frontier as f\n"
        "assert not f.HAVE_NUMBA and f.bfs_levels is None and f.bellman_ford is None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])
