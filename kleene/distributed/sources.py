"""Multi-source BFS and SSSP on Dask: the graph on every worker once, source batches split.

The graph goes to every worker once per call (``client.scatter(..., broadcast=True)``)
as a host CSR (the canonical form ``kleene.bfs`` / ``kleene.sssp`` would build,
symmetrized already for ``directed=False``), or once for many calls with
:func:`~kleene.distributed.load_graph`; each worker turns it into a Matrix on its
device once, and each batch of sources is one task running the in-process function
there. The (k, n) results are gathered and stacked in the order of ``sources``, or
left on the workers as a ``dask.array`` (``as_dask_array=True``): CuPy chunks on their
GPUs where every worker holds the graph on a GPU, else NumPy chunks.
"""

from __future__ import annotations

import numpy as np

from kleene.algorithms.graph_input import as_graph, check_source
from kleene.errors import InvalidValue

from . import tasks
from .failures import check_client, gather, settle
from .loaded_graph import LoadedGraph, load_graph


def bfs_on_dask(
    client,
    G,
    source,
    *,
    method: str = "auto",
    directed: bool = True,
    return_predecessors: bool = False,
    batches: int | None = None,
    as_dask_array: bool = False,
):
    """``kleene.bfs(G, sources, client=client)``: same results as without ``client``,
    NumPy arrays. ``G`` may be a :class:`LoadedGraph` (then ``directed`` must be the
    one it was loaded with). ``batches``: how many tasks the sources are split into
    (default: one per worker). ``as_dask_array=True``: the (k, n) results stay on the
    workers as a ``dask.array`` (a tuple of two with predecessors), every batch
    finished when it returns; its chunks are CuPy arrays left on the GPUs where every
    worker holds the graph on a GPU (``LoadedGraph.on_device``), else NumPy.

    >>> import scipy.sparse as sp, kleene, distributed  # doctest: +SKIP
    >>> client = distributed.Client(n_workers=2)  # doctest: +SKIP
    >>> G = sp.csr_matrix(([1, 1], ([0, 1], [1, 2])), shape=(3, 3))  # doctest: +SKIP
    >>> kleene.distributed.bfs_on_dask(client, G, [0, 1]).tolist()  # doctest: +SKIP
    [[0, 1, 2], [-1, 0, 1]]
    """
    kwargs = {"method": method, "return_predecessors": return_predecessors}
    return _run(client, "bfs", G, directed, source, kwargs, batches, as_dask_array)


def sssp_on_dask(
    client,
    G,
    source,
    *,
    method: str = "auto",
    directed: bool = True,
    return_predecessors: bool = False,
    delta: float | None = None,
    batches: int | None = None,
    as_dask_array: bool = False,
):
    """``kleene.sssp(G, sources, client=client)``: same results as without ``client``,
    NumPy arrays (a negative cycle raises NegativeCycleError as in-process). ``G``,
    ``batches`` and ``as_dask_array`` as for :func:`bfs_on_dask`.

    >>> import scipy.sparse as sp, kleene, distributed  # doctest: +SKIP
    >>> client = distributed.Client(n_workers=2)  # doctest: +SKIP
    >>> G = sp.csr_matrix(([1.0, 2.0], ([0, 1], [1, 2])), shape=(3, 3))  # doctest: +SKIP
    >>> kleene.distributed.sssp_on_dask(client, G, [0, 1]).tolist()  # doctest: +SKIP
    [[0.0, 1.0, 3.0], [inf, 0.0, 2.0]]
    """
    kwargs = {"method": method, "return_predecessors": return_predecessors, "delta": delta}
    return _run(client, "sssp", G, directed, source, kwargs, batches, as_dask_array)


def _run(
    client,
    name: str,
    G,
    directed: bool,
    source,
    kwargs: dict,
    batches: int | None,
    as_dask_array: bool,
):
    check_client(client, name)
    if batches is not None and (not isinstance(batches, (int, np.integer)) or batches < 1):
        raise InvalidValue(f"{name}: batches must be a positive integer, got {batches!r}")
    if isinstance(G, LoadedGraph):
        if G.directed != directed:
            raise InvalidValue(
                f"{name}: the LoadedGraph was loaded with directed={G.directed}, "
                f"the call asks directed={directed}"
            )
        H, n = G, G.n
    else:
        A = as_graph(G, directed=directed, pattern=name == "bfs")
        H, n = None, A.nrows
    srcs = check_source(source, n)
    single = np.ndim(source) == 0
    kwargs = {**kwargs, "directed": True}  # the loaded graph is symmetrized already
    if srcs.size == 0:  # no sources: nothing to distribute
        from kleene import algorithms

        fn = algorithms.bfs if name == "bfs" else algorithms.sssp
        return fn(_empty(n), [], **kwargs)
    if H is None:
        H = load_graph(client, A, directed=True)
    try:
        return _batches(client, name, H, srcs, single, kwargs, batches, as_dask_array, n)
    finally:
        if H is not G:
            H.release()


def _empty(n: int):
    import scipy.sparse as sp

    return sp.csr_matrix((n, n))


def _batches(client, name, H: LoadedGraph, srcs, single, kwargs, batches, as_dask_array, n):
    workers = H.workers
    count = len(workers) if batches is None else int(batches)
    parts = [p for p in np.array_split(srcs, min(count, srcs.size)) if p.size]
    futures = []
    for b, p in enumerate(parts):
        w = workers[b % len(workers)]
        label = f"{name} sources {int(p[0])}..{int(p[-1])} (batch {b + 1} of {len(parts)})"
        batch = int(p[0]) if single else p.tolist()
        futures.append(
            client.submit(
                tasks.sources,
                label,
                name,
                H.parts[w],
                batch,
                kwargs,
                as_dask_array,
                workers=[w],
                allow_other_workers=False,
                pure=False,
            )
        )
    if as_dask_array:
        settle(futures, f"{name} on dask", watch=(client, workers))
        sizes = [len(p) for p in parts]
        return _dask_arrays(futures, sizes, n, name, kwargs, single, H.on_device)
    out = gather(client, futures, f"{name} on dask", watch=workers)
    if single:
        return out[0]
    if isinstance(out[0], tuple):
        return tuple(np.concatenate([o[i] for o in out]) for i in range(len(out[0])))
    return np.concatenate(out)


def _dask_arrays(
    futures, rows: list[int], n: int, name: str, kwargs: dict, single: bool, on_device: bool
):
    """The batches' results as dask arrays, one chunk per batch: CuPy chunks left on
    the workers' GPUs where the graph is on every worker's GPU (``on_device``), else
    NumPy chunks."""
    import dask.array as da
    from dask import delayed

    from kleene.backends import to_host

    dist = np.int64 if name == "bfs" else np.float64
    kinds = [dist, np.int64] if kwargs["return_predecessors"] else [dist]
    if on_device:
        import cupy

        xp, move = cupy, (lambda a: a)
    else:
        xp, move = np, to_host

    def part(i: int):
        pick = delayed(lambda out, i=i: move(out[i] if isinstance(out, tuple) else out), pure=True)
        shape = (n,) if single else None
        meta = xp.empty((0,) * (1 if single else 2), dtype=kinds[i])
        chunks = [
            da.from_delayed(pick(f), shape or (k, n), dtype=kinds[i], meta=meta)
            for f, k in zip(futures, rows, strict=True)
        ]
        return chunks[0] if single else da.concatenate(chunks)

    arrays = tuple(part(i) for i in range(len(kinds)))
    return arrays if len(arrays) > 1 else arrays[0]
