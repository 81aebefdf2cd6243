"""Whether two arrays (NumPy or CuPy, possibly strided views) share memory.

Neutral ground for the generic closure code (``closure_generic``) and the CUDA
back end (``cuda/dense.py``): it imports nothing from the operation layer.
"""

from __future__ import annotations

import numpy as np

from .device import array_module


def overlaps(x, y) -> bool:
    """Do two (possibly strided) views share memory?"""
    if array_module(x) is np:
        return bool(np.shares_memory(x, y))
    lo_x, hi_x = _span(x)
    lo_y, hi_y = _span(y)
    return lo_x < hi_y and lo_y < hi_x


def _span(a):
    """[first, last] byte addresses of a view with non-negative strides (cheap: called
    for every product of a recursive APSP)."""
    start = a.data.ptr
    end = start + a.itemsize
    for size, stride in zip(a.shape, a.strides):  # noqa: B905 (same length)
        end += (size - 1) * stride
    return start, end
