"""The fused multi-source Dijkstra of the CPU back end (kleene.backends.cpu.sources, Numba)
against its composed twin, scipy, and itself; and the sparse APSP methods built on it.

``kleene.engine.multi_source_sssp`` runs ``sssp_rows`` (``cpu/sources.py``: ``dijkstra_rows``)
by default on the CPU and
multi-source Bellman-Ford over public operations with ``fused=False``: the
distances must be equal (integer weights add exactly in any order), and both
predecessor arrays must be shortest-path trees (ties are broken differently, so
they are checked for validity, not against each other). ``apsp`` with
"repeated-sssp", "johnson" and "auto" is checked against scipy on generated
graphs (negative weights and cycles included) and on the shared real graphs, on
the fused and on the composed path. Skipped without Numba.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import NegativeCycleError, dijkstra, shortest_path

pytest.importorskip("numba", reason="the fused CPU loops are compiled with numba")

from graph_data import check_shortest_path_tree, graphs, load_scipy  # noqa: E402

import kleene  # noqa: E402
import kleene.backends.cpu as cpu  # noqa: E402
from kleene.algorithms.dense_closure import auto_method  # noqa: E402
from kleene.backends.cpu import sources as cs  # noqa: E402
from kleene.engine import multi_source_sssp  # noqa: E402
from kleene.semiring import max_min, min_plus  # noqa: E402

SPARSE = ("repeated-sssp", "johnson", "auto")
# KLEENE_CPU=numpy leaves the back end without sssp_rows: the composed form then
# runs everywhere, too slowly for the real graphs.
needs_fused = pytest.mark.skipif(
    cpu.sssp_rows is None, reason="KLEENE_CPU=numpy: the back end has no fused Dijkstra"
)  # (the twin test calls the kernel directly, so it runs either way)


@pytest.fixture(params=["fused", "composed"])
def path(request, monkeypatch):
    """Run the sparse APSP through the fused Dijkstra, or through the composed form
    (the back end without ``sssp_rows``, as with KLEENE_CPU=numpy)."""
    if request.param == "composed":
        monkeypatch.setattr(cpu, "sssp_rows", None)
    return request.param


def _check_rows(g, dist, pred, sources):
    for i, s in enumerate(sources):
        check_shortest_path_tree(g, dist[i], pred[i], int(s))


@settings(max_examples=60, deadline=None)
@given(data=graphs(), picks=st.lists(st.integers(0, 10**6), min_size=0, max_size=6))
def test_fused_equals_composed(data, picks):
    ref, raw, n = data
    sources = [p % n for p in picks]  # repeats allowed
    A = kleene.Matrix.from_scipy(raw)  # duplicates keep the lightest
    want = shortest_path(ref, indices=sources) if sources else np.empty((0, n))
    kernel = lambda preds: cs.dijkstra_rows(*A._csr(), sources, preds)  # noqa: E731
    runs = {
        "kernel": kernel,  # called directly: tested under KLEENE_CPU=numpy too
        "op": lambda preds: multi_source_sssp(A, sources, predecessors=preds),
        "composed": lambda preds: multi_source_sssp(A, sources, predecessors=preds, fused=False),
    }
    for name, run in runs.items():
        dist, pred = run(True)
        assert dist.dtype == np.float64 and pred.dtype == np.int64, name
        assert dist.shape == pred.shape == (len(sources), n), name
        np.testing.assert_array_equal(dist, want.reshape(len(sources), n), err_msg=name)
        _check_rows(ref, dist, pred, sources)
        alone, none = run(False)
        assert none is None
        np.testing.assert_array_equal(alone, dist, err_msg=name)


@needs_fused
def test_fused_predecessor_rule_and_zero_weight_cycles():
    # 2 -> 0, 2 -> 1 (weight 1) and a zero-weight cycle 0 <-> 1: the tight in-edges
    # of 0 and 1 include each other; the tree must still reach the source.
    A = kleene.Matrix.from_edges([2, 2, 0, 1, 1], [0, 1, 1, 0, 3], [1.0, 1.0, 0.0, 0.0, 0.0], n=4)
    for fused in (None, False):
        dist, pred = multi_source_sssp(A, [2], predecessors=True, fused=fused)
        assert dist.tolist() == [[1.0, 1.0, 0.0, 1.0]]
        check_shortest_path_tree(A.to_scipy(), dist[0], pred[0], 2)
    # fused: the vertex whose scan first set the final distance (0 and 1 both by 2)
    assert multi_source_sssp(A, [2], predecessors=True)[1].tolist() == [[2, 2, -1, 1]]


def test_weights_of_any_dtype_and_self_loops():
    A = kleene.Matrix.from_edges([0, 0, 1, 1], [0, 1, 1, 2], [3, 2, 0, 5], n=3, dtype=np.int32)
    for fused in (None, False):
        dist, _ = multi_source_sssp(A, np.int16(0), fused=fused)
        assert dist.tolist() == [[0.0, 2.0, 7.0]]
    P = kleene.Matrix.from_edges([0, 1], [1, 2], n=3)  # Boolean pattern: unit weights
    for fused in (None, False):
        assert multi_source_sssp(P, [0], fused=fused)[0].tolist() == [[0.0, 1.0, 2.0]]


def test_results_written_into_out():
    A = kleene.Matrix.from_edges([0, 0, 1], [1, 2, 2], [4.0, 9.0, 2.0], n=3)
    want = multi_source_sssp(A, [0, 1, 2], predecessors=True)
    for fused in (None, False):
        dist, pred = np.full((5, 3), -7.0), np.full((5, 3), -7)
        got = multi_source_sssp(
            A, [1, 2], predecessors=True, fused=fused, out=(dist[2:4], pred[2:4])
        )
        assert np.shares_memory(got[0], dist) and np.shares_memory(got[1], pred)
        np.testing.assert_array_equal(dist[2:4], want[0][1:])
        np.testing.assert_array_equal(pred[2:4], want[1][1:])
        assert (dist[[0, 1, 4]] == -7).all() and (pred[[0, 1, 4]] == -7).all()
        only = np.empty((1, 3))
        assert multi_source_sssp(A, [0], fused=fused, out=(only, None))[1] is None
        np.testing.assert_array_equal(only, want[0][:1])
        with pytest.raises(ValueError, match="out"):
            multi_source_sssp(A, [0, 1], fused=fused, out=(np.empty((1, 3)), None))


def test_bad_arguments():
    A = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, -1.0], n=3)
    for fused in (None, False):
        with pytest.raises(ValueError, match="non-negative"):
            multi_source_sssp(A, [0], fused=fused)
    B = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 1.0], n=3)
    with pytest.raises(IndexError, match="source 3 is out of range"):
        multi_source_sssp(B, [0, 3])
    with pytest.raises(IndexError, match="out of range"):
        multi_source_sssp(B, -1)
    with pytest.raises(TypeError, match="sources"):
        multi_source_sssp(B, [0.5])
    with pytest.raises(TypeError, match="sources"):
        multi_source_sssp(B, [[0]])
    with pytest.raises(TypeError, match="Matrix"):
        multi_source_sssp(B.to_dense(), [0])
    with pytest.raises(ValueError, match="square"):
        multi_source_sssp(kleene.Matrix.from_edges([0], [1], [1.0], n=1, ncols=2), [0])
    with pytest.raises(ValueError, match="NaN"):
        multi_source_sssp(kleene.Matrix.from_edges([0], [1], [np.nan], n=2), [0])
    d, p = multi_source_sssp(B, [], predecessors=True)
    assert d.shape == p.shape == (0, 3)
    with pytest.raises(ValueError, match="non-negative"):
        cs.dijkstra_rows(np.array([0, 1, 1]), np.array([1]), np.array([-1.0]), [0])
    with pytest.raises(ValueError, match="CSR"):
        cs.dijkstra_rows(np.array([0, 2]), np.array([0]), np.array([1.0]), [0])


@settings(max_examples=30, deadline=None)
@given(data=graphs(negative=True, max_n=16), method=st.sampled_from(SPARSE), preds=st.booleans())
def test_apsp_against_scipy_negative_weights(data, method, preds):
    ref, raw, n = data
    try:
        want = shortest_path(ref, method="J")
    except NegativeCycleError:
        with pytest.raises(kleene.NegativeCycleError):
            kleene.apsp(raw, method=method, return_predecessors=preds)
        return
    out = kleene.apsp(raw, method=method, return_predecessors=preds)
    dist = out[0] if preds else out
    np.testing.assert_allclose(dist, want, rtol=1e-9, atol=1e-9)
    if preds:
        _check_rows(ref, dist, out[1], range(n))


@pytest.mark.parametrize("method", SPARSE)
def test_apsp_random_sparse_graphs(method, path):
    rng = np.random.default_rng(11)
    n = 300
    g = sp.random(n, n, density=0.02, format="csr", random_state=rng)
    g.data = rng.integers(0, 20, g.nnz).astype(float)  # zero weights too
    if method == "johnson":  # negative weights, no negative cycle: w + p(u) - p(v)
        p = rng.integers(0, 10, n)
        c = g.tocoo()
        g = sp.csr_matrix((c.data + p[c.row] - p[c.col], (c.row, c.col)), shape=(n, n))
    dist, pred = kleene.apsp(g, method=method, return_predecessors=True)
    np.testing.assert_allclose(dist, shortest_path(g), rtol=1e-12, atol=1e-9)
    rows = np.arange(0, n, 7)
    _check_rows(g, dist[rows], pred[rows], rows)


@needs_fused
@pytest.mark.parametrize(
    "name, directed",
    [("rome99.gr", True), ("facebook_combined.txt.gz", False), ("p2p-Gnutella08.txt", True)],
)
def test_apsp_real_graphs_against_scipy(name, directed):
    g = load_scipy(name)
    if name.startswith("p2p"):
        g = g[:3000, :3000].tocsr()  # the 3,000-vertex induced subgraph of the timing table
    A = kleene.Matrix.from_scipy(g)
    rows = np.arange(0, g.shape[0], 97)  # scipy on a sample of rows keeps the test short
    sym = g if directed else g.maximum(g.T).tocsr()  # unit weights: either direction's
    want = dijkstra(sym, indices=rows)
    for method in SPARSE:
        dist, pred = kleene.apsp(A, method=method, directed=directed, return_predecessors=True)
        np.testing.assert_array_equal(dist[rows], want)
        few = rows[::3]  # each tree check sorts the edges again
        _check_rows(sym, dist[few], pred[few], few)
    assert np.array_equal(kleene.apsp(A, method="auto", directed=directed)[rows], want)


def test_apsp_composed_path_on_a_real_graph(path):
    g = load_scipy("rome99.gr")[:400, :400].tocsr()
    dist, pred = kleene.apsp(g, method="repeated-sssp", return_predecessors=True)
    np.testing.assert_array_equal(dist, shortest_path(g, method="D"))
    rows = np.arange(0, 400, 13)
    _check_rows(g, dist[rows], pred[rows], rows)


@needs_fused
def test_runs_are_identical():
    """Ten runs, two thread counts: the same distances and predecessors (unit weights:
    many ties, so a scheduling-dependent tie-break would show)."""
    import numba

    src, dst = kleene.generators.rmat(10, 8, seed=4)
    A = kleene.Matrix.from_edges(src, dst, 1.0, 1 << 10, dup="min")
    sources = np.arange(A.nrows)
    first = multi_source_sssp(A, sources, predecessors=True)
    threads = numba.get_num_threads()
    try:
        for run in range(10):
            numba.set_num_threads(1 if run % 2 else threads)
            dist, pred = multi_source_sssp(A, sources, predecessors=True)
            assert np.array_equal(dist, first[0]) and np.array_equal(pred, first[1])
    finally:
        numba.set_num_threads(threads)
    apsp = [kleene.apsp(A, method="repeated-sssp", return_predecessors=True) for _ in range(2)]
    assert all(np.array_equal(a, b) for a, b in zip(*apsp, strict=True))


@needs_fused
def test_bounded_rows_in_parallel_equal_the_serial_ones():
    """With ``limit`` each worker takes a block of rows (not every other row): the same
    distances and predecessors as one thread, and SciPy's distances."""
    import numba

    src, dst = kleene.generators.rmat(12, 8, seed=5, undirected=True)
    keep = src != dst
    w = np.random.default_rng(5).integers(1, 10, int(keep.sum())).astype(np.float64)
    G = sp.csr_matrix((w, (src[keep], dst[keep])), shape=(4096, 4096))
    G.sum_duplicates()
    sources = np.random.default_rng(6).choice(4096, size=61, replace=False)  # (uneven blocks)
    assert sources.size * G.nnz > cs._SERIAL_WORK  # (the parallel kernel runs)
    threads = numba.get_num_threads()
    try:
        for limit in (6.0, 15.0, np.inf):
            numba.set_num_threads(1)
            want = cs._dijkstra_rows(G.indptr, G.indices, G.data, sources, True, limit=limit)
            numba.set_num_threads(threads)
            got = cs._dijkstra_rows(G.indptr, G.indices, G.data, sources, True, limit=limit)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
            dist = cs._dijkstra_rows(G.indptr, G.indices, G.data, sources, limit=limit)[0]
            assert np.array_equal(dist, want[0])
            np.testing.assert_array_equal(dist, dijkstra(G, indices=sources, limit=limit))
    finally:
        numba.set_num_threads(threads)


def test_auto_on_the_cpu_follows_the_measured_rule():
    """dense_closure.auto_method: Dijkstra rows for sparse graphs, the dense closure for dense
    ones without predecessors and for tiny ones (the measurements are in its comment)."""
    rng = np.random.default_rng(2)
    n = 1024

    def graph(density):
        return kleene.Matrix.from_scipy(sp.random(n, n, density, format="csr", random_state=rng))

    for density in (0.002, 0.02):  # m/n 2 and 20
        A = graph(density)
        assert auto_method(A, min_plus, False, False) == "repeated-sssp"
        assert auto_method(A, min_plus, True, True) == "johnson"
        assert auto_method(A, max_min, False, False) == "recursive"
    A = graph(0.2)  # m/n 205
    assert auto_method(A, min_plus, False, False) == "recursive"
    assert auto_method(A, min_plus, False, True) == "repeated-sssp"  # the dense repair costs more
    assert auto_method(graph(1.0), min_plus, False, True) == "recursive"
    tiny = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 2.0], n=64)
    assert auto_method(tiny, min_plus, False, False) == "recursive"


def test_imports_without_numba():
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import kleene.backends.cpu.sources as s\n"
        "assert not s.HAVE_NUMBA and s.dijkstra_rows is None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])
