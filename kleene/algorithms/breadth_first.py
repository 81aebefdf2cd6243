"""Breadth-first search as Boolean semiring products (push, pull, direction-optimizing)."""

from __future__ import annotations

import numpy as np

from kleene.engine import frontier_bfs_levels, frontier_bfs_multi
from kleene.errors import InvalidValue, names_gpu_memory

from .cluster import cluster_runner
from .dense_frontiers import dense_frontiers_win, levels_dense
from .graph_input import as_graph, check_source, loaded_client, on_device

METHODS = ("auto", "push", "pull", "direction-optimizing", "dense")


@names_gpu_memory("bfs")
def bfs(
    G,
    source,
    *,
    method: str = "auto",
    directed: bool = True,
    return_predecessors: bool = False,
    client=None,
    device: str | None = None,
):
    """Breadth-first levels (and parents) from ``source``.

    Each level is one product of the frontier with the adjacency matrix over a
    Boolean semiring (``any_pair``; ``min_first`` when parents are wanted, which
    gives each vertex its smallest-numbered parent) under the complement of the
    visited set, with replace.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
    source : int or sequence of int
        A list gives multi-source BFS and (k, n) results, row b from
        ``source[b]``: ``kleene.engine.frontier_bfs_multi``, one batched product
        per level for all sources (on the GPU 64 sources per bit-packed word,
        MS-BFS), or with ``method="dense"`` one Boolean product of the k × n
        frontier matrix with the dense adjacency per level (int8 tensor cores on
        the GPU: ``kleene.algorithms.dense_frontiers``), which "auto" picks for
        many sources on dense graphs; the other methods apply to one source.
    method : {"auto", "push", "pull", "direction-optimizing", "dense"}
        "push" scatters from a sparse frontier, "pull" gathers over the
        transpose for unvisited vertices only, "direction-optimizing" switches
        between them by frontier size (Beamer's rule, ``kleene.backends.direction``);
        "auto" is direction-optimizing. A single source runs
        ``kleene.engine.frontier_bfs_levels``: on the GPU one fused kernel pass per level
        (the product, the mask and the level assignment together), all levels
        in one launch, with the results of the composed operations. There,
        "auto" without predecessors on a graph of mean out-degree under 8 (a
        road network: it never pulls) takes 4 levels per grid barrier, each warp
        expanding what it reaches 4 levels deep (same levels; a road graph's
        thousands of levels then cost a quarter of the barriers).
    directed : bool
        False follows edges both ways.
    return_predecessors : bool
    client : dask.distributed.Client, optional
        Split the sources in batches over the client's workers, the graph
        loaded on each once (``kleene.distributed``); NumPy results. ``G`` may
        then be a ``kleene.distributed.LoadedGraph`` (``load_graph``), kept on
        the workers between calls (its client is used when ``client`` is None).

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

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
    if client is not None and device is not None:
        raise InvalidValue("device= is for one machine, not with client=")
    G = on_device(G, device)
    if method not in METHODS:
        raise InvalidValue(f"bfs: method must be one of {METHODS}, got {method!r}")
    client = loaded_client(G, client)
    if client is not None:  # source batches on a cluster's workers (kleene.distributed)
        return cluster_runner("bfs")(
            client,
            G,
            source,
            method=method,
            directed=directed,
            return_predecessors=return_predecessors,
        )
    # Levels read the pattern only: a NaN weight is still an edge, and no pass scans them.
    A = as_graph(G, directed=directed, pattern=True, check_nan=False)
    srcs = check_source(source, A.nrows)
    dense = method == "dense" or (
        method == "auto" and np.ndim(source) > 0 and dense_frontiers_win(A, len(srcs))
    )
    if dense:
        if return_predecessors:
            raise InvalidValue(
                "bfs: method='dense' gives levels only; use another method for predecessors"
            )
        lv = levels_dense(A, srcs)
        return lv if np.ndim(source) > 0 else lv[0]
    if np.ndim(source) > 0:
        lv, par = frontier_bfs_multi(A, srcs, parents=return_predecessors, symmetric=not directed)
        return (lv, par) if return_predecessors else lv
    lv, par = frontier_bfs_levels(
        A, int(srcs[0]), parents=return_predecessors, method=method, symmetric=not directed
    )
    return (lv, par) if return_predecessors else lv
