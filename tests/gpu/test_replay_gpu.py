"""Dense closures replayed as CUDA graphs (kleene/backends/cuda/graphs.py, kleene.engine.replay).

A captured graph holds pointers: these tests check that every replay works on the
new call's data (not the capture's), that replays agree with eager runs
(``KLEENE_CUDA_GRAPHS=0``), SciPy and the CPU back end, with predecessors too,
that the capture really happened (no silent eager fallback), that repeated runs
are identical, and that the cache lets go of its memory. Skipped without a GPU.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

pytestmark = pytest.mark.gpu

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

import cupy  # noqa: E402

import kleene  # noqa: E402
from kleene.backends.cuda import graphs  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_cache():
    kleene.engine.release_replays()
    yield
    kleene.engine.release_replays()


def _weighted(n: int, seed: int, per: float = 4.0):
    rng = np.random.default_rng(seed)
    m = int(per * n)
    G = sp.csr_matrix(
        (rng.uniform(1, 10, m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n)
    )
    G.sum_duplicates()
    return G


def _captured() -> list:
    """(key, failure) of every cached entry: failure None when its graph was captured."""
    return [(k, e.failed) for k, e in graphs._cache.items()]


@pytest.mark.parametrize("method", ["recursive", "blocked", "floyd-warshall"])
def test_replays_use_each_calls_data(method):
    n = 300 if method == "floyd-warshall" else 700
    for seed in range(3):  # capture, then two replays on new graphs of the same size
        G = _weighted(n, seed)
        got = kleene.apsp(cupyx_csr(G), method=method)
        np.testing.assert_allclose(cupy.asnumpy(got), shortest_path(G, method="D"), rtol=1e-6)
        entries = _captured()
        assert len(entries) == 1 and entries[0][1] is None, entries  # captured, not eager
    assert kleene.engine.replay_bytes() >= n * n * 8


def cupyx_csr(G):
    import cupyx.scipy.sparse as csp

    return csp.csr_matrix(G)


def test_replay_equals_eager_with_predecessors(monkeypatch):
    G = _weighted(640, 5)
    d1, p1 = kleene.apsp(cupyx_csr(G), method="recursive", return_predecessors=True)
    d2, p2 = kleene.apsp(cupyx_csr(G), method="recursive", return_predecessors=True)  # replay
    monkeypatch.setenv("KLEENE_CUDA_GRAPHS", "0")
    d3, p3 = kleene.apsp(cupyx_csr(G), method="recursive", return_predecessors=True)
    for d, p in ((d1, p1), (d2, p2)):
        assert bool((d == d3).all())
        assert bool((p == p3).all())  # repeated runs: identical, graph or not
    ref, _ = shortest_path(G, method="D", return_predecessors=True)
    np.testing.assert_allclose(cupy.asnumpy(d1), ref, rtol=1e-6)


def test_negative_cycle_found_after_a_replay():
    G = _weighted(400, 2)
    kleene.apsp(cupyx_csr(G), method="recursive")
    bad = G.tolil()
    bad[3, 4], bad[4, 3] = -5.0, 1.0
    with pytest.raises(kleene.NegativeCycleError):
        kleene.apsp(cupyx_csr(bad.tocsr()), method="recursive")


@pytest.mark.parametrize("method", ["auto", "recursive", "blocked"])
def test_a_dense_input_with_nan_fails_after_its_closure_is_queued(method):
    # A GPU array's NaN check rides on D's fill and is read once the replay is queued:
    # a NaN input still raises (with and without predecessors, before and after the
    # capture, for a route that needs the weights' sign first), and the next call on
    # the same buffers is right.
    n = 300
    rng = np.random.default_rng(4)
    a = rng.uniform(1, 10, (n, n))
    a[rng.random((n, n)) < 0.9] = np.inf
    bad = a.copy()
    bad[7, 9] = np.nan
    for _ in range(2):
        for preds in (False, True):
            with pytest.raises(ValueError, match="NaN"):
                kleene.apsp(cupy.asarray(bad), method=method, return_predecessors=preds)
        got = kleene.apsp(cupy.asarray(a), method=method)
        np.testing.assert_allclose(cupy.asnumpy(got), shortest_path(a, method="D"), rtol=1e-12)
    with pytest.raises(ValueError, match="NaN"):
        kleene.apsp(cupy.asarray(bad), method="repeated-sssp")


@pytest.mark.parametrize(("n", "method"), [(300, "floyd-warshall"), (4097, "auto")])
def test_a_nan_input_is_refused_before_a_long_closure(monkeypatch, n, method):
    # Floyd-Warshall (seconds at n = 8192) and graphs past 64 MiB check for NaN before
    # the closure runs: no closure is even started for a NaN input.
    from kleene.algorithms import dense_closure

    a = cupy.full((n, n), cupy.inf, dtype=cupy.float32)
    a[1, 2], a[2, 3] = 4.0, cupy.nan
    assert dense_closure.scan_can_ride(kleene.Matrix.from_dense(a)) == (n < 4097)

    def refuse(*args, **kw):
        raise AssertionError("the closure ran before the NaN check")

    monkeypatch.setattr(dense_closure, "run_closure", refuse)
    with pytest.raises(ValueError, match="NaN"):
        kleene.apsp(a, method=method)


@pytest.mark.parametrize(
    ("method", "block"), [("recursive", None), ("recursive", 96), ("blocked", 64), ("blocked", 128)]
)
def test_dense_input_with_negative_weights_keeps_a_zero_diagonal(method, block):
    # Without predecessors D's diagonal is not ⊕ one before a recursive or blocked
    # closure: each base closure does it. Negative edges (no negative cycle) must still
    # give SciPy's distances with 0 on the diagonal, and a negative cycle the error.
    n = 700
    rng = np.random.default_rng(8)
    a = rng.uniform(1, 10, (n, n)).astype(np.float32)
    a[rng.random((n, n)) < 0.95] = np.inf
    h = rng.uniform(0, 6, n).astype(np.float32)  # potentials: w + h(i) - h(j) ≥ 0 stays so
    a = a - h[:, None] + h[None, :]
    np.fill_diagonal(a, np.inf)
    ref = shortest_path(np.where(np.isinf(a), 0, a).astype(np.float64), method="BF")
    for _ in range(2):  # capture, replay
        got = cupy.asnumpy(kleene.apsp(cupy.asarray(a), method=method, block_size=block))
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4)
        assert np.all(np.diag(got) == 0)
    cyc = a.copy()
    cyc[3, 4], cyc[4, 3] = -5.0, 1.0
    with pytest.raises(kleene.NegativeCycleError):
        kleene.apsp(cupy.asarray(cyc), method=method, block_size=block)


@pytest.mark.parametrize("n", [1024, 2000])
def test_transitive_closure_replays_on_new_graphs(n):
    """DAGs (upward edges): no component to condense, so every call closes an n-vertex
    matrix, captured once."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        r, c = rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n)
        up = r < c
        G = sp.csr_matrix((np.ones(int(up.sum())), (r[up], c[up])), shape=(n, n))
        got = cupy.asnumpy(kleene.transitive_closure(cupy.asarray(G.toarray() > 0)))
        np.testing.assert_array_equal(got, kleene.transitive_closure(G))
    assert [f for _, f in _captured()] == [None]  # captured once, replayed on new graphs


