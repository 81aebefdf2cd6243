"""gather_square: out = C[idx][:, idx] in one pass (kernels/gather_square.cu).

The GPU transitive closure expands its component graph's closure back to the
vertices this way (``transitive._closure_condensed``): one n² write, no n × c
intermediate, so the peak stays at the component closure plus the result.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cupy
import numpy as np

from kleene.errors import InvalidValue

_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


@cache
def _kernels(device: int) -> dict:
    names = {size: f"kl_gather_square<{t}>" for size, t in _TYPES.items()}
    code = (Path(__file__).parent / "kernels" / "gather_square.cu").read_text()
    mod = cupy.RawModule(code=code, options=("-std=c++17",), name_expressions=list(names.values()))
    return {size: mod.get_function(name) for size, name in names.items()}


def gather_square(c: cupy.ndarray, idx: cupy.ndarray, out: cupy.ndarray | None = None):
    """out[i, j] = c[idx[i], idx[j]] (out: n × n, C-contiguous, made if None) for a
    square 2-D ``c`` with unit column stride and int32 ``idx`` of length n, every
    entry in range (not checked: callers pass component labels)."""
    n = int(idx.size)
    if c.ndim != 2 or c.shape[0] != c.shape[1] or (c.shape[0] > 1 and c.strides[1] != c.itemsize):
        raise InvalidValue(
            f"gather_square: c must be square with unit column stride, got {c.shape}"
        )
    if c.itemsize not in _TYPES:
        raise InvalidValue(f"gather_square: no kernel for {c.itemsize}-byte elements")
    if out is None:
        out = cupy.empty((n, n), dtype=c.dtype)
    if out.shape != (n, n) or not out.flags.c_contiguous or out.dtype != c.dtype:
        raise InvalidValue(f"gather_square: out must be a C-contiguous {n} x {n} {c.dtype} array")
    if n == 0:
        return out
    idx = cupy.ascontiguousarray(idx, dtype=cupy.int32)
    ldc = c.strides[0] // c.itemsize if c.shape[0] > 1 else c.shape[1]
    kern = _kernels(cupy.cuda.runtime.getDevice())[c.itemsize]
    grid = (max(1, min(-(-n // 1024), 64)), min(n, 16384))
    kern(grid, (256,), (c, np.int64(ldc), idx, out, np.int64(n)))
    return out
