"""All-pairs best paths: kleene.apsp (the closure A* of a graph over a semiring).

The pipeline it runs (weights, method, block, initial matrix, closure, cycle check,
repair) is ``dense_closure.py``; the out-of-core route ``apsp_out_of_core.py``; the
cost models behind ``method="auto"`` ``apsp_cost.py``; the memory checks
``apsp_memory.py``.
"""

from __future__ import annotations

import numpy as np

from kleene.backends import module_for
from kleene.errors import InvalidValue, names_gpu_memory

from . import apsp_out_of_core, dense_closure
from .apsp_memory import OUT_OF_CORE
from .cluster import cluster_runner
from .dense_closure import METHODS

__all__ = ["METHODS", "apsp"]


@names_gpu_memory("apsp")
def apsp(
    G,
    *,
    method: str = "auto",
    directed: bool = True,
    return_predecessors: bool = False,
    semiring="min_plus",
    block_size: int | None = None,
    progress=None,
    client=None,
    memory_limit: int | None = None,
    out=None,
    device: str | None = None,
):
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
        - "repeated-sssp": one batched SSSP per group of sources (sparse graphs);
        - "johnson": Bellman-Ford potentials, then repeated SSSP on reweighted
          non-negative edges (negative weights on sparse graphs);
        - "auto": chosen by the cost models of ``kleene.algorithms.apsp_cost`` (the
          dense closure against repeated SSSP, "johnson" for negative weights; other
          semirings than min_plus: the dense closure), and past memory the
          out-of-core closure where its result fits in host memory.
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
        Block of "blocked" and base case of "recursive", a positive integer. Default
        128, except for "recursive", whose base case is then the largest block the
        back end closes in one step (``kleene.engine.closure_base_block``).
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
        beside the result for a CPU one), a positive integer. When the in-core
        method's estimated peak exceeds it, the closure runs out of core (method
        "auto" or "blocked"): Katz & Kider's blocked Floyd-Warshall with the n×n
        result in host memory and tiles streamed through the device, as large as
        the limit allows (docs/scaling.md). On the GPU at most
        ``kleene.backends.device.MEMORY_SHARE`` of the free GPU memory is used.
    out : NumPy array, or (dist, pred) with return_predecessors, optional
        Write the result there and run out of core: a writable, C-contiguous
        (n, n) host array of the result's dtype (float32 for a float32 graph,
        float64 otherwise; bool for lor_land), e.g. a ``numpy.memmap`` for a
        result larger than RAM; predecessors int64 (None: allocated). Returned
        as given. After a NegativeCycleError it holds a partial closure (each
        entry the value of some walk, or the zero) whose diagonal shows the cycle
        at the vertex the message names; after another error during the closure
        partial values: neither the graph nor its closure.
    device : "cpu", "gpu" or None
        Where the closure runs (None: where G lives). A host graph (NumPy, SciPy)
        with ``device="gpu"`` runs on the GPU: out of core (``memory_limit``,
        ``out``, or a result past GPU memory) it stays in host memory, read a slab
        of rows at a time into the host result, and only tiles go through the GPU
        (Katz & Kider's setting: a graph larger than GPU memory); in core it is
        copied to the GPU first and the result is a CuPy array. A GPU graph with
        ``device="cpu"`` is copied to host memory.

    Returns
    -------
    dist : (n, n) array on the input's device (out of core, and for the sparse
        methods past GPU memory, in host memory: NumPy); float64 from the sparse
        methods
    predecessors : (n, n) int64 array, if asked

    Raises
    ------
    NegativeCycleError
        A cycle beats the empty path (a negative cycle for min_plus).
    kleene.errors.OutOfMemory (a MemoryError)
        The n×n result (and predecessors) does not fit, checked before anything
        n×n is allocated; the message says how much was asked and the largest n
        that fits (and, where host memory is too small even out of core, to pass
        ``out=numpy.memmap(...)``).
    kleene.errors.InvalidValue (a ValueError)
        Bad ``method``, ``block_size``, ``memory_limit``, ``out`` or ``device``, a
        method the semiring cannot run, or ``memory_limit``/``out``/``device`` with
        ``client``.
    kleene.errors.DeviceUnavailable (a RuntimeError)
        ``device="gpu"`` where there is no GPU.

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
    dense_closure.check_method(method)
    limit = dense_closure.check_memory_limit(memory_limit)
    preds = bool(return_predecessors)
    xp = None if device is None else module_for(device)  # (InvalidValue, DeviceUnavailable)
    if client is not None:  # the front end that registered for clusters (kleene.distributed)
        if limit is not None or out is not None or device is not None:
            raise InvalidValue(
                "apsp: memory_limit, out= and device= are for one machine, not with client="
            )
        return cluster_runner("apsp")(
            client,
            G,
            method=method,
            directed=directed,
            return_predecessors=preds,
            semiring=semiring,
            block_size=block_size,
            progress=progress,
        )
    kw = {"directed": directed, "block_size": block_size, "limit": limit, "out": out}
    plan = dense_closure.plan(G, semiring, method, preds, **kw)
    if xp is not None and plan.A.xp is not xp:
        if xp is not np and plan.method == OUT_OF_CORE:  # the host graph stays where it is
            return apsp_out_of_core.run(plan.A, plan.sr, preds, limit, out, progress, gpu=True)
        plan = dense_closure.plan(plan.A.to(device), plan.sr, method, preds, **kw)
    if plan.method == OUT_OF_CORE:
        return apsp_out_of_core.run(plan.A, plan.sr, preds, limit, out, progress)
    return dense_closure.run(plan, progress)
