"""mxm_dense: the tiled semiring GEMM (kernels/mxm_dense.cu)."""

from __future__ import annotations

from functools import lru_cache

import cupy
import numpy as np

from ...semiring import Semiring
from ...semiring.dtypes import as_dtype
from . import codegen, jit
from .elementwise import binary

# Below this many steps (m*n*k) the fast path's range check costs more than it saves.
_FAST_MIN_STEPS = 1 << 24
_INT_LIMIT = (1 << 31) - 1
# Tile-shape override for tuning (benchmarks/bench_core.py --mxm-sweep); None: defaults.
CONFIG_OVERRIDE: dict | None = None


@lru_cache(maxsize=512)
def _spec(sr: Semiring, ta: np.dtype, tb: np.dtype, tc: np.dtype, fast, override) -> codegen.Spec:
    return codegen.mxm_spec(sr, ta, tb, tc, fast, dict(override))


def _fast_path_ok(fast: str, a: cupy.ndarray, b: cupy.ndarray) -> bool:
    """True if every int32 input is in the fast path's range (one sync)."""
    fn = jit.function(codegen.range_check_spec(), f"kl_range_check<{int(fast == 'imax')}>")
    bad = cupy.zeros(1, dtype=np.int32)
    for x in (a, b):
        blocks = jit.blocks_for(x.size, 256, cap=jit.sm_count(jit.device_id()) * 8)
        fn((blocks,), (256,), (x, np.int64(x.size), bad))
    return not bool(bad.get()[0])


def mxm_dense(semiring: Semiring, a, b, out_dtype) -> cupy.ndarray:
    """C = A ⊕.⊗ B on full dense arrays (every entry present), C of ``out_dtype``.

    The any monoid keeps the first term, A(i,0) ⊗ B(0,j).
    """
    out = as_dtype(out_dtype)
    a, b = jit.contiguous(a), jit.contiguous(b)
    m, k = a.shape
    k2, n = b.shape
    if k != k2:
        raise ValueError(f"mxm_dense: inner dimensions differ: {a.shape} and {b.shape}")
    if max(m, n, k) > _INT_LIMIT:
        raise ValueError(f"mxm_dense: dimensions {m}x{k}x{n} exceed the kernel's int32 indexing")
    add = semiring.add
    if k == 0 or m == 0 or n == 0:
        return cupy.full((m, n), add.identity_for(out), dtype=out)
    if add.stops_at_first:
        return binary(semiring.mul, a[:, :1], b[:1, :], out)
    ta, tb = as_dtype(a.dtype), as_dtype(b.dtype)
    fast = codegen.mxm_fast_kind(semiring, out)
    big = m * n * k >= _FAST_MIN_STEPS
    if fast and not (ta == tb == out and big and _fast_path_ok(fast, a, b)):
        fast = None
    override = tuple(sorted((CONFIG_OVERRIDE or {}).items()))
    spec = _spec(semiring, ta, tb, out, fast, override)
    cfg = codegen.mxm_config(ta, tb, out, **dict(override))
    c = cupy.empty((m, n), dtype=out)
    vec = bool(cfg["VEC"]) and k % 4 == 0 and n % 4 == 0
    vec = vec and all(x.data.ptr % 16 == 0 for x in (a, b, c))
    grid = (-(-n // cfg["BN"]), -(-m // cfg["BM"]))
    if grid[1] > 65535:
        raise ValueError(f"mxm_dense: {m} rows exceed the kernel's grid ({65535 * cfg['BM']})")
    threads = (cfg["BM"] // cfg["TM"]) * (cfg["BN"] // cfg["TN"])
    fn = jit.function(spec, f"kl_mxm_dense<{'true' if vec else 'false'}>")
    args = (a, b, c, np.int32(m), np.int32(n), np.int32(k), np.int64(k), np.int64(n), np.int64(n))
    fn(grid, (threads,), args)
    return c
