"""All-pairs shortest paths and other closures: kleene.apsp, kleene.transitive_closure."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..errors import NegativeCycleError, names_gpu_memory
from ..ops import (
    Matrix,
    Vector,
    apply,
    array_module,
    closure,
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


@names_gpu_memory("apsp")
def apsp(G, *, method: str = "auto", directed: bool = True, return_predecessors: bool = False,
         semiring="min_plus", block_size: int | None = None, progress=None,
         client=None):  # fmt: skip
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
        - "auto": on the GPU a dense method when the n×n result fits in memory
          ("blocked" up to n = 8192, "recursive" beyond); on the CPU the cheaper
          of "recursive" and repeated-sssp / johnson by a cost model measured on
          the compiled kernels (Dijkstra rows for sparse graphs, and almost always
          with predecessors); past memory "johnson" for negative weights,
          "repeated-sssp" for non-negative ones. Other semirings than min_plus:
          the dense method.
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
    client : dask.distributed.Client, optional
        Run the blocked closure on the client's workers over a 2-D grid of blocks
        (``kleene.distributed``, docs/scaling.md): method "auto" or "blocked",
        result in host memory (NumPy).

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
    if client is not None:  # the blocked closure on Dask workers (optional extra)
        from ..distributed import apsp_on_dask

        return apsp_on_dask(client, G, method=method, directed=directed,
                            return_predecessors=return_predecessors, semiring=semiring,
                            block_size=block_size, progress=progress)  # fmt: skip
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
    if want != np.bool_:
        return A.astype(want)
    rows, cols, vals = A.to_coo()  # reachability: every stored entry is an edge, zero too
    return Matrix.from_edges(rows, cols, A.xp.ones(vals.shape, dtype=bool), A.nrows, ncols=A.ncols)


# Largest n where blocked beats recursive on the GPU (H200, fp32: per-launch costs of
# the recursion's small products; benchmarks/results/apsp_h200.md).
_BLOCKED_MAX_GPU = 8192


def _choose(A: Matrix, sr: Semiring, negative: bool, preds: bool) -> str:
    n = A.nrows
    gpu = A.xp is not np
    dense = "blocked" if gpu and n <= _BLOCKED_MAX_GPU else "recursive"
    if sr is not min_plus:
        return dense
    sparse = "johnson" if negative else "repeated-sssp"
    try:
        check_fits(n, A.dtype, preds, A.xp, method=dense)
    except MemoryError:
        return sparse
    # On the GPU a dense closure beats repeated SSSP even on sparse graphs (n = 8192,
    # degree 6: 61 ms against 3 s: no fused Dijkstra there, batched Bellman-Ford).
    if gpu:
        return dense
    cheaper = _cpu_sparse_s(n, A.nvals, negative) < _cpu_dense_s(n, A.dtype, preds)
    return sparse if cheaper else dense  # the measured rule below


# CPU: repeated SSSP (a compiled Dijkstra per source on all cores, kleene.ops.
# multi_source_sssp) against the dense recursive closure (compiled min-plus blocks),
# measured on the 2-core CI machine, median of 2 after a warm-up, seconds. Random
# digraphs with m/n edges per vertex plus a Hamiltonian cycle (strongly connected,
# so every closure is full), weights uniform in 1..100, float64 unless said:
#
#       n    m/n   recursive  repeated-sssp   with predecessors: recursive  repeated-sssp
#     512      3     0.0081      0.0069                          0.031        0.0070
#     512     32     0.0118      0.0130                          0.046        0.0125
#     512    202     0.0138      0.0264                          0.067        0.0285
#    1024      3     0.048       0.027                           0.174        0.044
#    1024     33     0.061       0.055                           0.203        0.059
#    1024     63     0.062       0.067                           0.221        0.069
#    1024    227     0.075       0.125                           0.250        0.124
#    1024      5     0.030 fp32  0.034                           0.193        0.044
#    2048      3     0.363       0.127                           1.348        0.129
#    2048     33     0.397       0.225                           1.482        0.236
#    2048    242     0.423       0.520                           1.643        0.515
#    2048     33     0.241 fp32  0.251                           1.395        0.259
#    4096      9     3.64        0.802                           9.19         0.793
#    4096    249     3.25        2.35                            8.99         2.51
#    real graphs (recursive / repeated-sssp, then the same with predecessors):
#    rome99 3353 (m/n 2.6) 0.94 / 0.27, 3.10 / 0.30; facebook 4039 undirected (m/n 44)
#    2.47 / 0.49, 5.89 / 0.67; Gnutella08[:3000] (m/n 3) 0.59 / 0.073, 2.16 / 0.076.
#
# As a cost model (seconds): repeated SSSP n²·log2(n)·3.5 ns (heap work per source
# and vertex) + n·m·0.45 ns (per source and edge), x1.5 for Johnson's potentials
# and reweighting (n = 1024: 0.049 s against 0.041 s at m/n 10, 0.54 against 0.35
# complete); recursive n³·0.045 ns + n²·8 ns in float64 (0.027 ns + 8 ns in
# float32), n³·0.13 ns + n²·60 ns with predecessors (their repair). Auto takes the
# cheaper: without predecessors Dijkstra rows up to m/n ≈ 43 at n = 1024, ≈ 138 at
# 2048, ≈ 335 at 4096 (the dense closure below n ≈ 500); with predecessors (the
# dense repair is costly) Dijkstra rows on all but the densest graphs. On the rows
# above the choice costs at most 1.17x the faster method's time (n = 512, m/n = 3:
# 8.1 ms against 6.9 ms). Re-measure when either kernel changes.
_CPU_VERTEX_S = 3.5e-9  # per source, vertex and log2(n)
_CPU_EDGE_S = 0.45e-9  # per source and stored edge
_CPU_JOHNSON = 1.5
_CPU_DENSE_S = {np.dtype(np.float32): 0.027e-9}  # per n³ step; 0.045 ns otherwise
_CPU_DENSE_PAIR_S = 8e-9  # per n² pair: building D, the cycle check, the copy out
_CPU_DENSE_PREDS_S = (0.13e-9, 60e-9)  # with predecessors, per n³ step and n² pair


def _cpu_sparse_s(n: int, m: int, negative: bool) -> float:
    s = n * (n * max(1, n.bit_length() - 1) * _CPU_VERTEX_S + m * _CPU_EDGE_S)
    return s * (_CPU_JOHNSON if negative else 1.0)


def _cpu_dense_s(n: int, dtype, preds: bool) -> float:
    step, pair = _CPU_DENSE_S.get(np.dtype(dtype), 0.045e-9), _CPU_DENSE_PAIR_S
    if preds:
        step, pair = _CPU_DENSE_PREDS_S
    return float(n) ** 3 * step + float(n) ** 2 * pair


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
    if method == _WHOLE:  # transitive_closure on the CPU
        per, per_vertex, fixed = _WHOLE_BYTES_PER_PAIR, 0, apsp_dense.FIXED_BYTES
    elif method in _SPARSE:
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


@names_gpu_memory("transitive_closure")
def transitive_closure(G, *, reflexive: bool = False, directed: bool = True, method: str = "auto",
                       progress=None):  # fmt: skip
    """Reachability: R[i, j] is True when a path of one or more edges leads from i to j.

    ``reflexive=True`` also counts the empty path (R[i, i] True); ``directed=False``
    follows edges both ways. Computed as the closure A* over the Boolean semiring
    (lor_land), then R = A ⊗ A*: it equals A* off the diagonal, and R[i, i] holds
    when some edge i → j has A*[j, i], a gather over the edges. ``progress`` is as
    for :func:`apsp`. A result that does not fit raises a MemoryError saying what
    was asked and the largest n that fits, before anything n×n is allocated.

    ``method="auto"`` on the CPU runs one ``closure`` of the whole matrix, which
    the CPU back end computes over bit-packed rows, one per strongly connected
    component, in reverse topological order (``kleene/ops/cpu/bool_closure.py``;
    n = 6,301 p2p-Gnutella08 in 0.11 s, peak 2 bytes a pair: the result and its
    working copy); on the GPU, or with the other methods, the dense closures of
    :func:`apsp`.

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
    whole = method == "auto" and A.xp is np  # the CPU: one closure of the whole matrix
    method = _WHOLE if whole else _resolve(A, sr, method, False)
    need = check_fits(A.nrows, A.dtype, False, A.xp, method=method, what="transitive_closure",
                      sparse_ok=False)  # fmt: skip
    block = _block_size(None)
    n = A.nrows
    total = (_WHOLE_UNITS * n * n if whole else _work(n, method, block, False)) + A.nvals
    with _out_of_memory(need), progress_for(progress, total, "transitive_closure") as bar:
        star = _star_whole(A, sr, bar) if whole else _solve(A, sr, method, False, block, bar)
        if not reflexive:
            _drop_empty_paths(A, star)
        return star


