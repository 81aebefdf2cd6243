"""The GraphBLAS output rule: C<M, replace> = accum(C, T).

Z = T if there is no accum, else the union of C and T with accum where both have
an entry; inside the mask C becomes Z (C's entries absent from Z are deleted),
outside it C keeps its entries unless ``replace`` deletes them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kleene.core import access, layout
from kleene.core.entries import Bitmap, Keys, present_of, to_bitmap, to_keys, union
from kleene.core.vector import Vector


class Rows(NamedTuple):
    """A matrix result as canonical CSR arrays (rows sorted, no duplicates): what a
    product that builds C row by row hands over, stored as is when no mask or ``out``
    asks for the keys form."""

    indptr: object
    indices: object
    values: object
    ncols: int

    def to_keys(self, xp) -> Keys:
        rows = layout.offsets_to_rows(xp, self.indptr).astype(np.int64)
        return Keys(rows * max(self.ncols, 1) + self.indices, self.values)


def build(xp, t, shape, dtype, kind):
    """A new Matrix/Vector holding result ``t``."""
    if isinstance(t, Bitmap):
        values = t.values.astype(dtype, copy=False).reshape(shape)
        present = None if t.present is None else t.present.reshape(shape)
        return access.from_bitmap(kind, xp, values, present)
    values = t.values.astype(dtype, copy=False)
    if kind is Vector:
        return access.from_sparse(xp, t.keys, values, shape[0])
    nrows, ncols = shape
    rows = t.keys // max(ncols, 1)
    indptr = layout.counts_to_offsets(xp, xp.bincount(rows, minlength=nrows)[:nrows])
    cols = (t.keys - rows * max(ncols, 1)).astype(layout.INDEX)
    return access.from_csr(xp, indptr, cols, values, shape)


def write(xp, t, *, shape, dtype, kind, out=None, mask=None, accum=None, replace=False):
    """Apply the output rule and return the result container (``out`` itself if given)."""
    if isinstance(t, Rows):
        if out is None and mask is None:  # stored as it is: no keys, no re-split
            values = t.values.astype(dtype, copy=False)
            return access.from_csr(xp, t.indptr, t.indices, values, shape)
        t = t.to_keys(xp)
    if out is None:
        if mask is not None and isinstance(t, Bitmap):
            t = Bitmap(t.values, present_of(xp, t) & mask.allowed(xp))
        elif mask is not None:
            ok = mask.allowed_keys(xp, t.keys)
            t = Keys(t.keys[ok], t.values[ok])
        return build(xp, t, shape, dtype, kind)
    if out.format == "dense" or kind is Vector or isinstance(t, Bitmap):
        result = _write_bitmap(xp, t, access.bitmap(out), shape, dtype, mask, accum, replace)
    else:
        result = _write_keys(xp, t, access.keys(out), dtype, mask, accum, replace)
    access.assign_from(out, build(xp, result, shape, dtype, kind))
    return out


def _write_bitmap(xp, t, c, shape, dtype, mask, accum, replace):
    t = to_bitmap(xp, t, shape, dtype)
    t = Bitmap(t.values.astype(dtype, copy=False), t.present)
    cb = Bitmap(c[0], c[1])
    z = union(xp, cb, t, accum, dtype) if accum is not None else t
    if mask is None:
        return z
    allowed = mask.allowed(xp)
    cp = present_of(xp, cb)
    keep_old = xp.zeros_like(cp) if replace else cp & ~allowed
    present = xp.where(allowed, present_of(xp, z), keep_old)
    values = xp.where(allowed, z.values, cb.values.astype(dtype, copy=False))
    return Bitmap(values, present)


def _write_keys(xp, t, c, dtype, mask, accum, replace):
    t = to_keys(xp, t)
    ck, cv = c
    ck_t = Keys(ck, cv.astype(dtype, copy=False))
    z = union(xp, ck_t, t, accum, dtype) if accum is not None else t
    if mask is None:
        return Keys(z.keys, z.values.astype(dtype, copy=False))
    zin = mask.allowed_keys(xp, z.keys)
    keys, values = [z.keys[zin]], [z.values[zin].astype(dtype, copy=False)]
    if not replace:
        cout = ~mask.allowed_keys(xp, ck)
        keys.append(ck[cout])
        values.append(cv[cout].astype(dtype, copy=False))
    keys, values = xp.concatenate(keys), xp.concatenate(values)
    order = xp.argsort(keys, kind="stable")
    return Keys(keys[order], values[order])


def finish(opname, xp, t, *, shape, dtype, kind, out, mask, accum, replace):
    """Check ``out`` and ``mask`` against the result, then apply the output rule."""
    if out is None and mask is None and accum is None and not isinstance(t, Rows):
        return build(xp, t, shape, np.dtype(dtype), kind)  # nothing to check or merge
    from kleene.core.checks import as_binary, as_mask, check_out, output_dtype

    check_out(opname, out, shape, kind)
    mask = as_mask(opname, mask, shape)
    acc = None if accum is None else as_binary(opname, accum)
    final = output_dtype(opname, out, dtype)
    return write(
        xp, t, shape=shape, dtype=final, kind=kind, out=out, mask=mask, accum=acc, replace=replace
    )
