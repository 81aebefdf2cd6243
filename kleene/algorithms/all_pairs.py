"""All-pairs shortest paths and other closures: kleene.apsp, kleene.transitive_closure."""

from __future__ import annotations

import numpy as np

from ..errors import NegativeCycleError
from ..ops import Matrix, Vector, apply, ewise_add, mxm, reduce, select
from ..ops.device import gpu_memory_free, host_memory_free, to_host
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
        Block of "blocked" and base case of "recursive" (default 128).
    progress : bool or callable, optional
        True shows a bar on stderr; a callable gets ``(done, total)``.

    Returns
    -------
    dist : (n, n) array on the input's device (host memory for the sparse methods)
    predecessors : (n, n) int64 array, if asked

    Raises
    ------
    NegativeCycleError
        A cycle beats the empty path (a negative cycle for min_plus).
    MemoryError
        The n×n result (and predecessors) does not fit; the message says what would.

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
    sr = get_semiring(semiring)
    A = _weights(as_graph(G, directed=directed, fmt=None), sr)  # dense input stays dense
    n = A.nrows
    negative = sr is min_plus and A.nvals > 0 and float(reduce(A, "min")) < 0
    if method == "auto":
        method = _choose(A, sr, negative, return_predecessors)
    if method in _SPARSE:
        if sr is not min_plus:
            raise ValueError(f"apsp: method {method!r} computes shortest paths (min_plus) only")
        if method == "repeated-sssp" and negative:
            method = "johnson"
        run = apsp_sparse.johnson if method == "johnson" else apsp_sparse.repeated_sssp
        return run(A.to_format("csr"), return_predecessors, progress)
    if not sr.idempotent:
        raise ValueError(
            f"apsp: semiring {sr.name} has no in-place closure (add must be idempotent)"
        )
    check_fits(n, A.dtype, return_predecessors, A.xp)
    D, P = _initial(A, sr, return_predecessors)
    block = int(block_size or 128)
    if block < 1:
        raise ValueError(f"apsp: block_size must be positive, got {block_size}")
    if method == "floyd-warshall":
        apsp_dense.floyd_warshall(sr, D, P, progress)
    elif method == "blocked":
        apsp_dense.blocked(sr, D, P, block, progress)
    else:
        apsp_dense.recursive(sr, D, P, block, progress)
    _check_cycles(D, sr)
    dist = D.to_dense()
    if not return_predecessors:
        return dist
    return dist, _repair(A, sr, dist, P.to_dense())


def _repair(A: Matrix, sr: Semiring, dist, pred):
    """Rows whose in-place updates left a predecessor cycle (zero-weight cycles make
    that possible outside Floyd-Warshall's order) get the BFS tree of their tight edges."""
    bad = rows_with_cycles(pred)
    if not bool(bad.any()):
        return pred
    for i in np.flatnonzero(to_host(bad)):
        d = Vector.from_dense(dist[int(i)], missing=None)
        pred[int(i)] = predecessors_from_distances(A, d, int(i), sr)
    return pred


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
        check_fits(n, A.dtype, preds, A.xp)
    except MemoryError:
        return "johnson" if negative else "repeated-sssp"
    # On the GPU a dense closure beats repeated SSSP even on sparse graphs (n = 8192,
    # degree 6: 61 ms against 3 s); on the CPU repeated SSSP wins on large sparse ones.
    if not gpu and A.nvals < 0.01 * n * n and n > 4096:
        return "johnson" if negative else "repeated-sssp"
    return dense


def check_fits(n: int, dtype, preds: bool, xp) -> None:
    """MemoryError (saying what would fit) unless the n×n result fits where it will live."""
    per = np.dtype(dtype).itemsize + (8 if preds else 0)
    need = n * n * per
    free = host_memory_free() if xp is np else gpu_memory_free()
    budget = int(0.8 * free)
    if need > budget:
        fit = int((budget / per) ** 0.5)
        where = "host memory" if xp is np else "GPU memory"
        raise MemoryError(
            f"apsp: an {n}×{n} result{' with predecessors' if preds else ''} needs "
            f"{need / 2**30:.1f} GiB but only {free / 2**30:.1f} GiB of {where} is free; "
            f"graphs up to about n={fit} fit (or use method='repeated-sssp', whose output "
            "goes to host memory)"
        )


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
    follows edges both ways. Computed as the
    closure over the Boolean semiring (lor_land), then R = A ⊗ A*.

    Example
    -------
    >>> import numpy as np, kleene
    >>> G = np.array([[False, True, False], [False, False, True], [False, False, False]])
    >>> kleene.transitive_closure(G).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    if method in _SPARSE:
        raise ValueError(
            "transitive_closure: use a dense method (floyd-warshall, blocked, recursive)"
        )
    A = _weights(as_graph(G, directed=directed), get_semiring("lor_land"))
    star = apsp(A, method=method, semiring="lor_land", progress=progress)
    if reflexive:
        return star
    S = Matrix.from_dense(star, missing=False)
    return mxm(A, S, "lor_land").to_dense(missing=False)
