"""PageRank's power iteration on the GPU (kernels/pagerank.cu).

``pagerank(indptr, indices, values, n, x, p, w, alpha, tol, max_iter, *,
transposed=None)`` is the CPU primitive's name, signature and answer
(``kleene.backends.cpu.pagerank``): NetworkX's step ``x ← α (x P + (x · d) w) + (1 −
α) p`` from ``x`` until the L1 change of a step is below ``n * tol``, returning ``(x,
k)``, the vector of the first step k below it, or ``(last x, 0)`` after ``max_iter``
steps without. ``indptr, indices, values`` are A's CSR (``values`` None: unit
weights; only the row sums are read), ``transposed`` Aᵀ's CSR, which the GPU needs
(A's own arrays when A equals its transpose): InvalidValue without it.

A step is four kernels: ``y = x ∘ s`` with the dangling sum's block partials, their
total, one pull over Aᵀ's rows fused with the update and the L1 change's partials,
and a check that marks the first step below ``n * tol`` done (every kernel returns at
once after that). The pull's blocks take chunks of about the same number of entries
and rows together (``pull_chunks``), not of rows: a skewed degree distribution, or
the empty rows of a graph gathered in one place, leaves no block with far more work
than the rest, and a block gathers its chunk's products with all its loads in
flight before it sums the rows. The host launches 2 steps, then as many as the last
step's rate of decrease says the L1 change still needs (``steps_to_go``) between reads
of that state, so a run waits for the device a few times, not once a step; the steps
launched past the converged one do nothing, and the vector kept is the converged
step's. Every sum has a fixed order (fixed grids, fixed trees), so the result is the
same bits on every run.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import cupy
import numpy as np

from kleene.errors import InvalidValue

from .. import jit
from .components import lanes_for, long_rows

_THREADS = 256  # kernels/pagerank.cu: KL_PR_THREADS
_SEGMENT = 2048  # kernels/pagerank.cu: KL_PR_SEGMENT
_LIMIT = 1024  # rows longer than this go by segments, a block each
_MAX_CHUNK = 32  # most steps launched between two reads of the state
# entries of Aᵀ a block of the pull takes (kl_pr_pull's CHUNK): at most _LIMIT, so only
# a chunk's last row can outgrow it, and its products fit CHUNK + _LIMIT slots of
# shared memory, small enough for eight blocks a multiprocessor
_PULL_CHUNK = 1024
_BOUNDS = f"kl_pr_bounds<{_PULL_CHUNK}, {_LIMIT}>"
_CHECK_SPAN = 2048  # the L1 change's parts a block of kl_pr_check adds
_SHORT = 64  # rows of at most this many entries: a thread each; longer: a warp each
_INDEX_TYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_VALUE_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}


@cache
def _kernels(device: int, names: tuple[str, ...]) -> dict:
    code = (Path(__file__).parent.parent / "kernels" / "pagerank.cu").read_text()
    mod = cupy.RawModule(code=code, options=jit.OPTIONS, name_expressions=list(names))
    return {name: mod.get_function(name) for name in names}


def _values(values, nnz: int):
    """(value array, its C type) of a CSR's values; float32/float64 as they are."""
    v = jit.contiguous(values)
    if v.dtype not in _VALUE_TYPES:
        v = v.astype(np.float64)
    if v.size != nnz:
        raise InvalidValue(f"pagerank: {v.size} values for {nnz} entries")
    return v, _VALUE_TYPES[v.dtype]


