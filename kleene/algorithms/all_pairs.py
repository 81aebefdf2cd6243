"""All-pairs shortest paths and other closures: kleene.apsp, kleene.transitive_closure."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from kleene.backends import array_module, bool_tensor_cores, to_host
from kleene.core import Matrix, Vector
from kleene.engine import closure_base_block, replay, replay_buffers
from kleene.errors import NegativeCycleError, names_gpu_memory
from kleene.ops import apply, diagonal, ewise_add, mxm, reduce, select
from kleene.progress import Progress, progress_for
from kleene.semiring import Semiring, get_semiring, min_first, min_plus

from . import apsp_dense, apsp_out_of_core, apsp_sparse
from .apsp_cost import cpu_dense_s, cpu_sparse_s, gpu_prefers_sparse
from .apsp_memory import (
    OUT_OF_CORE,
    SPARSE,
    MemoryNeed,
    check_fits,
    gib,
    need_for,
    out_of_core_extra,
    out_of_core_need,
    out_of_memory,
)
from .graph_input import as_graph, check_no_nan, finite_weights
from .paths import rows_with_cycles
from .shortest_tree import predecessors_from_distances

METHODS = ("auto", "floyd-warshall", "blocked", "recursive", "repeated-sssp", "johnson")
_DENSE = ("floyd-warshall", "blocked", "recursive")
# The blocked closure with the result in host memory and tiles streamed to the device
# (apsp_out_of_core.py): chosen by memory_limit=, out= or "auto", not a method= name.
_OUT_OF_CORE_METHODS = ("auto", "blocked")


@names_gpu_memory("apsp")
def apsp(G, *, method: str = "auto", directed: bool = True, return_predecessors: bool = False,
         semiring="min_plus", block_size: int | None = None, progress=None,
         client=None, memory_limit: int | None = None, out=None):  # fmt: skip
    """All-pairs best paths: the closure A* of the graph over a semiring.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Real weights (bool, integer, float; else TypeError). A stored +inf weight is
        no edge too; a NaN or -inf weight is a ValueError (the -inf one names its edge).
    method : str
        - "floyd-warshall": n rank-1 updates D ⊕= D(:,k) ⊗ D(k,:) (the baseline);
        - "blocked": Katz & Kider's blocked Floyd-Warshall (``block_size``);
        - "recursive": Buluç et al.'s in-place R-Kleene on semiring products, with a
          small-block closure as base case (``block_size``);
        - "repeated-sssp": one batched SSSP per group of sources, O(n) extra memory
          per source (sparse graphs); on the GPU all sources in a few fused launches,
          the results kept in GPU memory where they fit, else in host memory;
        - "johnson": Bellman-Ford potentials, then repeated SSSP on reweighted
          non-negative edges (negative weights on sparse graphs);
        - "auto": for min_plus the cheaper of the dense closure and repeated SSSP
          ("johnson" for negative weights) by cost models measured on each back
          end (``kleene.algorithms.apsp_cost``: n³ against n² times a cost per pair
          that grows with the edges per vertex and, on the GPU, with how many
          levels deep a BFS from the busiest vertex runs). On the GPU repeated
          SSSP wins with predecessors on sparse graphs and, without them, on
          sparse graphs past n ≈ 10,000 (road graphs) or ≈ 4,000 (shallow ones
          of a few edges a vertex); on the CPU Dijkstra rows win on sparse graphs
          and almost always with predecessors. The dense method is "recursive"
          on the back end's base blocks (see ``block_size``; on the GPU with
          predecessors or 1- and 2-byte values "blocked" up to n = 8192). Past
          memory: repeated SSSP where cheaper and its result fits, else the
          out-of-core blocked closure (see ``memory_limit``) when the result fits
          in host memory. Other semirings than min_plus: the dense method, or out
          of core past memory.
        The dense methods update the matrix in place and need an idempotent add
        (min, max, or): min_plus, max_min, min_max, max_times, lor_land.
    directed : bool
        False uses every edge in both directions.
    return_predecessors : bool
        Also return P with P[i, j] the vertex before j on a best path from i
        (-1 when i == j or j is unreachable); see ``reconstruct_path``.
    semiring : Semiring or name
        "min_plus" (shortest paths), "max_min" (widest / bottleneck paths),
        "max_times" (most reliable paths, weights in [0, 1]), "lor_land"
        (reachability; see ``transitive_closure``). Unreachable pairs hold the
        semiring's zero (inf for min_plus).
    block_size : int, optional
        Block of "blocked" and base case of "recursive": a positive integer;
        anything else is a ValueError. Default 128, except for "recursive" (and
        "auto" choosing it), whose base case is then the largest block the back
        end closes in one step (``kleene.engine.closure_base_block``: on the GPU, for
        4- and 8-byte values without predecessors, the whole matrix up to n = 2048,
        else 1024).
    progress : bool or callable, optional
        True shows a bar on stderr once the run has lasted half a second; a
        callable gets ``(done, total)`` in units of work (multiply-adds for the
        dense methods, sources for the sparse ones), ``done`` never decreasing
        and ``done == total`` exactly once, last, when the result is ready.
    client : dask.distributed.Client, optional
        Run the blocked closure on the client's workers over a 2-D grid of blocks
        (``kleene.distributed``, docs/scaling.md): method "auto" or "blocked",
        result in host memory (NumPy). ``G`` may then be a square
        ``dask.array.Array``: its chunks are computed on the workers that own
        their blocks and the result is a ``dask.array.Array`` left on them.
        Not with ``memory_limit`` or ``out``.
    memory_limit : int, optional
        Bytes the closure may use on its device (the GPU for a GPU graph; RAM
        beside the result for a CPU one): a positive integer. When the in-core
        method's estimated peak exceeds it, the closure runs out of core
        (method "auto" or "blocked"; others are a ValueError): Katz & Kider's
        blocked Floyd-Warshall with the n×n result in host memory and b×b tiles
        streamed through the device, b the largest that keeps the working set
        (the pivot row of tiles and 8 more) under the limit (docs/scaling.md).
        On the GPU at most 80% of the free GPU memory is used whatever the
        limit. A limit too small for tiles of 8×8 is a ValueError.
    out : NumPy array, or (dist, pred) with return_predecessors, optional
        Write the result there and run out of core: a writable, C-contiguous
        (n, n) host array of the result's dtype (float32 for a float32 graph,
        float64 otherwise; bool for lor_land), e.g. a ``numpy.memmap`` for a
        result larger than RAM; predecessors int64 (None: allocated). Returned
        as given. Bad ``out`` is a ValueError before anything is written. After a
        NegativeCycleError it holds a partial closure (each entry the value of
        some walk, or the zero) whose diagonal shows the cycle at the vertex the
        message names; after another error during the closure (an interrupt)
        partial values: neither the graph nor its closure.

    Returns
    -------
    dist : (n, n) array on the input's device (out of core, and for the sparse
        methods past GPU memory, in host memory: NumPy, page-locked on the GPU's
        out-of-core path when it fits); float64 from the sparse methods
    predecessors : (n, n) int64 array, if asked

    Raises
    ------
    NegativeCycleError
        A cycle beats the empty path (a negative cycle for min_plus).
    MemoryError
        The n×n result (and predecessors) does not fit, checked before anything
        n×n is allocated; the message says how much was asked and the largest n
        that fits (and, where host memory is too small even out of core, to pass
        ``out=numpy.memmap(...)``).
    ValueError
        Bad ``method``, ``block_size``, ``memory_limit`` or ``out``.

    Example
    -------
    >>> import numpy as np, kleene
    >>> inf = np.inf
    >>> G = np.array([[0, 3, inf], [inf, 0, 1], [2, inf, 0]])
    >>> kleene.apsp(G).tolist()
    [[0.0, 3.0, 4.0], [3.0, 0.0, 1.0], [2.0, 5.0, 0.0]]
    >>> kleene.apsp(G, memory_limit=4096).tolist()  # out of core: tiles of 3×3
    [[0.0, 3.0, 4.0], [3.0, 0.0, 1.0], [2.0, 5.0, 0.0]]
    """
    if method not in METHODS:
        raise ValueError(f"apsp: method must be one of {METHODS}, got {method!r}")
    limit = _memory_limit(memory_limit)
    if client is not None:  # the blocked closure on Dask workers (optional extra)
        if limit is not None or out is not None:
            raise ValueError("apsp: memory_limit and out= are for one machine, not with client=")
        from kleene.distributed import apsp_on_dask

        return apsp_on_dask(client, G, method=method, directed=directed,
                            return_predecessors=return_predecessors, semiring=semiring,
                            block_size=block_size, progress=progress)  # fmt: skip
    block = _block_size(block_size)
    sr = get_semiring(semiring)
    G0 = as_graph(G, directed=directed, fmt=None, check_nan=False)  # dense input stays dense
    A = _weights(G0, sr)
    preds = bool(return_predecessors)
    # A GPU matrix stored dense and not scanned yet: D's fill scans it for NaN in the
    # same pass, read back once the closure is queued (its own pass and wait held the
    # closure back ~0.2 ms at n = 4096). Any other route checks first.
    late = A is G0 and not preds and _scan_can_ride(A)
    if not late:  # NaN and -inf: ValueError; +inf weights: no edge
        F = finite_weights(G0)
        if F is not G0:
            A = _weights(F, sr)
    method = _route(A, sr, method, preds, limit, out)
    if late and method not in _LATE_CHECK_METHODS:  # checked now, as on every other route
        F = finite_weights(A)
        if F is not A:
            A = _weights(F, sr)
        late = False
    if block_size is None and method == "recursive":  # the back end's fastest base case
        block = closure_base_block(A.nrows, A.dtype, A.xp, preds)
    if method == OUT_OF_CORE:
        return _apsp_out_of_core(A, sr, preds, limit, out, progress)
    need = check_fits(A.nrows, A.dtype, preds, A.xp, method=method, sparse_ok=sr is min_plus,
                      out_of_core=True, out_of_core_extra=lambda: out_of_core_extra(A))  # fmt: skip
    total = _work(A.nrows, method, block, preds)
    with out_of_memory(need), progress_for(progress, total, f"apsp {method}") as bar:
        return _solve(A, sr, method, preds, block, bar, late_nan_check=late)


def _solve(A: Matrix, sr: Semiring, method: str, preds: bool, block: int, bar: Progress,
           late_nan_check: bool = False):  # fmt: skip
    """The closure by a resolved method, memory checked; ``bar`` counts ``_work`` units.
    ``late_nan_check``: A is not checked for NaN yet; a dense method checks it from
    D's fill once the closure is queued."""
    if method in SPARSE:
        run = apsp_sparse.johnson if method == "johnson" else apsp_sparse.repeated_sssp
        return run(A.to_format("csr"), preds, bar)
    n = A.nrows
    # The recursive and blocked closures ⊕ one into each diagonal block they close, so
    # D's diagonal is left as the edges give it (one launch and ~30 µs of host less).
    diagonal = preds or method not in ("recursive", "blocked")
    key = _closure_key(method, block, sr)
    D, P = _initial(A, sr, preds, key=key, scan=late_nan_check, diagonal=diagonal)
    bar.step(_INITIAL_UNITS * n * n)
    D, P = _dense_closure(sr, D, P, method, block, bar, key=key)
    dist = D.to_dense()  # queued behind the closure, before the checks read anything back
    if late_nan_check:
        # NaN (the fill's scan: the closure ran on internal buffers only) and -inf:
        # ValueError; +inf in a dense closure is no edge already
        finite_weights(A)
    if not _cycles_impossible(A, sr):
        _check_cycles(D, sr)
    del D  # the copy is the result: free the working matrix before the repair
    bar.step(_FINAL_UNITS * n * n)
    if not preds:
        return dist
    return dist, _repair(A, sr, dist, P.to_dense())  # the rest of the units: finish()


