"""Out-of-core APSP on the CPU (apsp(..., memory_limit=, out=)): the tiled schedule of
kleene/algorithms/apsp_out_of_core.py against the in-core apsp and SciPy.

The CPU "device" holds the working set of tiles in RAM, with the GPU's rules for late
stores, so these tests run the same schedule the GPU runs (tests/gpu/test_out_of_core_gpu.py
repeats them on CuPy). Tile sizes are set through ``memory_limit``: ``_limit_for(n, b)``
is the working set of b × b tiles, which ``choose_tile`` turns back into b (or a
balanced tile of the same count).
"""

from __future__ import annotations

import doctest
import re
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from graph_data import check_all_paths, edge_weights, graphs
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycle
from scipy.sparse.csgraph import shortest_path

import kleene
from kleene.algorithms import apsp_out_of_core as ooc


def _limit_for(n: int, b: int, itemsize: int = 8, preds: bool = False) -> int:
    return ooc.working_set_bytes(n, b, itemsize, preds)


def _tile(n: int, limit: int, itemsize: int = 8, preds: bool = False) -> int:
    return ooc.choose_tile(n, itemsize, preds, limit)


def _random_graph(n: int, seed: int, density: float = 0.15, lo: int = 1, hi: int = 10):
    rng = np.random.default_rng(seed)
    g = sp.random(n, n, density=density, random_state=rng, format="csr")
    g.data = rng.integers(lo, hi, g.nnz).astype(float)
    return g


@pytest.fixture
def solves(monkeypatch):
    """Counts the out-of-core runs (so a test can tell which path ran)."""
    calls = []
    real = ooc.solve

    def spy(*args, **kwargs):
        calls.append(args[3])  # the tile
        return real(*args, **kwargs)

    monkeypatch.setattr(ooc, "solve", spy)
    return calls


# ---- the tile rule ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "b", "why"),
    [
        (50, 13, "tiles not dividing n"),
        (48, 12, "tiles dividing n"),
        (30, 30, "one tile"),
        (40, 8, "the smallest tiles"),
    ],
)
def test_choose_tile_gives_back_the_tiling(n, b, why):
    assert _tile(n, _limit_for(n, b)) == b, why
    less = _tile(n, _limit_for(n, b) - 1)
    assert less is None or less < b


