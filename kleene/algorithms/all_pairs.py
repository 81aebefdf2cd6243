"""All-pairs shortest paths and other closures: kleene.apsp, kleene.transitive_closure."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..errors import NegativeCycleError
from ..ops import (
    Matrix,
    Vector,
    apply,
    array_module,
    ewise_add,
    gpu_memory_free,
    host_memory_free,
    mxm,
    reduce,
    select,
    to_host,
)
from ..progress import Progress, progress_for
from ..semiring import Semiring, get_semiring, min_first, min_plus
from . import apsp_dense, apsp_sparse
from .graph_input import as_graph
from .paths import rows_with_cycles
from .shortest_tree import predecessors_from_distances

METHODS = ("auto", "floyd-warshall", "blocked", "recursive", "repeated-sssp", "johnson")
_DENSE = ("floyd-warshall", "blocked", "recursive")
_SPARSE = ("repeated-sssp", "johnson")


def apsp(G, *, method: str = "auto", directed: bool = True, return_predecessors: bool = False,
         semiring="min_plus", block_size: int | None = None, progress=None):  # fmt: skip
    """All-pairs best paths: the closure A* of the graph over a semiring.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
    method : str
        - "floyd-warshall": n rank-1 updates D ⊕= D(:,k) ⊗ D(k,:) (the baseline);
        - "blocked": Katz & Kider's blocked Floyd-Warshall (``block_size``);
        - "recursive": Buluç et al.'s in-place R-Kleene on semiring products, with a
          small-block closure as base case (``block_size``);
        - "repeated-sssp": one batched SSSP per group of sources, O(n) extra memory
          per source, results in host memory (large sparse graphs);
        - "johnson": Bellman-Ford potentials, then repeated SSSP on reweighted
          non-negative edges (negative weights on sparse graphs);
        - "auto": a dense method when the n×n result fits in memory ("blocked" on
          the GPU up to n = 8192, "recursive" beyond it and on the CPU), except on
          the CPU for large sparse graphs (n > 4096, under 1% of the pairs edges);
          otherwise "johnson" for negative weights, "repeated-sssp" for
          non-negative ones. Other semirings than min_plus: the dense method.
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
        Block of "blocked" and base case of "recursive": a positive integer
        (default 128); anything else is a ValueError.
    progress : bool or callable, optional
        True shows a bar on stderr once the run has lasted half a second; a
        callable gets ``(done, total)`` in units of work (multiply-adds for the
        dense methods, sources for the sparse ones), ``done`` never decreasing
        and ``done == total`` exactly once, last, when the result is ready.

    Returns
    -------
    dist : (n, n) array on the input's device (host memory for the sparse methods)
    predecessors : (n, n) int64 array, if asked

    Raises
    ------
    NegativeCycleError
        A cycle beats the empty path (a negative cycle for min_plus).
    MemoryError
        The n×n result (and predecessors) does not fit, checked before anything
        n×n is allocated; the message says how much was asked and the largest n
        that fits.

    Example
    -------
    >>> import numpy as np, kleene
    >>> inf = np.inf
    >>> G = np.array([[0, 3, inf], [inf, 0, 1], [2, inf, 0]])
    >>> kleene.apsp(G).tolist()
    [[0.0, 3.0, 4.0], [3.0, 0.0, 1.0], [2.0, 5.0, 0.0]]
    """
    if method not in METHODS:
        raise ValueError(f"apsp: method must be one of {METHODS}, got {method!r}")
    block = _block_size(block_size)
    sr = get_semiring(semiring)
    A = _weights(as_graph(G, directed=directed, fmt=None), sr)  # dense input stays dense
    preds = bool(return_predecessors)
    method = _resolve(A, sr, method, preds)
    need = check_fits(A.nrows, A.dtype, preds, A.xp, method=method, sparse_ok=sr is min_plus)
    total = _work(A.nrows, method, block, preds)
    with _out_of_memory(need), progress_for(progress, total, f"apsp {method}") as bar:
        return _solve(A, sr, method, preds, block, bar)


def _solve(A: Matrix, sr: Semiring, method: str, preds: bool, block: int, bar: Progress):
    """The closure by a resolved method, memory checked; ``bar`` counts ``_work`` units."""
    if method in _SPARSE:
        run = apsp_sparse.johnson if method == "johnson" else apsp_sparse.repeated_sssp
        return run(A.to_format("csr"), preds, bar)
    n = A.nrows
    D, P = _initial(A, sr, preds)
    bar.step(_INITIAL_UNITS * n * n)
    if method == "floyd-warshall":
        apsp_dense.floyd_warshall(sr, D, P, bar)
    elif method == "blocked":
        apsp_dense.blocked(sr, D, P, block, bar)
    else:
        apsp_dense.recursive(sr, D, P, block, bar)
    _check_cycles(D, sr)
    dist = D.to_dense()
    del D  # the copy is the result: free the working matrix before the repair
    bar.step(_FINAL_UNITS * n * n)
    if not preds:
        return dist
    return dist, _repair(A, sr, dist, P.to_dense())  # the rest of the units: finish()


def _resolve(A: Matrix, sr: Semiring, method: str, preds: bool) -> str:
    """The method that will run: "auto" chosen, Johnson for negative weights, and
    the semiring checked against the method."""
    negative = sr is min_plus and A.nvals > 0 and float(reduce(A, "min")) < 0
    if method == "auto":
        method = _choose(A, sr, negative, preds)
    if method in _SPARSE:
        if sr is not min_plus:
            raise ValueError(f"apsp: method {method!r} computes shortest paths (min_plus) only")
        return "johnson" if negative else method
    if not sr.idempotent:
        raise ValueError(
            f"apsp: semiring {sr.name} has no in-place closure (add must be idempotent)"
        )
    return method


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
    if method in _SPARSE:
        return apsp_sparse.work(method, n)
    repair = _REPAIR_UNITS * n * n * max(1, n.bit_length()) if preds else 0
    return (_INITIAL_UNITS + _FINAL_UNITS) * n * n + apsp_dense.work(method, n, block) + repair


def _repair(A: Matrix, sr: Semiring, dist, pred):
    """Rows whose in-place updates left a predecessor cycle (zero-weight cycles make
    that possible outside Floyd-Warshall's order) get the BFS tree of their tight edges."""
    bad = _rows_with_cycles(pred)
    if not bool(bad.any()):
        return pred
    for i in np.flatnonzero(to_host(bad)):
        d = Vector.from_dense(dist[int(i)], missing=None)
        pred[int(i)] = predecessors_from_distances(A, d, int(i), sr)
    return pred


_CYCLE_CHECK_ENTRIES = 1 << 22  # entries checked at a time: bounds the check's temporaries


def _rows_with_cycles(pred):
    """``rows_with_cycles`` a slab of rows at a time (it makes several copies of its input)."""
    k, n = pred.shape
    rows = max(1, _CYCLE_CHECK_ENTRIES // max(n, 1))
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
    rows, cols, vals = A.to_coo()
    if want == np.bool_:  # reachability: every stored entry is an edge, zero weights too
        vals = A.xp.ones(vals.shape, dtype=bool)
    return Matrix.from_edges(rows, cols, vals.astype(want), A.nrows, ncols=A.ncols)


# Largest n where blocked beats recursive on the GPU (H200, fp32: per-launch costs of
# the recursion's small products; benchmarks/results/apsp_h200.md).
_BLOCKED_MAX_GPU = 8192


def _choose(A: Matrix, sr: Semiring, negative: bool, preds: bool) -> str:
    n = A.nrows
    gpu = A.xp is not np
    dense = "blocked" if gpu and n <= _BLOCKED_MAX_GPU else "recursive"
    if sr is not min_plus:
        return dense
    try:
        check_fits(n, A.dtype, preds, A.xp, method=dense)
    except MemoryError:
        return "johnson" if negative else "repeated-sssp"
    # On the GPU a dense closure beats repeated SSSP even on sparse graphs (n = 8192,
    # degree 6: 61 ms against 3 s); on the CPU repeated SSSP wins on large sparse ones.
    if not gpu and A.nvals < 0.01 * n * n and n > 4096:
        return "johnson" if negative else "repeated-sssp"
    return dense


# ---- memory ----------------------------------------------------------------------

_BUDGET = 0.8  # share of the free memory a closure may take: the rest is left to others


@dataclass(frozen=True)
class MemoryNeed:
    """What an n×n closure needs at its peak, where, and what is free there."""

    what: str  # "apsp" or "transitive_closure"
    n: int
    method: str
    preds: bool
    per_pair: int  # peak bytes per (i, j) pair
    per_vertex: int  # bytes per vertex besides (the sparse methods' batches)
    fixed: int  # bytes that do not grow with n
    free: int
    where: str  # "host memory" or "GPU memory"

    def bytes_for(self, n: int) -> int:
        return self.per_pair * n * n + self.per_vertex * n + self.fixed

    @property
    def bytes(self) -> int:
        return self.bytes_for(self.n)

    def fits(self) -> bool:
        return self.bytes <= _BUDGET * self.free

    def largest_n(self) -> int:
        """The largest n whose closure by this method fits in the same memory."""
        a, b, c = self.per_pair, self.per_vertex, _BUDGET * self.free - self.fixed
        if c < 0:
            return 0
        k = int((-b + (b * b + 4 * a * c) ** 0.5) / (2 * a))  # the root of a·n² + b·n = c
        while k > 0 and self.bytes_for(k) > _BUDGET * self.free:  # float rounding
            k -= 1
        while self.bytes_for(k + 1) <= _BUDGET * self.free:
            k += 1
        return k

    def describe(self) -> str:
        preds = " with predecessors" if self.preds else ""
        return (
            f"an {self.n}×{self.n} result{preds} by {self.method} needs about "
            f"{_gib(self.bytes)} of {self.where} (the result and its working copies), "
            f"{_gib(self.free)} is free; up to about n={self.largest_n()} fits"
        )


def _gib(nbytes: float) -> str:
    if nbytes >= 2**30 / 10:
        return f"{nbytes / 2**30:,.1f} GiB"
    return f"{nbytes / 2**30:.4f} GiB ({nbytes / 2**20:.1f} MiB)"


def _need(what: str, n: int, method: str, preds: bool, dtype, xp) -> MemoryNeed:
    gpu = xp is not np and method not in _SPARSE  # sparse methods gather on the host
    if method in _SPARSE:
        per, per_vertex = apsp_sparse.bytes_per_pair(preds), apsp_sparse.BYTES_PER_VERTEX
        fixed = apsp_sparse.FIXED_BYTES
    else:
        per, per_vertex = apsp_dense.bytes_per_pair(dtype, preds, gpu), 0
        fixed = apsp_dense.FIXED_BYTES
    free = gpu_memory_free() if gpu else host_memory_free()
    where = "GPU memory" if gpu else "host memory"
    return MemoryNeed(what, n, method, preds, per, per_vertex, fixed, free, where)


def check_fits(n: int, dtype, preds: bool, xp, *, method: str = "recursive",
               what: str = "apsp", sparse_ok: bool = True) -> MemoryNeed:  # fmt: skip
    """What an n×n closure by ``method`` needs; a MemoryError that says how much was
    asked and the largest n that fits, unless it fits where its result will live.

    Dense methods work where the graph is (``xp``); the sparse ones gather their
    result in host memory. ``sparse_ok``: the semiring is min_plus, so
    repeated-sssp is an alternative worth naming.

    Example
    -------
    >>> import numpy as np
    >>> check_fits(100, np.float64, False, np).fits()
    True
    """
    need = _need(what, n, method, preds, dtype, xp)
    if need.fits():
        return need
    hints = []
    if preds and _need(what, n, method, False, dtype, xp).fits():
        hints.append("it fits without return_predecessors")
    if sparse_ok and need.where == "GPU memory":
        if _need(what, n, "repeated-sssp", preds, dtype, np).fits():
            hints.append("method='repeated-sssp' gathers its result in host memory, where it fits")
    raise MemoryError(f"{what}: {need.describe()}" + "".join(f"; {h}" for h in hints))


@contextmanager
def _out_of_memory(need: MemoryNeed) -> Iterator[None]:
    """An allocation failing despite the check (memory taken meanwhile, or a peak
    under-estimated) still says what was asked and what fits, not NumPy's words."""
    try:
        yield
    except MemoryError as e:
        raise MemoryError(f"{need.what}: ran out of {need.where}: {need.describe()}") from e


def _initial(A: Matrix, sr: Semiring, preds: bool):
    """D: full matrix of edge values (zero where no edge), diagonal ⊕= one; P if asked."""
    xp, n = A.xp, A.nrows
    one = Vector.from_dense(xp.full(n, sr.one_for(A.dtype), dtype=A.dtype), missing=None)
    D = Matrix.from_dense(A.to_dense(missing=sr.zero_for(A.dtype)), missing=None)
    D = ewise_add(D, Matrix.from_diag(one), sr.add.op)  # full: stays a full dense matrix
    if not preds:
        return D, None
    ids = Vector.from_dense(xp.arange(n, dtype=np.int64), missing=None)
    edges = select(A, "offdiag", 0)
    tails = mxm(Matrix.from_diag(ids), edges, min_first)  # P(i, j) = i for each edge
    P = Matrix.from_dense(tails.to_dense(missing=-1), missing=None)
    return D, P


def _check_cycles(D: Matrix, sr: Semiring) -> None:
    """A cycle better than the empty path (one) makes the closure undefined."""
    diag = select(D, "diag", 0)
    one = sr.one_for(D.dtype)
    # ⊕_i (d_i ⊕ one) = (⊕_i d_i) ⊕ one for an idempotent add: one scalar decides
    if sr.add.op(reduce(diag, sr.add), one) == one:
        return
    better = select(apply(diag, sr.add.op, right=one), "valuene", one)
    if better.nvals:
        i = int(better.to_coo()[0][0])
        kind = "negative cycle" if sr is min_plus else f"cycle better than {one!r} ({sr.name})"
        raise NegativeCycleError(f"apsp: the graph has a {kind} through vertex {i}")


def transitive_closure(G, *, reflexive: bool = False, directed: bool = True, method: str = "auto",
                       progress=None):  # fmt: skip
    """Reachability: R[i, j] is True when a path of one or more edges leads from i to j.

    ``reflexive=True`` also counts the empty path (R[i, i] True); ``directed=False``
    follows edges both ways. Computed as the closure A* over the Boolean semiring
    (lor_land), then R = A ⊗ A*: it equals A* off the diagonal, and R[i, i] holds
    when some edge i → j has A*[j, i], a gather over the edges. ``progress`` is as
    for :func:`apsp`. A result that does not fit raises a MemoryError saying what
    was asked and the largest n that fits, before anything n×n is allocated.

    Example
    -------
    >>> import numpy as np, kleene
    >>> G = np.array([[False, True, False], [False, False, True], [False, False, False]])
    >>> kleene.transitive_closure(G).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    if method not in METHODS:
        raise ValueError(f"transitive_closure: method must be one of {METHODS}, got {method!r}")
    if method in _SPARSE:
        raise ValueError(
            "transitive_closure: use a dense method (floyd-warshall, blocked, recursive)"
        )
    sr = get_semiring("lor_land")
    A = _weights(as_graph(G, directed=directed), sr)
    method = _resolve(A, sr, method, False)
    need = check_fits(A.nrows, A.dtype, False, A.xp, method=method, what="transitive_closure",
                      sparse_ok=False)  # fmt: skip
    block = _block_size(None)
    total = _work(A.nrows, method, block, False) + A.nvals
    with _out_of_memory(need), progress_for(progress, total, "transitive_closure") as bar:
        star = _solve(A, sr, method, False, block, bar)
        if not reflexive:
            _drop_empty_paths(A, star)
        return star


def _drop_empty_paths(A: Matrix, star) -> None:
    """A* → A ⊗ A* in place: only the diagonal changes (i ≠ j needs an edge anyway);
    R[i, i] holds when an edge i → j has A*[j, i] (a self loop: j = i)."""
    rows, cols, _ = A.to_coo()
    xp = array_module(star)
    on_cycle = xp.zeros(A.nrows, dtype=bool)
    on_cycle[rows[star[cols, rows]]] = True
    idx = xp.arange(A.nrows)
    star[idx, idx] = on_cycle