def _dense_closure(sr: Semiring, D: Matrix, P: Matrix | None, method: str, block: int,
                   bar: Progress, scratch: int = 0,
                   key=None) -> tuple[Matrix, Matrix | None]:  # fmt: skip
    """D ← D* (and P) by a dense method, as one replayed CUDA graph on the GPU where the
    matrices fit the graph cache (``kleene.engine.replay``): the plan
    depends only on n and the block, and its hundreds of block steps then cost no
    host time each. ``scratch``: the largest step's scratch bytes, reserved up front
    in a capture. ``key``: ``_closure_key(method, block, sr)`` where the caller has it.
    Returns the matrices holding the result (the cache's on the GPU when replayed:
    copy them out)."""

    def run(*mats):
        ran.append(True)
        d, p = mats if P is not None else (mats[0], None)
        if method == "floyd-warshall":
            apsp_dense.floyd_warshall(sr, d, p, bar)
        elif method == "blocked":
            apsp_dense.blocked(sr, d, p, block, bar)
        elif method == "recursive-lower":
            apsp_dense.recursive(sr, d, p, block, bar, lower=True)
        else:
            apsp_dense.recursive(sr, d, p, block, bar)

    ran: list[bool] = []
    key = _closure_key(method, block, sr) if key is None else key
    held = replay(key, run, *((D,) if P is None else (D, P)), scratch=scratch)
    if not ran:  # a replayed graph: the steps' progress units in one go
        bar.step(apsp_dense.work(method, D.nrows, block))
    return held[0], (held[1] if P is not None else None)


