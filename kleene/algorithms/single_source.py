"""Single-source shortest paths over min_plus: Bellman-Ford and delta-stepping."""

from __future__ import annotations

import numpy as np

from kleene.core import Matrix, Vector
from kleene.engine import frontier_bellman_ford, frontier_delta_stepping, multi_source_sssp, relax
from kleene.errors import InvalidValue, NegativeCycleError, names_gpu_memory
from kleene.ops import ewise_add, reduce, select, stored_min

from .cluster import cluster_runner
from .graph_input import as_graph, check_source, loaded_client, on_device
from .shortest_tree import predecessors_from_distances

NEGATIVE_CYCLE_FROM_SOURCES = "sssp: the graph has a negative cycle reachable from a source"
METHODS = ("auto", "bellman-ford", "delta-stepping")


@names_gpu_memory("sssp")
def sssp(
    G,
    source,
    *,
    method: str = "auto",
    directed: bool = True,
    return_predecessors: bool = False,
    delta: float | None = None,
    client=None,
    device: str | None = None,
    limit: float | None = None,
):
    """Shortest-path distances from ``source`` (inf where unreachable).

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Real weights (bool, integer, float; else TypeError). A stored +inf weight is
        no edge too; a NaN or -inf weight is a ValueError (the -inf one names its edge).
    source : int or sequence of int
        A list runs all sources together as min-plus products of a (k, n)
        frontier matrix and returns (k, n) results.
    method : {"auto", "bellman-ford", "delta-stepping"}
        "bellman-ford" relaxes only the vertices whose distance changed in the
        last round (min_plus vxm), accepts negative weights and raises
        NegativeCycleError on a negative cycle reachable from the source.
        "delta-stepping" settles distance buckets of width ``delta`` (chosen
        from the weights if not given) with light/heavy edge splits; it needs
        non-negative weights. One source runs ``kleene.engine.frontier_delta_stepping``
        (on the CPU a fused, compiled loop; on the GPU the near-far form in one
        launch, predecessors one pass over the edges right behind it).
        "auto": one source and non-negative weights, delta-stepping's fused loop
        (Bellman-Ford where the back end has none: ``KLEENE_CPU=numpy`` or no
        Numba); otherwise (negative weights, several sources) Bellman-Ford (on the
        GPU a single source runs ``kleene.engine.frontier_bellman_ford``: every round
        one fused kernel pass, all rounds in one launch). The rule has no shape
        condition: on road graphs, where Bellman-Ford relaxes each edge many
        times, delta-stepping's fused loop wins by several times on both back
        ends, and on low-diameter graphs the two tie (``benchmarks/bench_paths.py``
        and ``benchmarks/bench_cpu.py`` compare them). Given ``delta`` means
        "delta-stepping".
    delta : float, optional
        Bucket width of delta-stepping: a finite number > 0. Passing it with
        method="bellman-ford" is an error (it would be ignored).
    directed : bool
        False uses every edge in both directions.
    return_predecessors : bool
        Also return each vertex's predecessor on a shortest path (-1 for the
        source and unreachable vertices).
    client : dask.distributed.Client, optional
        Split the sources in batches over the client's workers, the graph
        loaded on each once (``kleene.distributed``); NumPy results. ``G`` may
        then be a ``kleene.distributed.LoadedGraph`` (``load_graph``), kept on
        the workers between calls (its client is used when ``client`` is None).

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.
    limit : float, optional
        Distances past it are inf (their predecessors -1), as SciPy's ``dijkstra(limit=)``.
        On the CPU the searches from many sources stop there (a road graph's
        neighbourhoods, not the whole graph); elsewhere what lies past it is dropped.

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> G = sp.csr_matrix(([4.0, 1.0, 2.0], ([0, 0, 1], [2, 1, 2])), shape=(3, 3))
    >>> kleene.sssp(G, 0).tolist()
    [0.0, 1.0, 3.0]
    >>> kleene.sssp(G, 0, return_predecessors=True)[1].tolist()
    [-1, 0, 1]
    """
    if client is not None and device is not None:
        raise InvalidValue("device= is for one machine, not with client=")
    G = on_device(G, device)
    if method not in METHODS:
        raise InvalidValue(f"sssp: method must be one of {METHODS}, got {method!r}")
    if delta is not None:
        delta = _check_delta(delta, method)
        method = "delta-stepping"
    if limit is not None:
        limit = float(limit)
        if not limit >= 0:  # NaN too
            raise InvalidValue(f"sssp: limit must be >= 0, got {limit}")
        if client is not None:
            raise InvalidValue("sssp: limit= is for one machine, not with client=")
    client = loaded_client(G, client)
    if client is not None:  # source batches on a cluster's workers (kleene.distributed)
        return cluster_runner("sssp")(
            client,
            G,
            source,
            method=method,
            directed=directed,
            return_predecessors=return_predecessors,
            delta=delta,
        )
    out = _local(G, source, method, directed, return_predecessors, delta, limit)
    if limit is None:
        return out
    dist, pred = out if return_predecessors else (out, None)
    far = dist > limit  # (the CPU's rows are dropped there already)
    dist[far] = np.inf
    if pred is not None:
        pred[far] = -1
    return (dist, pred) if return_predecessors else dist


