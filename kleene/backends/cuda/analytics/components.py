"""Weak connected components on the GPU: Afforest (kernels/components.cu).

``components_weak(indptr, indices, n, *, symmetric=False)`` is the CPU primitive's
name and answer (``kleene.backends.cpu.components``): ``(number of components, int32
label of each vertex)`` numbered as ``scipy.sparse.csgraph.connected_components``
numbers weak components, by their smallest vertex, here as a CuPy array.

Afforest (Sutton, Ben-Nun and Barak): union-find over the pattern, trees hooked by
atomicCAS under their smaller root and compressed by pointer jumping; two rounds
link every vertex to one neighbour each, a sample of 256 parents names the most
frequent root (the giant component), and only the vertices outside it link the rest
of their neighbours (a row longer than 2048 entries in segments, a block each, so a
hub does not hold one group of threads for the whole kernel; the linking kernel lists
the segments on the device, so the call waits for the device once, for the count).
That skip needs every edge on both of its rows:
``symmetric=True`` says the pattern is symmetric, otherwise every vertex links all
its neighbours (union-find over every stored edge, the weak components of a
directed pattern). Every tree's root is its smallest vertex, so after the last
compression each vertex holds the smallest vertex of its component whatever order
the atomics took: the labels (each root's rank among the roots) are the same bits on
every run.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cupy
import numpy as np

from kleene.errors import InvalidValue

from .. import jit
from ..structure import launch_symmetry_sums

_THREADS = 256
_SAMPLE_ROUNDS = 2  # neighbours linked per vertex before the giant component is sampled
_SAMPLES = 256  # kernels/components.cu: KL_CC_SAMPLES
_LIMIT = 2048  # rows longer than this are linked in segments, a block each
_SEGMENT = 2048
_RANK_TILES = 1024  # most blocks numbering the roots (kl_cc_rank: each adds the counts before it)
_INDEX_TYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}


@cache
def _module(device: int, index: str, lanes: int):
    names = (
        "kl_cc_init",
        "kl_cc_compress",
        "kl_cc_frequent",
        f"kl_cc_sample<{index}>",
        f"kl_cc_finish<{index}, {lanes}>",
        f"kl_cc_hubs<{index}>",
    )
    return _functions(device, names)


@cache
def _functions(device: int, names: tuple[str, ...]):
    code = (Path(__file__).parent.parent / "kernels" / "components.cu").read_text()
    mod = cupy.RawModule(code=code, options=jit.OPTIONS, name_expressions=list(names))
    return tuple(mod.get_function(name) for name in names)


def pattern_arrays(indptr, indices, n: int, what: str):
    """(int64 row pointers, int32 or int64 column indices) of a CSR pattern as the
    components kernels read them (no copy where they already are); InvalidValue when
    ``n`` vertices do not fit int32 labels."""
    if n >= 2**31 - 1:
        raise InvalidValue(f"{what}: {n} vertices do not fit int32 labels")
    ptr = jit.contiguous(indptr, np.int64)
    idx = jit.contiguous(indices)
    if idx.dtype not in _INDEX_TYPES:
        idx = idx.astype(np.int64)
    return ptr, idx


def numbered_roots(comp, n: int):
    """(count, int32 labels) where ``comp[v]`` is the smallest vertex of v's component
    (its root): each vertex gets its root's rank among the roots, so components are
    numbered in the order of their smallest vertex. The count's read is the one wait."""
    count, labels = _ranked_roots(comp, n)
    return int(count[0]), labels


def _ranked_roots(comp, n: int):
    """(count: a one-entry int32 device array, labels) on the device, nothing read
    back (kernels/components.cu: kl_cc_tile_roots, kl_cc_rank, kl_cc_label)."""
    tile_roots, rank_fn, label = _functions(
        jit.device_id(), ("kl_cc_tile_roots", "kl_cc_rank", "kl_cc_label")
    )
    tiles = jit.blocks_for(n, _THREADS, cap=_RANK_TILES)
    n64, block = np.int64(n), (_THREADS,)
    work = cupy.empty(n + tiles + 1, dtype=np.int32)  # rank, then the tiles' counts, count
    rank, counts, count = work[:n], work[n : n + tiles], work[n + tiles :]
    tile_roots((tiles,), block, (comp, n64, counts))
    rank_fn((tiles,), block, (comp, n64, counts, rank, count))
    labels = cupy.empty(n, dtype=np.int32)
    grid = (jit.blocks_for(n, _THREADS, cap=jit.sm_count(jit.device_id()) * 16),)
    label(grid, block, (comp, rank, n64, labels))
    return count, labels