def _closure_key(method: str, block: int, sr: Semiring) -> tuple:
    """The replay key of a dense closure: what decides the work it captures."""
    return ("dense-closure", method, block, sr.key, bool_tensor_cores())


def _route(A: Matrix, sr: Semiring, method: str, preds: bool, limit: int | None, out) -> str:
    """The method that will run, OUT_OF_CORE included: ``out`` always goes out of
    core; ``memory_limit`` does when the in-core method's peak would exceed it."""
    if out is not None:
        if method not in _OUT_OF_CORE_METHODS:
            raise ValueError(
                f"apsp: out= runs the blocked closure out of core; method must be 'auto' or "
                f"'blocked', got {method!r}"
            )
        return _resolve(A, sr, OUT_OF_CORE, preds)
    run = _resolve(A, sr, method, preds)
    if limit is None or run == OUT_OF_CORE:
        return run
    need = need_for("apsp", A.nrows, run, preds, A.dtype, A.xp)
    if need.bytes <= limit:
        return run
    if method not in _OUT_OF_CORE_METHODS:
        raise ValueError(
            f"apsp: method {method!r} needs about {need.bytes:,} bytes of {need.where}, over "
            f"memory_limit={limit:,}; the out-of-core closure is method 'blocked' (or 'auto')"
        )
    return _resolve(A, sr, OUT_OF_CORE, preds)


