"""Brandes' betweenness on the GPU, 64 sources at once (kernels/betweenness.cu).

The CUDA back end's ``brandes``, with the CPU back end's signature
(``kleene/backends/cpu/betweenness.py``) and its answers; the composed twins
(``kleene.algorithms.analytics.betweenness``) define them. Unweighted only: a
weighted search is the caller's to run on the CPU kernel (a host copy).

The sources go in batches of 64, one bit each in a word per vertex and level. A
batch is a forward pass, one level a launch (``kl_bc_forward``: each vertex pulls
the path counts σ of its in-neighbours on the level before, for the searches that
have not reached it yet and are still alive; one host read of the alive searches
ends the pass), then a backward pass from the deepest level up (``kl_bc_backward``:
each vertex pulls the coefficients ``(1 + δ) / σ`` of its out-neighbours one level
down, adds its δ over the searches into bc and, for the edge form, each arc's share
into ebc; the edge form runs the sources' level too, for their arcs). σ and the
coefficient of (vertex, search) share one n × 64 float64 array.

A warp owns a vertex; a vertex with more than ``_CHUNK`` arcs is cut into chunks of
``_CHUNK``, one warp each, whose partial rows a second launch adds in chunk order.
Every sum runs in a fixed order and every place has one writer: the same call gives
the same bits on every run (tests/test_betweenness.py runs it twice).
"""

from __future__ import annotations

from functools import cache

import cupy
import numpy as np

from kleene.backends.device import gpu_memory_free
from kleene.errors import InvalidValue, OutOfMemory

from .. import jit
from ..codegen.common import Prelude, Spec

_THREADS = 256  # KL_BC_T
_LANES = 64  # searches per batch: one bit of a word
# Arcs a warp scans for one vertex before the vertex is cut into chunks: a warp takes
# the arcs that carry paths one after the other, so a long row would keep one warp
# busy after the rest of a level is done; chunks spread it over warps (a row of 64
# partial sums each, added by the combine launch).
_CHUNK = 256
_NAMES = ("kl_bc_forward", "kl_bc_forward_combine", "kl_bc_backward", "kl_bc_backward_combine")


@cache
def betweenness_spec() -> Spec:
    """Fixed types (int32 vertex ids, int64 offsets, float64 counts): one unit."""
    p = Prelude()
    return Spec(
        "betweenness", ("betweenness",), p.text(), ("betweenness.cu",), (), _NAMES, together=True
    )


def _function(name: str):
    return jit.function(betweenness_spec(), name)


