"""reduce, transpose, extract, assign: operations that reshape structure."""

from __future__ import annotations

import numpy as np

from kleene.backends.device import backend
from kleene.core import access, layout
from kleene.core.checks import (
    as_binary,
    as_container,
    as_mask,
    as_monoid,
    output_dtype,
    same_device,
)
from kleene.core.entries import Bitmap, Keys, union
from kleene.core.matrix import Matrix
from kleene.core.vector import Vector
from kleene.errors import DimensionMismatch, InvalidValue
from kleene.semiring.dtypes import resolve_scalar

from .write import finish, write

_AXES = {None: None, 0: 0, 1: 1, "rows": 1, "columns": 0, "cols": 0}


def _finish(opname, xp, t, shape, dtype, kind, out, mask, accum, replace):
    return finish(
        opname,
        xp,
        t,
        shape=shape,
        dtype=dtype,
        kind=kind,
        out=out,
        mask=mask,
        accum=accum,
        replace=replace,
    )


def _all_values(xp, A, monoid):
    """The stored values as one flat array for a scalar reduction (order is free: the
    monoid commutes). A dense container with absent slots fills them with the
    identity rather than compacting (no index arrays for an n² APSP input)."""
    if A.format != "dense" or monoid.stops_at_first:
        return access.stored(A)
    values, present = access.bitmap(A)
    if present is not None:
        values = xp.where(present, values, monoid.identity_for(A.dtype))
    return values.ravel()


def reduce(A, op, *, axis=None, mask=None, accum=None, replace=False, out=None):
    """Reduce with a monoid: to a scalar (axis=None), per row (axis=1 or "rows") or
    per column (axis=0 or "columns").

    The scalar of an empty container is the monoid's identity. Row/column
    reductions give a Vector where rows/columns without entries are absent.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 0, 2], [1, 2, 0], [4.0, 2.0, 7.0], n=3)
    >>> float(kleene.reduce(A, "min"))
    2.0
    >>> kleene.reduce(A, "min", axis="rows").to_dense().tolist()
    [2.0, inf, 7.0]
    """
    as_container("reduce", "A", A)
    if axis not in _AXES:
        raise InvalidValue(f"reduce: axis must be None, 0, 1, 'rows' or 'columns', got {axis!r}")
    axis = _AXES[axis]
    monoid = as_monoid("reduce", op)
    xp = same_device("reduce", A=A, out=out, mask=mask)
    be = backend(xp)
    if axis is None:
        if out is not None or mask is not None:
            raise InvalidValue("reduce to a scalar takes no out= or mask=")
        values = _all_values(xp, A, monoid)
        return A.dtype.type(be.reduce_all(monoid, values, A.dtype).item())
    if isinstance(A, Vector):
        raise InvalidValue("reduce: a Vector reduces only to a scalar (axis=None)")
    ptr, _, val = access.csr(A) if axis == 1 else layout.csr_transpose(xp, *access.csr(A), A.shape)
    w = be.segment_reduce(monoid, val, ptr, A.dtype)
    t = Bitmap(w, xp.diff(ptr) > 0)
    shape = (A.nrows,) if axis == 1 else (A.ncols,)
    return _finish("reduce", xp, t, shape, A.dtype, Vector, out, mask, accum, replace)


def transpose(A: Matrix, *, mask=None, accum=None, replace=False, out=None):
    """C<mask> = accum(C, Aᵀ).

    Example
    -------
    >>> import kleene
    >>> kleene.transpose(kleene.Matrix.from_edges([0], [2], [1.0], n=3)).to_coo()[0].tolist()
    [2]
    """
    as_container("transpose", "A", A, (Matrix,))
    xp = same_device("transpose", A=A, out=out, mask=mask)
    shape = (A.ncols, A.nrows)
    if A.format == "dense":
        values, present = access.bitmap(A)
        t = Bitmap(xp.ascontiguousarray(values.T), None if present is None else present.T.copy())
    else:
        ptr, idx, val = layout.csr_transpose(xp, *access.csr(A), A.shape)
        rows = layout.offsets_to_rows(xp, ptr)
        t = Keys(rows * max(A.nrows, 1) + idx.astype(np.int64), val)
    return _finish("transpose", xp, t, shape, A.dtype, Matrix, out, mask, accum, replace)


def _index_array(xp, idx, bound, what):
    if idx is None:
        return None
    if isinstance(idx, slice):
        return xp.arange(bound, dtype=np.int64)[idx]
    arr = xp.asarray(idx, dtype=np.int64).ravel()
    layout.check_indices(xp, arr, bound, what)
    return arr


def _extract_keys(xp, keys, values, shape, rows, cols):
    """Entries of A[rows][:, cols] as Keys of the (len(rows), len(cols)) result."""
    nrows, ncols = shape
    r, c = keys // max(ncols, 1), keys % max(ncols, 1)
    p = nrows if rows is None else rows.size
    q = ncols if cols is None else cols.size
    for axis_idx, coord in ((rows, "r"), (cols, "c")):
        if axis_idx is None:
            continue
        cur = r if coord == "r" else c
        order = xp.argsort(axis_idx, kind="stable")
        sorted_idx = axis_idx[order]
        lo = xp.searchsorted(sorted_idx, cur, side="left")
        hi = xp.searchsorted(sorted_idx, cur, side="right")
        reps = (hi - lo).astype(np.int64)
        src = layout.repeat_index(xp, reps)
        offs = xp.arange(src.size, dtype=np.int64) - (xp.cumsum(reps) - reps)[src]
        new = order[lo[src] + offs]
        r, c, values = r[src], c[src], values[src]
        if coord == "r":
            r = new
        else:
            c = new
    k = r * max(q, 1) + c
    order = xp.argsort(k, kind="stable")
    return Keys(k[order], values[order]), (p, q)


