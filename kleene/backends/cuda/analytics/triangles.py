"""Triangles of an undirected graph on the GPU (kernels/triangles.cu).

The CUDA back end's ``triangle_count`` and ``triangle_vertices``, with the CPU back
end's signatures (``kleene/backends/cpu/triangles.py``) and the same answers; the
composed twins (masked ``plus_times`` products,
``kleene.algorithms.analytics.triangles``) define them. Two launches and no host
sync before the answer: ``kl_tc_orient`` keeps each edge once, from the lower to
the higher end in the order (degree, id), and lists the kept edges (their number
stays on the device: the count kernel reads it, and its grid is sized from the
bound nnz / 2); ``kl_tc_count`` intersects the two ends' out-lists per kept edge,
each block writing its count, which one reduction sums. Integer sums and integer
atomics: the results do not depend on scheduling.
"""

from __future__ import annotations

import cupy
import numpy as np

from .. import jit
from ..codegen.common import BLOCK
from ..codegen.triangles import TC_COUNT, TC_ORIENT, triangles_spec

# Lanes per kept edge: the smallest power of two in [1, 32] that leaves at most this
# many entries of a mean out-list (nnz / 2n) to a lane. One lane merges the two lists
# (road-like graphs: a few entries each); a group looks the shorter one's entries up
# in the longer by binary search, which splits the long intersections of edges
# between hubs that would otherwise hold a lone lane's whole warp.
_PER_LANE = 2


def _lanes(nnz: int, n: int) -> int:
    mean = nnz / max(2 * n, 1)
    g = 1
    while g < 32 and g * _PER_LANE < mean:
        g *= 2
    return g


def _count(indptr, indices, n: int, per_vertex: bool):
    ptr = jit.contiguous(indptr, np.int64)
    idx = jit.contiguous(indices, np.int32)
    n = int(n)
    nnz = int(idx.size)
    sm = jit.sm_count(jit.device_id())
    out = cupy.empty(nnz, dtype=np.int32)
    dplus = cupy.empty(n, dtype=np.int32)
    half = nnz // 2  # kept edges: at most one per stored pair
    src = cupy.empty(half, dtype=np.int32)
    dst = cupy.empty(half, dtype=np.int32)
    nedges = cupy.zeros(1, dtype=np.uint64)
    spec = triangles_spec()
    orient = jit.function(spec, TC_ORIENT)
    cap = np.int64(half)
    grid = jit.blocks_for(n * 32, BLOCK, cap=sm * 16)  # a warp per row
    orient((grid,), (BLOCK,), (ptr, idx, np.int64(n), out, dplus, src, dst, cap, nedges))
    g = _lanes(nnz, n)
    blocks = jit.blocks_for(half * g, BLOCK, cap=sm * 8)
    partial = cupy.empty(blocks, dtype=np.uint64)
    tv = cupy.zeros(n if per_vertex else 1, dtype=np.uint64)
    count = jit.function(spec, TC_COUNT[g, per_vertex])
    count((blocks,), (BLOCK,), (ptr, out, dplus, src, dst, cap, nedges, partial, tv))
    return partial, tv


def triangle_count(indptr, indices, n: int) -> int:
    """The number of triangles of the symmetric pattern ``indptr``/``indices`` (a CSR
    of n rows, each row's entries distinct and sorted; self-loops ignored)."""
    if n == 0 or indices.size == 0:
        return 0
    partial, _ = _count(indptr, indices, n, False)
    return int(partial.sum())


def triangle_vertices(indptr, indices, n: int):
    """int64 array: the triangles through each vertex of the symmetric pattern."""
    if n == 0 or indices.size == 0:
        return cupy.zeros(int(n), dtype=np.int64)
    _, tv = _count(indptr, indices, n, True)
    return tv.view(np.int64)