def pull_chunks(tptr, n: int, nnz: int, kernel=None):
    """The pull's blocks over Aᵀ's row pointers ``tptr``: a flat int64 array of
    ``{r0, r1, lo, hi}`` per chunk b, its rows r0 .. r1 - 1 (those whose start plus
    their index falls in [b CHUNK, (b + 1) CHUNK): at most CHUNK rows and, bar the
    last, fewer than CHUNK entries, so empty rows gathered in one place still spread
    over blocks) and the entries lo .. hi it gathers (up to its last row's start when
    that row is longer than the limit: the segment kernels take it). One kernel:
    ``kernel``, the caller's compiled ``kl_pr_bounds`` (compiled here when None)."""
    if kernel is None:
        name = _BOUNDS
        kernel = _kernels(jit.device_id(), (name,))[name]
    nchunks = max(1, -(-(int(nnz) + int(n)) // _PULL_CHUNK))
    bounds = cupy.empty(4 * nchunks, dtype=np.int64)
    grid = (jit.blocks_for(nchunks, _THREADS),)
    ptr = jit.contiguous(tptr, np.int64)
    kernel(grid, (_THREADS,), (ptr, np.int64(n), np.int64(nchunks), bounds))
    return bounds


def pagerank(indptr, indices, values, n, x, p, w, alpha, tol, max_iter, *, transposed=None):
    """(x, k): NetworkX's PageRank iteration (see the module docstring), on the GPU."""
    if transposed is None:
        raise InvalidValue("pagerank: the GPU kernel needs the transpose's CSR (transposed=)")
    n = int(n)
    pattern = values is None
    ptr = jit.contiguous(indptr, np.int64)
    tptr = jit.contiguous(transposed[0], np.int64)
    tidx = jit.contiguous(transposed[1])
    if tidx.dtype not in _INDEX_TYPES:
        tidx = tidx.astype(np.int64)
    if pattern:
        vals = tvals = jit.dummy_bool().view(np.uint8)
        vtype = "double"
    else:
        vals, vtype = _values(values, int(tidx.size))  # A and Aᵀ hold as many
        tvals, ttype = _values(transposed[2], int(tidx.size))
        if ttype != vtype:
            tvals = tvals.astype(vals.dtype)
    flag = "true" if pattern else "false"
    itype = _INDEX_TYPES[tidx.dtype]
    idx = jit.contiguous(indices)
    if idx.dtype != tidx.dtype:
        idx = idx.astype(tidx.dtype)
    out_lanes = 1 if pattern else lanes_for(int(tidx.size), n)  # a pattern's sums are lengths
    names = {
        "out": f"kl_pr_out<{vtype}, {flag}, {out_lanes}>",
        "scale": "kl_pr_scale",
        "total": "kl_pr_total",
        "pull": f"kl_pr_pull<{itype}, {vtype}, {flag}, {_PULL_CHUNK}, {_LIMIT}, {_SHORT}>",
        "check": "kl_pr_check",
        "bounds": _BOUNDS,
        "seg_pull": f"kl_pr_segments<{itype}, {vtype}, {flag}, true>",
        "seg_out": f"kl_pr_segments<{itype}, {vtype}, {flag}, false>",
        "long_out": "kl_pr_long_out",
        "long_update": "kl_pr_long_update",
    }
    dev = jit.device_id()
    fns = _kernels(dev, tuple(names.values()))
    k = {key: fns[name] for key, name in names.items()}
    sms = jit.sm_count(dev)
    block = (_THREADS,)
    n64, limit = np.int64(n), np.int64(_LIMIT)
    state = cupy.zeros(4, dtype=np.int64)  # done, its step, the last two L1 changes' bits
    s = cupy.empty(n, dtype=np.float64)
    dangling = cupy.empty(n, dtype=np.uint8)
    rows_grid = (jit.blocks_for(n * out_lanes, _THREADS, cap=sms * 16),)
    k["out"](rows_grid, block, (ptr, vals, n64, limit, s, dangling))
    long_a = None if pattern else long_rows(ptr, _LIMIT, _SEGMENT)
    if long_a is not None:  # the out-weights of the long rows of A
        rows, first, seg_row, total = long_a
        parts = cupy.empty(total, dtype=np.float64)
        k["seg_out"]((total,), block, (ptr, idx, vals, s, rows, first, seg_row, parts, state))
        grid = (jit.blocks_for(int(rows.size), _THREADS),)
        k["long_out"](grid, block, (rows, first, np.int64(rows.size), parts, s, dangling))
    long_t = long_a if (tptr is ptr and not pattern) else long_rows(tptr, _LIMIT, _SEGMENT)
    # fixed grids: the partial sums, and so the bits, are the same on every run
    scale_grid = jit.blocks_for(n, _THREADS, cap=sms * 4)
    bounds = pull_chunks(tptr, n, int(tidx.size), k["bounds"])
    nchunks = bounds.size // 4
    lost_parts = cupy.empty(scale_grid, dtype=np.float64)
    lost = cupy.empty(1, dtype=np.float64)
    err_parts = cupy.empty(nchunks, dtype=np.float64)
    y = cupy.empty(n, dtype=np.float64)
    bufs = (cupy.array(x, dtype=np.float64), cupy.empty(n, dtype=np.float64))
    p = jit.contiguous(p, np.float64)
    w = jit.contiguous(w, np.float64)
    alpha = np.float64(alpha)
    tol_limit = np.float64(n * float(tol))
    nlong = 0
    err_long = cupy.zeros(1, dtype=np.float64)
    if long_t is not None:
        t_rows, t_first, t_seg_row, t_total = long_t
        nlong = int(t_rows.size)
        t_parts = cupy.empty(t_total, dtype=np.float64)
        err_long = cupy.empty(nlong, dtype=np.float64)
        long_grid = (jit.blocks_for(nlong, _THREADS),)
        seg_args = (tptr, tidx, tvals, y, t_rows, t_first, t_seg_row, t_parts, state)
    scale_args = [None, s, dangling, n64, y, lost_parts, state]
    total_args = (lost_parts, np.int64(scale_grid), lost, state)
    pull_args = [tptr, tidx, tvals, bounds, y, None, p, w, alpha, lost, None, err_parts, state]
    # the check's blocks: about _CHECK_SPAN parts each, at most one a multiprocessor
    check_grid = max(1, min(sms, -(-(nchunks + nlong) // _CHECK_SPAN)))
    check_parts = cupy.empty(check_grid, dtype=np.float64)
    ticket = cupy.zeros(1, dtype=np.uint32)
    check_args = [err_parts, np.int64(nchunks), err_long, np.int64(nlong), tol_limit, None]
    check_args += [check_parts, ticket, state]
    step, chunk, max_iter = 0, 2, int(max_iter)
    while step < max_iter:
        for _ in range(min(chunk, max_iter - step)):
            step += 1
            old, new = bufs[(step - 1) % 2], bufs[step % 2]
            scale_args[0] = old
            k["scale"]((scale_grid,), block, tuple(scale_args))
            if nlong:
                k["seg_pull"]((t_total,), block, seg_args)
            k["total"]((1,), block, total_args)
            pull_args[5], pull_args[10] = old, new
            k["pull"]((nchunks,), block, tuple(pull_args))
            if nlong:
                update = (t_rows, t_first, np.int64(nlong), t_parts, old, p, w, alpha)
                update += (lost, new, err_long, state)
                k["long_update"](long_grid, block, update)
            check_args[5] = np.int64(step)
            k["check"]((check_grid,), block, tuple(check_args))
        got = state.get()
        if got[0]:
            return bufs[int(got[1]) % 2], int(got[1])
        changes = got[2:].view(np.float64)
        chunk = steps_to_go(changes[step % 2], changes[(step - 1) % 2], float(tol_limit), chunk)
    return bufs[max_iter % 2], 0


def steps_to_go(last: float, before: float, limit: float, chunk: int) -> int:
    """How many steps to launch before the next read of the state: the steps the L1
    change needs to fall from ``last`` below ``limit`` at the rate of the last step
    (``last / before``), at least 1 and at most _MAX_CHUNK; twice ``chunk`` (capped)
    when the rate says nothing (not a decrease). A read costs the device an idle gap
    while the host launches again, a step launched past convergence a pass of empty
    blocks: both about the same, so the guess is neither raised nor lowered.

    >>> steps_to_go(1e-3, 1e-2, 2e-4, 2)  # ten times smaller a step: one more
    1
    >>> steps_to_go(1e-3, 2e-3, 1e-4, 2)  # halved a step: four more
    4
    >>> steps_to_go(1e-3, 1e-3, 1e-4, 2)  # no decrease: twice the last batch
    4
    """
    rate = last / before if before > 0 else 1.0
    if not 0.0 < rate < 1.0 or not last > 0.0:
        return min(2 * chunk, _MAX_CHUNK)
    need = math.floor(math.log(limit / last) / math.log(rate)) + 1 if last >= limit else 1
    return max(1, min(need, _MAX_CHUNK))