def test_tile_rule_fits_the_limit_and_prefers_few_rounds():
    for n in (1, 7, 100, 1000, 5000, 32768):
        for limit in (10**4, 10**6, 10**8, 2**30):
            for preds in (False, True):
                b = ooc.choose_tile(n, 4, preds, limit)
                if b is None:
                    assert ooc.smallest_working_set(n, 4, preds) > limit
                    continue
                assert 1 <= b <= n and ooc.working_set_bytes(n, b, 4, preds) <= limit
                g = -(-n // b)
                if g > 1:  # one tile fewer a side would not fit
                    bigger = -(-n // (g - 1))
                    assert ooc.working_set_bytes(n, bigger, 4, preds) > limit
    # the row: fp32 n = 32768 with a quarter of the 4 GiB result
    assert ooc.choose_tile(32768, 4, False, 2**30, ooc.GPU_RESERVE) == 4096


# ---- results ----------------------------------------------------------------------


@settings(max_examples=25)
@given(data=graphs(max_n=30), tile=st.integers(1, 40), preds=st.booleans())
def test_matches_in_core_and_scipy(data, tile, preds, solves):
    ref_g, raw, n = data
    b = max(ooc.MIN_TILE, tile) if n > ooc.MIN_TILE else n
    limit = _limit_for(n, min(b, n), preds=preds)
    got = kleene.apsp(raw, memory_limit=limit, return_predecessors=preds)
    assert solves, "memory_limit under the in-core peak runs out of core"
    want = kleene.apsp(raw, method="blocked", return_predecessors=preds)
    if preds:
        (got, pred), (want, _) = got, want
        check_all_paths(edge_weights(ref_g), got, pred)
    assert got.dtype == want.dtype and np.array_equal(got, want)  # integer weights: exact
    np.testing.assert_allclose(got, shortest_path(ref_g))


@pytest.mark.parametrize(("n", "b"), [(50, 13), (47, 47), (9, 9), (60, 20), (60, 30), (33, 8)])
def test_tilings_with_predecessors(n, b, solves):
    g = _random_graph(n, seed=n + b)
    limit = _limit_for(n, b, preds=True)
    assert _tile(n, limit, preds=True) == b
    d, p = kleene.apsp(g, memory_limit=limit, return_predecessors=True)
    assert solves == [b]
    np.testing.assert_array_equal(d, shortest_path(g))
    check_all_paths(edge_weights(g), d, p)
    assert np.all(p[np.arange(n), np.arange(n)] == -1)
    assert np.all(p[~np.isfinite(d)] == -1)


def test_zero_weight_cycles_get_valid_predecessors():
    """Zero-weight cycles can leave predecessor cycles in blocked in-place updates: the
    in-core repair runs on the host result too."""
    n = 36
    rows = np.arange(n)
    g = sp.csr_matrix((np.zeros(n), (rows, (rows + 1) % n)), shape=(n, n))  # a zero ring
    g = g + _random_graph(n, seed=3, density=0.05)
    d, p = kleene.apsp(g, memory_limit=_limit_for(n, 9, preds=True), return_predecessors=True)
    np.testing.assert_allclose(d, shortest_path(g))
    check_all_paths(edge_weights(g), d, p)


@settings(max_examples=25)
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
            kleene.apsp(raw, memory_limit=limit, return_predecessors=True)
        return
    d, p = kleene.apsp(raw, memory_limit=limit, return_predecessors=True)
    np.testing.assert_allclose(d, ref)
    check_all_paths(edge_weights(ref_g), d, p)


def test_negative_cycle_leaves_out_showing_the_cycle():
    n = 40
    g = _random_graph(n, seed=5).tolil()
    g[25, 26], g[26, 25] = -3.0, 1.0  # a negative cycle in the second row of tiles
    out = np.full((n, n), 0.5)  # no path has this length (integer weights)
    with pytest.raises(kleene.NegativeCycleError) as err:
        kleene.apsp(g.tocsr(), memory_limit=_limit_for(n, 10), out=out)
    v = int(re.search(r"through vertex (\d+)", str(err.value)).group(1))
    assert v in (25, 26)
    assert out[v, v] < 0  # the documented state: a partial closure showing the cycle
    assert not np.any(out == 0.5)  # written everywhere (the build), not left as given


def test_dense_input_undirected_and_float32():
    rng = np.random.default_rng(4)
    n = 37
    a = np.where(rng.random((n, n)) < 0.2, rng.integers(1, 9, (n, n)), np.inf).astype(np.float32)
    limit = _limit_for(n, 10, itemsize=4)
    d = kleene.apsp(a, memory_limit=limit, directed=False)
    assert d.dtype == np.float32
    np.testing.assert_array_equal(d, kleene.apsp(a, directed=False))
    np.testing.assert_allclose(d, shortest_path(np.where(np.isinf(a), 0, a), directed=False))


def test_max_min_widest_paths_with_predecessors():
    rng = np.random.default_rng(7)
    n = 29
    cap = rng.integers(1, 6, (n, n)).astype(float)
    cap[rng.random((n, n)) < 0.7] = -np.inf
    A = kleene.Matrix.from_dense(cap, missing=-np.inf)
    limit = _limit_for(n, 8, preds=True)
    W, P = kleene.apsp(A, semiring="max_min", memory_limit=limit, return_predecessors=True)
    W0 = kleene.apsp(A, semiring="max_min", method="floyd-warshall")
    np.testing.assert_array_equal(W, W0)
    for i in range(n):
        for j in range(n):
            path = kleene.reconstruct_path(P, i, j)
            if i != j and W[i, j] > -np.inf:
                assert min(cap[a, b] for a, b in zip(path, path[1:], strict=False)) == W[i, j]


def test_reachability_and_tiny_graphs():
    adj = np.random.default_rng(8).random((21, 21)) < 0.1
    R = kleene.apsp(adj, semiring="lor_land", memory_limit=_limit_for(21, 8, itemsize=1))
    assert R.dtype == np.bool_
    np.testing.assert_array_equal(R, kleene.apsp(adj, semiring="lor_land"))
    for n in (0, 1):
        d = kleene.apsp(sp.csr_matrix((n, n)), memory_limit=1024)
        assert d.shape == (n, n) and np.all(d[np.eye(n, dtype=bool)] == 0)


# ---- out= ---------------------------------------------------------------------------


def test_memmap_out(tmp_path, solves):
    n = 45
    g = _random_graph(n, seed=9)
    dist = np.memmap(tmp_path / "d.bin", dtype=np.float64, mode="w+", shape=(n, n))
    pred = np.lib.format.open_memmap(tmp_path / "p.npy", mode="w+", dtype=np.int64, shape=(n, n))
    d, p = kleene.apsp(
        g, out=(dist, pred), return_predecessors=True, memory_limit=_limit_for(n, 12, preds=True)
    )
    assert d is dist and p is pred and solves == [12]
    dist.flush()
    pred.flush()
    back = np.memmap(tmp_path / "d.bin", dtype=np.float64, mode="r", shape=(n, n))
    np.testing.assert_array_equal(back, shortest_path(g))
    check_all_paths(edge_weights(g), back, np.load(tmp_path / "p.npy"))


def test_out_alone_runs_out_of_core_in_one_tile(solves):
    n = 30
    g = _random_graph(n, seed=10)
    out = np.empty((n, n))
    d, p = kleene.apsp(g, out=out, return_predecessors=True)  # predecessors allocated
    assert d is out and solves == [n]  # no limit: one tile holds it all
    np.testing.assert_array_equal(d, shortest_path(g))
    check_all_paths(edge_weights(g), d, p)


def test_in_core_when_the_limit_allows(solves):
    g = _random_graph(20, seed=11)
    d = kleene.apsp(g, memory_limit=2**40)
    assert solves == []
    np.testing.assert_array_equal(d, shortest_path(g))


@pytest.mark.parametrize(
    ("out", "match"),
    [
        (np.empty((5, 5)), r"shape \(5, 5\)"),
        (np.empty((6, 6), dtype=np.float32), "dtype float32"),
        (np.empty((6, 6), order="F"), "C-contiguous"),
        ([[0.0] * 6] * 6, "NumPy array"),
        ((np.empty((6, 6)), np.empty((6, 6))), "return_predecessors=True"),
    ],
)
def test_bad_out_is_a_value_error(out, match):
    with pytest.raises(ValueError, match=match):
        kleene.apsp(_random_graph(6, seed=1), out=out)


def test_bad_out_is_left_untouched():
    g = _random_graph(6, seed=2)
    ro = np.full((6, 6), 3.0)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        kleene.apsp(g, out=ro)
    d, p = np.full((6, 6), 3.0), np.full((6, 6), 3, dtype=np.int32)
    with pytest.raises(ValueError, match="predecessors.*int64"):
        kleene.apsp(g, out=(d, p), return_predecessors=True)
    assert np.all(d == 3.0) and np.all(p == 3)
    with pytest.raises(ValueError, match="method must be 'auto' or 'blocked'"):
        kleene.apsp(g, out=d, method="recursive")
    with pytest.raises(ValueError, match="share memory"):
        kleene.apsp(g, out=(d, d.view(np.int64)), return_predecessors=True)
    assert np.all(d == 3.0)


# ---- memory_limit -------------------------------------------------------------------


@pytest.mark.parametrize("limit", [0, -5, 1.5, 2.0**30, "1GB", True, np.float64(1e9)])
def test_bad_memory_limit_is_a_value_error(limit):
    with pytest.raises(ValueError, match="memory_limit must be a positive"):
        kleene.apsp(_random_graph(10, seed=0), memory_limit=limit)


def test_memory_limit_too_small_for_one_tile():
    n = 50
    least = ooc.smallest_working_set(n, 8, False)
    with pytest.raises(ValueError, match=r"memory_limit=.* too small .*tiles of 8×8.*needs"):
        kleene.apsp(_random_graph(n, seed=0), memory_limit=least - 1)
    assert kleene.apsp(_random_graph(n, seed=0), memory_limit=least).shape == (n, n)


def test_memory_limit_with_other_methods_and_client():
    g = _random_graph(30, seed=0)
    with pytest.raises(ValueError, match="over memory_limit.*'blocked'"):
        kleene.apsp(g, method="recursive", memory_limit=10**4)
    with pytest.raises(ValueError, match="not with client="):
        kleene.apsp(g, memory_limit=10**4, client=object())
    with pytest.raises(ValueError, match="not with client="):
        kleene.apsp(g, device="cpu", client=object())
    with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu'"):
        kleene.apsp(g, device="GPU0")
    d = kleene.apsp(g, memory_limit=_limit_for(30, 10), device="cpu")  # where g is already
    np.testing.assert_array_equal(d, shortest_path(g))
    d = kleene.apsp(g, method="blocked", memory_limit=_limit_for(30, 10))  # out of core
    np.testing.assert_array_equal(d, shortest_path(g))


def test_working_set_stays_under_the_limit(monkeypatch):
    """tracemalloc's peak while the tiles stream (the CPU's "device" memory): at most
    memory_limit and a few small arrays."""
    n = 120
    g = _random_graph(n, seed=12, density=0.05)
    peaks = []
    real = ooc.stream_closure

    def measured(*args):
        tracemalloc.start()
        try:
            real(*args)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()

    monkeypatch.setattr(ooc, "stream_closure", measured)
    for b, preds in ((24, True), (24, False), (40, True), (120, False)):
        limit = _limit_for(n, b, preds=preds)
        out = np.empty((n, n)), np.empty((n, n), dtype=np.int64)
        kleene.apsp(g, memory_limit=limit, out=out if preds else out[0], return_predecessors=preds)
        assert peaks[-1] <= limit + (16 << 10), (b, preds, peaks[-1], limit)
        np.testing.assert_array_equal(out[0], shortest_path(g))


# ---- progress --------------------------------------------------------------------------


@pytest.mark.parametrize("preds", [False, True])
def test_progress_reaches_total_exactly_once(preds):
    n = 41
    seen = []
    kleene.apsp(
        _random_graph(n, seed=13),
        memory_limit=_limit_for(n, 10, preds=preds),
        return_predecessors=preds,
        progress=lambda d, t: seen.append((d, t)),
    )
    done = [d for d, _ in seen]
    (total,) = {t for _, t in seen}
    assert done == sorted(done) and done[-1] == total and done.count(total) == 1
    assert total >= n**3 and len(seen) > 10  # the tiles' n³ multiply-adds, step by step


def test_doctests():
    assert doctest.testmod(ooc).failed == 0


# ---- the GPU's TileStream on a simulated device ------------------------------------
#
# kleene/backends/cuda/tile_stream.py runs here on a fake CuPy whose streams queue every
# operation (copies, kernels, event records and waits) and run them only when the host
# waits (an event or stream synchronize), picking a runnable stream at random: as far
# ahead and as reordered as CUDA allows. A missing event wait shows as a wrong result
# (a slot overwritten before its product read it, a staging chunk reused too early), a
# wait on work nobody queued as a deadlock. Kernels are the CPU back end's, run when
# their turn comes.


class _Op:
    def __init__(self, run, ready=None):
        self.run, self.ready = run, ready or (lambda: True)


class _Sim:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.streams: dict = {}
        self.current: list = []
        self.pinned: list = []  # (start, end) of page-locked host memory
        self.free: dict = {}  # (stream, size, dtype) -> device blocks freed there

    def run_until(self, done) -> None:
        while not done():
            ready = [s for s in self.streams.values() if s.q and s.q[0].ready()]
            if not ready:
                raise AssertionError("deadlock: the host waits for work no stream can run")
            ready[self.rng.integers(len(ready))].q.popleft().run()

    def queue(self, run, ready=None, stream=None) -> None:
        (stream or self.current[-1]).q.append(_Op(run, ready))


def _fake_cupy(sim: _Sim):
    import ctypes
    import types
    from collections import deque
    from unittest import mock

    class ndarray(np.ndarray):  # noqa: N801 (CuPy's name)
        @property
        def data(self):
            return types.SimpleNamespace(ptr=self.ctypes.data)

    class Stream:
        def __init__(self, non_blocking=False):
            self.q, self.ptr = deque(), id(self)
            sim.streams[self.ptr] = self

        def __enter__(self):
            sim.current.append(self)
            return self

        def __exit__(self, *exc):
            sim.current.pop()

        def wait_event(self, ev) -> None:
            v = ev.version
            self.q.append(_Op(lambda: None, lambda: ev.done >= v))

        def synchronize(self) -> None:
            sim.run_until(lambda: not self.q)

    class Event:
        def __init__(self, block=False, disable_timing=False):
            self.version = self.done = 0

        def record(self, stream) -> None:
            self.version += 1
            v = self.version
            stream.q.append(_Op(lambda: setattr(self, "done", max(self.done, v))))

        def synchronize(self) -> None:
            v = self.version
            sim.run_until(lambda: self.done >= v)

    def pinned_memory(nbytes):
        buf = np.zeros(nbytes, dtype=np.uint8)
        sim.pinned.append((buf.ctypes.data, buf.ctypes.data + nbytes))
        return buf

    def host_register(ptr, nbytes, flags):  # pinned_empty pins a NumPy array's pages
        sim.pinned.append((ptr, ptr + nbytes))

    def host_unregister(ptr):
        sim.pinned[:] = [r for r in sim.pinned if r[0] != ptr]

    class Pointer(np.ndarray):
        @property
        def ptr(self):
            return self.ctypes.data

    def memcpy(dst, src, size, kind, stream):
        sim.queue(lambda: ctypes.memmove(dst, src, size), stream=sim.streams[stream])

    def memcpy_2d(dst, dpitch, src, spitch, width, height, kind, stream):
        def run():
            for r in range(height):
                ctypes.memmove(dst + r * dpitch, src + r * spitch, width)

        sim.queue(run, stream=sim.streams[stream])

    def attributes(ptr):
        host = any(lo <= ptr < hi for lo, hi in sim.pinned)
        return types.SimpleNamespace(type=1 if host else 0)

    def diagonal(a):
        class Lazy:
            def copy(self):
                out = np.empty(a.shape[0], dtype=a.dtype).view(ndarray)
                sim.queue(lambda: np.copyto(out, np.diagonal(a)))
                return out

        return Lazy()

    class Namespace(types.SimpleNamespace):
        def __getattr__(self, name):  # what other modules touch at import: a stand-in
            return mock.MagicMock(name=name)

    runtime = Namespace(
        memcpyHostToDevice=1,
        memcpyDeviceToHost=2,
        memcpyAsync=memcpy,
        memcpy2DAsync=memcpy_2d,
        pointerGetAttributes=attributes,
        hostRegister=host_register,
        hostUnregister=host_unregister,
        CUDARuntimeError=type("CUDARuntimeError", (RuntimeError,), {}),
    )
    cuda = Namespace(
        Stream=Stream,
        Event=Event,
        runtime=runtime,
        PinnedMemory=pinned_memory,
        PinnedMemoryPointer=lambda mem, offset: mem[offset:].view(Pointer),
    )
    fake = types.ModuleType("cupy")
    fake.cuda, fake.ndarray, fake.diagonal = cuda, ndarray, diagonal

    def empty(size, dtype):
        """As CuPy's pool: a block freed on the current stream is handed out again at
        once, with no synchronisation (sim.free, filled by the kernels' temporaries)."""
        stream = sim.current[-1].ptr if sim.current else None
        free = sim.free.get((stream, size, np.dtype(dtype)))
        if free:
            return free.pop()
        return np.empty(size, dtype=dtype).view(ndarray)

    fake.empty = empty
    fake.asnumpy = lambda a: np.array(a)
    fake.__getattr__ = lambda name: mock.MagicMock(name=name)
    return fake


@pytest.fixture
def simulated(monkeypatch):
    """(tile_stream module on a fake CuPy, the simulator factory); every module the
    import brought in is dropped afterwards."""
    import importlib
    import sys

    import kleene.backends.cuda as cuda_pkg
    from kleene.backends import cpu

    closure_op = importlib.import_module("kleene.engine.closure")  # the module, not the op

    before = set(sys.modules)
    attrs = set(vars(cuda_pkg))
    sims: list = []

    def load(seed: int):
        sim = _Sim(seed)
        # the CUDA modules re-imported on the fake; the real ones (on a GPU machine)
        # come back when monkeypatch undoes this
        monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(sim))
        for name in [m for m in sys.modules if m.startswith("kleene.backends.cuda.")]:
            if not name.startswith("kleene.backends.cuda.codegen"):
                monkeypatch.delitem(sys.modules, name)
                monkeypatch.delattr(cuda_pkg, name.rsplit(".", 1)[1], raising=False)
        import kleene.backends.cuda.tile_stream as ts

        def star(sr, a, one, p=None):
            a, p = np.asarray(a), None if p is None else np.asarray(p)
            sim.queue(lambda: closure_op._closure_dense(cpu, sr, a, one, p))

        def acc(sr, a, b, c, pb=None, pc=None):
            # As the real kernel's aliased-operand copies: the product reads a
            # temporary copy of a, a tile-sized block freed to the pool as soon as
            # the product is queued (the next slot made on this stream may get it).
            a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
            pb, pc = (None if x is None else np.asarray(x) for x in (pb, pc))
            base = a.base if a.base is not None else a
            tmp = ts.cupy.empty(base.size, base.dtype)
            view = np.asarray(tmp)[: a.size].reshape(a.shape)
            sim.queue(lambda: np.copyto(view, a))
            sim.queue(lambda: closure_op._mxm_dense_acc(cpu, sr, view, b, c, pb, pc))
            key = (sim.current[-1].ptr, base.size, base.dtype)
            sim.free.setdefault(key, []).append(tmp)

        monkeypatch.setattr(ts, "closure_dense", star)
        monkeypatch.setattr(ts, "mxm_dense_acc", acc)
        sims.append(sim)
        return ts, sim

    yield load
    for name in set(sys.modules) - before:  # imported on the fake only
        del sys.modules[name]
    for name in set(vars(cuda_pkg)) - attrs:
        delattr(cuda_pkg, name)


def _simulated_run(ts, sim, g, tile, preds, pinned, semiring="min_plus"):
    """apsp_out_of_core's schedule on the simulated GPU (host arrays pinned or not)."""
    from kleene.progress import Progress
    from kleene.semiring import get_semiring

    sr = get_semiring(semiring)
    A = kleene.Matrix.from_scipy(g)
    n = A.nrows
    new = ts.pinned_empty if pinned else (lambda shape, dtype: np.empty(shape, dtype))
    D = new((n, n), A.dtype)
    P = new((n, n), np.int64) if preds else None
    ooc.build(A, sr, D, P)
    dev = ts.TileStream(sr, D.dtype, tile, preds, (D, P))
    assert dev.direct == pinned
    try:
        ooc.stream_closure(dev, D, P, ooc.Tiles(n, tile), sr, Progress(None, n**3))
    finally:
        dev.close()
    assert all(not s.q for s in sim.streams.values())
    return D, P


@pytest.mark.parametrize("pinned", [True, False], ids=["direct", "staged"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tile_stream_ordering_on_a_simulated_device(simulated, pinned, seed):
    n, tile = 37, 8  # 5 tiles a side, the last one narrower
    g = _random_graph(n, seed=20 + seed, density=0.12)
    ts, sim = simulated(seed)
    if not pinned:  # chunks of 3 rows of 8 float64: many per tile, the ring wraps
        ts._CHUNK_BYTES = 3 * 8 * 8
    want_d, want_p = kleene.apsp(g, method="floyd-warshall", return_predecessors=True)
    d, p = _simulated_run(ts, sim, g, tile, True, pinned)
    np.testing.assert_array_equal(d, want_d)
    check_all_paths(edge_weights(g), d, np.where(np.isfinite(d), p, -1))
    for tile in (13, 19):  # other tiles (2 a side: a round's last tile is the next pivot)
        d2, _ = _simulated_run(ts, sim, g, tile, False, pinned)
        np.testing.assert_array_equal(d2, want_d)


def test_tile_stream_finds_a_negative_cycle_and_stops_cleanly(simulated):
    ts, sim = simulated(4)
    g = _random_graph(30, seed=6).tolil()
    g[17, 18], g[18, 17] = -4.0, 1.0
    with pytest.raises(kleene.NegativeCycleError, match="through vertex 1[78]"):
        _simulated_run(ts, sim, g.tocsr(), 8, False, True)
    assert all(not s.q for s in sim.streams.values())  # close() waited for everything


# ---- "auto" past memory ----------------------------------------------------------------


@pytest.mark.parametrize("semiring", ["min_plus", "max_min"])
def test_auto_goes_out_of_core_when_only_the_result_fits(monkeypatch, solves, semiring):
    from kleene.algorithms import apsp_memory

    n = 60
    g = _random_graph(n, seed=14)
    # 80% of this holds the result (8 bytes a pair) and the fixed 64 MiB, not the in-core
    # closure's copies (32 bytes a pair) nor repeated SSSP's batch of sources
    free = int(((64 << 20) + 12 * n * n) / 0.8)
    want = kleene.apsp(g, semiring=semiring, method="blocked")
    monkeypatch.setattr(apsp_memory, "host_memory_free", lambda: free)
    d = kleene.apsp(g, semiring=semiring)
    assert solves == [n]
    np.testing.assert_array_equal(d, want)


def test_memory_error_suggests_a_memmap_when_host_memory_is_too_small(monkeypatch):
    from kleene.algorithms import apsp_memory

    monkeypatch.setattr(apsp_memory, "host_memory_free", lambda: 1 << 20)
    for kw in ({}, {"semiring": "max_min"}, {"method": "recursive"}):
        with pytest.raises(MemoryError, match=r"up to about n=.*out=numpy\.memmap"):
            kleene.apsp(_random_graph(50, seed=0), **kw)
    with pytest.raises(MemoryError, match=r"host memory.*out=numpy\.memmap"):
        kleene.apsp(_random_graph(50, seed=0), memory_limit=10**5)
    out = np.empty((50, 50))
    with pytest.raises(MemoryError, match="predecessors"):  # P (8 bytes a pair) allocated
        kleene.apsp(_random_graph(50, seed=0), out=out, return_predecessors=True)


@pytest.mark.bench
def test_benchmark_quick_run(tmp_path):
    """benchmarks/bench_out_of_core.py --quick: every row timed, the JSON and table written."""
    import importlib.util
    import json
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "benchmarks"
    sys.path.insert(0, str(bench))
    try:
        spec = importlib.util.spec_from_file_location(
            "bench_out_of_core", bench / "bench_out_of_core.py"
        )
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mod.main(["--quick", "--out", str(tmp_path / "ooc.json")])
    finally:
        sys.path.remove(str(bench))
    doc = json.loads((tmp_path / "ooc.json").read_text())
    assert doc["benchmark"] == "out_of_core" and doc["environment"]["date"]
    rows = doc["rows"]
    assert [r["n"] for r in rows] == [256, 256, 512, 512]
    assert all(isinstance(r["median s"], float) and r["median s"] > 0 for r in rows)
    assert all(r["tile"] < r["n"] and r["x in-core"] > 0 for r in rows[1::2])
    assert "out-of-core" in (tmp_path / "ooc.md").read_text()
