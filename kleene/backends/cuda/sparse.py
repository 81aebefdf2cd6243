"""Sparse products: mxv_pull (row-parallel) and vxm_push (scatter from u).

Kernels: kernels/mxv_pull.cu and kernels/vxm_push.cu. Rows are handled in three
tiers so hub rows do not stall a small group: a group of G lanes (G from the mean
degree) per row; rows longer than ``_SHORT_ROUNDS`` rounds are queued (on the
device, no sync) for a warp each, rows longer than ``_HUGE`` terms for a block
each; one second launch serves both queues.
"""

from __future__ import annotations

from functools import lru_cache

import cupy
import numpy as np

from kleene.semiring import Semiring
from kleene.semiring.dtypes import as_dtype

from . import codegen, jit
from .reduce import group_size, segment_reduce

# A group handles a row in at most this many rounds of G * UNROLL terms.
_SHORT_ROUNDS = 4
# Rows with more terms than this get a whole block.
_HUGE = 4096
_BLOCK = codegen.BLOCK
_LONG = f"<{codegen.LONG_NT}, {codegen.LONG_UNROLL}>"


@lru_cache(maxsize=512)
def _pull_spec(sr: Semiring, ta, tu, tc, flip: bool) -> codegen.Spec:
    return codegen.mxv_spec(sr, ta, tu, tc, flip)


@lru_cache(maxsize=512)
def _push_spec(sr: Semiring, ta, tu, tc, flip: bool) -> codegen.Spec:
    return codegen.vxm_spec(sr, ta, tu, tc, flip)


def _tiers(nnz: int, nrows: int) -> tuple[int, int, int, int]:
    """(G, long_len, huge_len, queue capacity) for a matrix of this shape."""
    g = group_size(nnz / max(nrows, 1) / 2)  # short rows: half the lanes of a full round
    huge = _HUGE
    long_len = huge if g == 32 else min(huge, _SHORT_ROUNDS * g * codegen.UNROLL)
    qcap = nnz // (long_len + 1) + 1 if nnz > long_len else 0
    return g, long_len, huge, qcap


def _csr(indptr, indices, avals):
    return (
        jit.contiguous(indptr, np.int64),
        jit.contiguous(indices, np.int32),
        jit.contiguous(avals),
    )


