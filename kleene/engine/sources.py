"""Shortest paths from many sources at once: the op behind sparse all-pairs shortest paths.

``multi_source_sssp`` is defined by its composed form — multi-source Bellman-Ford
over min_plus (a (k, n) frontier matrix relaxed by ``relax`` until it empties) and,
for predecessors, the BFS tree of each row's tight edges — and runs a back end's
fused ``sssp_rows`` instead when there is one (CPU: ``cpu/sources.py``, one
delta-stepping search per source, the sources spread over the cores; CUDA: ``cuda/sources.py``,
bit-packed multi-source Bellman-Ford, 64 sources per frontier word, all rounds in
one cooperative launch). All give the same distances up to the rounding of
different summation orders (exactly the same on integer weights; the CUDA and
composed forms both reach the least float sum, added along the path, over the
paths, so they agree exactly on any weights). The CPU's predecessors may differ
where shortest paths tie, but each is a shortest-path tree (tests/test_cpu_sources.py
checks both); the CUDA ones follow the composed rule exactly
(tests/gpu/test_sources_gpu.py).
``fused=False`` forces the composed form.
"""

from __future__ import annotations

import numpy as np

from kleene.backends.device import is_cupy_array, to_host
from kleene.core import access
from kleene.core.checks import as_container
from kleene.core.matrix import Matrix
from kleene.core.vector import Vector
from kleene.errors import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue
from kleene.ops.elementwise import ewise_mult, select
from kleene.ops.multiply import mxm
from kleene.semiring import Semiring, binary, monoid

from .frontier import _fused_loop, frontier_bfs, least_value, relax

# (any, eq): for a one-term product, "is this entry equal to the diagonal entry".
_any_eq = Semiring(monoid.any, binary.eq, name="any_eq")


def multi_source_sssp(
    A: Matrix,
    sources,
    *,
    predecessors: bool = False,
    fused: bool | None = None,
    out=None,
    limit: float | None = None,
):
    """Shortest distances (and predecessors) from each of ``sources`` over square ``A``.

    ``A``: edge i -> j weighs A[i, j]; weights must be non-negative (ValueError
    otherwise: reweight first, as Johnson's algorithm does; ``kleene.apsp(...,
    method="johnson")``). ``sources``: an int or a 1-D sequence of ints (repeats
    allowed); row i of the results belongs to ``sources[i]``. ``predecessors``:
    also return, per row, each vertex's predecessor on a shortest path (-1 for
    the source and unreachable vertices); the chains lead back to the source,
    also across zero-weight cycles. ``fused``: None runs the back end's fused
    ``sssp_rows`` when it has one, False the composed form, True requires
    the fused one. ``out``: optional (dist, pred or None) C-contiguous arrays on
    A's device to write the results into (e.g. row blocks of an (n, n) result;
    the fused loop writes there directly, sparing an allocation and a copy).
    ``limit``: distances past it are inf and their predecessors -1; the CPU's
    fused rows stop each search there, the other paths drop what lies past it.

    Returns (dist, pred): a float64 (k, n) array (inf where unreachable) and an
    int64 (k, n) array or None, on A's device (``out``'s arrays when given).

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 0, 1], [1, 2, 2], [4.0, 9.0, 2.0], n=3)
    >>> dist, pred = kleene.engine.multi_source_sssp(A, [0, 2], predecessors=True)
    >>> dist.tolist(), pred.tolist()
    ([[0.0, 4.0, 6.0], [inf, inf, 0.0]], [[-1, 0, 1], [-1, -1, -1]])
    """
    opname = "multi_source_sssp"
    as_container(opname, "A", A, (Matrix,))
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{opname}: A must be square, got shape {A.shape}")
    srcs = _sources(opname, sources, A.nrows)
    if A.has_nan():
        raise InvalidValue(f"{opname}: A has NaN weights")
    least = least_value(A)
    if least < 0:
        raise InvalidValue(
            f"{opname}: weights must be non-negative (the least is {least}); "
            "reweight first (Johnson: kleene.apsp(..., method='johnson'))"
        )
    if limit is not None and not float(limit) >= 0:  # NaN too
        raise InvalidValue(f"{opname}: limit must be >= 0, got {limit}")
    loop = _fused_loop(opname, A, "sssp_rows", fused)
    if loop is None:
        dist, pred = _composed(
            A if A.dtype == np.float64 else A.astype(np.float64), srcs, bool(predecessors), fused
        )
        return _beyond(_into(opname, out, dist, pred), limit)
    ptr, idx, w = access.csr(A)
    if limit is not None and A.xp is np:  # the CPU rows stop at the limit themselves
        return loop(ptr, idx, w, srcs, bool(predecessors), out=out, limit=float(limit))
    return _beyond(loop(ptr, idx, w, srcs, bool(predecessors), out=out), limit)


