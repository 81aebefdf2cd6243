"""The fused GPU multi-source shortest paths against the composed form, scipy and itself.

``kleene.engine.multi_source_sssp`` on a GPU matrix runs ``kleene.backends.cuda.sources.
sssp_rows`` (kernels/sssp_rows.cu: bit-packed frontier Bellman-Ford, all rounds in
one cooperative launch, predecessors from a BFS over the tight edges); ``fused=False``
runs the composed form on the same GPU matrix. Distances must be equal to the
composed form's and scipy's (integer weights add exactly), and so must the
predecessors (both take the smallest parent one level up in the BFS of the tight
edges), across zero-weight edges and cycles. Also checked: the per-round fallback,
several launches per call, ``out=`` row blocks, weight dtypes, errors, run-to-run
identity, and sparse APSP on the shared real graphs. Skipped without CuPy or a GPU.
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
from scipy.sparse.csgraph import dijkstra, shortest_path  # noqa: E402

import kleene  # noqa: E402
from kleene.backends.cuda import jit  # noqa: E402
from kleene.backends.cuda import sources as gs  # noqa: E402
from kleene.engine import multi_source_sssp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from graph_data import check_shortest_path_tree, graphs, load_scipy  # noqa: E402


class _PerRound:
    """Force the per-round fallback (as on a device that refuses cooperative launches)."""

    def __enter__(self):
        gs._no_cooperative.add(jit.device_id())

    def __exit__(self, *exc):
        gs._no_cooperative.discard(jit.device_id())


class _NoContext:
    def __enter__(self):
        pass

    def __exit__(self, *exc):
        pass


def _check_rows(g, dist, pred, sources):
    for i, s in enumerate(sources):
        check_shortest_path_tree(g, dist[i], pred[i], int(s))


def _random_graph(n, m, seed, hi=9, zero_share=0.3):
    """A scipy CSR graph with integer weights 0..hi (a share of them zero), no duplicates."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, hi + 1, m).astype(float)
    w[rng.random(m) < zero_share] = 0.0
    keys, first = np.unique(src * n + dst, return_index=True)
    return sp.csr_matrix((w[first], (keys // n, keys % n)), shape=(n, n))


def _both(A, sources, preds=True):
    """(fused, composed) results on the host."""
    d, p = multi_source_sssp(A, sources, predecessors=preds)
    cd, cp = multi_source_sssp(A, sources, predecessors=preds, fused=False)
    assert isinstance(d, cupy.ndarray) and d.dtype == np.float64
    if preds:
        assert isinstance(p, cupy.ndarray) and p.dtype == np.int64
        return (d.get(), p.get()), (cd.get(), cp.get())
    assert p is None
    return (d.get(), None), (cd.get(), None)


@settings(max_examples=60, deadline=None)
@given(
    data=graphs(max_n=40),
    picks=st.lists(st.integers(0, 10**6), max_size=8),
    per_round=st.booleans(),
)
def test_fused_equals_composed_and_scipy(data, picks, per_round):
    ref, raw, n = data
    sources = [p % n for p in picks]  # repeats allowed
    A = kleene.Matrix.from_scipy(raw).to("gpu")  # duplicates keep the lightest
    want = shortest_path(ref, indices=sources).reshape(len(sources), n) if sources else None
    with _PerRound() if per_round else _NoContext():
        (d, p), (cd, cp) = _both(A, sources)
        alone, none = multi_source_sssp(A, sources)
    assert d.shape == p.shape == (len(sources), n)
    if sources:
        np.testing.assert_array_equal(d, want)
    np.testing.assert_array_equal(d, cd)
    np.testing.assert_array_equal(p, cp)  # the same rule: BFS of the tight edges
    _check_rows(ref, d, p, sources)
    assert none is None
    np.testing.assert_array_equal(alone.get(), d)


@pytest.mark.parametrize("k", [1, 2, 63, 64, 65, 200])
def test_many_sources_with_zero_weights(k):
    """Groups of 64 bits: partial, full, one past, several in one launch; zero weights."""
    g = _random_graph(150, 600, seed=k)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    sources = np.random.default_rng(k).integers(0, 150, k)
    (d, p), (cd, cp) = _both(A, sources)
    np.testing.assert_array_equal(d, shortest_path(g, indices=sources))
    np.testing.assert_array_equal(d, cd)
    np.testing.assert_array_equal(p, cp)
    _check_rows(g, d, p, sources)
    # a row depends on its source alone, not on its group, launch or neighbours
    one = multi_source_sssp(A, sources[-1:], predecessors=True)
    np.testing.assert_array_equal(one[0].get()[0], d[-1])
    np.testing.assert_array_equal(one[1].get()[0], p[-1])


@pytest.mark.parametrize("layout", [(6, 64), (6, 128), (3, 8)])
def test_several_launches_per_call(monkeypatch, layout):
    """Chunks of sources one launch at a time (as when memory is short), also per round."""
    g = _random_graph(200, 900, seed=3)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    sources = np.arange(0, 200, 1)[:150]
    want_d, want_p = (x.get() for x in multi_source_sssp(A, sources, predecessors=True))
    monkeypatch.setattr(gs, "_layout", lambda k, n, preds: layout)
    for ctx in (_NoContext(), _PerRound()):
        with ctx:
            d, p = multi_source_sssp(A, sources, predecessors=True)
        np.testing.assert_array_equal(d.get(), want_d)
        np.testing.assert_array_equal(p.get(), want_p)


def test_zero_weight_cycles():
    # 2 -> 0, 2 -> 1 (weight 1) and a zero-weight cycle 0 <-> 1 (with 1 -> 3 at 0):
    # the tight in-edges of 0 and 1 include each other; the tree must reach the source.
    A = kleene.Matrix.from_edges([2, 2, 0, 1, 1], [0, 1, 1, 0, 3], [1.0, 1.0, 0.0, 0.0, 0.0], n=4)
    dist, pred = multi_source_sssp(A.to("gpu"), [2], predecessors=True)
    assert dist.get().tolist() == [[1.0, 1.0, 0.0, 1.0]]
    assert pred.get().tolist() == [[2, 2, -1, 1]]  # the smallest parent one BFS level up
    # every weight zero, cycles everywhere: all reached vertices at 0, chains to the source
    g = _random_graph(120, 500, seed=9, zero_share=1.0)
    G = kleene.Matrix.from_scipy(g).to("gpu")
    sources = np.arange(0, 120, 3)
    (d, p), (cd, cp) = _both(G, sources)
    np.testing.assert_array_equal(d, shortest_path(g, indices=sources))
    assert set(np.unique(d)) <= {0.0, np.inf}
    np.testing.assert_array_equal(p, cp)
    _check_rows(g, d, p, sources)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64, np.bool_])
def test_weights_of_any_dtype(dtype):
    g = _random_graph(80, 320, seed=5)
    c = g.tocoo()
    src, dst = c.row, c.col
    vals = np.ones(src.size, bool) if dtype == np.bool_ else c.data.astype(dtype)
    A = kleene.Matrix.from_edges(src, dst, vals, n=80, dtype=dtype).to("gpu")
    sources = [0, 5, 79]
    d, p = (x.get() for x in multi_source_sssp(A, sources, predecessors=True))
    as64 = sp.csr_matrix((vals.astype(np.float64), (src, dst)), shape=(80, 80))  # bool: 1
    np.testing.assert_array_equal(d, shortest_path(as64, indices=sources))
    _check_rows(as64, d, p, sources)
    # the kernel called directly with the CSR arrays as stored
    ptr, idx, w = A._csr()
    assert w.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(gs.sssp_rows(ptr, idx, w, sources)[0].get(), d)


def test_results_written_into_out():
    g = _random_graph(60, 240, seed=1)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    want = [x.get() for x in multi_source_sssp(A, [0, 1, 2, 3], predecessors=True)]
    dist = cupy.full((6, 60), -7.0)
    pred = cupy.full((6, 60), -7, dtype=np.int64)
    got = multi_source_sssp(A, [1, 2, 3], predecessors=True, out=(dist[2:5], pred[2:5]))
    assert got[0].data.ptr == dist[2:5].data.ptr and got[1].data.ptr == pred[2:5].data.ptr
    np.testing.assert_array_equal(dist[2:5].get(), want[0][1:])
    np.testing.assert_array_equal(pred[2:5].get(), want[1][1:])
    assert (dist[[0, 1, 5]].get() == -7).all() and (pred[[0, 1, 5]].get() == -7).all()
    only = cupy.empty((1, 60))
    assert multi_source_sssp(A, [0], out=(only, None))[1] is None
    np.testing.assert_array_equal(only.get(), want[0][:1])
    with pytest.raises(ValueError, match="out"):
        multi_source_sssp(A, [0, 1], out=(cupy.empty((1, 60)), None))
    with pytest.raises(ValueError, match="out"):
        multi_source_sssp(A, [0], out=(np.empty((1, 60)), None))  # host arrays


def test_bad_arguments_and_memory(monkeypatch):
    A = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, -1.0], n=3).to("gpu")
    with pytest.raises(ValueError, match="non-negative"):
        multi_source_sssp(A, [0])
    ptr, idx = cupy.array([0, 1, 1]), cupy.array([1], dtype=np.int32)
    with pytest.raises(ValueError, match="non-negative"):
        gs.sssp_rows(ptr, idx, cupy.array([-1.0]), [0])
    with pytest.raises(ValueError, match="non-negative"):
        gs.sssp_rows(ptr, idx, cupy.array([np.nan]), [0])
    with pytest.raises(ValueError, match="CSR"):
        gs.sssp_rows(cupy.array([0, 2]), idx, cupy.array([1.0]), [0])
    with pytest.raises(IndexError, match="source 3 is out of range"):
        gs.sssp_rows(ptr, idx, cupy.array([1.0]), [0, 3])
    d, p = gs.sssp_rows(ptr, idx, cupy.array([1.0]), [], True)
    assert d.shape == p.shape == (0, 2)
    monkeypatch.setattr(gs, "gpu_memory_free", lambda: 10_000)
    with pytest.raises(MemoryError, match="bytes"):
        gs.sssp_rows(ptr, idx, cupy.array([1.0]), np.zeros(100, np.int64), True)