def long_rows(ptr, limit: int, segment: int):
    """(rows, starts, seg_row, segments) of the rows of a CSR longer than ``limit``,
    cut in segments of ``segment`` entries: row k of ``rows`` has segments starts[k]
    .. starts[k + 1] - 1, segment b belongs to row seg_row[b]; None when there is no
    such row. (The hubs of a skewed graph, given a block per segment rather than one
    group of lanes for a whole row.) Rows in increasing order, so sums taken over
    them keep a fixed order; two kernels around one prefix sum and one host read.
    """
    n = ptr.size - 1
    if n <= 0:
        return None
    mark, fill = _functions(jit.device_id(), ("kl_long_mark", "kl_long_fill"))
    grid = (jit.blocks_for(n, _THREADS, cap=jit.sm_count(jit.device_id()) * 16),)
    args = (ptr, np.int64(n), np.int64(limit), np.int64(segment))
    key = cupy.empty(n, dtype=np.int64)
    mark(grid, (_THREADS,), (*args, key))
    cupy.cumsum(key, out=key)
    last = int(key[-1])  # (long rows << 32) | their segments: the one wait
    count, total = last >> 32, last & 0xFFFFFFFF
    if count == 0:
        return None
    rows = cupy.empty(count, dtype=np.int64)
    starts = cupy.empty(count + 1, dtype=np.int64)
    seg_row = cupy.empty(total, dtype=np.int64)
    fill(grid, (_THREADS,), (ptr, key, np.int64(n), *args[2:], rows, starts, seg_row))
    return rows, starts, seg_row, total


def lanes_for(nnz: int, n: int) -> int:
    """Threads given to a vertex's row: about its mean length, 4 to 32."""
    mean = nnz / max(n, 1)
    for lanes in (4, 8, 16):
        if mean <= lanes:
            return lanes
    return 32


def components_weak(indptr, indices, n: int, *, symmetric: bool = False, values=None):
    """(count, int32 labels on the GPU) of the weakly connected components of a CSR
    pattern (int64 ``indptr``, int32 or int64 ``indices``, every entry in range).
    ``values``, as on the CPU: None is returned when one of them is not finite."""
    if values is not None and not bool(cupy.isfinite(values).all()):
        return None
    n = int(n)
    if n == 0:
        return 0, cupy.zeros(0, dtype=np.int32)
    ptr, idx = pattern_arrays(indptr, indices, n, "components_weak")
    return numbered_roots(_afforest(ptr, idx, n, symmetric), n)


def components_if_symmetric(indptr, indices, n: int, *, salt: int):
    """(symmetric, count, labels): whether the CSR pattern equals its transpose (the
    pass of ``structure.symmetry_sums`` with ``salt``) and, when it does, its
    components as ``components_weak(..., symmetric=True)`` gives them (count and
    labels None otherwise). Both are launched before either is read, and read in one
    wait: for a caller that would otherwise wait for the symmetry pass and then for
    the components. On a pattern that is not symmetric, the Afforest is wasted work
    (its skip is only valid on a symmetric one)."""
    n = int(n)
    ptr, idx = pattern_arrays(indptr, indices, n, "components_if_symmetric")
    if n == 0 or idx.size == 0:
        return (True, *components_weak(ptr, idx, n, symmetric=True))
    sums = launch_symmetry_sums(ptr, idx, None, salt)
    count, labels = _ranked_roots(_afforest(ptr, idx, n, True), n)
    # the count (int32) into the low half of sums[1], which the pattern pass leaves 0:
    # one small copy on the stream, one read of both
    rt, stream = cupy.cuda.runtime, cupy.cuda.get_current_stream().ptr
    rt.memcpyAsync(sums.data.ptr + 8, count.data.ptr, 4, rt.memcpyDeviceToDevice, stream)
    pattern, count = (int(v) for v in sums[:2].get())
    if pattern != 0:
        return False, None, None
    return True, count, labels


def _afforest(ptr, idx, n: int, symmetric: bool):
    """comp: each vertex's root, the smallest vertex of its component (n > 0)."""
    nnz = int(idx.size)
    lanes = lanes_for(nnz, n)
    init, compress, frequent, sample, finish, hubs_fn = _module(
        jit.device_id(), _INDEX_TYPES[idx.dtype], lanes
    )
    cap = jit.sm_count(jit.device_id()) * 16
    grid = (jit.blocks_for(n, _THREADS, cap=cap),)
    block = (_THREADS,)
    work = cupy.empty(n + 1, dtype=np.int32)
    comp, giant = work[:n], work[n:]  # (giant: the most frequent root, or 0)
    # the hubs' segments: a count, then (row, segment) pairs; at most this many
    most = nnz // _SEGMENT + nnz // (_LIMIT + 1) + 1
    hubs = cupy.empty(2 * most + 1, dtype=np.int64)
    n64 = np.int64(n)
    init(grid, block, (comp, n64, giant, hubs))  # (also zeroes giant and the hubs' count)
    for r in range(_SAMPLE_ROUNDS):
        sample(grid, block, (ptr, idx, n64, comp, np.int32(r), np.int32(1)))
        compress(grid, block, (comp, n64))
    if symmetric:
        frequent((1,), (_SAMPLES,), (comp, n64, giant))
    fgrid = (jit.blocks_for(n * lanes, _THREADS, cap=cap),)
    skip = np.int32(1 if symmetric else 0)
    segment = np.int64(_SEGMENT)
    args = (ptr, idx, n64, comp, giant, skip, np.int32(_SAMPLE_ROUNDS), np.int64(_LIMIT))
    finish(fgrid, block, (*args, segment, hubs))
    hubs_fn((jit.blocks_for(most, 1, cap=cap // 2),), block, (ptr, idx, comp, hubs, segment))
    compress(grid, block, (comp, n64))
    return comp
