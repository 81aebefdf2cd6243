"""The dense-closure pipeline, one step after another: the closure's weights, its
method, its block, its initial matrix, its progress units, the closure itself, the
cycle check and the predecessor repair.

``kleene.apsp`` runs it whole (:func:`plan` then :func:`run`);
``kleene.transitive_closure``, the out-of-core closure (``apsp_out_of_core``) and
the Dask front end (``kleene.distributed``) run the steps they share with it from
here, so that each rule (which dtype a closure runs in, which method ``auto``
picks, what beats the empty path, how a predecessor cycle is repaired) is written
once.

Example
-------
>>> import numpy as np
>>> from kleene.core import Matrix
>>> from kleene.semiring import min_plus
>>> A = Matrix.from_edges([0, 1], [1, 2], [3.0, 1.0], n=3)
>>> resolve_method(A, min_plus, "floyd-warshall", False)
'floyd-warshall'
>>> D, _ = initial(weights(A, min_plus), min_plus, False)
>>> D.to_dense().tolist()
[[0.0, 3.0, inf], [inf, 0.0, 1.0], [inf, inf, 0.0]]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kleene.backends import array_module, bool_tensor_cores, to_host
from kleene.core import Matrix, Vector
from kleene.engine import closure_base_block, replay, replay_buffers
from kleene.errors import InvalidValue, NegativeCycleError
from kleene.ops import apply, diagonal, ewise_add, mxm, reduce, select
from kleene.progress import Progress, progress_for
from kleene.semiring import Semiring, get_semiring, min_first, min_plus

from . import apsp_dense, apsp_sparse
from .apsp_cost import cpu_dense_s, cpu_sparse_s, gpu_prefers_sparse
from .apsp_memory import (
    OUT_OF_CORE,
    SPARSE,
    check_fits,
    need_for,
    out_of_core_extra,
    out_of_core_need,
    out_of_memory,
)
from .breadth_first import bfs
from .graph_input import as_graph, check_no_nan, finite_weights
from .paths import rows_with_cycles
from .shortest_tree import predecessors_from_distances

METHODS = ("auto", "floyd-warshall", "blocked", "recursive", "repeated-sssp", "johnson")
DENSE = ("floyd-warshall", "blocked", "recursive")
# The blocked closure with the result in host memory and tiles streamed to the device
# (apsp_out_of_core.py): chosen by memory_limit=, out= or "auto", not a method= name.
OUT_OF_CORE_METHODS = ("auto", "blocked")
DEFAULT_BLOCK = 128


# ---- arguments -------------------------------------------------------------------


def check_method(method: str, what: str = "apsp") -> str:
    """``method`` if it is one of :data:`METHODS`, else InvalidValue (a ValueError)."""
    if method not in METHODS:
        raise InvalidValue(f"{what}: method must be one of {METHODS}, got {method!r}")
    return method


def _positive_int(value) -> bool:
    integral = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    return integral and value >= 1


def check_block_size(block_size) -> int:
    """``block_size`` as a positive int (:data:`DEFAULT_BLOCK` for None); anything else
    is an InvalidValue (a ValueError).

    >>> check_block_size(None), check_block_size(64)
    (128, 64)
    """
    if block_size is None:
        return DEFAULT_BLOCK
    if not _positive_int(block_size):
        raise InvalidValue(f"apsp: block_size must be a positive integer, got {block_size!r}")
    return int(block_size)


def check_memory_limit(limit) -> int | None:
    """``memory_limit`` as a positive int (None stays None); anything else is an
    InvalidValue (a ValueError)."""
    if limit is None:
        return None
    integral = isinstance(limit, (int, np.integer)) and not isinstance(limit, (bool, np.bool_))
    if not integral:
        raise InvalidValue(
            f"apsp: memory_limit must be a positive integer number of bytes (e.g. 2**30 or "
            f"int(4e9)), got {limit!r} ({type(limit).__name__})"
        )
    if limit <= 0:
        raise InvalidValue(f"apsp: memory_limit must be a positive number of bytes, got {limit}")
    return int(limit)


# ---- weights -----------------------------------------------------------------------


def weights(A: Matrix, sr: Semiring) -> Matrix:
    """Edge weights in the dtype the closure runs in: bool for lor_land; float32 kept
    where the semiring takes it (the GPU's fast path); another dtype of the semiring
    kept except for min_plus; float64 otherwise."""
    if sr.name == "lor_land":
        want = np.dtype(bool)
    elif A.dtype == np.float32 and np.dtype(np.float32) in sr.dtypes:
        want = np.dtype(np.float32)
    elif A.dtype in sr.dtypes and A.dtype.kind != "b" and sr is not min_plus:
        want = A.dtype
    else:
        want = np.dtype(np.float64)
    if A.dtype == want and (want != np.bool_ or bool(reduce(A, "land"))):
        return A
    if want != np.bool_:
        return A.astype(want)
    rows, cols, vals = A.to_coo()  # reachability: every stored entry is an edge, False too
    return Matrix.from_edges(rows, cols, A.xp.ones(vals.shape, dtype=bool), A.nrows, ncols=A.ncols)


def negative(A: Matrix, sr: Semiring) -> bool:
    """Whether A has a weight below 0 for min_plus, A checked for NaN first (its least
    value means nothing then; no entries: +inf). The least value is cached on A."""
    if sr is not min_plus:
        return False
    check_no_nan(A)
    return float(A.cached("min_value", lambda: reduce(A, "min"))) < 0


# A GPU matrix stored dense whose NaN check has not run can leave it to D's fill
# (``Matrix.to_dense(scan=True)``), read back once the closure is queued: the closure
# then runs on internal buffers only, and a NaN input costs at most one short closure
# before its error. Only the recursive and blocked closures of graphs up to this many
# bytes take that route, so that the closure a NaN input runs is always a short one;
# larger graphs and Floyd-Warshall check first.
LATE_CHECK_BYTES = 64 << 20
LATE_CHECK_METHODS = ("recursive", "blocked")


def scan_can_ride(A: Matrix) -> bool:
    """Whether A's NaN check can wait for D's fill to scan it: a float matrix stored
    dense on the GPU, of up to :data:`LATE_CHECK_BYTES`, whose check has not run yet."""
    small = A.nrows * A.ncols * A.dtype.itemsize <= LATE_CHECK_BYTES
    return (
        small
        and A.xp is not np
        and A.format == "dense"
        and A.dtype.kind == "f"
        and A.known("has_nan") is None
    )


# ---- the method ----------------------------------------------------------------


def resolve_method(
    A: Matrix, sr: Semiring, method: str, preds: bool, *, limit: int | None = None, out=None
) -> str:
    """The method that will run, :data:`OUT_OF_CORE` included, and the only place it
    is decided: ``out`` always goes out of core; "auto" is :func:`auto_method`; the
    sparse methods need min_plus and become "johnson" for negative weights; the dense
    ones need an idempotent add; ``limit`` (``memory_limit``) sends a method whose
    estimated peak exceeds it out of core ("auto" and "blocked" only)."""
    if out is not None and method not in OUT_OF_CORE_METHODS:
        raise InvalidValue(
            f"apsp: out= runs the blocked closure out of core; method must be 'auto' or "
            f"'blocked', got {method!r}"
        )
    if out is not None:
        run = OUT_OF_CORE
    elif method == "auto":
        run = auto_method(A, sr, lambda: negative(A, sr), preds)
    else:
        run = method
    if run in SPARSE:
        if sr is not min_plus:
            raise InvalidValue(f"apsp: method {run!r} computes shortest paths (min_plus) only")
        run = "johnson" if negative(A, sr) else run
    elif not sr.idempotent:
        raise InvalidValue(
            f"apsp: semiring {sr.name} has no in-place closure (add must be idempotent)"
        )
    if limit is None or run == OUT_OF_CORE:
        return run
    need = need_for("apsp", A.nrows, run, preds, A.dtype, A.xp)
    if need.bytes <= limit:
        return run
    if method not in OUT_OF_CORE_METHODS:
        raise InvalidValue(
            f"apsp: method {method!r} needs about {need.bytes:,} bytes of {need.where}, over "
            f"memory_limit={limit:,}; the out-of-core closure is method 'blocked' (or 'auto')"
        )
    return OUT_OF_CORE


# Largest n where blocked beats recursive on the GPU with 128-row base blocks: the
# recursion's many small products each pay a launch. Where the back end closes larger
# blocks in one step (kleene.engine.closure_base_block), recursive on those wins at
# every n. benchmarks/bench_apsp.py measures the crossing.
BLOCKED_MAX_GPU = 8192


def dense_method(n: int, dtype, xp, preds: bool) -> tuple[str, int]:
    """(method, block): the dense closure "auto" runs on an n×n matrix of ``dtype`` on
    ``xp``'s device, and its block (``block_size`` None): "recursive" down to the
    largest block the back end closes in one step (``closure_base_block``), or on the
    GPU, where that step is one thread block's closure, "blocked" up to
    BLOCKED_MAX_GPU with DEFAULT_BLOCK blocks.

    >>> dense_method(4096, np.float64, np, False)
    ('recursive', 128)
    """
    base = closure_base_block(n, dtype, xp, preds)
    if xp is not np and n <= BLOCKED_MAX_GPU and base <= DEFAULT_BLOCK:
        return "blocked", DEFAULT_BLOCK
    return "recursive", base


def auto_method(A: Matrix, sr: Semiring, negative: bool | Callable[[], bool], preds: bool) -> str:
    """The method "auto" runs, by the cost models of ``apsp_cost.py``. ``negative``:
    whether a weight is below 0, or a callable asked only where the choice depends on
    it (a GPU graph stored dense never does).

    Within memory: for min_plus the cheaper of the dense closure and repeated SSSP
    ("johnson" for negative weights); other semirings the dense closure. Past memory:
    repeated SSSP for min_plus where its result fits (on the GPU where it is also
    cheaper), else the out-of-core closure where its result fits in host memory, else
    the method whose memory check then says what fits.
    """
    n = A.nrows
    gpu = A.xp is not np
    dense = dense_method(n, A.dtype, A.xp, preds)[0]
    sign = negative if callable(negative) else (lambda: bool(negative))

    def sparse() -> str:
        return "johnson" if sign() else "repeated-sssp"

    if not need_for("apsp", n, dense, preds, A.dtype, A.xp).fits():
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
    return sparse() if cheaper else dense


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
    same, and "auto" would first build the transpose it pulls over."""
    rows = A.to_coo()[0]
    start = int(A.xp.argmax(A.xp.bincount(rows, minlength=A.nrows))) if rows.size else 0
    return max(1, int(bfs(A, start, method="push").max()))


# ---- progress units --------------------------------------------------------------

# Progress units (multiply-adds) of the n² steps around a dense closure, in proportion
# to their share of its time: building D (and P), the cycle check with the result's
# copy, and the predecessor repair (n² log n). The same for the in-core, out-of-core,
# Boolean and Dask closures.
INITIAL_UNITS = 4
FINAL_UNITS = 2
REPAIR_UNITS = 4


def repair_units(n: int, preds: bool) -> int:
    """Progress units of the predecessor repair (0 without predecessors)."""
    return REPAIR_UNITS * n * n * max(1, n.bit_length()) if preds else 0


def work(n: int, method: str, block: int, preds: bool) -> int:
    """Total progress units of :func:`solve`.

    >>> work(10, "floyd-warshall", 128, False)
    1600
    """
    if method in SPARSE:
        return apsp_sparse.work(method, n)
    closure_units = apsp_dense.work(method, n, block)
    return (INITIAL_UNITS + FINAL_UNITS) * n * n + closure_units + repair_units(n, preds)


# ---- the whole pipeline, for apsp ------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What :func:`run` needs: the weights, the resolved method and block, and whether
    the NaN check is left to D's fill (``late_nan_check``)."""

    A: Matrix
    sr: Semiring
    method: str
    preds: bool
    block: int
    late_nan_check: bool


def plan(
    G,
    semiring,
    method: str,
    preds: bool,
    *,
    directed: bool = True,
    block_size=None,
    limit: int | None = None,
    out=None,
) -> Plan:
    """The weights and the method of ``apsp(G, ...)``: the input read (NaN and -inf
    refused, +inf no edge), the method resolved (:func:`resolve_method`), the block
    checked (None: the back end's largest one-step base for "recursive")."""
    block = check_block_size(block_size)
    sr = get_semiring(semiring)
    G0 = as_graph(G, directed=directed, fmt=None, check_nan=False)  # dense input stays dense
    A = weights(G0, sr)
    late = A is G0 and not preds and scan_can_ride(A)
    if not late:  # NaN and -inf: ValueError; +inf weights: no edge
        F = finite_weights(G0)
        if F is not G0:
            A = weights(F, sr)
    run_as = resolve_method(A, sr, method, preds, limit=limit, out=out)
    if late and run_as not in LATE_CHECK_METHODS:  # checked now, as on every other route
        F = finite_weights(A)
        if F is not A:
            A = weights(F, sr)
        late = False
    if block_size is None and run_as == "recursive":  # the back end's fastest base case
        block = closure_base_block(A.nrows, A.dtype, A.xp, preds)
    return Plan(A, sr, run_as, preds, block, late)


def run(p: Plan, progress=None):
    """The in-core closure of a :func:`plan`: its memory checked before anything n×n is
    allocated (OutOfMemory naming what fits), its progress counted, the result."""
    A = p.A
    need = check_fits(
        A.nrows,
        A.dtype,
        p.preds,
        A.xp,
        method=p.method,
        sparse_ok=p.sr is min_plus,
        out_of_core=True,
        out_of_core_extra=lambda: out_of_core_extra(A),
    )
    total = work(A.nrows, p.method, p.block, p.preds)
    with out_of_memory(need), progress_for(progress, total, f"apsp {p.method}") as bar:
        return solve(A, p.sr, p.method, p.preds, p.block, bar, late_nan_check=p.late_nan_check)


def solve(
    A: Matrix,
    sr: Semiring,
    method: str,
    preds: bool,
    block: int,
    bar: Progress,
    late_nan_check: bool = False,
):
    """The closure by a resolved method, memory checked; ``bar`` counts :func:`work`
    units. ``late_nan_check``: A is not checked for NaN yet; a dense method checks it
    from D's fill once the closure is queued."""
    if method in SPARSE:
        sparse_run = apsp_sparse.johnson if method == "johnson" else apsp_sparse.repeated_sssp
        return sparse_run(A.to_format("csr"), preds, bar)
    n = A.nrows
    # The recursive and blocked closures ⊕ one into each diagonal block they close, so
    # D's diagonal is left as the edges give it (one pass fewer).
    with_diagonal = preds or method not in ("recursive", "blocked")
    key = closure_key(method, block, sr)
    D, P = initial(A, sr, preds, key=key, scan=late_nan_check, diagonal=with_diagonal)
    bar.step(INITIAL_UNITS * n * n)
    D, P = run_closure(sr, D, P, method, block, bar, key=key)
    dist = D.to_dense()  # queued behind the closure, before the checks read anything back
    if late_nan_check:
        # NaN (the fill's scan: the closure ran on internal buffers only) and -inf:
        # ValueError; +inf in a dense closure is no edge already
        finite_weights(A)
    if not cycles_impossible(A, sr):
        check_cycles(D, sr)
    del D  # the copy is the result: free the working matrix before the repair
    bar.step(FINAL_UNITS * n * n)
    if not preds:
        return dist
    return dist, repair(A, sr, dist, P.to_dense())  # the rest of the units: finish()


# ---- the initial matrix and the closure -----------------------------------------


def closure_key(method: str, block: int, sr: Semiring) -> tuple:
    """The replay key of a dense closure: what decides the work it captures."""
    return ("dense-closure", method, block, sr.key, bool_tensor_cores())


def initial(
    A: Matrix, sr: Semiring, preds: bool, key=None, *, scan: bool = False, diagonal: bool = True
):
    """D: full matrix of edge values (zero where no edge), diagonal ⊕= one; P if asked
    (P(i, j) = i for each edge i → j off the diagonal, -1 elsewhere).

    ``key``: the replayed closure's (:func:`closure_key`): D is then built in its
    buffer (``replay_buffers``), which the replay then does not copy. ``scan``: D's
    fill also scans A for ``has_nan`` (``Matrix.to_dense(scan=True)``).
    ``diagonal=False``: leave the diagonal as the edges give it, for a closure that ⊕
    one into it itself."""
    xp, n = A.xp, A.nrows
    # One pass over the n² entries, into a fresh C-ordered array that D then owns (or
    # the replay's); the diagonal's ⊕ one works on a strided view of its n entries.
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


def run_closure(
    sr: Semiring,
    D: Matrix,
    P: Matrix | None,
    method: str,
    block: int,
    bar: Progress,
    scratch: int = 0,
    key=None,
) -> tuple[Matrix, Matrix | None]:
    """D ← D* (and P) by a dense method, as one replayed CUDA graph on the GPU where the
    matrices fit the graph cache (``kleene.engine.replay``): the plan depends only on
    n and the block, and its block steps then cost no host time each. ``scratch``: the
    largest step's scratch bytes, reserved up front in a capture. ``key``:
    :func:`closure_key` where the caller has it. Returns the matrices holding the
    result (the cache's on the GPU when replayed: copy them out). ``method`` may also
    be "recursive-lower" (every edge from a larger index to a smaller one)."""

    def steps(*mats):
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
    key = closure_key(method, block, sr) if key is None else key
    held = replay(key, steps, *((D,) if P is None else (D, P)), scratch=scratch)
    if not ran:  # a replayed graph: the steps' progress units in one go
        bar.step(apsp_dense.work(method, D.nrows, block))
    return held[0], (held[1] if P is not None else None)


# ---- cycles better than the empty path -------------------------------------------


def cycles_impossible(A: Matrix, sr: Semiring) -> bool:
    """min_plus over weights >= 0: no cycle beats the empty path, so the closure's
    diagonal needs no check. The least weight is cached by then (the method's choice,
    or the GPU's NaN scan)."""
    return sr is min_plus and float(A.cached("min_value", lambda: reduce(A, "min"))) >= 0


def _first_better(diag: Vector, sr: Semiring, dtype) -> int | None:
    """The first i whose diag[i] beats the empty path (one), else None."""
    one = sr.one_for(dtype)
    # ⊕_i (d_i ⊕ one) = (⊕_i d_i) ⊕ one for an idempotent add: one scalar decides
    if sr.add.op(reduce(diag, sr.add), one) == one:
        return None
    better = select(apply(diag, sr.add.op, right=one), "valuene", one)
    return int(better.to_coo()[0][0]) if better.nvals else None


def first_cycle(D: Matrix, sr: Semiring) -> int | None:
    """The first i whose D[i, i] beats the empty path (one), else None."""
    return _first_better(diagonal(D), sr, D.dtype)  # n entries read, not n²


def cycle_error(sr: Semiring, i: int, dtype) -> NegativeCycleError:
    """The error for a cycle through vertex i better than the empty path (one, for sr).

    >>> str(cycle_error(min_plus, 3, np.float64))
    'apsp: the graph has a negative cycle through vertex 3'
    """
    one = sr.one_for(dtype)
    kind = "negative cycle" if sr is min_plus else f"cycle better than {one!r} ({sr.name})"
    return NegativeCycleError(f"apsp: the graph has a {kind} through vertex {i}")


def check_cycles(D: Matrix, sr: Semiring, offset: int = 0) -> None:
    """NegativeCycleError if the closure D has a cycle better than the empty path:
    the closure is then undefined. ``offset``: the vertex of D's first row."""
    i = first_cycle(D, sr)
    if i is not None:
        raise cycle_error(sr, i + offset, D.dtype)


def check_diagonal(diag, sr: Semiring, first: int = 0) -> None:
    """:func:`check_cycles` for a closure's diagonal given as an array (host or
    device); ``first`` is the vertex of ``diag[0]``.

    >>> check_diagonal(np.zeros(3), min_plus)  # no cycle beats the empty path
    """
    diag = to_host(diag)
    if diag.size == 0:
        return
    i = _first_better(Vector.from_dense(diag, missing=None), sr, diag.dtype)
    if i is not None:
        raise cycle_error(sr, first + i, diag.dtype)


# ---- the predecessor repair -------------------------------------------------------


def repair(A: Matrix, sr: Semiring, dist, pred, entries: int | None = None):
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


_CYCLE_CHECK_ENTRIES = 1 << 22  # entries checked at a time: bounds the check's temporaries


def _rows_with_cycles(pred, xp=None, entries: int | None = None):
    """``rows_with_cycles`` a slab of rows at a time (it makes several copies of its input);
    ``xp``: run each slab there (a host ``pred`` checked on the GPU), result on pred's side."""
    k, n = pred.shape
    rows = max(1, (entries or _CYCLE_CHECK_ENTRIES) // max(n, 1))
    if xp is not None and xp is not array_module(pred):
        return np.concatenate(
            [
                to_host(rows_with_cycles(xp.asarray(pred[lo : lo + rows])))
                for lo in range(0, k, rows)
            ]
        )
    if k <= rows:
        return rows_with_cycles(pred)
    xp = array_module(pred)
    return xp.concatenate([rows_with_cycles(pred[lo : lo + rows]) for lo in range(0, k, rows)])
