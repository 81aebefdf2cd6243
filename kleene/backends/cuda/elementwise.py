"""Elementwise primitives: binary, unary, index_unary (cupy.ElementwiseKernel).

The kernel body is a generated inline function of the operator's ``cuda_expr``
(see :func:`codegen.binary_kernel`); operands are cast to the dtypes NumPy would
compute in, so results match the CPU back end.
"""

from __future__ import annotations

import cupy
import numpy as np

from kleene.semiring import BinaryOp, IndexUnaryOp, UnaryOp
from kleene.semiring.dtypes import as_dtype

from . import codegen, jit


def _operand(v) -> cupy.ndarray:
    """``v`` as a CuPy array with the dtype ``np.asarray(v)`` would have."""
    if isinstance(v, cupy.ndarray):
        return v
    return cupy.asarray(np.asarray(v))


def binary(op: BinaryOp, x, y, out_dtype) -> cupy.ndarray:
    """z = op(x, y) elementwise, broadcasting, cast to ``out_dtype``."""
    x, y = _operand(x), _operand(y)
    out = as_dtype(out_dtype)
    if op.typing in ("first", "second"):
        tx, ty = as_dtype(x.dtype), as_dtype(y.dtype)  # the ignored side keeps its dtype
    else:
        tx = ty = as_dtype(np.result_type(x.dtype, y.dtype))
    parts = codegen.binary_kernel(op, tx, ty, out)
    kern = jit.elementwise(parts, ("binary", op.key, tx.str, ty.str, out.str))
    z = cupy.empty(np.broadcast_shapes(x.shape, y.shape), dtype=out)
    kern(x.astype(tx, copy=False), y.astype(ty, copy=False), z)
    return z


def unary(op: UnaryOp, x, out_dtype) -> cupy.ndarray:
    """z = op(x) elementwise, cast to ``out_dtype``."""
    x = _operand(x)
    tx, out = as_dtype(x.dtype), as_dtype(out_dtype)
    parts = codegen.unary_kernel(op, tx, out)
    kern = jit.elementwise(parts, ("unary", op.key, tx.str, out.str))
    z = cupy.empty(x.shape, dtype=out)
    kern(x, z)
    return z


def _thunk_dtype(op: IndexUnaryOp, xdtype, thunk) -> np.dtype:
    """The dtype NumPy compares in: x's (or int64 for index ops) with thunk's."""
    base = np.dtype(np.int64) if op.thunk_type == "index" else np.dtype(xdtype)
    if thunk is None:
        return base
    if isinstance(thunk, cupy.ndarray):
        thunk = thunk.dtype
    try:
        return as_dtype(np.result_type(base, thunk))
    except (TypeError, OverflowError):
        return as_dtype(np.result_type(base, np.asarray(thunk).dtype))


def index_unary(op: IndexUnaryOp, x, i, j, thunk) -> cupy.ndarray:
    """Boolean keep-mask of op(x, i, j, thunk); i, j are int64 arrays like x."""
    x = _operand(x)
    tx = as_dtype(x.dtype)
    tt = _thunk_dtype(op, tx, thunk)
    parts = codegen.index_unary_kernel(op, tx, tt)
    kern = jit.elementwise(parts, ("index_unary", op.key, tx.str, tt.str))
    t = thunk.get() if isinstance(thunk, cupy.ndarray) else thunk
    t = tt.type(0 if t is None else t)
    z = cupy.empty(x.shape, dtype=np.bool_)
    i, j = (_operand(v).astype(np.int64, copy=False) for v in (i, j))
    kern(x, i, j, t, z)
    return z
