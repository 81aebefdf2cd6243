"""Reductions: segment_reduce and reduce_all (one template, kernels/segment_reduce.cu)."""

from __future__ import annotations

from functools import lru_cache

import cupy
import numpy as np

from ...semiring import Monoid
from ...semiring.dtypes import as_dtype
from . import codegen, jit

# reduce_all folds chunks of this many values per level (a group of 32 lanes each).
_CHUNK = 8192


@lru_cache(maxsize=512)
def _spec(monoid: Monoid, dtype: np.dtype) -> codegen.Spec:
    return codegen.segment_reduce_spec(monoid, dtype)


def group_size(mean: float) -> int:
    """Lanes per segment/row: about mean / UNROLL, a power of two in [1, 32]."""
    g = 1
    while g < 32 and g * codegen.UNROLL < mean:
        g *= 2
    return g


def segment_reduce(monoid: Monoid, values, offsets, dtype) -> cupy.ndarray:
    """Reduce ``values[offsets[s]:offsets[s+1]]`` for each segment s (empty -> identity)."""
    d = as_dtype(dtype)
    values = jit.contiguous(values, d)
    offsets = jit.contiguous(offsets, np.int64)
    nseg = max(int(offsets.size) - 1, 0)
    if nseg == 0 or values.size == 0:
        return cupy.full(nseg, monoid.identity_for(d), dtype=d)
    out = cupy.empty(nseg, dtype=d)
    g = group_size(values.size / nseg)
    fn = jit.function(_spec(monoid, d), f"kl_segment_reduce<{g}>")
    blocks = jit.blocks_for(nseg * g, codegen.BLOCK)
    fn((blocks,), (codegen.BLOCK,), (values, offsets, np.int64(nseg), out))
    return out


def reduce_all(monoid: Monoid, values, dtype) -> cupy.ndarray:
    """The monoid reduction of a 1-D array (identity if empty), as a 0-d array.

    Folds fixed chunks level by level, so the result is deterministic and, like
    the CPU back end, never mixes the identity into a non-empty reduction.
    """
    d = as_dtype(dtype)
    vals = jit.contiguous(values, d).ravel()
    while vals.size > _CHUNK:
        n = vals.size
        offsets = cupy.arange(0, n + _CHUNK, _CHUNK, dtype=np.int64)
        offsets[-1] = n
        vals = segment_reduce(monoid, vals, offsets, d)
    offsets = cupy.asarray(np.array([0, vals.size], dtype=np.int64))
    return segment_reduce(monoid, vals, offsets, d).reshape(())


# A one-pass scan of a dense matrix's float values where its bitmap says present (present
# None: all) for a NaN, the check every call on fresh data makes: one fused reduction per
# row and one read back, where an isnan() mask, its & with the bitmap and an any() took
# three passes.
_ANY_NAN = cupy.ReductionKernel("T x, bool p", "bool y", "p && x != x", "a || b", "y = a",
                                "false", "kl_any_nan_present")  # fmt: skip
_ANY_NAN_ALL = cupy.ReductionKernel("T x", "bool y", "x != x", "a || b", "y = a", "false",
                                    "kl_any_nan")  # fmt: skip


def _by_rows(values, present):
    """2-D views for a reduction over rows first: CuPy gives a custom reduction one
    block per output, so a scalar output would run on one block (13 ms at 4096²)."""
    if values.ndim == 2:
        return values, present
    cols = 1024 if values.size % 1024 == 0 else 1
    return values.reshape(-1, cols), None if present is None else present.reshape(-1, cols)


def any_nan_present(values, present) -> bool:
    """Whether a present entry of a float array is NaN (one pass over it)."""
    if values.size == 0:
        return False
    v, p = _by_rows(values, present)
    rows = _ANY_NAN_ALL(v, axis=1) if p is None else _ANY_NAN(v, p, axis=1)
    return bool(rows.any().item())
