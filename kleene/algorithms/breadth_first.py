"""Breadth-first search as Boolean semiring products (push, pull, direction-optimizing)."""

from __future__ import annotations

import numpy as np

from ..ops import Matrix, Vector, apply, ewise_mult, mxm, vxm
from ..ops.device import backend
from ..ops.multiply import _transposed_csr
from ..semiring import any_pair, min_first
from .graph_input import as_graph, check_source

METHODS = ("auto", "push", "pull", "direction-optimizing")

# Beamer's switch points: pull once the frontier is a sizeable share of what is
# left unexplored, back to push once it is small (LAGraph-style, vertex counts).
_TO_PULL = 14
_TO_PUSH = 24


def bfs(G, source, *, method: str = "auto", directed: bool = True,
        return_predecessors: bool = False):  # fmt: skip
    """Breadth-first levels (and parents) from ``source``.

    Each level is one product of the frontier with the adjacency matrix over a
    Boolean semiring (``any_pair``; ``min_first`` when parents are wanted, which
    gives each vertex its smallest-numbered parent) under the complement of the
    visited set, with replace.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
    source : int or sequence of int
        A list gives multi-source BFS: one batched product per level for all
        sources, and (k, n) results.
    method : {"auto", "push", "pull", "direction-optimizing"}
        "push" scatters from a sparse frontier, "pull" gathers over the
        transpose for unvisited vertices only, "direction-optimizing" switches
        between them by frontier size (Beamer); "auto" is direction-optimizing.
        On the GPU a single-source search runs each level as one fused kernel
        pass (the product, the mask and the level assignment together) and all
        levels in one launch; results are those of the composed operations.
    directed : bool
        False follows edges both ways.
    return_predecessors : bool

    Returns
    -------
    levels : int64 array, -1 where unreachable (on the input's device)
    predecessors : int64 array, -1 for the source and unreachable vertices

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> G = sp.csr_matrix(([1, 1, 1], ([0, 1, 2], [1, 2, 0])), shape=(4, 4))
    >>> kleene.bfs(G, 0).tolist()
    [0, 1, 2, -1]
    >>> kleene.bfs(G, 1, return_predecessors=True)[1].tolist()
    [2, -1, 1, -1]
    """
    if method not in METHODS:
        raise ValueError(f"bfs: method must be one of {METHODS}, got {method!r}")
    A = as_graph(G, directed=directed)
    srcs = check_source(source, A.nrows)
    if np.ndim(source) > 0:
        return _bfs_multi(A, srcs, return_predecessors)
    fused = getattr(backend(A.xp), "bfs_levels", None)
    if fused is not None:
        return _bfs_fused(fused, A, int(srcs[0]), method, return_predecessors, not directed)
    return _bfs_single(A, int(srcs[0]), method, return_predecessors)


def _bfs_fused(fused, A: Matrix, s: int, method: str, want_parents: bool, symmetric: bool):
    """The back end's fused search (levels and min-id parents, as ``_bfs_single``)."""
    ptr, idx, _ = A._csr()
    tptr, tidx = ptr, idx
    if not symmetric and method != "push":
        tptr, tidx, _ = _transposed_csr(A)
    levels, parents = fused(ptr, idx, tptr, tidx, A.nrows, s, want_parents, method)
    return (levels, parents) if want_parents else levels


def _choose(method: str, current: str, nq: int, n: int, nvisited: int) -> str:
    if method in ("push", "pull"):
        return method
    if current == "push" and nq * _TO_PULL > n - nvisited:
        return "pull"
    if current == "pull" and nq * _TO_PUSH < n:
        return "push"
    return current


def _bfs_single(A: Matrix, s: int, method: str, want_parents: bool):
    xp, n = A.xp, A.nrows
    at = xp.asarray([s], dtype=np.int64)
    levels = Vector.from_coo(at, xp.zeros(1, np.int64), n)
    if want_parents:
        ids = Vector.from_dense(xp.arange(n, dtype=np.int64), missing=None)
        parents = Vector.empty(n, np.int64, device=A.device)
        q = Vector.from_coo(at, at, n)
        semiring = min_first
    else:
        q = Vector.from_coo(at, xp.ones(1, bool), n)
        semiring = any_pair
    depth, nq, nvisited, mode = 0, 1, 1, "push"
    while nq:
        depth += 1
        mode = _choose(method, mode, nq, n, nvisited)
        q = vxm(q, A, semiring, mask=~levels.S, replace=True, method=mode)
        nq = q.nvals  # the one host read per level: the loop condition
        if not nq:
            break
        nvisited += nq
        apply(q, "second", right=np.int64(depth), out=levels, mask=q.S)
        if want_parents:
            apply(q, "identity", out=parents, mask=q.S)
            q = ewise_mult(q, ids, "second")  # next frontier carries its own ids
    lv = levels.to_dense(missing=-1)
    if not want_parents:
        return lv
    return lv, parents.to_dense(missing=-1)


def _bfs_multi(A: Matrix, srcs, want_parents: bool):
    """All sources at once: the frontier is a (k, n) matrix, one mxm per level."""
    xp, n, k = A.xp, A.nrows, srcs.size
    rows = xp.arange(k, dtype=np.int64)
    cols = xp.asarray(srcs)
    levels = Matrix.from_edges(rows, cols, xp.zeros(k, np.int64), k, ncols=n, dup="min")
    if want_parents:
        ids = Matrix.from_dense(xp.broadcast_to(xp.arange(n, dtype=np.int64), (k, n)), missing=None)
        parents = Matrix.empty((k, n), np.int64, device=A.device)
        F = Matrix.from_edges(rows, cols, cols, k, ncols=n, dup="min")
        semiring = min_first
    else:
        F = Matrix.from_edges(rows, cols, None, k, ncols=n, dup="min")
        semiring = any_pair
    depth = 0
    while True:
        depth += 1
        F = mxm(F, A, semiring, mask=~levels.S, replace=True)
        if not F.nvals:
            break
        apply(F, "second", right=np.int64(depth), out=levels, mask=F.S)
        if want_parents:
            apply(F, "identity", out=parents, mask=F.S)
            F = ewise_mult(F, ids, "second")
    lv = levels.to_dense(missing=-1)
    if not want_parents:
        return lv
    return lv, parents.to_dense(missing=-1)
