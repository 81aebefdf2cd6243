"""Frontier loops: BFS levels and Bellman-Ford rounds from one source.

The twin of ``closure.py`` for traversals. Each loop is defined by its composed
form — a few masked products per level, written below in public operations —
and runs a back end's fused loop instead when there is one (CUDA:
``bfs_levels``/``bellman_ford``, all levels in one cooperative launch, see
``cuda/frontier.py``), which must give the same results (tests/gpu/test_frontier.py
checks the two against each other). ``fused=False`` forces the composed form.
``frontier_bfs_multi`` runs many sources at once: a (k, n) frontier matrix and
one masked ``mxm`` per level composed, 64 sources per bit-packed word fused
(CUDA ``bfs_multi``, ``cuda/multi_frontier.py``; tests/gpu/test_multi_frontier.py).
"""

from __future__ import annotations

import numpy as np

from kleene.backends import direction
from kleene.backends.device import backend, to_host
from kleene.backends.strict_sums import strict_sums
from kleene.core import access
from kleene.core.checks import as_container
from kleene.core.matrix import Matrix
from kleene.core.value_scan import scan_csr
from kleene.core.vector import Vector
from kleene.errors import (
    DimensionMismatch,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
    NegativeCycleError,
)
from kleene.ops.elementwise import apply, ewise_add, ewise_mult, select
from kleene.ops.multiply import mxm, transpose_at_hand, transposed_pattern, vxm
from kleene.ops.structure import reduce
from kleene.ops.weight_scan import stored_min
from kleene.semiring import any_pair, min_first

BFS_METHODS = ("auto", "push", "pull", "direction-optimizing")


def frontier_bfs(
    A: Matrix,
    source: int,
    *,
    parents: bool = False,
    method: str = "auto",
    symmetric: bool = False,
    fused: bool | None = None,
):
    """BFS levels (and parents) from ``source`` over the pattern of square ``A``.

    Composed form, per level: ``q = vxm(q, A, any_pair, mask=~levels.S,
    replace=True)`` then ``levels<q.S> = depth`` (with parents: ``min_first``, so
    each vertex gets its smallest-numbered parent, and ``parents<q.S> = q``).
    ``method``: "push", "pull" (over Aᵀ, cached on A), or "direction-optimizing"
    (= "auto": Beamer's switch, ``kleene.backends.direction``). ``symmetric=True``
    promises Aᵀ = A, so pulling needs no transpose. ``fused``: None runs the back
    end's fused loop when it has one, False the composed form, True requires
    the fused one. The fused CPU loop builds no Aᵀ for "auto": with none at hand
    (cached, or A's own where A is known symmetric) it pushes every level, and
    where one of them would have pulled a good share of the edges, the next
    search of A builds Aᵀ and keeps it (a graph passed per call as a SciPy CSR is a
    new Matrix each time, so its searches only push, as SciPy's do).

    Returns (levels, parents): int64 Vectors with entries at the reached
    vertices (parents: every reached vertex but the source); parents is None
    unless asked.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 1], [1, 2, 3], n=5)
    >>> levels, parents = kleene.engine.frontier_bfs(A, 0, parents=True)
    >>> levels.to_dense(missing=-1).tolist(), parents.to_dense(missing=-1).tolist()
    ([0, 1, 2, 2, -1], [-1, 0, 1, 1, -1])
    """
    s, out = _fused_bfs("frontier_bfs", A, source, parents, method, symmetric, fused)
    if out is None:
        return _composed_bfs(A, s, parents, method)
    levels, par = out
    return _reached(A.xp, levels), (_reached(A.xp, par) if parents else None)


