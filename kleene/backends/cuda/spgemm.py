"""Sparse matrix products: ``mxm_masked`` (kernels/spgemm.cu) and ``mxm_sparse``
(kernels/spgemm_hash.cu).

``mxm_masked``: sparse matrix products under a mask.

Each entry of the mask's allowed pattern gets its dot product (SuiteSparse's "dot3"):
one thread merging A(i,:) and Bᵀ(j,:) in k order, or, where the add's result does not
depend on the order, a group of lanes (sized from the lists' mean length) searching
the shorter list's entries in the longer. The output
is allocated at the mask's size (a masked product has at most nnz(M) entries), then
compacted to the entries whose intersection was not empty.
"""

from __future__ import annotations

from functools import lru_cache

import cupy
import numpy as np

from kleene.backends.device import gpu_memory_free
from kleene.errors import OutOfMemory
from kleene.semiring import Semiring
from kleene.semiring.dtypes import as_dtype

from . import jit
from .codegen.common import BLOCK
from .codegen.spgemm import (
    DOT3,
    DOT3_GROUPS,
    HASH_COPY,
    HASH_HEAVY,
    HASH_ROWS,
    HEAVY_WARPS,
    dot3_spec,
    hash_spec,
    order_free,
)
from .reduce import group_size


@lru_cache(maxsize=512)
def _spec(sr: Semiring, ta, tb, tc):
    return dot3_spec(sr, ta, tb, tc)


def mxm_masked(
    semiring: Semiring, a_ptr, a_idx, a_val, bt_ptr, bt_idx, bt_val, m_ptr, m_idx, ncols, out_dtype
):
    """C<M> = A ⊕.⊗ B at the mask's positions (``m_ptr``/``m_idx``: CSR, rows sorted;
    ``bt_*``: Bᵀ's CSR, rows sorted), as sorted int64 keys ``i * ncols + j`` and values of
    ``out_dtype``, for the entries whose A(i,:) and Bᵀ(j,:) intersect."""
    tc = as_dtype(out_dtype)
    a_ptr, bt_ptr, m_ptr = (jit.contiguous(x, np.int64) for x in (a_ptr, bt_ptr, m_ptr))
    a_idx, bt_idx, m_idx = (jit.contiguous(x, np.int32) for x in (a_idx, bt_idx, m_idx))
    a_val, bt_val = jit.contiguous(a_val), jit.contiguous(bt_val)
    nrows = int(m_ptr.size) - 1
    nm = int(m_idx.size)  # the pattern's entries: m_ptr[-1], read without a sync
    if nm == 0 or a_idx.size == 0 or bt_idx.size == 0:
        return cupy.zeros(0, np.int64), cupy.zeros(0, tc)
    keys = cupy.empty(nm, dtype=np.int64)
    vals = cupy.empty(nm, dtype=tc)
    hit = cupy.empty(nm, dtype=np.bool_)
    spec = _spec(semiring, as_dtype(a_val.dtype), as_dtype(bt_val.dtype), tc)
    args = (a_ptr, a_idx, a_val, bt_ptr, bt_idx, bt_val, m_ptr, m_idx)
    args += (np.int64(nrows), np.int64(nm), np.int64(ncols), keys, vals, hit)
    g = 1
    if order_free(semiring, tc):  # lanes per entry from the shorter lists' mean length
        mean_a = a_idx.size / max(int(a_ptr.size) - 1, 1)
        mean_b = bt_idx.size / max(int(bt_ptr.size) - 1, 1)
        g = group_size(2 * min(mean_a, mean_b))
    fn = jit.function(spec, DOT3 if g == 1 else DOT3_GROUPS[g])
    fn((jit.blocks_for(nm * g, BLOCK),), (BLOCK,), args)
    kept = cupy.flatnonzero(hit)
    return keys[kept], vals[kept]


# ---- the unmasked product: mxm_sparse --------------------------------------------------
#
# Gustavson, row by row, a warp owning each item of work from start to end (a row, or a
# range of a heavy row's columns): no value is ever updated by two warps, so the result
# does not depend on scheduling, for every semiring. Per row, its terms (an upper bound
# of its entries) pick the table: a shared-memory hash table per warp for light rows
# (binned by size); column ranges of one warp's table each for heavy rows; a global
# table per warp (a pool) for heavy rows whose ranges would cost more binary searches
# than the row has terms. One pass where the product's upper bound fits the memory
# (entries land in their row's region of min(terms, ncols) places, then are moved into
# place); else a counting pass first, then the entries are written in place.