def _long_blocks() -> int:
    """Grid of the long-row kernel: as many blocks as fit on the device at once."""
    return jit.sm_count(jit.device_id()) * (2048 // codegen.LONG_NT)


def mxv_pull(
    semiring: Semiring, indptr, indices, avals, u, u_present, allowed, out_dtype, flip=False
):
    """Row-parallel pull: w(i) = ⊕_k A(i,k) ⊗ u(k) over stored A(i,k) and present u(k).

    ``u_present`` / ``allowed``: bool arrays or None (all). ``flip`` computes
    u(k) ⊗ A(i,k). Returns (w values, w present).
    """
    tc = as_dtype(out_dtype)
    indptr, indices, avals = _csr(indptr, indices, avals)
    u = jit.contiguous(u)
    nrows = int(indptr.size) - 1
    w = cupy.empty(max(nrows, 0), dtype=tc)
    wp = cupy.empty(max(nrows, 0), dtype=np.bool_)
    if nrows <= 0:
        return w, wp
    spec = _pull_spec(semiring, as_dtype(avals.dtype), as_dtype(u.dtype), tc, bool(flip))
    up = jit.dummy_bool() if u_present is None else jit.contiguous(u_present, np.bool_)
    al = jit.dummy_bool() if allowed is None else jit.contiguous(allowed, np.bool_)
    flags = (np.int32(u_present is not None), np.int32(allowed is not None))
    g, long_len, huge, qcap = _tiers(int(indices.size), nrows)
    queue = jit.zeroed_counters(2 + 2 * qcap)
    common = (indptr, indices, avals, u, up, al, np.int64(nrows), *flags)
    args = common + (np.int64(long_len), np.int64(huge), queue, np.int64(qcap), w, wp)
    fn = jit.function(spec, f"kl_mxv_pull<{g}>")
    fn((jit.blocks_for(nrows * g, _BLOCK),), (_BLOCK,), args)
    if qcap:  # queued long rows: a warp or a block each
        fn = jit.function(spec, "kl_mxv_pull_long" + _LONG)
        largs = (indptr, indices, avals, u, up, flags[0], queue, np.int64(qcap), w, wp)
        fn((_long_blocks(),), (codegen.LONG_NT,), largs)
    return w, wp


def vxm_push(
    semiring: Semiring, indptr, indices, avals, u_idx, u_vals, allowed, ncols, out_dtype, flip=False
):
    """Push from a sparse vector: w(j) = ⊕_{k in u} u(k) ⊗ A(k,j).

    Updates are atomics that cannot depend on arrival order; float plus and other
    non-idempotent monoids sort the terms by column and reduce them instead
    (:func:`codegen.push_kind`). Returns (w values, w present) of length ``ncols``.
    """
    tc = as_dtype(out_dtype)
    ncols = int(ncols)
    indptr, indices, avals = _csr(indptr, indices, avals)
    u_idx = jit.contiguous(u_idx, np.int64)
    u_vals = jit.contiguous(u_vals)
    spec = _push_spec(semiring, as_dtype(avals.dtype), as_dtype(u_vals.dtype), tc, bool(flip))
    kind = codegen.push_kind(semiring.add, tc)
    al = jit.dummy_bool() if allowed is None else jit.contiguous(allowed, np.bool_)
    use_allowed = np.int32(allowed is not None)
    nu = int(u_idx.size)
    if kind == "sort":
        return _push_sorted(
            semiring, spec, indptr, indices, avals, u_idx, u_vals, al, use_allowed, ncols, tc
        )
    staged = np.dtype(np.int32) if tc == np.bool_ else tc
    nw, nkeys = (0, ncols) if kind == "any" else (ncols, 0)  # "any" keeps keys, not values
    w = cupy.empty(max(nw, 1), dtype=staged)
    wp = cupy.empty(ncols, dtype=np.bool_)
    keys = cupy.empty(max(nkeys, 1), dtype=np.uint64)
    if ncols:
        fn = jit.function(spec, "kl_vxm_init<0>")
        args = (w, np.int64(nw), wp, keys, np.int64(nkeys), np.int64(ncols))
        fn((jit.blocks_for(ncols, _BLOCK, cap=_long_blocks() * 4),), (_BLOCK,), args)
    if nu and ncols:
        nrows = int(indptr.size) - 1
        g, long_len, huge, qcap = _tiers(int(indices.size), nrows)
        qcap = nu if qcap else 0  # u may repeat a row, so only nu bounds the queue
        queue = jit.zeroed_counters(2 + 2 * qcap)
        args = (
            indptr,
            indices,
            avals,
            u_idx,
            u_vals,
            np.int64(nu),
            al,
            use_allowed,
            np.int64(long_len),
            np.int64(huge),
            queue,
            np.int64(qcap),
            w,
            keys,
            wp,
        )
        fn = jit.function(spec, f"kl_vxm_push<{g}>")
        fn((jit.blocks_for(nu * g, _BLOCK),), (_BLOCK,), args)
        if qcap:
            fn = jit.function(spec, "kl_vxm_push_long" + _LONG)
            largs = (
                indptr,
                indices,
                avals,
                u_idx,
                u_vals,
                al,
                use_allowed,
                queue,
                np.int64(qcap),
                w,
                keys,
                wp,
            )
            fn((_long_blocks(),), (codegen.LONG_NT,), largs)
    if kind == "any":
        out = cupy.empty(ncols, dtype=tc)
        if ncols:
            fn = jit.function(spec, "kl_vxm_any_finish<0>")
            args = (keys, indptr, avals, u_idx, u_vals, np.int64(ncols), out, wp)
            fn((jit.blocks_for(ncols, _BLOCK),), (_BLOCK,), args)
        return out, wp
    w = w[:ncols]  # allocated with at least one slot
    if tc == np.bool_:
        w = w != 0
    return w, wp


def _push_sorted(semiring, spec, indptr, indices, avals, u_idx, u_vals, al, use_allowed, ncols, tc):
    """Deterministic push: expand the terms, sort by (column, position), reduce."""
    nu = int(u_idx.size)
    identity = semiring.add.identity_for(tc)
    empty = (cupy.full(ncols, identity, dtype=tc), cupy.zeros(ncols, dtype=np.bool_))
    if nu == 0 or ncols == 0:
        return empty
    cum = cupy.cumsum(indptr[u_idx + 1] - indptr[u_idx])
    total = int(cum[-1])
    if total == 0:
        return empty
    keys = cupy.empty(total, dtype=np.int64)
    prod = cupy.empty(total, dtype=tc)
    fn = jit.function(spec, "kl_vxm_expand<0>")
    args = (
        indptr,
        indices,
        avals,
        u_idx,
        u_vals,
        cum,
        np.int64(nu),
        np.int64(total),
        al,
        use_allowed,
        np.int64(ncols),
        keys,
        prod,
    )
    fn((jit.blocks_for(total, _BLOCK),), (_BLOCK,), args)
    order = cupy.argsort(keys)
    cols = keys[order] >> 32
    offsets = cupy.searchsorted(cols, cupy.arange(ncols + 1, dtype=np.int64))
    present = offsets[1:] > offsets[:-1]
    return segment_reduce(semiring.add, prod[order], offsets, tc), present