def frontier_bfs_levels(
    A: Matrix,
    source: int,
    *,
    parents: bool = False,
    method: str = "auto",
    symmetric: bool = False,
    fused: bool | None = None,
):
    """``frontier_bfs`` as dense int64 arrays on A's device: levels (-1 where
    unreachable) and parents (-1 for none; None unless asked). The fused loop's
    arrays as they come (no Vector, no presence mask, no fill pass: what
    ``kleene.bfs`` returns); the composed form's Vectors filled with -1.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 1], [1, 2, 3], n=5)
    >>> levels, parents = kleene.engine.frontier_bfs_levels(A, 0, parents=True)
    >>> levels.tolist(), parents.tolist()
    ([0, 1, 2, 2, -1], [-1, 0, 1, 1, -1])
    """
    s, out = _fused_bfs("frontier_bfs_levels", A, source, parents, method, symmetric, fused)
    if out is not None:
        return out
    levels, par = _composed_bfs(A, s, parents, method)
    return levels.to_dense(missing=-1), (par.to_dense(missing=-1) if parents else None)


def _fused_bfs(
    opname: str, A: Matrix, source, parents: bool, method: str, symmetric: bool, fused: bool | None
):
    """(source, (levels, parents) from the back end's fused loop), or (source, None)
    where the composed form runs; arguments checked."""
    s = _square_and_source(opname, A, source)
    if method not in BFS_METHODS:
        raise InvalidValue(f"{opname}: method must be one of {BFS_METHODS}, got {method!r}")
    if symmetric:  # A's own CSR serves as its transpose
        A.cached("csr_T", lambda: access.csr(A))
    loop = _fused_loop(opname, A, "bfs_levels", fused)
    if loop is None:
        return s, None
    ptr, idx, _ = access.csr(A)
    in_edges = None
    if A.xp is np and method != "pull":
        in_edges = _in_edges_at_hand(A)
        if in_edges is None and (method == "push" or not A.known("bfs_pull_wanted")):
            # No Aᵀ at hand: building it reads every edge and writes a copy, more
            # than the pushes a pull level saves in one search. This search pushes;
            # where a level would have pulled a good share of the edges (a social
            # graph, not a road one), the next search of A builds Aᵀ and keeps it.
            def wanted():
                A.cached("bfs_pull_wanted", lambda: True)

            return s, loop(ptr, idx, None, None, A.nrows, s, parents, method, on_pull_wanted=wanted)
    if in_edges is None:
        in_edges = (ptr, idx) if method == "push" else transposed_pattern(A)
    return s, loop(ptr, idx, *in_edges, A.nrows, s, parents, method)


def _in_edges_at_hand(A: Matrix):
    """Aᵀ's pattern (indptr, indices) where it needs no build: the cached transpose,
    or A's own CSR where its pattern is known to be symmetric; else None."""
    if A.known("pattern_symmetric") or A.known("symmetric"):
        return access.csr(A)[:2]
    cached = A.known("csr_T")
    return None if cached is None else cached[:2]


def frontier_bfs_multi(
    A: Matrix, sources, *, parents: bool = False, symmetric: bool = False, fused: bool | None = None
):
    """BFS levels (and parents) from each of ``sources`` at once, over the pattern of ``A``.

    Composed form: the frontier is a (k, n) matrix F (row b: the search from
    ``sources[b]``), per level ``F = mxm(F, A, any_pair, mask=~levels.S,
    replace=True)`` then ``levels<F.S> = depth`` (with parents: ``min_first``, so
    each vertex gets its smallest-numbered parent, and ``parents<F.S> = F``). The
    fused GPU loop (``bfs_multi``) runs 64 sources per bit-packed word per vertex
    (MS-BFS), pushing or pulling per level by Beamer's rule, with the same results.
    ``sources``: an int or a sequence of ints (repeats allowed). ``symmetric=True``
    promises Aᵀ = A (no transpose is built). ``fused`` as in ``frontier_bfs``.

    Returns (levels, parents): dense (k, n) int64 arrays on A's device with -1
    where a vertex is unreachable (levels) or has no parent (parents: the sources
    and unreachable vertices); parents is None unless asked. A result that does
    not fit in GPU memory raises MemoryError naming the bytes needed and free.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 1], [1, 2, 3], n=5)
    >>> levels, parents = kleene.engine.frontier_bfs_multi(A, [0, 1, 0], parents=True)
    >>> levels.tolist()
    [[0, 1, 2, 2, -1], [-1, 0, 1, 1, -1], [0, 1, 2, 2, -1]]
    >>> parents[1].tolist()
    [-1, -1, 1, 1, -1]
    """
    src = _square_and_sources("frontier_bfs_multi", A, sources)
    if symmetric:  # A's own CSR serves as its transpose
        A.cached("csr_T", lambda: access.csr(A))
    loop = _fused_loop("frontier_bfs_multi", A, "bfs_multi", fused)
    if loop is None:
        return _composed_bfs_multi(A, src, parents)
    ptr, idx, _ = access.csr(A)
    tptr, tidx = transposed_pattern(A)  # pull levels and parents scan in-edges
    return loop(ptr, idx, tptr, tidx, A.nrows, A.xp.asarray(src), parents)


