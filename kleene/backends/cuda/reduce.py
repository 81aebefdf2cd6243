"""Reductions: segment_reduce and reduce_all (one template, kernels/segment_reduce.cu)."""

from __future__ import annotations

from functools import lru_cache

import cupy
import numpy as np

from kleene.semiring import Monoid
from kleene.semiring.dtypes import as_dtype

from . import codegen, jit

# reduce_all folds chunks of this many values per level (a group of 32 lanes each) down
# to at most _SMALL values, which one block then folds.
_CHUNK = 1024
_SMALL = 8192


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

    Folds fixed chunks level by level, then the last (or a short array: a closure's
    diagonal) in one block, so the result is deterministic and, like the CPU back
    end, never mixes the identity into a non-empty reduction.
    """
    d = as_dtype(dtype)
    vals = jit.contiguous(values, d).ravel()
    while vals.size > _SMALL:
        n = vals.size
        offsets = cupy.arange(0, n + _CHUNK, _CHUNK, dtype=np.int64)
        offsets[-1] = n
        vals = segment_reduce(monoid, vals, offsets, d)
    out = cupy.empty((), dtype=d)
    fn = jit.function(_spec(monoid, d), "kl_reduce_small")
    fn((1,), (codegen.BLOCK,), (vals, np.int64(vals.size), out))
    return out