# CPU transitive_closure "auto": one closure of the whole n×n bool matrix, which the
# CPU back end computes over bit-packed rows (cpu/bool_closure.py). Peak: the matrix
# (1 byte a pair) and the result's copy (1 byte), or the input's dense copy while the
# matrix is built; the packed adjacency and component rows (1/8 byte each) live only
# during the closure, beside the matrix alone. Measured with tracemalloc: 2.0 bytes a
# pair (p2p-Gnutella08 75.9 MiB for a 37.9 MiB result, facebook 31.6 for 15.6, rome99
# 21.5 for 10.7); counted as 3 (the m-sized edge arrays come on top).
_WHOLE = "closure"
_WHOLE_BYTES_PER_PAIR = 3
_WHOLE_UNITS = 3  # progress units a pair: building the matrix, its closure, the copy out


def _star_whole(A: Matrix, sr: Semiring, bar: Progress):
    """A* of the whole (n, n) bool matrix by one ``closure`` (the back end's fused
    Boolean closure where it has one, else Floyd-Warshall's composed form)."""
    n = A.nrows
    if A.format == "dense":
        dense = A.to_dense(missing=False)
    else:  # scattered from the edges: no (n, n) mask beside the values
        dense = A.xp.zeros((n, n), dtype=bool)
        rows, cols, vals = A.to_coo()
        dense[rows, cols] = vals
        del rows, cols, vals
    D = Matrix.from_dense(dense, missing=None)
    del dense
    bar.step(n * n)
    closure(D, sr, out=D)
    bar.step(n * n)
    return D.to_dense()  # the rest of the units: finish()


def _drop_empty_paths(A: Matrix, star) -> None:
    """A* → A ⊗ A* in place: only the diagonal changes (i ≠ j needs an edge anyway);
    R[i, i] holds when an edge i → j has A*[j, i] (a self loop: j = i)."""
    rows, cols, _ = A.to_coo()
    xp = array_module(star)
    on_cycle = xp.zeros(A.nrows, dtype=bool)
    on_cycle[rows[star[cols, rows]]] = True
    idx = xp.arange(A.nrows)
    star[idx, idx] = on_cycle
