"""Out-of-core APSP on the GPU (kleene/backends/cuda/tile_stream.py): the checks of
tests/test_out_of_core.py on a CuPy graph, both host-memory modes (page-locked result:
direct copies; pageable or numpy.memmap out=: staged copies), bit-identical reruns
(no race between the copy and compute streams) and the device's memory-pool peak
under memory_limit. Skipped without CuPy or a GPU.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

pytestmark = pytest.mark.gpu

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # graph_data, in tests/
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

import cupy  # noqa: E402
import cupyx  # noqa: E402
from graph_data import (  # noqa: E402
    check_all_paths,
    check_shortest_path_tree,
    edge_weights,
    graphs,
)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycle  # noqa: E402
from scipy.sparse.csgraph import shortest_path  # noqa: E402

import kleene  # noqa: E402
from kleene.algorithms import apsp_out_of_core as ooc  # noqa: E402
from kleene.backends.cuda import tile_stream  # noqa: E402

RESERVE = ooc.GPU_RESERVE


def _host(a):
    return a.get() if isinstance(a, cupy.ndarray) else np.asarray(a)


def _gpu(g):
    return kleene.Matrix.from_scipy(g).to("gpu")


def _limit_for(n: int, b: int, itemsize: int = 8, preds: bool = False) -> int:
    return ooc.working_set_bytes(n, b, itemsize, preds, RESERVE)


def _random_graph(
    n: int,
    seed: int,
    density: float = 0.15,
    lo: int = 1,
    hi: int = 10,
    dtype=np.float64,
    integer: bool = True,
):
    rng = np.random.default_rng(seed)
    g = sp.random(n, n, density=density, random_state=rng, format="csr", dtype=dtype)
    g.data = rng.integers(lo, hi, g.nnz) if integer else rng.uniform(lo, hi, g.nnz)
    g.data = g.data.astype(dtype)
    return g


@pytest.fixture
def solves(monkeypatch):
    calls = []
    real = ooc.solve

    def spy(*args, **kwargs):
        calls.append(args[3])
        return real(*args, **kwargs)

    monkeypatch.setattr(ooc, "solve", spy)
    return calls


class _PoolPeak:
    """The default pool's used_bytes() high-water mark over a block (bench_ingest's way)."""

    def __enter__(self):
        self.pool = cupy.get_default_memory_pool()
        cupy.cuda.Device().synchronize()
        self.base = self.peak = self.pool.used_bytes()
        cupy.cuda.set_allocator(self._malloc)
        return self

    def _malloc(self, nbytes):
        mem = self.pool.malloc(nbytes)
        self.peak = max(self.peak, self.pool.used_bytes())
        return mem

    def __exit__(self, *exc):
        cupy.cuda.set_allocator(self.pool.malloc)

    @property
    def call_peak(self) -> int:
        return self.peak - self.base


# ---- results ----------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(data=graphs(max_n=30), tile=st.integers(8, 40), preds=st.booleans())
def test_matches_in_core_and_scipy(data, tile, preds, solves):
    ref_g, raw, n = data
    limit = _limit_for(n, min(tile, n), preds=preds)
    A = _gpu(ref_g)
    got = kleene.apsp(A, memory_limit=limit, return_predecessors=preds)
    assert solves, "memory_limit under the in-core peak runs out of core"
    want = kleene.apsp(A, method="blocked", return_predecessors=preds)
    if preds:
        (got, pred), (want, _) = got, want
        assert isinstance(pred, np.ndarray)
        check_all_paths(edge_weights(ref_g), got, pred)
    assert isinstance(got, np.ndarray)  # out of core: host memory
    np.testing.assert_array_equal(got, _host(want))
    np.testing.assert_allclose(got, shortest_path(ref_g))


@pytest.mark.parametrize(("n", "b"), [(500, 128), (300, 300), (20, 20), (333, 111), (257, 64)])
def test_tilings_with_predecessors(n, b, solves):
    g = _random_graph(n, seed=n + b, density=0.02)
    limit = _limit_for(n, b, preds=True)
    d, p = kleene.apsp(_gpu(g), memory_limit=limit, return_predecessors=True)
    assert solves == [ooc.choose_tile(n, 8, True, limit, RESERVE)]
    np.testing.assert_array_equal(d, shortest_path(g))
    if n <= 60:
        check_all_paths(edge_weights(g), d, p)
    else:
        _check_some_paths(g, d, p)


def _check_some_paths(g, d, p, count: int = 200):
    rng = np.random.default_rng(0)
    w = edge_weights(g)
    n = d.shape[0]
    for i, j in rng.integers(0, n, (count, 2)):
        path = kleene.reconstruct_path(p, int(i), int(j))
        if i != j and np.isfinite(d[i, j]):
            assert np.isclose(sum(w[a, b] for a, b in zip(path, path[1:], strict=False)), d[i, j])


@settings(max_examples=15, deadline=None)
@given(data=graphs(negative=True, max_n=20), tile=st.integers(8, 12))
def test_negative_weights_match_scipy(data, tile):
    ref_g, raw, n = data
    limit = _limit_for(n, min(n, tile), preds=True)
    try:
        ref = shortest_path(ref_g, method="BF")
    except ScipyNegativeCycle:
        ref = None
    if ref is None:
        with pytest.raises(kleene.NegativeCycleError, match="negative cycle through vertex"):
            kleene.apsp(_gpu(ref_g), memory_limit=limit, return_predecessors=True)
        return
    d, p = kleene.apsp(_gpu(ref_g), memory_limit=limit, return_predecessors=True)
    np.testing.assert_allclose(d, ref)
    check_all_paths(edge_weights(ref_g), d, p)


@pytest.mark.parametrize("out_kind", ["numpy", "pinned"])
def test_negative_cycle_leaves_out_showing_the_cycle(out_kind):
    n = 200
    g = _random_graph(n, seed=5, density=0.03).tolil()
    g[125, 126], g[126, 125] = -3.0, 1.0
    out = np.full((n, n), 0.5) if out_kind == "numpy" else cupyx.empty_pinned((n, n))
    out[...] = 0.5
    with pytest.raises(kleene.NegativeCycleError) as err:
        kleene.apsp(_gpu(g.tocsr()), memory_limit=_limit_for(n, 40), out=out)
    v = int(re.search(r"through vertex (\d+)", str(err.value)).group(1))
    assert v in (125, 126) and out[v, v] < 0
    assert not np.any(out == 0.5)


# ---- host memory: direct (pinned) and staged copies ---------------------------------


def test_direct_and_staged_copies_agree(tmp_path, monkeypatch):
    n, b = 700, 160
    g = _random_graph(n, seed=1, density=0.01, dtype=np.float32, integer=False)
    A = _gpu(g)
    limit = _limit_for(n, b, itemsize=4, preds=True)
    d0, p0 = kleene.apsp(A, memory_limit=limit, return_predecessors=True)
    assert tile_stream.is_pinned(d0) and tile_stream.is_pinned(p0)  # the default result
    pinned = (cupyx.empty_pinned((n, n), np.float32), cupyx.empty_pinned((n, n), np.int64))
    pageable = (np.empty((n, n), np.float32), np.empty((n, n), np.int64))
    assert not tile_stream.is_pinned(pageable[0])
    mm = (
        np.memmap(tmp_path / "d", np.float32, "w+", shape=(n, n)),
        np.memmap(tmp_path / "p", np.int64, "w+", shape=(n, n)),
    )
    for out in (pinned, pageable, mm):
        d, p = kleene.apsp(A, memory_limit=limit, return_predecessors=True, out=out)
        assert d is out[0] and p is out[1]
        np.testing.assert_array_equal(d, d0)  # same kernels, same order: bit-identical
        np.testing.assert_array_equal(p, p0)
    monkeypatch.setattr(tile_stream, "_CHUNK_BYTES", 7 * b * 8)  # many chunks a tile
    d, p = kleene.apsp(A, memory_limit=limit, return_predecessors=True, out=pageable)
    np.testing.assert_array_equal(d, d0)
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_allclose(d0, shortest_path(g.astype(np.float64)), rtol=1e-5)


@pytest.mark.parametrize("preds", [False, True])
def test_reruns_are_bit_identical(preds):
    """Float weights: any race between loads, products and stores changes some bits."""
    n = 1500
    g = _random_graph(n, seed=2, density=0.004, dtype=np.float32, integer=False)
    A = _gpu(g)
    limit = _limit_for(n, 320, itemsize=4, preds=preds)
    first = kleene.apsp(A, memory_limit=limit, return_predecessors=preds)
    again = kleene.apsp(A, memory_limit=limit, return_predecessors=preds)
    staged = kleene.apsp(
        A, memory_limit=limit, return_predecessors=preds, out=np.empty((n, n), np.float32)
    )
    for x in (again, staged):
        for a, b in zip(first if preds else [first], x if preds else [x], strict=True):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("preds", [False, True])
def test_device_memory_peak_stays_under_the_limit(preds):
    n = 2000
    g = _random_graph(n, seed=3, density=0.003, dtype=np.float32)
    A = _gpu(g)
    limit = _limit_for(n, 512, itemsize=4, preds=preds)
    kleene.apsp(A, memory_limit=limit, return_predecessors=preds)  # compile first
    with _PoolPeak() as watch:
        out = kleene.apsp(A, memory_limit=limit, return_predecessors=preds)
    assert 0 < watch.call_peak <= limit, (watch.call_peak, limit)
    d = out[0] if preds else out
    np.testing.assert_allclose(d, shortest_path(g.astype(np.float64)), rtol=1e-6)


# ---- semirings, routing, errors, progress -----------------------------------------------


def test_max_min_widest_paths_with_predecessors():
    rng = np.random.default_rng(7)
    n = 45
    cap = rng.integers(1, 6, (n, n)).astype(np.float64)
    cap[rng.random((n, n)) < 0.7] = -np.inf
    A = kleene.Matrix.from_dense(cupy.asarray(cap), missing=-np.inf)
    limit = _limit_for(n, 12, preds=True)
    W, P = kleene.apsp(A, semiring="max_min", memory_limit=limit, return_predecessors=True)
    np.testing.assert_array_equal(W, _host(kleene.apsp(A, semiring="max_min")))
    for i in range(n):
        for j in range(n):
            path = kleene.reconstruct_path(P, i, j)
            if i != j and W[i, j] > -np.inf:
                assert min(cap[a, b] for a, b in zip(path, path[1:], strict=False)) == W[i, j]


def test_dense_cupy_input_float32_and_reachability():
    rng = np.random.default_rng(4)
    n = 150
    a = np.where(rng.random((n, n)) < 0.05, rng.integers(1, 9, (n, n)), np.inf).astype(np.float32)
    d = kleene.apsp(cupy.asarray(a), memory_limit=_limit_for(n, 40, itemsize=4))
    assert isinstance(d, np.ndarray) and d.dtype == np.float32
    np.testing.assert_array_equal(d, _host(kleene.apsp(cupy.asarray(a))))
    adj = cupy.asarray(rng.random((n, n)) < 0.01)
    R = kleene.apsp(adj, semiring="lor_land", memory_limit=_limit_for(n, 40, itemsize=1))
    np.testing.assert_array_equal(R, _host(kleene.apsp(adj, semiring="lor_land")))


@pytest.mark.parametrize("preds", [False, True])
def test_host_graph_streams_through_the_gpu(monkeypatch, solves, preds):
    """device="gpu" on a host graph with memory_limit: tiles through the GPU, the graph
    never copied to the device whole, the answer the CPU's and SciPy's."""
    moved = []
    real_to = kleene.Matrix.to

    def to(self, device):
        moved.append(device)
        return real_to(self, device)

    monkeypatch.setattr(kleene.Matrix, "to", to)
    streams = []
    real_stream = ooc.tile_stream

    def stream(*args, **kwargs):
        streams.append(args[2])
        return real_stream(*args, **kwargs)

    monkeypatch.setattr(ooc, "tile_stream", stream)
    rng = np.random.default_rng(5)
    n = 200
    dense = np.where(rng.random((n, n)) < 0.05, rng.integers(1, 9, (n, n)), np.inf)
    zeros = np.where(np.isinf(dense), 0, dense)  # SciPy's "no edge"
    for g in (dense, sp.csr_matrix(zeros)):
        limit = _limit_for(n, 48, preds=preds)
        got = kleene.apsp(g, memory_limit=limit, return_predecessors=preds, device="gpu")
        want = kleene.apsp(g, memory_limit=limit, return_predecessors=preds)  # on the CPU
        if preds:
            (got, pred), (want, _) = got, want
            assert isinstance(pred, np.ndarray)
            check_all_paths(edge_weights(sp.csr_matrix(zeros)), got, pred)
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, shortest_path(zeros))
    assert streams and "gpu" not in moved  # tiles went through the GPU; the graph did not


def test_host_graph_in_core_on_the_gpu_and_back():
    g = _random_graph(120, seed=3, density=0.1)
    d = kleene.apsp(g, device="gpu")
    assert isinstance(d, cupy.ndarray)
    np.testing.assert_array_equal(d.get(), kleene.apsp(g))
    back = kleene.apsp(_gpu(g), device="cpu")
    assert isinstance(back, np.ndarray)
    np.testing.assert_array_equal(back, d.get())


def test_auto_goes_out_of_core_when_the_result_does_not_fit_the_gpu(monkeypatch, solves):
    from kleene.algorithms import apsp_memory

    g = _random_graph(300, seed=8, density=0.9)  # dense: the closure beats repeated SSSP
    monkeypatch.setattr(apsp_memory, "gpu_memory_free", lambda: 1 << 20)  # in core: 1 MiB
    d = kleene.apsp(_gpu(g))
    assert solves and isinstance(d, np.ndarray)
    np.testing.assert_array_equal(d, shortest_path(g))


def test_auto_runs_repeated_sssp_into_host_memory_for_a_sparse_graph_past_the_gpu(
    monkeypatch, solves
):
    from kleene.algorithms import apsp_memory

    g = _random_graph(300, seed=8, density=0.02)  # 6 edges a vertex
    monkeypatch.setattr(apsp_memory, "gpu_memory_free", lambda: 1 << 20)  # in core: 1 MiB
    # with predecessors the searches win (~2 ms against the dense closure's ~6 ms)
    d, p = kleene.apsp(_gpu(g), return_predecessors=True)
    assert not solves and isinstance(d, np.ndarray) and isinstance(p, np.ndarray)
    np.testing.assert_array_equal(d, shortest_path(g))
    for s in range(0, 300, 37):
        check_shortest_path_tree(g, d[s], p[s], s)


@pytest.mark.parametrize("limit", [0, -5, 1.5, "1GB", True])
def test_bad_memory_limit_is_a_value_error(limit):
    with pytest.raises(ValueError, match="memory_limit must be a positive"):
        kleene.apsp(_gpu(_random_graph(10, seed=0)), memory_limit=limit)


def test_memory_limit_too_small_and_bad_out():
    g = _gpu(_random_graph(50, seed=0))
    with pytest.raises(ValueError, match="too small"):
        kleene.apsp(g, memory_limit=RESERVE)
    with pytest.raises(ValueError, match="NumPy array in host memory"):
        kleene.apsp(g, out=cupy.empty((50, 50)))


def test_progress_reaches_total_exactly_once():
    n = 300
    seen = []
    kleene.apsp(
        _gpu(_random_graph(n, seed=13, density=0.02)),
        memory_limit=_limit_for(n, 64),
        progress=lambda d, t: seen.append((d, t)),
    )
    done = [d for d, _ in seen]
    (total,) = {t for _, t in seen}
    assert done == sorted(done) and done[-1] == total and done.count(total) == 1