# Shared memory one warp's table may take: slots · (4 + value size) plus a stage of 32
# values. Its largest power of two of slots is the light rows' biggest table and the
# width of a heavy row's column ranges.
WARP_SMEM = 12800
# Shared memory of one block of the shared-table kernel (opt-in past 48 KB).
BLOCK_SMEM = 96 * 1024
_DEFAULT_SMEM = 48 * 1024
# A heavy row is cut into column ranges while (its entries of A) · (ranges) stays
# within RANGE_WORK times its terms (each range searches every B(k,:) of the row).
RANGE_WORK = 1.0
# Warps with a global table, at most, per SM.
HEAVY_WARPS_PER_SM = 16
# Bytes the product may use; None: the free GPU memory. Tests set a small number to
# force the counting pass or the refusal.
MEMORY_BUDGET: int | None = None
# Bytes per entry the caller needs beside the (keys, values) it gets, to build the
# result's CSR from them (ops/write.py: the row of each key, int64, a temporary of as
# many, the column): a product whose result cannot also be built is refused here, by
# its bytes, before the GPU is filled.
BUILD_BYTES = 24
# False: always count first (tests run the counting pass on small products with it).
ONE_PASS = True
# The smallest table (a warp's width).
_MIN_SLOTS = 32


@lru_cache(maxsize=512)
def _hash_spec(sr: Semiring, ta, tb, tc):
    return hash_spec(sr, ta, tb, tc)


def max_slots(itemsize: int) -> int:
    """The slots of the largest shared table of one warp for values of ``itemsize``."""
    s = _MIN_SLOTS
    while (2 * s) * (4 + itemsize) + 32 * itemsize <= WARP_SMEM:
        s *= 2
    return s


_side: dict[int, cupy.cuda.Stream] = {}


def _side_stream() -> cupy.cuda.Stream:
    dev = jit.device_id()
    st = _side.get(dev)
    if st is None:
        st = _side[dev] = cupy.cuda.Stream(non_blocking=True)
    return st


def mxm_sparse(semiring: Semiring, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols, out_dtype):
    """C = A ⊕.⊗ B on CSR operands (rows sorted) as sorted int64 keys ``i * ncols + j``
    and values of ``out_dtype``: each entry the left-to-right fold of its products in
    k order, as the CPU's ``mxm_sparse``. OutOfMemory, naming the bytes, where the
    result cannot fit."""
    tc = as_dtype(out_dtype)
    a_ptr, b_ptr = (jit.contiguous(x, np.int64) for x in (a_ptr, b_ptr))
    a_idx, b_idx = (jit.contiguous(x, np.int32) for x in (a_idx, b_idx))
    a_val, b_val = jit.contiguous(a_val), jit.contiguous(b_val)
    ncols = int(ncols)
    nrows = int(a_ptr.size) - 1
    if nrows <= 0 or ncols <= 0 or a_idx.size == 0 or b_idx.size == 0:
        return cupy.zeros(0, np.int64), cupy.zeros(0, tc)
    spec = _hash_spec(semiring, as_dtype(a_val.dtype), as_dtype(b_val.dtype), tc)
    try:
        return _Product(spec, tc, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols).run()
    except cupy.cuda.memory.OutOfMemoryError as e:  # the pool ran out after all
        raise OutOfMemory(f"mxm: the sparse product ran out of GPU memory ({e})") from e


