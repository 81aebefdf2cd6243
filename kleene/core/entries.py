"""Intermediate results: entries as sorted flat keys, or as a dense bitmap.

Operations compute a result T in one of two forms and hand it to ``write``:
``Keys(keys, values)`` (sorted unique row-major keys: i * ncols + j, or i for a
vector) or ``Bitmap(values, present)`` (dense arrays; ``present`` None = full).
The helpers here merge such sets under an operator (eWiseAdd union, eWiseMult
intersection, accum) in array-module-generic code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kleene.backends.device import backend


class Keys(NamedTuple):
    keys: object
    values: object


class Bitmap(NamedTuple):
    values: object
    present: object  # bool array or None (all present)


def present_of(xp, bm: Bitmap):
    return xp.ones(bm.values.shape, dtype=bool) if bm.present is None else bm.present


def to_bitmap(xp, t, shape, dtype) -> Bitmap:
    if isinstance(t, Bitmap):
        return t
    values = xp.zeros(int(np.prod(shape)), dtype=dtype)
    present = xp.zeros(values.size, dtype=bool)
    values[t.keys] = t.values
    present[t.keys] = True
    return Bitmap(values.reshape(shape), present.reshape(shape))


def to_keys(xp, t) -> Keys:
    if isinstance(t, Keys):
        return t
    if t.present is None:
        return Keys(xp.arange(t.values.size, dtype=np.int64), t.values.ravel())
    keys = xp.flatnonzero(t.present).astype(np.int64)
    return Keys(keys, t.values.ravel()[keys])


def union(xp, a, b, op, dtype):
    """eWiseAdd-style union: op(a, b) where both have an entry, else the one present."""
    be = backend(xp)
    if isinstance(a, Bitmap) != isinstance(b, Bitmap):
        return _union_scatter(xp, a, b, op, dtype)
    if isinstance(a, Bitmap):  # both dense
        shape = (a if isinstance(a, Bitmap) else b).values.shape
        a, b = to_bitmap(xp, a, shape, a.values.dtype), to_bitmap(xp, b, shape, b.values.dtype)
        pa, pb = present_of(xp, a), present_of(xp, b)
        both = be.binary(op, a.values, b.values, dtype)  # op sees the uncast values
        va, vb = a.values.astype(dtype, copy=False), b.values.astype(dtype, copy=False)
        values = xp.where(pa & pb, both, xp.where(pa, va, vb))
        present = None if a.present is None or b.present is None else pa | pb
        return Bitmap(values, present)
    a, b = to_keys(xp, a), to_keys(xp, b)
    keys = xp.union1d(a.keys, b.keys)
    values = xp.zeros(keys.size, dtype=dtype)
    ia, ha = _locate(xp, a.keys, keys)
    ib, hb = _locate(xp, b.keys, keys)
    values[ha] = a.values[ia[ha]].astype(dtype, copy=False)
    values[hb] = b.values[ib[hb]].astype(dtype, copy=False)
    both = ha & hb
    if bool(both.any()):
        values[both] = be.binary(op, a.values[ia[both]], b.values[ib[both]], dtype)
    return Keys(keys, values)


def _union_scatter(xp, a, b, op, dtype) -> Bitmap:
    """Union of a dense and a sparse operand: a copy of the dense one with the sparse
    entries merged in (one copy and O(sparse entries), not a densified second operand)."""
    dense_first = isinstance(a, Bitmap)
    dense, sparse = (a, b) if dense_first else (b, a)
    values = dense.values.astype(dtype, copy=True)
    flat = values.reshape(-1)
    keys, sv = sparse.keys, sparse.values
    old = dense.values.reshape(-1)[keys]  # op sees the uncast values
    both = (
        backend(xp).binary(op, old, sv, dtype)
        if dense_first
        else backend(xp).binary(op, sv, old, dtype)
    )
    flat[keys] = xp.where(_present_at(xp, dense, keys), both, sv.astype(dtype, copy=False))
    present = dense.present
    if present is not None:
        present = present.copy()
        present.reshape(-1)[keys] = True
    return Bitmap(values, present)


def intersection(xp, a, b, op, dtype):
    """eWiseMult-style intersection: op(a, b) where both have an entry."""
    be = backend(xp)
    if isinstance(a, Bitmap) and isinstance(b, Bitmap):
        values = be.binary(op, a.values, b.values, dtype)
        if a.present is None:
            present = b.present
        elif b.present is None:
            present = a.present
        else:
            present = a.present & b.present
        return Bitmap(values, present)
    if isinstance(a, Keys) and isinstance(b, Bitmap):  # gather: O(entries of a)
        hit = _present_at(xp, b, a.keys)
        return Keys(a.keys[hit], be.binary(op, a.values[hit], b.values.ravel()[a.keys[hit]], dtype))
    if isinstance(a, Bitmap) and isinstance(b, Keys):
        hit = _present_at(xp, a, b.keys)
        return Keys(b.keys[hit], be.binary(op, a.values.ravel()[b.keys[hit]], b.values[hit], dtype))
    a, b = to_keys(xp, a), to_keys(xp, b)
    ib, hb = _locate(xp, b.keys, a.keys)
    keys = a.keys[hb]
    return Keys(keys, be.binary(op, a.values[hb], b.values[ib[hb]], dtype))


def _present_at(xp, bm: Bitmap, keys):
    if bm.present is None:
        return xp.ones(keys.size, dtype=bool)
    return bm.present.ravel()[keys]


def _locate(xp, sorted_keys, queries):
    """(position, found) of each query in ``sorted_keys``."""
    pos = xp.searchsorted(sorted_keys, queries)
    found = pos < sorted_keys.size
    pos = xp.where(found, pos, 0)
    if sorted_keys.size:
        found &= sorted_keys[pos] == queries
    return pos, found