def _memory_limit(limit) -> int | None:
    """``memory_limit`` as a positive int (None stays None); anything else is a ValueError."""
    if limit is None:
        return None
    integral = isinstance(limit, (int, np.integer)) and not isinstance(limit, (bool, np.bool_))
    if not integral:
        raise ValueError(
            f"apsp: memory_limit must be a positive integer number of bytes (e.g. 2**30 or "
            f"int(4e9)), got {limit!r} ({type(limit).__name__})"
        )
    if limit <= 0:
        raise ValueError(f"apsp: memory_limit must be a positive number of bytes, got {limit}")
    return int(limit)


def _resolve(A: Matrix, sr: Semiring, method: str, preds: bool) -> str:
    """The method that will run: "auto" chosen, Johnson for negative weights, and
    the semiring checked against the method."""
    if method == OUT_OF_CORE:
        _resolve(A, sr, "blocked", preds)  # the same semiring rule: an idempotent add
        return OUT_OF_CORE

    def negative() -> bool:  # asked only where the route depends on it
        return _negative(A, sr)

    if method == "auto":
        method = _choose(A, sr, negative, preds)
    if method in SPARSE:
        if sr is not min_plus:
            raise ValueError(f"apsp: method {method!r} computes shortest paths (min_plus) only")
        return "johnson" if negative() else method
    if not sr.idempotent:
        raise ValueError(
            f"apsp: semiring {sr.name} has no in-place closure (add must be idempotent)"
        )
    return method


