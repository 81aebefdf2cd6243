"""NumPy kernel primitives (the CPU back end).

Every primitive takes the algebra objects and plain NumPy arrays and returns
arrays; they know nothing of masks on containers, accumulators or formats.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kleene.semiring import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp

# Dense mxm works on k-slabs so the broadcast temporary stays near this many elements.
_SLAB_ELEMENTS = 1 << 22
_PARALLEL = 1 << 25  # values from which an idempotent reduction runs on threads


def _ufunc_of(op: BinaryOp):
    f = op.func
    return f if isinstance(f, np.ufunc) and f.nin == 2 else None


def binary(op: BinaryOp, x, y, out_dtype) -> np.ndarray:
    """z = op(x, y) elementwise, broadcasting, cast to ``out_dtype``."""
    with np.errstate(all="ignore"):
        z = op.func(np.asarray(x), np.asarray(y))
    z = np.asarray(z, dtype=out_dtype)
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    return np.broadcast_to(z, shape).copy() if z.shape != shape else z


def unary(op: UnaryOp, x, out_dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        z = op.func(np.asarray(x))
    return np.asarray(z, dtype=out_dtype).reshape(np.shape(x))


def index_unary(op: IndexUnaryOp, x, i, j, thunk) -> np.ndarray:
    """Boolean keep-mask of op(x, i, j, thunk); i, j are int64 arrays like x."""
    with np.errstate(all="ignore"):
        keep = op.func(np.asarray(x), np.asarray(i), np.asarray(j), thunk)
    return np.broadcast_to(np.asarray(keep, dtype=bool), np.shape(x)).copy()


def segment_reduce(monoid: Monoid, values, offsets, dtype) -> np.ndarray:
    """Reduce ``values[offsets[s]:offsets[s+1]]`` for each segment s.

    Empty segments give the identity. ``offsets`` is int64 of length nseg + 1.
    """
    dtype = np.dtype(dtype)
    values = np.asarray(values, dtype=dtype)
    offsets = np.asarray(offsets, dtype=np.int64)
    nseg = offsets.size - 1
    out = np.full(nseg, monoid.identity_for(dtype), dtype=dtype)
    if nseg == 0 or values.size == 0:
        return out
    lengths = np.diff(offsets)
    nonempty = np.flatnonzero(lengths)
    if monoid.stops_at_first:
        out[nonempty] = values[offsets[nonempty]]
        return out
    uf = _ufunc_of(monoid.op)
    if uf is not None and dtype != np.bool_:
        out[nonempty] = uf.reduceat(values, offsets[nonempty])
        return out
    # Generic monoid: pairwise tree within segments, log2(max length) vectorised calls.
    seg = np.repeat(np.arange(nseg), lengths)
    vals = values
    while True:
        counts = np.bincount(seg, minlength=nseg)
        if vals.size == 0 or counts.max() <= 1:
            break
        pos = np.arange(vals.size) - (np.cumsum(counts) - counts)[seg]
        left = (pos % 2 == 0) & (pos + 1 < counts[seg])
        lone = (pos % 2 == 0) & ~left
        with np.errstate(all="ignore"):
            merged = np.asarray(monoid.op(vals[left], vals[np.flatnonzero(left) + 1]), dtype=dtype)
        keep = left | lone
        new_vals = vals[keep].copy()
        new_vals[left[keep]] = merged
        vals, seg = new_vals, seg[keep]
    out[seg] = vals
    return out


def reduce_all(monoid: Monoid, values, dtype):
    """The monoid reduction of a 1-D array (identity if empty), as a 0-d array. A large
    array under an idempotent NumPy-ufunc monoid (min, max), whose answer no order
    changes, is reduced by slabs on a few threads (a dense graph's n² values)."""
    uf = _ufunc_of(monoid.op)
    dtype = np.dtype(dtype)
    if monoid.idempotent and uf is not None and dtype != np.bool_ and np.size(values) >= _PARALLEL:
        flat = np.asarray(values, dtype=dtype).reshape(-1)
        with ThreadPoolExecutor(max(1, min(8, os.cpu_count() or 1))) as pool:
            parts = list(
                pool.map(
                    lambda lo: uf.reduce(flat[lo : lo + _SLAB_ELEMENTS]),
                    range(0, flat.size, _SLAB_ELEMENTS),
                )
            )
        return np.asarray(uf.reduce(np.asarray(parts, dtype=dtype)), dtype=dtype).reshape(())
    r = segment_reduce(monoid, values, np.array([0, np.size(values)]), dtype)
    return r.reshape(())


def mxm_dense(semiring: Semiring, a, b, out_dtype) -> np.ndarray:
    """C = A ⊕.⊗ B on full dense arrays (every entry present), C of ``out_dtype``."""
    m, k = a.shape
    n = b.shape[1]
    add, mul = semiring.add, semiring.mul
    c = np.full((m, n), add.identity_for(out_dtype), dtype=out_dtype)
    if k == 0:
        return c
    uf = _ufunc_of(add.op)
    slab = max(1, _SLAB_ELEMENTS // max(1, m * n))
    with np.errstate(all="ignore"):
        for k0 in range(0, k, slab):
            k1 = min(k, k0 + slab)
            prod = np.asarray(mul.func(a[:, k0:k1, None], b[None, k0:k1, :]), dtype=out_dtype)
            if prod.shape != (m, k1 - k0, n):
                prod = np.broadcast_to(prod, (m, k1 - k0, n))
            if uf is not None and out_dtype != np.bool_:
                part = uf.reduce(prod, axis=1)
            else:
                part = prod[:, 0, :]
                for t in range(1, k1 - k0):
                    part = np.asarray(add.op.func(part, prod[:, t, :]), dtype=out_dtype)
            # The first slab replaces the identity (for ``any``, which keeps its
            # first operand, folding into the identity would keep the identity).
            c = part if k0 == 0 else np.asarray(add.op.func(c, part), dtype=out_dtype)
    return np.asarray(c, dtype=out_dtype)


def mxv_pull(
    semiring: Semiring, indptr, indices, avals, u, u_present, allowed, out_dtype, flip=False
):
    """Row-parallel pull: w(i) = ⊕_k A(i,k) ⊗ u(k) over stored A(i,k) and present u(k).

    ``u`` is a dense array, ``u_present`` a bool array or None (all present),
    ``allowed`` a bool array over rows or None: rows not allowed are not computed.
    ``flip`` multiplies u(k) ⊗ A(i,k) instead (vxm over a transposed matrix).
    Returns (w values, w present).
    """
    nrows = indptr.size - 1
    rows = np.repeat(np.arange(nrows), np.diff(indptr))
    keep = np.ones(indices.size, dtype=bool)
    if u_present is not None:
        keep &= u_present[indices]
    if allowed is not None:
        keep &= allowed[rows]
    rows_k, cols_k, a_k = rows[keep], indices[keep], avals[keep]
    x, y = (u[cols_k], a_k) if flip else (a_k, u[cols_k])
    prod = binary(semiring.mul, x, y, out_dtype)
    counts = np.bincount(rows_k, minlength=nrows)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    w = segment_reduce(semiring.add, prod, offsets, out_dtype)
    return w, counts > 0


def vxm_push(
    semiring: Semiring, indptr, indices, avals, u_idx, u_vals, allowed, ncols, out_dtype, flip=False
):
    """Push from a sparse vector: w(j) = ⊕_{k in u} u(k) ⊗ A(k,j).

    ``u_idx``/``u_vals`` hold u's entries; only columns j with ``allowed[j]`` (or
    all, if None) are written. ``flip`` multiplies A(k,j) ⊗ u(k) instead.
    Returns (w values, w present) of length ``ncols``.
    """
    starts, ends = indptr[u_idx], indptr[u_idx + 1]
    lengths = ends - starts
    src = np.repeat(np.arange(u_idx.size), lengths)
    pos = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    edge = np.repeat(starts, lengths) + pos
    cols = indices[edge]
    keep = allowed[cols] if allowed is not None else slice(None)
    cols, edge, src = cols[keep], edge[keep], src[keep]
    x, y = (avals[edge], u_vals[src]) if flip else (u_vals[src], avals[edge])
    prod = binary(semiring.mul, x, y, out_dtype)
    counts = np.bincount(cols, minlength=ncols)[:ncols]
    if semiring.add.stops_at_first:  # any: the first term per column, in u's order
        first = np.full(ncols, cols.size, dtype=np.int64)
        np.minimum.at(first, cols, np.arange(cols.size))
        w = np.full(ncols, semiring.add.identity_for(out_dtype), dtype=out_dtype)
        hit = counts > 0
        w[hit] = prod[first[hit]]
        return w, hit
    uf = _ufunc_of(semiring.add.op)
    if uf is not None and semiring.add.idempotent and np.dtype(out_dtype) != np.bool_:
        # Order-free (min, max): scatter in place, no sort. Only present slots are read.
        w = np.full(ncols, semiring.add.identity_for(out_dtype), dtype=out_dtype)
        uf.at(w, cols, prod)
        return w, counts > 0
    order = np.argsort(cols, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(counts)])
    w = segment_reduce(semiring.add, prod[order], offsets, out_dtype)
    return w, counts > 0
