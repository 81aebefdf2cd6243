"""ewise_add, ewise_mult, apply, select: entry-by-entry operations."""

from __future__ import annotations

import numpy as np

from kleene.backends.device import backend
from kleene.core import access
from kleene.core.checks import as_binary, as_container, same_device
from kleene.core.entries import Bitmap, Keys, intersection, union
from kleene.core.matrix import Matrix
from kleene.core.vector import Vector
from kleene.errors import DimensionMismatch, DomainMismatch, InvalidValue
from kleene.semiring import UnaryOp, get_indexunary, get_unary
from kleene.semiring.builtins import indexunary
from kleene.semiring.dtypes import resolve_scalar

from .write import finish


def _entries(x):
    """A container's entries in the form its format suggests (Bitmap or Keys)."""
    if x.format == "dense":
        values, present = access.bitmap(x)
        return Bitmap(values, present)
    return Keys(*access.keys(x))


def _kind(x):
    return Matrix if isinstance(x, Matrix) else Vector


def _finish(opname, xp, t, x, dtype, out, mask, accum, replace):
    return finish(
        opname,
        xp,
        t,
        shape=x.shape,
        dtype=dtype,
        kind=_kind(x),
        out=out,
        mask=mask,
        accum=accum,
        replace=replace,
    )


def _binary_args(opname, A, B, op, out, mask):
    as_container(opname, "A", A)
    as_container(opname, "B", B, (type(A),))
    if A.shape != B.shape:
        raise DimensionMismatch(f"{opname}: shapes differ: A is {A.shape}, B is {B.shape}")
    op = as_binary(opname, op)
    try:
        dtype = op.result_dtype(A.dtype, B.dtype)
    except TypeError:
        raise DomainMismatch(
            f"{opname}: A has dtype {A.dtype} and B has dtype {B.dtype}; "
            f"operator {op.name} needs one dtype"
        ) from None
    xp = same_device(opname, A=A, B=B, out=out, mask=mask)
    return op, dtype, xp


def ewise_add(A, B, op, *, mask=None, accum=None, replace=False, out=None):
    """C<mask> = accum(C, A ⊕ B) over the union of the two structures.

    Where both have an entry the result is ``op(a, b)``; where one has, its value.

    Example
    -------
    >>> import kleene
    >>> u = kleene.Vector.from_coo([0, 1], [1.0, 5.0], 3)
    >>> v = kleene.Vector.from_coo([1, 2], [2.0, 7.0], 3)
    >>> kleene.ewise_add(u, v, "min").to_dense().tolist()
    [1.0, 2.0, 7.0]
    """
    op, dtype, xp = _binary_args("ewise_add", A, B, op, out, mask)
    t = union(xp, _entries(A), _entries(B), op, dtype)
    return _finish("ewise_add", xp, t, A, dtype, out, mask, accum, replace)


def ewise_mult(A, B, op, *, mask=None, accum=None, replace=False, out=None):
    """C<mask> = accum(C, A ⊗ B) over the intersection of the two structures.

    Example
    -------
    >>> import kleene
    >>> u = kleene.Vector.from_coo([0, 1], [1.0, 5.0], 3)
    >>> v = kleene.Vector.from_coo([1, 2], [2.0, 7.0], 3)
    >>> kleene.ewise_mult(u, v, "plus").to_coo()[1].tolist()
    [7.0]
    """
    op, dtype, xp = _binary_args("ewise_mult", A, B, op, out, mask)
    t = intersection(xp, _entries(A), _entries(B), op, dtype)
    return _finish("ewise_mult", xp, t, A, dtype, out, mask, accum, replace)


def _with_values(t, values):
    return Bitmap(values, t.present) if isinstance(t, Bitmap) else Keys(t.keys, values)


def apply(A, op, *, left=None, right=None, mask=None, accum=None, replace=False, out=None):
    """C<mask> = accum(C, f(A)): a unary op, or a binary op bound to a scalar.

    ``apply(A, unary_op)``; ``apply(A, binary_op, left=s)`` computes s ⊙ a;
    ``apply(A, binary_op, right=s)`` computes a ⊙ s. A plain number s takes A's
    dtype; a NumPy scalar keeps its own (``apply(q, "second", right=np.int64(3))``).

    Example
    -------
    >>> import kleene
    >>> u = kleene.Vector.from_coo([0, 2], [1.0, 5.0], 3)
    >>> kleene.apply(u, "plus", right=10.0).to_coo()[1].tolist()
    [11.0, 15.0]
    """
    as_container("apply", "A", A)
    xp = same_device("apply", A=A, out=out, mask=mask)
    be = backend(xp)
    t = _entries(A)
    if isinstance(op, UnaryOp) or (isinstance(op, str) and left is None and right is None):
        uop = get_unary(op)
        dtype = uop.result_dtype(A.dtype)
        values = be.unary(uop, t.values, dtype)
    else:
        bop = as_binary("apply", op)
        if (left is None) == (right is None):
            raise InvalidValue("apply with a binary operator needs exactly one of left= or right=")
        s = left if right is None else right
        # A typed NumPy scalar keeps its dtype (for first/second); plain numbers take A's.
        s_dtype = s.dtype if isinstance(s, np.generic) else A.dtype
        scalar = xp.asarray(resolve_scalar(s, s_dtype))
        x, y = (scalar, t.values) if right is None else (t.values, scalar)
        dtype = bop.result_dtype(x.dtype, y.dtype)
        values = be.binary(bop, x, y, dtype)
    return _finish("apply", xp, _with_values(t, values), A, dtype, out, mask, accum, replace)


def select(A, op, thunk=None, *, mask=None, accum=None, replace=False, out=None):
    """C<mask> = accum(C, A where op(a, i, j, thunk)): keep the entries a predicate accepts.

    ``op`` is an IndexUnaryOp or a built-in name: tril, triu, diag, offdiag,
    rowle, rowgt, colle, colgt, valueeq, valuene, valuelt, valuele, valuegt, valuege.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 2], [1, 0, 2], [1.0, 9.0, 4.0])
    >>> kleene.select(A, "valuegt", 2.0).nvals
    2
    """
    as_container("select", "A", A)
    xp = same_device("select", A=A, out=out, mask=mask)
    iop = get_indexunary(op)
    if thunk is None:
        thunk = 0
    if iop is indexunary.diag and isinstance(A, Matrix) and A.format == "dense":
        keys, values = access.diagonal_keys(A, int(thunk))  # O(n), not a scan of every entry
    else:
        keys, values = access.keys(A)
    ncols = A.shape[1] if isinstance(A, Matrix) else 1
    i, j = keys // max(ncols, 1), keys % max(ncols, 1)
    th = np.int64(thunk) if iop.thunk_type == "index" else resolve_scalar(thunk, A.dtype)
    keep = backend(xp).index_unary(iop, values, i, j, th)
    t = Keys(keys[keep], values[keep])
    return _finish("select", xp, t, A, A.dtype, out, mask, accum, replace)