def frontier_bellman_ford(A: Matrix, source: int, *, fused: bool | None = None) -> Vector:
    """Shortest distances from ``source``: Bellman-Ford over min_plus, frontier by frontier.

    Composed form, per round: ``q = relax(q, A, d)`` (see ``relax``) until the
    frontier is empty. Negative weights are fine; a negative cycle reachable
    from the source (round n still improves) raises ``NegativeCycleError``.
    ``fused`` as in ``frontier_bfs``. Returns a full float64 Vector (inf where
    unreachable).

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 0, 1], [1, 2, 2], [4.0, 9.0, 2.0], n=3)
    >>> kleene.engine.frontier_bellman_ford(A, 0).to_dense().tolist()
    [0.0, 4.0, 6.0]
    """
    s = _square_and_source("frontier_bellman_ford", A, source)
    loop = _fused_loop("frontier_bellman_ford", A, "bellman_ford", fused)
    if loop is None:
        return _composed_bellman_ford(A if A.dtype == np.float64 else A.astype(np.float64), s)
    ptr, idx, w = access.csr(A)
    dist, negative = loop(ptr, idx, w, A.nrows, s, nonnegative=least_value(A) >= 0)
    if negative:
        raise _negative_cycle()
    return access.new(Vector, A.xp, dist.dtype, dist.size, "dense", dist)  # fresh: no copy


def relax(frontier, A: Matrix, d, *, semiring="min_plus"):
    """One relaxation: ``t = frontier ⊕.⊗ A``; entries of t better than d are written
    into d and returned (the next frontier).

    ``frontier``/``d`` are Vectors (one source) or (k, n) Matrices (k sources);
    ``d`` is changed in place. "Better" is ``t < d`` (min_plus).

    Example
    -------
    >>> import numpy as np, kleene
    >>> A = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 1.0], n=3)
    >>> d = kleene.Vector.from_dense(np.array([0.0, np.inf, np.inf]), missing=None)
    >>> f = kleene.engine.relax(kleene.Vector.from_coo([0], [0.0], 3), A, d)
    >>> f.to_coo()[0].tolist(), d.to_dense().tolist()
    ([1], [0.0, 1.0, inf])
    """
    t = mxm(frontier, A, semiring) if isinstance(frontier, Matrix) else vxm(frontier, A, semiring)
    better = ewise_mult(t, d, "lt")
    f = apply(t, "identity", mask=better.V)
    apply(f, "identity", out=d, mask=f.S)
    return f


def least_value(A: Matrix) -> float:
    """A's least stored value (inf when empty; 0 for Boolean), cached until a write
    (``weight_scan.stored_min``)."""
    return 0.0 if A.dtype.kind == "b" else stored_min(A)


def _square_and_source(opname: str, A, source) -> int:
    as_container(opname, "A", A, (Matrix,))
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{opname}: A must be square, got shape {A.shape}")
    if isinstance(source, (bool, np.bool_)) or not isinstance(source, (int, np.integer)):
        raise InvalidObject(f"{opname}: source must be an integer vertex id, got {source!r}")
    if not 0 <= int(source) < A.nrows:
        raise IndexOutOfBound(f"{opname}: source {source} is out of range for {A.nrows} vertices")
    return int(source)