class _Items:
    """The work items of one CSR: a vertex per item, or a chunk of a hub's arcs."""

    def __init__(self, indptr, indices, n: int, also=None):
        """``also``: vertices that get an item without arcs (None: only those with arcs)."""
        self.indices = jit.contiguous(indices, np.int32)
        ptr = jit.contiguous(indptr, np.int64)
        deg = ptr[1:] - ptr[:-1]
        some = deg > 0 if also is None else (deg > 0) | also
        light = cupy.flatnonzero(some & (deg <= _CHUNK)).astype(np.int32)
        hubs = cupy.flatnonzero(deg > _CHUNK)
        hub_host = cupy.asnumpy(hubs)
        deg_host = cupy.asnumpy(deg[hubs])
        start_host = cupy.asnumpy(ptr[hubs])
        chunks = -(-deg_host // _CHUNK)
        first = np.concatenate([[0], np.cumsum(chunks)]).astype(np.int64)
        owner = np.repeat(np.arange(hub_host.size), chunks)
        which = np.arange(int(first[-1])) - first[owner]
        c0 = start_host[owner] + which * _CHUNK
        c1 = np.minimum(c0 + _CHUNK, start_host[owner] + deg_host[owner])
        slots = int(first[-1])
        # hub chunks first: the longest warps start early
        self.v = cupy.concatenate([cupy.asarray(hub_host[owner], dtype=np.int32), light])
        self.p0 = cupy.concatenate([cupy.asarray(c0, dtype=np.int64), ptr[light]])
        self.p1 = cupy.concatenate([cupy.asarray(c1, dtype=np.int64), ptr[light + 1]])
        self.slot = cupy.concatenate(
            [cupy.arange(slots, dtype=np.int32), cupy.full(light.size, -1, dtype=np.int32)]
        )
        self.hub_v = cupy.asarray(hub_host, dtype=np.int32)
        self.hub_s0 = cupy.asarray(first[:-1], dtype=np.int32)
        self.hub_s1 = cupy.asarray(first[1:], dtype=np.int32)
        self.slots = slots

    @property
    def count(self) -> int:
        return int(self.v.size)


_plans: list = []  # [(arrays the plan was made from, plan)]: the latest few graphs


def _plan(indptr, indices, in_indptr, in_indices, n: int):
    key = (indptr, indices, in_indptr, in_indices)
    for k, p in _plans:
        if all(a is b for a, b in zip(k, key, strict=True)):
            return p
    if in_indptr is None:  # symmetric: a vertex with an in-arc has an out-arc
        inn = out = _Items(indptr, indices, n)
    else:  # a sink's backward item writes its coefficient 1 / σ
        inn = _Items(in_indptr, in_indices, n)
        has_in = jit.contiguous(in_indptr, np.int64)
        out = _Items(indptr, indices, n, also=has_in[1:] > has_in[:-1])
    plan = (inn, out)
    _plans.insert(0, (key, plan))  # the arrays are held: their ids stay theirs
    del _plans[4:]
    return plan


def _launch(name: str, items: int, args) -> None:
    """``name`` over ``items`` work items, a warp each (the item count leads the args)."""
    items = int(items)
    if items > 0:
        blocks = jit.blocks_for(items * 32, _THREADS)
        _function(name)((blocks,), (_THREADS,), (np.int64(items), *args))


def brandes(
    indptr,
    indices,
    weights,
    sources,
    n: int,
    endpoints=False,
    edges=False,
    in_indptr=None,
    in_indices=None,
):
    """(bc, ebc): Brandes' dependencies summed over ``sources``, as the CPU kernel.

    ``indptr``/``indices``: the out-arcs (CSR); ``in_indptr``/``in_indices``: the
    in-arcs (the CSR of the transpose), None for a symmetric pattern. ``weights``
    must be None (this kernel counts edges). ``ebc`` is one value per out-arc (CSR
    position), or None without ``edges``.
    """
    if weights is not None:
        raise InvalidValue(
            "brandes: the GPU kernel counts edges; run weighted searches on the CPU kernel"
        )
    n = int(n)
    m = int(indices.size)
    bc = cupy.zeros(n, dtype=np.float64)
    ebc = cupy.zeros(m, dtype=np.float64) if edges else None
    srcs = np.asarray(cupy.asnumpy(sources) if isinstance(sources, cupy.ndarray) else sources)
    srcs = srcs.astype(np.int64).ravel()
    if n == 0 or srcs.size == 0:
        return bc, ebc
    need = n * (_LANES * 8 + 8 * 4)
    if need > gpu_memory_free():
        raise OutOfMemory(
            f"betweenness: the n x {_LANES} path counts of {n} vertices need {need} bytes "
            f"of GPU memory, more than is free ({gpu_memory_free()})"
        )
    inn, out = _plan(indptr, indices, in_indptr, in_indices, n)
    try:
        sc = cupy.empty(n * _LANES, dtype=np.float64)
        partial = cupy.empty(max(inn.slots, out.slots, 1) * _LANES, dtype=np.float64)
        pmask = cupy.empty(max(inn.slots, out.slots, 1), dtype=np.uint64)
        for start in range(0, srcs.size, _LANES):
            _batch(
                srcs[start : start + _LANES], n, inn, out, sc, partial, pmask, bc, ebc, endpoints
            )
    except cupy.cuda.memory.OutOfMemoryError as e:
        raise OutOfMemory(f"betweenness: out of GPU memory ({e})") from e
    return bc, ebc


def _batch(batch, n, inn, out, sc, partial, pmask, bc, ebc, endpoints) -> None:
    b = batch.size
    words: dict[int, int] = {}
    for lane, s in enumerate(batch.tolist()):
        words[s] = words.get(s, 0) | (1 << lane)
    verts = np.fromiter(words, dtype=np.int64, count=len(words))
    bits = np.array([words[s] for s in verts.tolist()], dtype=np.uint64)
    first = cupy.zeros(n, dtype=np.uint64)
    first[cupy.asarray(verts)] = cupy.asarray(bits)
    visited = first.copy()
    sc[cupy.asarray(batch * _LANES + np.arange(b))] = 1.0
    levels = [first]
    alive = (1 << b) - 1
    flag = cupy.zeros(1, dtype=np.uint64)
    while True:
        cur = cupy.zeros(n, dtype=np.uint64)
        flag.fill(0)
        fwd = (inn.v, inn.p0, inn.p1, inn.slot, inn.indices, levels[-1], cur, visited)
        _launch("kl_bc_forward", inn.count, (*fwd, np.uint64(alive), sc, partial, pmask, flag))
        hubs = (inn.hub_v, inn.hub_s0, inn.hub_s1, partial, pmask, cur, visited, sc, flag)
        _launch("kl_bc_forward_combine", inn.hub_v.size, hubs)
        alive = int(flag.get()[0])
        if alive == 0:
            break
        levels.append(cur)
    nothing = cupy.zeros(n, dtype=np.uint64)
    edges = ebc is not None
    sums = (bc, ebc if edges else bc)
    ends = np.int32(bool(endpoints))
    # level 0 (the sources) only for the edge form: their arcs, not their δ
    for d in range(len(levels) - 1, -1 if edges else 0, -1):
        here = levels[d]
        below = levels[d + 1] if d + 1 < len(levels) else nothing
        count = np.int32(d > 0)
        bwd = (out.v, out.p0, out.p1, out.slot, out.indices, here, below, sc, partial)
        _launch("kl_bc_backward", out.count, (*bwd, *sums, np.int32(edges), count, ends))
        hubs = (out.hub_v, out.hub_s0, out.hub_s1, partial, here, sc, bc, count, ends)
        _launch("kl_bc_backward_combine", out.hub_v.size, hubs)
    if endpoints:  # each source: the vertices its search reached, itself excluded
        one = np.uint64(1)
        per_lane = cupy.stack(
            [cupy.count_nonzero((visited >> np.uint64(s)) & one) for s in range(b)]
        ).astype(np.float64)
        per_lane -= 1.0
        bc += cupy.bincount(cupy.asarray(batch), weights=per_lane, minlength=n)