def _local(G, source, method, directed, return_predecessors, delta, limit):
    """sssp's answer on this machine (see sssp); ``limit`` reaches the multi-source rows."""
    A = as_graph(G, directed=directed)
    srcs = check_source(source, A.nrows)
    multi = np.ndim(source) > 0
    # float32 weights stay float32 where a fused loop reads them (distances still add
    # in float64), and on the CPU one source takes integer weights as they are too
    # (the ops convert where they need to: A's cached weight summaries then serve
    # every call); every other path, and the predecessor pass, works on float64.
    lean = A.dtype == np.float32 and (method in ("auto", "bellman-ford") or not multi)
    if A.xp is np and not multi:
        lean = A.dtype in (np.int32, np.int64, np.float32, np.float64)  # (kleene's types)
    if A.dtype != np.float64 and not lean:
        A = A.astype(np.float64)
    negative = stored_min(A) < 0
    auto = method == "auto"
    if auto:  # one source, weights >= 0: delta-stepping (the docstring says why)
        method = "bellman-ford" if negative or multi else "delta-stepping"
    if multi and not negative and (method == "bellman-ford" or delta is None):
        # The multi-source op: the back end's fused rows where it has them (GPU: 64
        # sources per bit-packed frontier word; CPU: delta-stepping per source, as
        # one source runs, in parallel).
        dist, pred = multi_source_sssp(A, srcs, predecessors=return_predecessors, limit=limit)
        return (dist, pred) if return_predecessors else dist
    if multi and A.xp is np:
        # A given delta, or negative weights: the single-source fused loop per source,
        # so k sources never cost more than k single-source calls (the composed
        # (k, n) loops below carry O(k·n) bookkeeping per round).
        return _one_by_one(A, srcs, method, delta, return_predecessors)
    if A.dtype != np.float64 and multi:
        A = A.astype(np.float64)
    if method == "delta-stepping" and negative:
        raise InvalidValue(
            "sssp: delta-stepping needs non-negative weights; use method='bellman-ford' "
            "for negative weights"
        )
    if method == "delta-stepping" and not multi:  # predecessors in the same call
        d, pred = _delta_stepping(A, int(srcs[0]), delta, auto, return_predecessors)
        dist = d.to_dense(missing=float("inf"))
        return (dist, pred) if return_predecessors else dist
    if method == "bellman-ford" and not multi:
        d = frontier_bellman_ford(A, int(srcs[0]))
    elif method == "bellman-ford":
        d = _bellman_ford(A, srcs)
    else:
        d = _delta(A, srcs, delta)
    dist = d.to_dense(missing=float("inf"))
    if not return_predecessors:
        return dist
    if multi:
        rows = d.to_dense()  # once, not per source
        preds = [
            predecessors_from_distances(A, Vector.from_dense(rows[i]), int(s))
            for i, s in enumerate(srcs)
        ]
        return dist, A.xp.stack(preds) if preds else A.xp.zeros((0, A.nrows), np.int64)
    if A.dtype != np.float64:
        A = A.astype(np.float64)  # tight edges compare float64 sums
    return dist, predecessors_from_distances(A, d, int(srcs[0]))


def _one_by_one(A: Matrix, srcs, method: str, delta: float | None, preds: bool):
    """(k, n) distances [and predecessors] of single-source runs, one row per source."""
    n = A.nrows
    dist = np.empty((srcs.size, n), dtype=np.float64)
    pred = np.empty((srcs.size, n), dtype=np.int64) if preds else None
    F = None  # A in float64 for the tight edges of Bellman-Ford's predecessors
    for i, s in enumerate(srcs.tolist()):
        if method == "delta-stepping":
            d, p = _delta_stepping(A, s, delta, False, preds)
        else:
            try:
                d = frontier_bellman_ford(A, s)
            except NegativeCycleError:  # named as the composed multi-source loop names it
                raise NegativeCycleError(NEGATIVE_CYCLE_FROM_SOURCES) from None
            p = None
            if preds:
                if F is None:
                    F = A if A.dtype == np.float64 else A.astype(np.float64)
                p = predecessors_from_distances(F, d, s)
        dist[i] = d.to_dense(missing=float("inf"))
        if preds:
            pred[i] = p
    return (dist, pred) if preds else dist