def _square_and_sources(opname: str, A, sources) -> np.ndarray:
    """``sources`` (an int or a 1-D sequence of ints) as an int64 NumPy array, checked."""
    as_container(opname, "A", A, (Matrix,))
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{opname}: A must be square, got shape {A.shape}")
    arr = to_host(sources)
    if (arr.dtype.kind not in "iu" and arr.size) or arr.ndim > 1:  # [] is float64
        raise InvalidObject(f"{opname}: sources must be integer vertex ids, got {sources!r}")
    flat = arr.astype(np.int64).ravel()
    bad = flat[(flat < 0) | (flat >= A.nrows)]
    if bad.size:
        raise IndexOutOfBound(f"{opname}: source {bad[0]} is out of range for {A.nrows} vertices")
    return flat


def _fused_loop(opname: str, A: Matrix, name: str, fused: bool | None):
    """The back end's fused loop ``name``, or None for the composed form."""
    if fused is False:
        return None
    loop = getattr(backend(A.xp), name, None)
    if loop is None and fused:
        raise InvalidValue(f"{opname}: the {A.device} back end has no fused loop; use fused=None")
    return loop


def _reached(xp, a) -> Vector:
    """An int64 Vector of the entries of ``a`` that are not -1 (no host sync)."""
    return access.new(Vector, xp, a.dtype, a.size, "dense", a, a >= 0)


def _negative_cycle() -> NegativeCycleError:
    return NegativeCycleError("sssp: the graph has a negative cycle reachable from the source")


def _composed_bfs(A: Matrix, s: int, want_parents: bool, method: str):
    xp, n = A.xp, A.nrows
    if want_parents and A.dtype.kind == "f" and A.has_nan():
        # min_first refuses NaN operands, though it reads none of A's values: the
        # search is over the pattern, where a NaN weight is an edge like any other
        ptr, idx, _ = access.csr(A)
        A = access.from_csr(xp, ptr, idx, xp.ones(idx.size, dtype=np.bool_), A.shape)
    at = xp.asarray([s], dtype=np.int64)
    levels = Vector.from_coo(at, xp.zeros(1, np.int64), n)
    parents = None
    if want_parents:
        ids = Vector.from_dense(xp.arange(n, dtype=np.int64), missing=None)
        parents = Vector.empty(n, np.int64, device=A.device)
        q, semiring = Vector.from_coo(at, at, n), min_first
    else:
        q, semiring = Vector.from_coo(at, xp.ones(1, bool), n), any_pair
    degree = A.cached("out_degree", lambda: xp.diff(access.csr(A)[0]))
    switch, nq = direction.Switch(A.nvals, n), 1
    pull, depth = method == "pull", 0
    while nq:
        depth += 1
        if method in ("auto", "direction-optimizing"):
            pull = switch.next(int(degree[access.keys(q)[0]].sum()), nq)  # Beamer's m_f, n_f
        q = vxm(q, A, semiring, mask=~levels.S, replace=True, method="pull" if pull else "push")
        nq = q.nvals  # the loop condition
        if not nq:
            break
        apply(q, "second", right=np.int64(depth), out=levels, mask=q.S)
        if want_parents:
            apply(q, "identity", out=parents, mask=q.S)
            q = ewise_mult(q, ids, "second")  # next frontier carries its own ids
    return levels, parents


def _composed_bfs_multi(A: Matrix, srcs: np.ndarray, want_parents: bool):
    """All sources at once: the frontier is a (k, n) matrix, one masked mxm per level."""
    xp, n, k = A.xp, A.nrows, srcs.size
    rows = xp.arange(k, dtype=np.int64)
    cols = xp.asarray(srcs)
    levels = Matrix.from_edges(rows, cols, xp.zeros(k, np.int64), k, ncols=n)
    parents = None
    if want_parents:
        ids = Matrix.from_dense(xp.broadcast_to(xp.arange(n, dtype=np.int64), (k, n)), missing=None)
        parents = Matrix.empty((k, n), np.int64, device=A.device)
        F, semiring = Matrix.from_edges(rows, cols, cols, k, ncols=n), min_first
    else:
        F, semiring = Matrix.from_edges(rows, cols, None, k, ncols=n), any_pair
    depth = 0
    while True:
        depth += 1
        F = mxm(F, A, semiring, mask=~levels.S, replace=True)
        if not F.nvals:
            break
        apply(F, "second", right=np.int64(depth), out=levels, mask=F.S)
        if want_parents:
            apply(F, "identity", out=parents, mask=F.S)
            F = ewise_mult(F, ids, "second")  # next frontier carries its own ids
    lv = levels.to_dense(missing=-1)
    return lv, (parents.to_dense(missing=-1) if want_parents else None)