def test_release_frees_and_graphs_off_holds_nothing(monkeypatch):
    kleene.apsp(cupyx_csr(_weighted(512, 1)), method="recursive")
    assert kleene.engine.replay_bytes() > 0
    kleene.engine.release_replays()
    assert kleene.engine.replay_bytes() == 0
    monkeypatch.setenv("KLEENE_CUDA_GRAPHS", "0")
    kleene.apsp(cupyx_csr(_weighted(512, 1)), method="recursive")
    assert kleene.engine.replay_bytes() == 0


def test_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(graphs, "MAX_ENTRIES", 2)
    for n in (256, 320, 384):
        kleene.apsp(cupyx_csr(_weighted(n, n)), method="recursive")
    assert len(graphs._cache) == 2


def test_a_step_that_swaps_its_buffer_runs_eagerly_and_right():
    """An ``out=`` op that hands a held matrix a new array (store.replace) would leave
    a captured graph working on memory the caller no longer sees: the capture is
    refused (recorded as failed) and every call runs eagerly on the cache's buffers,
    with each call's own data."""
    kleene.engine.release_replays()
    base = cupy.arange(64, dtype=cupy.float32).reshape(8, 8)

    def double(m):
        kleene.ewise_add(m, m, "plus", out=m)  # a new array for m's values

    for trial in range(1, 4):
        D = kleene.Matrix.from_dense(base * trial, missing=None)
        (R,) = kleene.engine.replay(("swap-test",), double, D)
        np.testing.assert_array_equal(cupy.asnumpy(R.to_dense()), cupy.asnumpy(2 * trial * base))
    failures = [f for k, f in _captured() if k[2] == ("swap-test",)]
    assert len(failures) == 1 and "replaced" in failures[0]