def _start(A: Matrix, srcs, multi: bool):
    """Distances (inf everywhere, 0 at the sources) and the first frontier."""
    xp, n = A.xp, A.nrows
    at = xp.asarray(srcs)
    zeros = xp.zeros(srcs.size, np.float64)
    if multi:
        k = srcs.size
        d0 = xp.full((k, n), np.inf)
        d0[xp.arange(k), at] = 0.0
        d = Matrix.from_dense(d0, missing=None)
        f = Matrix.from_edges(xp.arange(k, dtype=np.int64), at, zeros, k, ncols=n)
        return d, f
    d0 = xp.full(n, np.inf)
    d0[at] = 0.0
    return Vector.from_dense(d0, missing=None), Vector.from_coo(at, zeros, n)


def _bellman_ford(A: Matrix, srcs):
    """All sources at once: a (k, n) frontier matrix, one min-plus mxm per round."""
    n = A.nrows
    d, f = _start(A, srcs, True)
    for _ in range(max(n, 1)):
        f = relax(f, A, d)
        if not f.nvals:
            return d
    raise NegativeCycleError(NEGATIVE_CYCLE_FROM_SOURCES)


def _check_delta(delta, method: str) -> float:
    """``delta`` as a float; ValueError unless it is a finite positive number."""
    if method == "bellman-ford":
        raise InvalidValue(
            "sssp: delta is the bucket width of method='delta-stepping'; bellman-ford takes none"
        )
    if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, (int, float, np.number)):
        raise InvalidValue(f"sssp: delta must be a positive number, got {delta!r}")
    value = float(delta)
    if not (np.isfinite(value) and value > 0):
        raise InvalidValue(f"sssp: delta must be a finite number > 0, got {delta!r}")
    return value


def _delta_stepping(A: Matrix, source: int, delta: float | None, auto: bool, preds: bool):
    """One source by ``kleene.engine.frontier_delta_stepping``: (distances, predecessors or
    None). For "auto" only its fused loop: where the back end has none
    (``KLEENE_CPU=numpy``, no Numba) Bellman-Ford, which beats the composed buckets
    (their per-bucket operations cost more than the rounds they save)."""
    try:
        out = frontier_delta_stepping(
            A, source, delta=delta, fused=True if auto else None, predecessors=preds
        )
    except ValueError as err:
        if not auto or "no fused loop" not in str(err):
            raise
        d = frontier_bellman_ford(A, source)
        if not preds:
            return d, None
        F = A if A.dtype == np.float64 else A.astype(np.float64)  # tight edges: float64 sums
        return d, predecessors_from_distances(F, d, source)
    return out if preds else (out, None)


def _choose_delta(A: Matrix) -> float:
    """Bucket width: the mean positive edge weight (a robust default on road and random graphs)."""
    positive = select(A, "valuegt", 0.0)
    if not positive.nvals:
        return 1.0
    return float(reduce(positive, "plus")) / positive.nvals


def _delta(A: Matrix, srcs, delta: float | None):
    """Delta-stepping from several sources at once: (k, n) distance and frontier
    matrices (one source: ``kleene.engine.frontier_delta_stepping``)."""
    delta = _choose_delta(A) if delta is None else delta
    light = select(A, "valuele", delta)
    heavy = select(A, "valuegt", delta)
    d, _ = _start(A, srcs, True)
    lo = 0.0
    while True:
        hi = lo + delta
        bucket = select(select(d, "valuege", lo), "valuelt", hi)
        settled = None
        while bucket.nvals:
            settled = bucket if settled is None else ewise_add(settled, bucket, "min")
            f = relax(bucket, light, d)
            bucket = select(f, "valuelt", hi)  # improved vertices that fall in this bucket
        if settled is not None and heavy.nvals:
            relax(settled, heavy, d)
        rest = select(select(d, "valuege", hi), "valuelt", float("inf"))
        if not rest.nvals:
            return d
        lo = float(np.floor(float(reduce(rest, "min")) / delta) * delta)