def _negative(A: Matrix, sr: Semiring) -> bool:
    """Whether A has a weight below 0 for min_plus, A checked for NaN first (its least
    value means nothing then; the GPU's NaN scan leaves the least value cached; no
    entries: +inf)."""
    if sr is not min_plus:
        return False
    check_no_nan(A)
    return float(A.cached("min_value", lambda: reduce(A, "min"))) < 0


# The late NaN check (``_scan_can_ride``): for the closures that take a few ms at most
# at these sizes (n ≤ 4096 for float32, ~8 ms on an H100), the most a NaN input then
# costs before its error; a larger graph or Floyd-Warshall (seconds at n = 8192) checks
# first, where the check's 0.2 ms does not matter.
_LATE_CHECK_BYTES = 64 << 20
_LATE_CHECK_METHODS = ("recursive", "blocked")


def _scan_can_ride(A: Matrix) -> bool:
    """Whether A's NaN check can wait for D's fill to scan it (``Matrix.to_dense(scan=
    True)``): a float matrix stored dense on the GPU, of up to ``_LATE_CHECK_BYTES``,
    whose check has not run yet."""
    small = A.nrows * A.ncols * A.dtype.itemsize <= _LATE_CHECK_BYTES
    return (small and A.xp is not np and A.format == "dense" and A.dtype.kind == "f"
            and A.known("has_nan") is None)  # fmt: skip


def _block_size(block_size) -> int:
    """``block_size`` as a positive int (128 for None); anything else is a ValueError."""
    if block_size is None:
        return 128
    integral = isinstance(block_size, (int, np.integer)) and not isinstance(
        block_size, (bool, np.bool_)
    )
    if not integral or block_size < 1:
        raise ValueError(f"apsp: block_size must be a positive integer, got {block_size!r}")
    return int(block_size)


# Progress units (multiply-adds) of the n² steps around a dense closure, set from
# their measured share of the time (CPU, n = 1000..1600): building D (and P), the
# cycle check with the result's copy, and the predecessor repair (n² log n).
_INITIAL_UNITS = 4
_FINAL_UNITS = 2
_REPAIR_UNITS = 4


def _work(n: int, method: str, block: int, preds: bool) -> int:
    """Total progress units of ``_solve``."""
    if method in SPARSE:
        return apsp_sparse.work(method, n)
    repair = _REPAIR_UNITS * n * n * max(1, n.bit_length()) if preds else 0
    return (_INITIAL_UNITS + _FINAL_UNITS) * n * n + apsp_dense.work(method, n, block) + repair


def _repair(A: Matrix, sr: Semiring, dist, pred, entries: int | None = None):
    """Rows whose in-place updates left a predecessor cycle (zero-weight cycles make
    that possible outside Floyd-Warshall's order) get the BFS tree of their tight edges.

    ``dist``/``pred`` live on A's device, or in host memory (out of core: then the
    check runs on A's device, ``entries`` of pred at a time)."""
    host = array_module(pred) is np and A.xp is not np
    bad = _rows_with_cycles(pred, A.xp if host else None, entries)
    if not bool(bad.any()):
        return pred
    for i in np.flatnonzero(to_host(bad)):
        row = A.xp.asarray(dist[int(i)]) if host else dist[int(i)]
        d = Vector.from_dense(row, missing=None)
        p = predecessors_from_distances(A, d, int(i), sr)
        pred[int(i)] = to_host(p) if host else p
    return pred


