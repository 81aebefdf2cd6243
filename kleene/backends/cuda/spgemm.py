"""Sparse matrix products under a mask: ``mxm_masked`` (kernels/spgemm.cu).

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

from kleene.semiring import Semiring
from kleene.semiring.dtypes import as_dtype

from . import jit
from .codegen.common import BLOCK
from .codegen.spgemm import DOT3, DOT3_GROUPS, dot3_spec, order_free
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