def test_runs_are_identical():
    """Atomic distances, levels and parents do not depend on scheduling: unit weights
    (many ties) and float weights, cooperative and per round, several runs."""
    src, dst = kleene.generators.rmat(12, 8, seed=4)
    w = np.random.default_rng(4).uniform(0.0, 10.0, src.size)
    w[::7] = 0.0
    for weights in (1.0, w):
        A = kleene.Matrix.from_edges(src, dst, weights, 1 << 12, dup="min").to("gpu")
        sources = np.arange(0, 1 << 12, 17)
        first = [x.get() for x in multi_source_sssp(A, sources, predecessors=True)]
        for run in range(4):
            with _PerRound() if run == 3 else _NoContext():
                d, p = multi_source_sssp(A, sources, predecessors=True)
            assert np.array_equal(d.get(), first[0]) and np.array_equal(p.get(), first[1])
        np.testing.assert_array_equal(first[0], dijkstra(A.to("cpu").to_scipy(), indices=sources))


@pytest.mark.parametrize(
    "name, directed",
    [("rome99.gr", True), ("facebook_combined.txt.gz", False), ("p2p-Gnutella08.txt", True)],
)
def test_apsp_real_graphs_against_scipy(name, directed):
    g = load_scipy(name)
    if name.startswith("p2p"):
        g = g[:3000, :3000].tocsr()
    A = kleene.Matrix.from_scipy(g).to("gpu")
    sym = g if directed else g.maximum(g.T).tocsr()
    rows = np.arange(0, g.shape[0], 61)
    want = dijkstra(sym, indices=rows)
    for method in ("repeated-sssp", "johnson"):
        dist, pred = kleene.apsp(A, method=method, directed=directed, return_predecessors=True)
        dist, pred = (x.get() if hasattr(x, "get") else np.asarray(x) for x in (dist, pred))
        np.testing.assert_array_equal(dist[rows], want)
        few = rows[::3]
        _check_rows(sym, dist[few], pred[few], few)