def _apsp_out_of_core(A: Matrix, sr: Semiring, preds: bool, limit: int | None, out, progress):
    """apsp's out-of-core path: plan the tiles and the host memory, then
    ``apsp_out_of_core.solve``; the cycle check and the predecessor repair as in core."""
    n, gpu = A.nrows, A.xp is not np
    dist_out, pred_out = apsp_out_of_core.check_out(out, n, A.dtype, preds)
    cap = apsp_out_of_core.device_limit(limit, gpu)
    reserve = apsp_out_of_core.GPU_RESERVE if gpu else 0
    itemsize = np.dtype(A.dtype).itemsize
    tile = apsp_out_of_core.choose_tile(n, itemsize, preds, cap, reserve)
    if tile is None:
        least = apsp_out_of_core.smallest_working_set(n, itemsize, preds, reserve)
        side = min(n, apsp_out_of_core.MIN_TILE)
        where = "GPU memory" if gpu else "host memory"
        if limit is not None and limit <= cap:
            raise ValueError(
                f"apsp: memory_limit={limit:,} bytes is too small for the out-of-core closure "
                f"of n={n}: its smallest working set (tiles of {side}×{side}"
                f"{' with predecessors' if preds else ''}, in {where}) needs {least:,} bytes"
            )
        raise MemoryError(
            f"apsp: the out-of-core closure of n={n} needs at least {gib(least)} of {where} "
            f"for its tiles; {gib(cap)} is available"
        )
    need = out_of_core_need(n, A.dtype, preds, dist_out is None, preds and pred_out is None,
                             out_of_core_extra(A))  # fmt: skip
    if need.per_pair and not need.fits():
        raise MemoryError(
            f"apsp: {need.describe()}; pass out=numpy.memmap(...) (and for predecessors "
            "out=(dist, pred) with two) to keep the result in a file"
        )
    repair = _REPAIR_UNITS * n * n * max(1, n.bit_length()) if preds else 0
    total = (apsp_out_of_core.INITIAL_UNITS + _FINAL_UNITS) * n * n + apsp_out_of_core.work(n)
    total += repair
    at = f"tiles of {tile}×{tile}, at most {gib(cap)} on the {'GPU' if gpu else 'CPU'}"
    with _out_of_core_memory(need, at), progress_for(progress, total, f"apsp {OUT_OF_CORE}") as bar:
        dist, pred = apsp_out_of_core.solve(A, sr, preds, tile, dist_out, pred_out, bar)
        bar.step(_FINAL_UNITS * n * n)
        if not preds:
            return dist
        # the check's slabs (about 64 bytes an entry on the device) within the cap too
        return dist, _repair(A, sr, dist, pred, max(n, cap // 64))  # the rest: finish()


@contextmanager
def _out_of_core_memory(need: MemoryNeed, tiles: str) -> Iterator[None]:
    """An allocation failing out of core says where: the device's tiles, or host memory."""
    try:
        yield
    except MemoryError as e:
        if type(e).__module__.startswith("cupy"):
            raise MemoryError(
                f"apsp: out of GPU memory in the out-of-core closure ({tiles}): {e}; a smaller "
                "memory_limit leaves more room to others"
            ) from e
        host = need.describe() if need.per_pair else f"{gib(need.free)} was free"
        raise MemoryError(f"apsp: ran out of host memory out of core: {host}") from e


_CYCLE_CHECK_ENTRIES = 1 << 22  # entries checked at a time: bounds the check's temporaries


def _rows_with_cycles(pred, xp=None, entries: int | None = None):
    """``rows_with_cycles`` a slab of rows at a time (it makes several copies of its input);
    ``xp``: run each slab there (a host ``pred`` checked on the GPU), result on pred's side."""
    k, n = pred.shape
    rows = max(1, (entries or _CYCLE_CHECK_ENTRIES) // max(n, 1))
    if xp is not None and xp is not array_module(pred):
        return np.concatenate([to_host(rows_with_cycles(xp.asarray(pred[lo : lo + rows])))
                               for lo in range(0, k, rows)])  # fmt: skip
    if k <= rows:
        return rows_with_cycles(pred)
    xp = array_module(pred)
    return xp.concatenate([rows_with_cycles(pred[lo : lo + rows]) for lo in range(0, k, rows)])


def _weights(A: Matrix, sr: Semiring) -> Matrix:
    """Edge weights in the dtype the closure runs in."""
    if sr.name == "lor_land":
        want = np.dtype(bool)
    elif A.dtype == np.float32 and np.dtype(np.float32) in sr.dtypes:
        want = np.dtype(np.float32)  # keep fp32: the fast GPU path
    elif A.dtype in sr.dtypes and A.dtype.kind != "b" and sr is not min_plus:
        want = A.dtype
    else:
        want = np.dtype(np.float64)
    if A.dtype == want:
        return A
    if want != np.bool_:
        return A.astype(want)
    rows, cols, vals = A.to_coo()  # reachability: every stored entry is an edge, zero too
    return Matrix.from_edges(rows, cols, A.xp.ones(vals.shape, dtype=bool), A.nrows, ncols=A.ncols)


# Largest n where blocked beats recursive on the GPU with 128-row base blocks (H200,
# fp32: per-launch costs of the recursion's small products; benchmarks/results/
# apsp_h200.md). Where the back end closes larger blocks in one step (GPU, 4- and
# 8-byte values, no predecessors: kleene.engine.closure_base_block), recursive on those
# wins at every n (H100 fp32, n = 4096: 8.7 ms against blocked's 10.5; 8192: 51 / 57).
_BLOCKED_MAX_GPU = 8192


def _choose(A: Matrix, sr: Semiring, negative: bool | Callable[[], bool], preds: bool) -> str:
    """The method "auto" runs. ``negative``: whether a weight is below 0, or a callable
    asked only where the choice depends on it (a GPU graph stored dense never does)."""
    n = A.nrows
    gpu = A.xp is not np
    big_base = gpu and closure_base_block(n, A.dtype, A.xp, preds) > 128
    dense = "blocked" if gpu and n <= _BLOCKED_MAX_GPU and not big_base else "recursive"
    sign = negative if callable(negative) else (lambda: bool(negative))

    def sparse() -> str:
        return "johnson" if sign() else "repeated-sssp"

    if not need_for("apsp", n, dense, preds, A.dtype, A.xp).fits():
        # Past the device's memory: repeated SSSP for min_plus where its result fits
        # (on the GPU where the cost model says so: the out-of-core closure costs at
        # least the in-core one); else the out-of-core closure where its result fits
        # in host memory; else the dense method, whose check then says what fits.
        fits = sr is min_plus and need_for("apsp", n, sparse(), preds, A.dtype, A.xp).fits()
        if fits and (not gpu or _gpu_sparse_cheaper(A, sign, preds)):
            return sparse()
        if out_of_core_need(n, A.dtype, preds, True, extra=out_of_core_extra(A)).fits():
            return OUT_OF_CORE
        return sparse() if sr is min_plus and not gpu else dense
    if sr is not min_plus:
        return dense
    if gpu:
        return sparse() if _gpu_sparse_cheaper(A, sign, preds) else dense
    cheaper = cpu_sparse_s(n, A.nvals, sign()) < cpu_dense_s(n, A.dtype, preds)
    return sparse() if cheaper else dense  # the measured rule in apsp_cost.py


def _gpu_sparse_cheaper(A: Matrix, negative: Callable[[], bool], preds: bool) -> bool:
    """Whether repeated SSSP is estimated faster than the dense closure on the GPU
    (``apsp_cost.gpu_prefers_sparse``); the depth probe, when it runs, is a BFS from
    the vertex of most out-edges and a look at whether all weights are equal. A graph
    stored dense keeps the dense closure (counting its edges would cost a pass)."""
    if A.format != "csr":
        return False
    host = need_for("apsp", A.nrows, "repeated-sssp", preds, A.dtype, A.xp).where == "host memory"

    def depth() -> tuple[int, bool]:
        lo = float(A.cached("min_value", lambda: reduce(A, "min")))
        stats = A.known("value_stats")  # (greatest, ...) from the input's NaN scan, if it ran
        hi = stats[0] if stats is not None else A.cached("max_value", lambda: reduce(A, "max"))
        return _search_depth(A), lo == float(hi)

    return gpu_prefers_sparse(A.nrows, A.nvals, A.dtype, preds, negative(), host, depth)


def _search_depth(A: Matrix) -> int:
    """BFS levels from the vertex with the most out-edges (on a road graph about its
    diameter in hops; on a small-world graph a handful). Push only: the levels are the
    same, and "auto" would first build the transpose it pulls over (at n = 2048,
    m = 6,139 on an H100: 1.30 ms that way, 0.43 ms pushing)."""
    from .breadth_first import bfs

    rows = A.to_coo()[0]
    start = int(A.xp.argmax(A.xp.bincount(rows, minlength=A.nrows))) if rows.size else 0
    return max(1, int(bfs(A, start, method="push").max()))


def _initial(A: Matrix, sr: Semiring, preds: bool, key=None, *, scan: bool = False,
             diagonal: bool = True):  # fmt: skip
    """D: full matrix of edge values (zero where no edge), diagonal ⊕= one; P if asked.
    ``key``: the replayed closure's (``_closure_key``): D is then built in its buffer
    (``replay_buffers``), which the replay then does not copy. ``scan``: D's fill also
    scans A for ``has_nan`` (``Matrix.to_dense(scan=True)``). ``diagonal=False``:
    leave the diagonal as the edges give it, for a closure that ⊕ one into it itself."""
    xp, n = A.xp, A.nrows
    # One pass over the n² entries, into a fresh C-ordered array that D then owns (or
    # the replay's); the diagonal's ⊕ one works on a strided view of its n entries, for
    # min and max in place by one kernel (Vectors, fancy indexing and an ewise_add took
    # 0.9 ms of host time at n = 4096).
    into = held = None
    if key is not None:
        specs = [((n, n), A.dtype)] + ([((n, n), np.dtype(np.int64))] if preds else [])
        arrays, mats = replay_buffers(key, specs, xp)
        into, held = arrays[0], mats[0]
    d = A.to_dense(missing=sr.zero_for(A.dtype), out=into, scan=scan)
    if diagonal:
        _diagonal_plus_one(d, sr, A.dtype, xp)
    D = Matrix.from_dense(d, missing=None, copy=False) if into is None else held
    if not preds:
        return D, None
    ids = Vector.from_dense(xp.arange(n, dtype=np.int64), missing=None)
    edges = select(A, "offdiag", 0)
    tails = mxm(Matrix.from_diag(ids), edges, min_first)  # P(i, j) = i for each edge
    P = Matrix.from_dense(tails.to_dense(missing=-1), missing=None)
    return D, P


def _diagonal_plus_one(d, sr: Semiring, dtype, xp) -> None:
    """d's diagonal ⊕= one in place (d a square C-ordered array)."""
    n = d.shape[0]
    diag = d.reshape(-1)[:: n + 1]
    one = dtype.type(sr.one_for(dtype))
    if sr.add.name in ("min", "max") and dtype.kind in "fiu":  # in place, one kernel
        (xp.fmin if sr.add.name == "min" else xp.fmax)(diag, one, out=diag)  # (NaN-free)
    else:
        ones = Vector.from_dense(xp.full(n, one, dtype=dtype), missing=None)
        diag[...] = ewise_add(Vector.from_dense(diag, missing=None), ones, sr.add.op).to_dense()


def _cycles_impossible(A: Matrix, sr: Semiring) -> bool:
    """min_plus over weights >= 0: no cycle beats the empty path, so the closure's
    diagonal needs no check (its reduce and host read took ~0.1 ms of the n = 4096
    GPU call). The least weight is cached by then (``_resolve``, or the GPU's NaN scan)."""
    return sr is min_plus and float(A.cached("min_value", lambda: reduce(A, "min"))) >= 0


def _check_cycles(D: Matrix, sr: Semiring, offset: int = 0) -> None:
    """A cycle better than the empty path (one) makes the closure undefined."""
    i = first_cycle(D, sr)
    if i is not None:
        raise_cycle(sr, i + offset, D.dtype)


def first_cycle(D: Matrix, sr: Semiring) -> int | None:
    """The first i whose D[i, i] beats the empty path (one), else None."""
    diag = diagonal(D)  # n entries read, not the n² a select over D scans
    one = sr.one_for(D.dtype)
    # ⊕_i (d_i ⊕ one) = (⊕_i d_i) ⊕ one for an idempotent add: one scalar decides
    if sr.add.op(reduce(diag, sr.add), one) == one:
        return None
    better = select(apply(diag, sr.add.op, right=one), "valuene", one)
    return int(better.to_coo()[0][0]) if better.nvals else None


def raise_cycle(sr: Semiring, i: int, dtype) -> None:
    """NegativeCycleError for a cycle through vertex i (better than one, for sr)."""
    one = sr.one_for(dtype)
    kind = "negative cycle" if sr is min_plus else f"cycle better than {one!r} ({sr.name})"
    raise NegativeCycleError(f"apsp: the graph has a {kind} through vertex {i}")
