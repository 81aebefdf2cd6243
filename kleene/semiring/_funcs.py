"""NumPy implementations of the built-in operators.

They work on NumPy arrays and, through NumPy's dispatch protocols, on CuPy arrays
(used only by the reference and CPU paths; the GPU uses the CUDA expressions).
"""

from __future__ import annotations

import numpy as np


def _xp(a):
    mod = type(a).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


def tplus(x, y):
    """Tropical plus: x + y; on integers the dtype's max/min act as ±inf and sums saturate."""
    xp = _xp(x)
    x = xp.asarray(x)
    y = xp.asarray(y)
    dt = np.result_type(x.dtype, y.dtype)
    if dt.kind == "f":
        return x + y
    if dt.kind == "b":
        return x | y
    info = np.iinfo(dt)
    hi, lo = dt.type(info.max), dt.type(info.min)
    x = x.astype(dt, copy=False)
    y = y.astype(dt, copy=False)
    with np.errstate(over="ignore"):
        s = x + y  # wraps on overflow; fixed below
    s = xp.where((x > 0) & (y > 0) & (s < 0), hi, s)
    s = xp.where((x < 0) & (y < 0) & (s >= 0), lo, s)
    s = xp.where((x == lo) | (y == lo), lo, s)
    s = xp.where((x == hi) | (y == hi), hi, s)
    return s


def first(x, y):
    xp = _xp(x)
    x = xp.asarray(x)
    return xp.broadcast_to(x, xp.broadcast_shapes(x.shape, xp.shape(y))).copy()


def second(x, y):
    xp = _xp(y)
    y = xp.asarray(y)
    return xp.broadcast_to(y, xp.broadcast_shapes(xp.shape(x), y.shape)).copy()


def pair(x, y):
    xp = _xp(x)
    return xp.ones(xp.broadcast_shapes(xp.shape(x), xp.shape(y)), dtype=bool)


def lor(x, y):
    return np.logical_or(x, y)


def land(x, y):
    return np.logical_and(x, y)


def lxor(x, y):
    return np.logical_xor(x, y)


def plus(x, y):
    xp = _xp(x)
    x, y = xp.asarray(x), xp.asarray(y)
    if x.dtype == bool:
        return x | y
    with np.errstate(over="ignore"):
        return x + y


def times(x, y):
    xp = _xp(x)
    x, y = xp.asarray(x), xp.asarray(y)
    if x.dtype == bool:
        return x & y
    with np.errstate(over="ignore", invalid="ignore"):
        return x * y


def minus(x, y):
    xp = _xp(x)
    x, y = xp.asarray(x), xp.asarray(y)
    if x.dtype == bool:
        return x ^ y
    with np.errstate(over="ignore"):
        return x - y