def _composed_bellman_ford(A: Matrix, s: int) -> Vector:
    xp, n = A.xp, A.nrows
    d0 = xp.full(n, np.inf, dtype=np.float64)
    d0[s] = 0.0
    d = Vector.from_dense(d0, missing=None)
    f = Vector.from_coo(xp.asarray([s]), xp.zeros(1, np.float64), n)
    for _ in range(max(n, 1)):
        f = relax(f, A, d)
        if not f.nvals:
            return d
    raise _negative_cycle()


def frontier_delta_stepping(
    A: Matrix,
    source: int,
    *,
    delta: float | None = None,
    fused: bool | None = None,
    predecessors: bool = False,
):
    """Shortest distances from ``source`` by delta-stepping (Meyer & Sanders) over min_plus.

    Composed form: distances in buckets of width ``delta``; the least bucket
    [lo, lo + delta) with a vertex is settled by ``f = relax(f, light, d)`` (light
    = ``select(A, "valuele", delta)``) while f has entries in the bucket, then its
    settled vertices relax the heavy edges (``select(A, "valuegt", delta)``) once;
    then the next non-empty bucket. The fused CPU loop (``cpu/delta.py``, GAP's
    sequential delta-stepping: a vertex taken from the bucket relaxes all its
    edges) gives the same distances. Weights must be non-negative (ValueError).
    The fused GPU loop (``cuda/near_far.py``) is the near-far form of the same
    buckets: one threshold, a near frontier relaxed round by round and a far pile
    split when the frontier empties, all in one launch. ``delta``: a finite number
    > 0; None: the mean positive edge weight (cached on A), times the back end's
    ``DELTA_SCALE`` (GPU: wider steps, as each costs a grid barrier; CPU: 1).
    Distances do not depend on it, only the time, and that little: on a road graph
    the fused CPU loop is about as fast for any delta from a quarter to twice the mean.
    ``fused`` as in ``frontier_bfs``. Returns a full float64 Vector (inf where
    unreachable); with ``predecessors`` also ``shortest_path_tree(A, d, source)``,
    queued right behind the search on the GPU where weights grow every sum
    (``strict_sums``: one pass over the edges, ``tight_parents``).

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 0, 1, 2], [1, 2, 2, 3], [4.0, 9.0, 2.0, 0.0], n=5)
    >>> kleene.engine.frontier_delta_stepping(A, 0).to_dense().tolist()
    [0.0, 4.0, 6.0, 6.0, inf]
    >>> kleene.engine.frontier_delta_stepping(A, 0, delta=1.0, fused=False).to_dense().tolist()
    [0.0, 4.0, 6.0, 6.0, inf]
    """
    from .tree import shortest_path_tree  # tree.py builds on this module

    opname = "frontier_delta_stepping"
    s = _square_and_source(opname, A, source)
    least = least_value(A)
    if not least >= 0:  # NaN fails this too
        raise InvalidValue(
            f"{opname}: delta-stepping needs non-negative weights, got {least}; "
            "use frontier_bellman_ford for negative weights"
        )
    most, mean = _weight_summary(A)
    loop = _fused_loop(opname, A, "delta_stepping", fused)
    if delta is None:
        delta = mean * (getattr(backend(A.xp), "DELTA_SCALE", 1.0) if loop else 1.0)
    else:
        delta = _check_width(opname, delta)
    if loop is None:
        F = A if A.dtype == np.float64 else A.astype(np.float64)
        d = _composed_delta_stepping(F, s, delta)
        return (d, shortest_path_tree(F, d, s)) if predecessors else d
    ptr, idx, w = access.csr(A)
    bounds = (least if A.nvals else 0.0, most)
    together = predecessors and strict_sums(*bounds, A.nrows)
    in_edges = transpose_at_hand(A) if together else None  # the parent pass pulls
    out = loop(ptr, idx, w, A.nrows, s, delta, bounds=bounds, parents=together, in_edges=in_edges)
    dist = out[0] if together else out
    d = access.new(Vector, A.xp, dist.dtype, dist.size, "dense", dist)  # fresh: no copy
    if not predecessors:
        return d
    if together:
        return d, out[1]
    return d, shortest_path_tree(A if A.dtype == np.float64 else A.astype(np.float64), d, s)