def _beyond(result, limit):
    """(dist, pred) with the distances past ``limit`` made inf (predecessors -1)."""
    dist, pred = result
    if limit is not None and float(limit) < np.inf:
        far = dist > float(limit)
        dist[far] = np.inf
        if pred is not None:
            pred[far] = -1
    return dist, pred


def _into(opname: str, out, dist, pred):
    """The results, copied into ``out``'s arrays when given."""
    if out is None:
        return dist, pred
    targets = [(out[0], dist)] + ([(out[1], pred)] if pred is not None else [])
    for target, value in targets:
        if getattr(target, "shape", None) != value.shape or target.dtype != value.dtype:
            raise InvalidValue(f"{opname}: out arrays must be {value.shape} float64 / int64 arrays")
        target[...] = value
    return out[0], (out[1] if pred is not None else None)


def _sources(opname: str, sources, n: int) -> np.ndarray:
    """``sources`` as a 1-D int64 host array, each one checked against n."""
    s = to_host(sources) if is_cupy_array(sources) else np.asarray(sources)
    if s.size == 0 and s.ndim == 1:
        return np.empty(0, dtype=np.int64)
    if s.ndim > 1 or s.dtype.kind not in "iu":
        raise InvalidObject(
            f"{opname}: sources must be an int or a 1-D sequence of ints, got {sources!r}"
        )
    s = s.reshape(-1).astype(np.int64)
    bad = (s < 0) | (s >= n)
    if bad.any():
        raise IndexOutOfBound(f"{opname}: source {s[bad][0]} is out of range for {n} vertices")
    return s


def _composed(A: Matrix, srcs: np.ndarray, want_pred: bool, fused: bool | None):
    """Multi-source Bellman-Ford (every source a row of one frontier matrix), then per
    row the BFS tree of its tight edges (BFS order keeps it acyclic)."""
    xp, n, k = A.xp, A.nrows, srcs.size
    if k == 0:
        empty = xp.empty((0, n), dtype=np.float64)
        return empty, (xp.empty((0, n), dtype=np.int64) if want_pred else None)
    rows, at = xp.arange(k, dtype=np.int64), xp.asarray(srcs)
    d0 = xp.full((k, n), np.inf, dtype=np.float64)
    d0[rows, at] = 0.0
    d = Matrix.from_dense(d0, missing=None)
    f = Matrix.from_edges(rows, at, xp.zeros(k, np.float64), k, ncols=n)
    for _ in range(max(n, 1)):  # non-negative weights: at most n - 1 rounds improve
        f = relax(f, A, d)
        if not f.nvals:
            break
    dist = d.to_dense()
    if not want_pred:
        return dist, None
    bfs_fused = False if fused is False else None  # all composed, or the back end's BFS
    pred = xp.stack([_tree(A, dist[i], int(srcs[i]), bfs_fused) for i in range(k)])
    return dist, pred


def _tree(A: Matrix, row, source: int, fused: bool | None):
    """Predecessors from one row of distances: each reached vertex's smallest
    in-neighbour one level up in the BFS of the tight edges (d(u) + w(u, v) == d(v))."""
    d = Vector.from_dense(row, missing=None)
    reached = select(d, "valuene", np.inf)
    through = mxm(Matrix.from_diag(reached), A, "min_plus")  # d(u) + w(u, v)
    same = mxm(through, Matrix.from_diag(reached), _any_eq)  # ... == d(v)
    tight = select(select(ewise_mult(same, same, "land"), "valueeq", True), "offdiag", 0)
    _, parents = frontier_bfs(tight, source, parents=True, method="push", fused=fused)
    return parents.to_dense(missing=-1)


__all__ = ["multi_source_sssp"]