def test_replay_of_handed_buffers_skips_the_lookup_and_stays_right(monkeypatch):
    """replay() on the very matrices replay_buffers() handed out for its key takes them
    without a second cache lookup; another key, a dropped entry, or matrices that are
    not the handed ones take the full path, with the same answers."""
    from kleene.engine import replayable

    def close(m):
        kleene.closure(m, out=m)

    rng = np.random.default_rng(5)
    n = 96
    lookups: list = []
    real_entry = graphs.entry
    monkeypatch.setattr(graphs, "entry", lambda *a: lookups.append(a[0]) or real_entry(*a))

    def graph():
        w = rng.uniform(1, 9, (n, n)).astype(np.float32)
        w[rng.random((n, n)) < 0.9] = np.inf
        np.fill_diagonal(w, 0)
        return w, shortest_path(np.where(np.isinf(w), 0, w), method="FW").astype(np.float32)

    key = ("handed-test",)
    for _ in range(3):  # capture, then replays of the handed buffers
        w, want = graph()
        (a,), (D,) = kleene.engine.replay_buffers(key, [((n, n), np.float32)], cupy)
        a[...] = cupy.asarray(w)
        before = len(lookups)
        (R,) = kleene.engine.replay(key, close, D)
        assert R is D and len(lookups) == before  # no second lookup
        np.testing.assert_allclose(cupy.asnumpy(R.to_dense()), want, rtol=1e-5)
    (a,), (D,) = kleene.engine.replay_buffers(key, [((n, n), np.float32)], cupy)
    kleene.engine.release_replays()  # the entry is gone: replay looks it up (a new one)
    w, want = graph()
    a[...] = cupy.asarray(w)
    before = len(lookups)
    (R,) = kleene.engine.replay(key, close, D)
    assert len(lookups) == before + 1 and R is not D
    np.testing.assert_allclose(cupy.asnumpy(R.to_dense()), want, rtol=1e-5)
    w, want = graph()  # a matrix of the caller's own: copied in, as ever
    mine = kleene.Matrix.from_dense(cupy.asarray(w), missing=None)
    assert replayable._handed(key, (mine,)) is None
    (R,) = kleene.engine.replay(key, close, mine)
    np.testing.assert_allclose(cupy.asnumpy(R.to_dense()), want, rtol=1e-5)
    (a,), (D,) = kleene.engine.replay_buffers(key, [((n, n), np.float32)], cupy)
    assert replayable._handed(("another",), (D,)) is None
    del a, D, R
    kleene.engine.release_replays()  # the handed entry is not kept alive: its buffers go
    gc.collect()
    assert replayable._local.handed[1]() is None


def test_threads_replay_their_own_graphs():
    """Two threads closing different graphs of one size at once: each thread captures
    and replays its own entry (a shared one would hand both the same buffers), and
    every answer equals SciPy's."""
    import threading

    kleene.engine.release_replays()
    graphs_by_thread = {t: [_weighted(600, 10 * t + i) for i in range(3)] for t in range(2)}
    wrong: list = []

    def work(t):
        with cupy.cuda.Stream(non_blocking=True):
            for G in graphs_by_thread[t]:
                got = cupy.asnumpy(kleene.apsp(cupyx_csr(G), method="recursive"))
                if not np.allclose(got, shortest_path(G)):
                    wrong.append(t)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not wrong
    owners = {k[1] for k in graphs._cache}
    assert len(owners) == 2 and all(f is None for _, f in _captured())


@pytest.mark.parametrize("n,block", [(700, 128), (1000, 96), (513, 64)])
def test_blocked_lookahead_lanes_replay_eager_and_repeat_identically(monkeypatch, n, block):
    """The blocked closure's side lane (a second stream; parallel branches once
    captured): replayed, eager and repeated runs give the same bits, with predecessors
    too, and equal SciPy. A race between the lanes would show as a difference."""
    G = _weighted(n, 6)
    ref = shortest_path(G, method="D")
    runs = [
        kleene.apsp(cupyx_csr(G), method="blocked", block_size=block, return_predecessors=True)
        for _ in range(4)
    ]
    failed = [f for _, f in _captured()]
    assert failed and not any(failed), failed  # captured (not a silent eager run)
    monkeypatch.setenv("KLEENE_CUDA_GRAPHS", "0")
    runs += [
        kleene.apsp(cupyx_csr(G), method="blocked", block_size=block, return_predecessors=True)
        for _ in range(2)
    ]
    d0, p0 = runs[0]
    for d, p in runs[1:]:
        assert bool((d == d0).all()) and bool((p == p0).all())
    np.testing.assert_allclose(cupy.asnumpy(d0), ref, rtol=1e-6)
    plain = kleene.apsp(cupyx_csr(G), method="blocked", block_size=block)
    assert bool((plain == d0).all())