def _check_width(opname: str, delta) -> float:
    """``delta`` as a float; ValueError unless it is a finite number > 0."""
    if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, (int, float, np.number)):
        raise InvalidValue(f"{opname}: delta must be a positive number, got {delta!r}")
    value = float(delta)
    if not (np.isfinite(value) and value > 0):
        raise InvalidValue(f"{opname}: delta must be a finite number > 0, got {delta!r}")
    return value


def _weight_summary(A: Matrix) -> tuple[float, float]:
    """(greatest stored value, mean positive one): the bucket count a fused loop needs
    and the default bucket width (1 without a positive weight); cached on A."""

    def stats():
        w = access.csr(A)[2]
        if not w.size:
            return 0.0, 0.0, 0.0
        xp = A.xp
        positive = w > 0
        # One host read for the three: on the GPU each read is a sync before the search.
        total = xp.where(positive, w, 0).sum(dtype=np.float64)
        parts = xp.stack([w.max().astype(np.float64), total, positive.sum(dtype=np.float64)])
        return tuple(parts.tolist())

    # (greatest, positive sum, positive count): the GPU's input scan leaves them here
    # (kleene.core.value_scan.scan_csr), so a graph passed per call is not read again.
    if A.xp is not np and A.known("value_stats") is None:
        scan_csr(A)  # one kernel pass; CuPy's reductions compile CUB's headers (seconds)
    most, total, count = A.cached("value_stats", stats)
    mean = total / count if count else 1.0
    if not np.isfinite(mean):  # an infinite weight (an edge no path uses) sizes no bucket
        mean = A.cached("finite mean", lambda: _finite_positive_mean(A))
    return most, mean


def _finite_positive_mean(A: Matrix) -> float:
    """The mean of A's finite positive weights (1 when there is none)."""
    w = access.csr(A)[2]
    finite = w[(w > 0) & (w < np.inf)]
    return float(finite.mean()) if finite.size else 1.0


def _composed_delta_stepping(A: Matrix, s: int, delta: float) -> Vector:
    xp, n = A.xp, A.nrows
    light = select(A, "valuele", delta)
    heavy = select(A, "valuegt", delta)
    d0 = xp.full(n, np.inf, dtype=np.float64)
    d0[s] = 0.0
    d = Vector.from_dense(d0, missing=None)
    lo = 0.0
    while True:
        hi = max(lo + delta, float(np.nextafter(lo, np.inf)))  # a tiny delta still moves on
        bucket = select(select(d, "valuege", lo), "valuelt", hi)
        while bucket.nvals:
            settled = None
            while bucket.nvals:  # light edges until no vertex improves into the bucket
                settled = bucket if settled is None else ewise_add(settled, bucket, "min")
                f = relax(bucket, light, d)
                bucket = select(f, "valuelt", hi)
            if heavy.nvals:  # once per bucket; an improvement into it only by rounding
                bucket = select(relax(settled, heavy, d), "valuelt", hi)
        rest = select(select(d, "valuege", hi), "valuelt", np.inf)
        if not rest.nvals:
            return d
        least = float(reduce(rest, "min"))
        lo = min(float(np.floor(least / delta) * delta), least)
        if lo + delta <= least:  # rounding: start the bucket at the least distance
            lo = least
