"""Strongly connected components on the GPU: trimming and colouring (kernels/strong.cu).

``strong_colouring(indptr, indices, n, *, sweeps=None)`` returns ``(number of
components, int32 label of each vertex)`` as a CuPy array, the components numbered
by their smallest vertex (the component of vertex 0 is 0, the next one met in vertex
order 1, ...): cupyx.scipy.sparse.csgraph's numbering, and SciPy's too wherever the
pattern is symmetric. SciPy numbers the components of other graphs in the order its
depth-first search completes them, an order only that search gives; the CPU's
``components_strong`` (``kleene.backends.cpu.components``) keeps it.

The rounds (Orzan's colouring, with trimming as in Hong et al. and Slota et al.):
retire every vertex with no edge in or none out among those left (a component alone),
a few passes; give each vertex left the smallest vertex
that reaches it (colours pushed along the out-edges by atomicMin until none falls);
each vertex that kept its own colour roots a component, which is the vertices of its
colour that reach it back (pulls over the rows); those leave, and the rest repeats.
Only A's CSR is read, no transpose is built. Every sweep reads the whole CSR, so a
graph of long paths (a road network's one-way chains) needs as many sweeps as its
depth: past ``sweeps`` (default: ``SWEEPS``) the function returns None and the caller
runs the host's depth-first search instead, which costs one read of the edges.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cupy
import numpy as np

from .. import jit
from .components import lanes_for, long_rows, numbered_roots, pattern_arrays

_THREADS = 256  # kernels/strong.cu: KL_SCC_THREADS
_INDEX_TYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
# Sweeps over the edges before the host's search is the cheaper way: a sweep reads
# the CSR once, as that search does, but the search also walks its stacks, so a few
# hundred sweeps still cost less than the pattern's copy and walk on the host.
SWEEPS = 512
_LIMIT = 256  # rows longer than this go by segments, a block each
_SEGMENT = 1024  # kernels/strong.cu: KL_SCC_SEGMENT
_TRIM_PASSES = 3  # trim passes a round
_FIRST_BATCH = 4  # sweeps launched before the first read of a phase's progress
_MAX_BATCH = 32  # sweeps launched between two reads of their progress


@cache
def _module(device: int, index: str, lanes: int):
    names = (
        f"kl_scc_trim_scan<{index}, {lanes}>",
        "kl_scc_trim_apply",
        "kl_scc_colour_init",
        f"kl_scc_forward<{index}, {lanes}>",
        "kl_scc_roots",
        f"kl_scc_backward<{index}, {lanes}>",
        "kl_scc_retire",
        f"kl_scc_trim_segments<{index}>",
        f"kl_scc_forward_segments<{index}>",
        f"kl_scc_backward_segments<{index}>",
    )
    code = (Path(__file__).parent.parent / "kernels" / "strong.cu").read_text()
    mod = cupy.RawModule(code=code, options=jit.OPTIONS, name_expressions=list(names))
    return tuple(mod.get_function(name) for name in names)


class _Sweeps:
    """The sweep counter and its progress flags, shared by every phase of a call."""

    def __init__(self, budget: int):
        self.progress = cupy.zeros(budget + 1, dtype=np.int32)
        self.used = 0
        self.budget = budget

    def run(self, launch) -> bool:
        """Run one phase: ``launch(g, first)`` for sweeps g = used, used + 1, ... in
        growing batches until a sweep changes nothing. False when the budget ran
        out first."""
        start, batch = self.used, _FIRST_BATCH
        while True:
            if self.used + batch > self.budget:
                return False
            for g in range(self.used, self.used + batch):
                launch(np.int64(g), np.int32(g == start))
            self.used += batch
            if int(self.progress[self.used - 1].get()) == 0:
                return True
            batch = min(2 * batch, _MAX_BATCH)


def strong_colouring(indptr, indices, n: int, *, sweeps: int | None = None):
    """(count, int32 labels on the GPU) of the strongly connected components of a CSR
    pattern (int64 ``indptr``, int32 or int64 ``indices``, every entry in range),
    numbered by their smallest vertex; None past ``sweeps`` sweeps (see the module
    docstring)."""
    n = int(n)
    if n == 0:
        return 0, cupy.zeros(0, dtype=np.int32)
    ptr, idx = pattern_arrays(indptr, indices, n, "strong_colouring")
    lanes = lanes_for(int(idx.size), n)
    scan, apply, init, forward, roots, backward, retire, *by_segments = _module(
        jit.device_id(), _INDEX_TYPES[idx.dtype], lanes
    )
    cap = jit.sm_count(jit.device_id()) * 16
    grid = (jit.blocks_for(n, _THREADS, cap=cap),)
    rows = (jit.blocks_for(n * lanes, _THREADS, cap=cap),)
    block = (_THREADS,)
    n64, limit = np.int64(n), np.int64(_LIMIT)
    # a hub's row would hold one group of lanes for a whole sweep: its segments go to
    # blocks of their own (the row kernels skip it)
    hubs = long_rows(ptr, _LIMIT, _SEGMENT)
    if hubs is not None:
        trim_seg, forward_seg, backward_seg = by_segments
        hub_rows, seg_first, seg_row, nseg = hubs
        where = (hub_rows, seg_first, seg_row)
    colour = cupy.zeros(n, dtype=np.int32)  # every vertex in play
    comp = cupy.empty(n, dtype=np.int32)
    has_in = cupy.zeros(n, dtype=np.uint8)
    has_out = cupy.empty(n, dtype=np.uint8)
    flags = (cupy.zeros(n, dtype=np.uint8), cupy.zeros(n, dtype=np.uint8))
    left = cupy.zeros(1, dtype=np.uint64)
    state = _Sweeps(SWEEPS if sweeps is None else int(sweeps))

    turn = [0]  # which flag array the next forward sweep reads

    def forward_sweep(g, first):
        cur, nxt = flags[turn[0]], flags[1 - turn[0]]
        turn[0] ^= 1
        if hubs is not None:  # (before the row kernel, which clears the hubs' flags)
            args = (ptr, idx, colour, cur, nxt, state.progress, g, first, *where)
            forward_seg((nseg,), block, args)
        args = (ptr, idx, n64, limit, colour, cur, nxt, state.progress, g, first)
        forward(rows, block, args)

    def backward_sweep(g, first):
        args = (ptr, idx, n64, limit, colour, flags[0], state.progress, g, first)
        backward(rows, block, args)
        if hubs is not None:
            args = (ptr, idx, colour, flags[0], state.progress, g, first, *where)
            backward_seg((nseg,), block, args)

    while True:
        # retire the vertices alone, a few passes launched at once (a pass that finds
        # none costs a sweep, less than waiting for the count between passes)
        if state.used + _TRIM_PASSES > state.budget:
            return None
        state.used += _TRIM_PASSES
        for k in range(_TRIM_PASSES):
            scan(rows, block, (ptr, idx, n64, limit, colour, has_in, has_out))
            if hubs is not None:  # (after the row kernel, which zeroes the hubs' has_out)
                trim_seg((nseg,), block, (ptr, idx, colour, has_in, has_out, *where))
            if k == _TRIM_PASSES - 1:
                left.fill(0)  # (the last pass counts the vertices still in play)
            apply(grid, block, (n64, colour, has_in, has_out, comp, left))
        if not int(left.get()[0]):
            break
        init(grid, block, (n64, colour, flags[0]))
        turn[0] = 0
        if not state.run(forward_sweep):
            return None
        # the flags are all clear again (a sweep clears what it reads, the last set none)
        roots(grid, block, (n64, colour, flags[0]))
        if not state.run(backward_sweep):
            return None
        retire(grid, block, (n64, colour, flags[0], comp))  # (the next trim counts the rest)
        flags[0].fill(0)
    return numbered_roots(comp, n)  # (comp[v]: the smallest vertex of v's component)
