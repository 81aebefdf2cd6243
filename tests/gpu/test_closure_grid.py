"""The one-launch closure of mid-size blocks (kernels/closure_grid.cu) on the GPU.

Against the CPU's Floyd-Warshall (closure_generic) exactly on exact values, against
its composed twin (the blocked closure of one-block closures and mxm_dense_acc
launches), bit-repeatable, the fallback where the cooperative launch is refused,
the base case it gives a recursive closure, and APSP ("auto" takes it) against SciPy.
Skipped without CuPy or a GPU.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import check, g, gpu_missing  # noqa: E402

pytestmark = pytest.mark.gpu

_WHY = gpu_missing()
if _WHY is not None:
    pytest.skip(_WHY, allow_module_level=True)

import cupy  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from scipy.sparse.csgraph import shortest_path  # noqa: E402
from test_closure_primitives import closure_ref, closure_values  # noqa: E402

import kleene  # noqa: E402
from kleene.backends import cuda  # noqa: E402
from kleene.backends.cuda import closure as cuda_closure  # noqa: E402
from kleene.backends.cuda import jit  # noqa: E402
from kleene.semiring import SEMIRINGS  # noqa: E402

GRID_CASES = [
    ("min_plus", np.float32),
    ("min_plus", np.float64),
    ("min_plus", np.int32),
    ("min_plus", np.int64),
    ("max_plus", np.float32),
    ("max_min", np.float32),
    ("max_min", np.int64),
    ("min_max", np.int32),
    ("max_times", np.float64),
]
SIZES = (129, 161, 255, 256, 520, 1031)


@pytest.fixture
def grid_only(monkeypatch):
    """Fail if a closure past one block takes the composed (blocked) path."""

    def no_blocked(*args, **kwargs):
        raise AssertionError("the blocked path ran where the one-launch closure should")

    monkeypatch.setattr(cuda_closure, "_blocked", no_blocked)


@pytest.mark.parametrize("name, d", GRID_CASES)
def test_closure_grid_matches_closure_generic(name, d, grid_only):
    """Exact values (integer weights, powers of two): the same closure as the CPU's
    Floyd-Warshall, also on a strided view of a larger matrix, in place."""
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(40)
    for n in SIZES:
        w = closure_values(rng, n, sr, d)
        want, _ = closure_ref(sr, w)
        gw = g(w)
        cuda.closure_dense(sr, gw, sr.one_for(w.dtype))
        check(gw, want, w.dtype, sr.add)
    n = 300
    w = closure_values(rng, n, sr, d)
    want, _ = closure_ref(sr, w)
    big = np.full((n + 9, n + 12), sr.one_for(w.dtype), dtype=w.dtype)
    big[4 : 4 + n, 7 : 7 + n] = w
    gbig = g(big)
    cuda.closure_dense(sr, gbig[4 : 4 + n, 7 : 7 + n], sr.one_for(w.dtype))
    big[4 : 4 + n, 7 : 7 + n] = want
    np.testing.assert_array_equal(cupy.asnumpy(gbig), big)  # nothing around it touched


def test_closure_grid_matches_its_composed_twin(monkeypatch):
    """Fractional weights (sums round): the one launch and the blocked closure of
    one-block closures and in-place products agree to rounding."""
    sr = SEMIRINGS["min_plus"]
    rng = np.random.default_rng(41)
    for n in (200, 700, 2048):
        w = rng.uniform(1, 100, (n, n)).astype(np.float32)
        w[rng.random((n, n)) > 8.0 / n] = np.inf
        one = cupy.asarray(w)
        cuda.closure_dense(sr, one, 0.0)
        monkeypatch.setattr(cuda_closure, "GRID_MAX", 0)
        twin = cupy.asarray(w)
        cuda.closure_dense(sr, twin, 0.0)
        monkeypatch.setattr(cuda_closure, "GRID_MAX", 2048)
        a, b = cupy.asnumpy(one), cupy.asnumpy(twin)
        assert np.array_equal(np.isinf(a), np.isinf(b))
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_closure_grid_repeats_bit_identical(grid_only):
    """Grid barriers, no atomics on values: the same input gives the same bits."""
    sr = SEMIRINGS["min_plus"]
    rng = np.random.default_rng(42)
    w = rng.uniform(-1, 100, (1500, 1500)).astype(np.float32)  # a few negative edges
    w[rng.random(w.shape) > 0.01] = np.inf
    w[np.arange(1500), np.arange(1500)] = 0
    w = np.where(w < 0, np.abs(w), w)  # no negative cycle
    runs = []
    for _ in range(3):
        gw = g(w)
        cuda.closure_dense(sr, gw, 0.0)
        runs.append(cupy.asnumpy(gw).tobytes())
    assert runs[0] == runs[1] == runs[2]


def test_closure_grid_refused_falls_back(monkeypatch):
    """Where the device refuses the cooperative launch: the blocked path, same closure,
    and recursive closures go back to one-block base cases."""
    sr = SEMIRINGS["min_plus"]
    w = closure_values(np.random.default_rng(43), 300, sr, np.float32)
    want, _ = closure_ref(sr, w)
    monkeypatch.setattr(cuda_closure, "_no_grid", {jit.device_id()})
    gw = g(w)
    cuda.closure_dense(sr, gw, 0.0)
    check(gw, want, w.dtype, sr.add)
    assert kleene.engine.closure_base_block(4096, np.float32, cupy) == 128


def test_closure_base_block_on_the_gpu():
    """Whole blocks up to GRID_MAX, GRID_BASE past it; one block's limit otherwise."""
    base = kleene.engine.closure_base_block
    assert base(100, np.float32, cupy) == 100
    assert base(2048, np.float32, cupy) == 2048
    assert base(2049, np.float64, cupy) == cuda_closure.GRID_BASE == 1024
    assert base(4096, np.int32, cupy) == 1024
    assert base(4096, np.float32, cupy, preds=True) == 128
    assert base(4096, np.bool_, cupy) == 128
    assert base(4096, np.int16, cupy) == 128


@pytest.mark.parametrize("n", [700, 2500])
def test_apsp_auto_on_grid_bases_matches_scipy(n):
    """APSP "auto" on the GPU: recursive on one-launch base blocks (n = 2500: two
    levels down to 625), replayed as a CUDA graph, twice; equals SciPy's Dijkstra."""
    rng = np.random.default_rng(44 + n)
    m = 6 * n
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    vals = rng.uniform(1, 50, m)
    keep = rows != cols
    a = sp.coo_matrix((vals[keep], (rows[keep], cols[keep])), shape=(n, n)).tocsr()
    a.sum_duplicates()
    want = shortest_path(a, method="D")
    G = kleene.Matrix.from_scipy(a.astype(np.float32)).to("gpu")
    for _ in range(2):
        got = cupy.asnumpy(kleene.apsp(G))
        assert np.array_equal(np.isinf(got), np.isinf(want))
        fin = np.isfinite(want)
        np.testing.assert_allclose(got[fin], want[fin], rtol=1e-5)