class _Product:
    """One unmasked product: the plan (items, bins, memory) and its launches."""

    def __init__(self, spec, tc, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols):
        self.spec, self.tc, self.ncols = spec, tc, ncols
        self.operands = (a_ptr, a_idx, a_val, b_ptr, b_idx, b_val)
        self.vs = tc.itemsize
        self.smax = max_slots(self.vs)
        self.nrows = int(a_ptr.size) - 1

    def run(self):
        a_ptr, a_idx, _, b_ptr, _, _ = self.operands
        nrows, ncols, smax = self.nrows, self.ncols, self.smax
        lg_max = smax.bit_length() - 1
        # terms per row: an upper bound of its entries
        cum = cupy.zeros(a_idx.size + 1, dtype=np.int64)
        cupy.cumsum(cupy.diff(b_ptr)[a_idx], out=cum[1:])
        flops = cupy.diff(cum[a_ptr])
        del cum
        need = (4 * cupy.minimum(flops, ncols) + 2) // 3  # at most 3/4 full
        bits = cupy.ceil(cupy.log2(cupy.maximum(need, _MIN_SLOTS).astype(np.float64)))
        bits = bits.astype(np.int32)
        nranges = -(-ncols // smax)
        light = (need <= smax) | (ncols <= smax)
        ranged = ~light & (nranges * cupy.diff(a_ptr) <= RANGE_WORK * flops)
        # bins: 0 .. lg_max - 5 light (slots 32 << bin), then ranged, global, empty
        nb = lg_max - 4
        b_ranged, b_global, b_empty = nb, nb + 1, nb + 2
        row_bin = cupy.where(light, cupy.minimum(bits, lg_max) - 5, b_global)
        row_bin = cupy.where(ranged, b_ranged, row_bin)
        row_bin = cupy.where(flops > 0, row_bin, b_empty).astype(np.int32)
        # a global table: a power of two of slots, all columns where not 4 times more
        full = 1 << max(ncols - 1, 1).bit_length()
        slots = cupy.left_shift(cupy.ones(nrows, dtype=np.int64), bits.astype(np.int64))
        slots = cupy.where(full <= 4 * slots, full, slots)
        per_row = cupy.where(ranged & (flops > 0), nranges, 1).astype(np.int64)
        start = cupy.zeros(nrows + 1, dtype=np.int64)
        cupy.cumsum(per_row, out=start[1:])
        hmax = cupy.where(row_bin == b_global, slots, 0).max()
        n_items, hmax = (int(x) for x in cupy.stack([start[-1], hmax]).tolist())
        # items, in output order (rows, then a row's ranges)
        mark = cupy.zeros(n_items, dtype=np.int32)
        mark[start[1:-1]] = 1
        item_row = cupy.cumsum(mark, dtype=np.int32)
        del mark
        item_sub = (cupy.arange(n_items, dtype=np.int64) - start[item_row]).astype(np.int32)
        item_bin = row_bin[item_row]
        item_flops = flops[item_row]
        # each row's region of the one-pass scratch: at most min(terms, ncols) entries
        cap = cupy.minimum(flops, ncols)
        row_base = cupy.zeros(nrows, dtype=np.int64)
        cupy.cumsum(cap[:-1], out=row_base[1:])
        order = cupy.argsort(item_bin).astype(np.int32)
        counts_bins = cupy.bincount(item_bin, minlength=b_empty + 1)
        head = cupy.concatenate([counts_bins.astype(np.int64), cap.sum(keepdims=True)])
        head = [int(x) for x in head.tolist()]
        counts_bins, total = head[:-1], head[-1]
        if total == 0:
            return cupy.zeros(0, np.int64), cupy.zeros(0, self.tc)
        self.items = (item_row, item_sub)
        self.bins = []  # (kind, slots, items, row_slots)
        at = 0
        for b, n in enumerate(counts_bins):
            ids = order[at : at + n]
            at += n
            if n == 0 or b == b_empty:
                continue
            if b in (b_ranged, b_global):  # the heaviest first
                ids = ids[cupy.argsort(-item_flops[ids])]
            if b < nb:
                self.bins.append(("rows", _MIN_SLOTS << b, ids, None))
            elif b == b_ranged:
                self.bins.append(("ranges", smax, ids, None))
            else:
                self.bins.append(("heavy", hmax, ids, slots[item_row[ids]]))
        n_global = counts_bins[b_global]
        return self._passes(n_items, row_base, total, n_global, hmax)

    def _passes(self, n_items, row_base, total, n_global, hmax):
        vs, tc = self.vs, self.tc
        budget = MEMORY_BUDGET if MEMORY_BUDGET is not None else gpu_memory_free()
        dev = jit.device_id()
        warp_pool = hmax * (4 + vs)
        pool_blocks = 0
        if n_global:
            pool_blocks = -(-min(n_global, HEAVY_WARPS_PER_SM * jit.sm_count(dev)) // HEAVY_WARPS)
        per_entry = 8 + vs
        small = 40 * n_items  # item arrays, offsets and counts
        one_pass = small + pool_blocks * HEAVY_WARPS * warp_pool + 2 * total * per_entry
        one_pass = max(one_pass, total * (per_entry + BUILD_BYTES))
        counts = cupy.zeros(n_items, dtype=np.int64)
        if ONE_PASS and one_pass <= budget:
            self._pool(pool_blocks, hmax, values=True)
            src = cupy.zeros(n_items, dtype=np.int64)  # where each item lands, set by it
            fill = cupy.zeros(self.nrows, dtype=np.uint64)
            tmp_keys = cupy.empty(total, dtype=np.int64)
            tmp_vals = cupy.empty(total, dtype=tc)
            self._launch(False, (src, row_base, fill, np.int64(1)), counts, tmp_keys, tmp_vals)
            dst, nnz = self._offsets(counts)
            keys, vals = cupy.empty(nnz, dtype=np.int64), cupy.empty(nnz, dtype=tc)
            if nnz:
                fn = jit.function(self.spec, HASH_COPY)
                args = (np.int64(n_items), counts, src, dst, tmp_keys, tmp_vals, keys, vals)
                fn((jit.blocks_for(n_items * 32, 256),), (256,), args)
            return keys, vals
        # two passes: count each item's entries, then write them in place
        if pool_blocks:  # a quarter of the budget at most, one block at least
            fit = (budget // 4) // (HEAVY_WARPS * warp_pool)
            pool_blocks = max(1, min(pool_blocks, fit))
        pool = pool_blocks * HEAVY_WARPS * warp_pool
        self._pool(pool_blocks, hmax, values=False)
        unplaced = (counts, row_base, _dummy_fill(), np.int64(0))
        self._launch(True, unplaced, counts, *_dummies(tc))
        dst, nnz = self._offsets(counts)
        need = nnz * per_entry
        if max(need + pool + small, need + nnz * BUILD_BYTES) > budget:
            raise OutOfMemory(
                f"mxm: the sparse product has {nnz:,} entries, {need:,} bytes of GPU memory "
                f"for its keys and values and {nnz * BUILD_BYTES:,} more to build its CSR; "
                f"{budget:,} bytes are free (a mask that keeps few entries computes only "
                f"those)"
            )
        keys, vals = cupy.empty(nnz, dtype=np.int64), cupy.empty(nnz, dtype=tc)
        self._pool(pool_blocks, hmax, values=True)
        self._launch(False, (dst, row_base, _dummy_fill(), np.int64(0)), counts, keys, vals)
        return keys, vals

    def _pool(self, blocks, hmax, values):
        n = blocks * HEAVY_WARPS * hmax
        self.pool_blocks = blocks
        self.pool_keys = cupy.full(max(n, 1), -1, dtype=np.int32)  # every slot empty
        self.pool_vals = cupy.empty(max(n, 1) if values else 1, dtype=self.tc)

    @staticmethod
    def _offsets(counts):
        dst = cupy.zeros(counts.size, dtype=np.int64)
        total = cupy.cumsum(counts)
        dst[1:] = total[:-1]
        return dst, int(total[-1])

    def _launch(self, count, place, counts, out_keys, out_vals):
        """Every bin's kernel: the global-table rows (the longest) first, on a side
        stream, beside the shared-table ones. ``place``: (per item offsets, per row
        regions, per row fill, dynamic): items write at their offsets, or where
        dynamic, in their row's region, recording where (kl_spg_place)."""
        item_row, item_sub = self.items
        ops, ncols, c = self.operands, np.int64(self.ncols), int(count)
        main = cupy.cuda.get_current_stream()
        side = None
        for kind, slots, ids, row_slots in self.bins:
            if kind != "heavy":
                continue
            side = _side_stream()
            side.wait_event(main.record())
            with side:
                nxt = cupy.zeros(1, dtype=np.int32)
                args = (*ops, ids, row_slots, np.int64(ids.size), item_row, ncols)
                args += (self.pool_keys, self.pool_vals, np.int64(slots), nxt, *place)
                args += (counts, out_keys, out_vals)
                fn = jit.function(self.spec, HASH_HEAVY[c])
                fn((self.pool_blocks,), (HEAVY_WARPS * 32,), args)
        for kind, slots, ids, _ in self.bins:
            if kind == "heavy":
                continue
            per_warp = slots * (4 + self.vs) + 32 * self.vs
            w = max(1, min(8, BLOCK_SMEM // per_warp))
            smem = w * per_warp
            fn = jit.function(self.spec, HASH_ROWS[(c, int(kind == "ranges"))])
            if smem > _DEFAULT_SMEM:
                fn.max_dynamic_shared_size_bytes = smem  # opt in past 48 KB
            grid = min(-(-ids.size // w), jit.sm_count(jit.device_id()) * 64)
            args = (*ops, ids, np.int64(ids.size), item_row, item_sub, np.int64(slots), ncols)
            args += (*place, counts, out_keys, out_vals)
            fn((grid,), (32 * w,), args, shared_mem=smem)
        if side is not None:  # the rest waits for the global-table rows
            main.wait_event(side.record())


def _dummy_fill():
    return cupy.zeros(1, dtype=np.uint64)


def _dummies(tc):
    return cupy.empty(1, dtype=np.int64), cupy.empty(1, dtype=tc)