def extract(A, rows=None, cols=None, *, mask=None, accum=None, replace=False, out=None):
    """C<mask> = accum(C, A[rows, cols]) (a Vector: ``extract(u, indices)``).

    ``rows``/``cols`` are index arrays or slices (None: all); repeats are allowed.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0])
    >>> kleene.extract(A, [2, 0], [0, 1]).to_dense().tolist()
    [[3.0, inf], [inf, 1.0]]
    """
    as_container("extract", "A", A)
    xp = same_device("extract", A=A, out=out, mask=mask)
    if isinstance(A, Vector):
        if cols is not None:
            raise InvalidValue("extract from a Vector takes one index array")
        idx = _index_array(xp, rows, A.size, "vector")
        keys, values = access.keys(A)
        t, (p, _) = _extract_keys(xp, keys, values, (A.size, 1), idx, None)
        return _finish("extract", xp, t, (p,), A.dtype, Vector, out, mask, accum, replace)
    r = _index_array(xp, rows, A.nrows, "row")
    c = _index_array(xp, cols, A.ncols, "column")
    if A.format == "dense":  # gather straight from the dense arrays
        values, present = access.bitmap(A)
        ri = slice(None) if r is None else r
        ci = slice(None) if c is None else c
        sub = values[ri][:, ci]
        t = Bitmap(sub, None if present is None else present[ri][:, ci])
        shape = sub.shape
    else:
        keys, values = access.keys(A)
        t, shape = _extract_keys(xp, keys, values, A.shape, r, c)
    return _finish("extract", xp, t, shape, A.dtype, Matrix, out, mask, accum, replace)


def assign(C, value, rows=None, cols=None, *, mask=None, accum=None, replace=False):
    """C<mask>(rows, cols) = accum(C(rows, cols), value), GrB_assign semantics.

    Z = C; Z(rows, cols) = value, or accum(C(rows, cols), value) with ``accum``
    (without accum, C's entries in the region that ``value`` lacks are deleted);
    then C<mask, replace> = Z. ``value`` is a Matrix/Vector of the region's shape or
    a scalar (fills the region). ``mask`` has C's shape. Returns C, changed in place.

    Example
    -------
    >>> import numpy as np, kleene
    >>> u = kleene.Vector.from_coo([0], [1.0], 4)
    >>> kleene.assign(u, 0.0, [2, 3]).to_dense().tolist()
    [1.0, inf, 0.0, 0.0]
    """
    as_container("assign", "C", C)
    is_vec = isinstance(C, Vector)
    scalar = not isinstance(value, (Matrix, Vector))
    xp = same_device("assign", C=C, value=None if scalar else value, mask=mask)
    ncols = 1 if is_vec else C.ncols
    r = _index_array(xp, rows, C.shape[0], "row" if not is_vec else "vector")
    c = None if is_vec else _index_array(xp, cols, C.ncols, "column")
    r = xp.arange(C.shape[0], dtype=np.int64) if r is None else r
    c = xp.arange(ncols, dtype=np.int64) if c is None else c
    for name, idx in (("rows", r), ("cols", c)):
        if xp.unique(idx).size != idx.size:
            raise InvalidValue(f"assign: {name} has repeated indices")
    region = (r.size,) if is_vec else (r.size, c.size)
    if scalar:
        v = xp.asarray(resolve_scalar(value, C.dtype))
        vk = (r[:, None] * ncols + c[None, :]).ravel()
        vv = xp.full(vk.size, v, dtype=C.dtype)
    else:
        as_container("assign", "value", value, (type(C),))
        if value.shape != region:
            raise DimensionMismatch(
                f"assign: value has shape {value.shape}, the region is {region}"
            )
        output_dtype("assign", C, value.dtype)
        k, vv = access.keys(value)
        vk = r[k // c.size] * ncols + c[k % c.size] if c.size else k
        vv = vv.astype(C.dtype)
    order = xp.argsort(vk, kind="stable")
    vkeys = Keys(vk[order], vv[order])
    ck, cv = access.keys(C)
    in_rows = xp.zeros(C.shape[0], dtype=bool)
    in_rows[r] = True
    in_cols = xp.zeros(ncols, dtype=bool)
    in_cols[c] = True
    inside = in_rows[ck // ncols] & in_cols[ck % ncols]
    if accum is not None:
        op = as_binary("assign", accum)
        vkeys = union(xp, Keys(ck[inside], cv[inside]), vkeys, op, C.dtype)
    keys = xp.concatenate([ck[~inside], vkeys.keys])
    vals = xp.concatenate([cv[~inside], vkeys.values.astype(C.dtype, copy=False)])
    order = xp.argsort(keys, kind="stable")
    t = Keys(keys[order], vals[order])
    kind = Vector if is_vec else Matrix
    m = as_mask("assign", mask, C.shape)
    return write(xp, t, shape=C.shape, dtype=C.dtype, kind=kind, out=C, mask=m, replace=replace)
