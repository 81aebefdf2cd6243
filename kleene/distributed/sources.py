"""Multi-source BFS and SSSP on Dask: the graph scattered once, source batches split.

The graph goes to every worker once (``client.scatter(..., broadcast=True)``) as a
host CSR (the canonical form ``kleene.bfs`` / ``kleene.sssp`` would build,
symmetrized already for ``directed=False``); each batch of sources is one task
running the in-process function on the worker's device; the (k, n) results are
gathered and stacked in the order of ``sources``.
"""

from __future__ import annotations

import numpy as np

from ..algorithms.graph_input import as_graph, check_source
from . import tasks
from .failures import gather, worker_addresses


def bfs_on_dask(client, G, source, *, method: str = "auto", directed: bool = True,
                return_predecessors: bool = False, batches: int | None = None):  # fmt: skip
    """``kleene.bfs(G, sources, client=client)``: same results as without ``client``,
    NumPy arrays. ``batches``: how many tasks the sources are split into (default:
    one per worker)."""
    A = as_graph(G, directed=directed, pattern=True)
    kwargs = {"method": method, "directed": directed, "return_predecessors": return_predecessors}
    return _run(client, "bfs", A, source, kwargs, batches)


def sssp_on_dask(client, G, source, *, method: str = "auto", directed: bool = True,
                 return_predecessors: bool = False, delta: float | None = None,
                 batches: int | None = None):  # fmt: skip
    """``kleene.sssp(G, sources, client=client)``: same results as without ``client``,
    NumPy arrays (a negative cycle raises NegativeCycleError as in-process)."""
    A = as_graph(G, directed=directed)
    kwargs = {"method": method, "directed": directed, "return_predecessors": return_predecessors,
              "delta": delta}  # fmt: skip
    return _run(client, "sssp", A, source, kwargs, batches)


def _run(client, name: str, A, source, kwargs: dict, batches: int | None):
    srcs = check_source(source, A.nrows)
    single = np.ndim(source) == 0
    workers = worker_addresses(client, name)
    count = len(workers) if batches is None else int(batches)
    if count < 1:
        raise ValueError(f"{name}: batches must be a positive integer, got {batches!r}")
    parts = [p for p in np.array_split(srcs, min(count, max(srcs.size, 1))) if p.size]
    if not parts:  # no sources: nothing to distribute
        from .. import algorithms

        fn = algorithms.bfs if name == "bfs" else algorithms.sssp
        return fn(A.to("cpu"), [], **kwargs)
    graph = client.scatter(A.to("cpu").to_scipy(), broadcast=True, hash=False)
    futures = []
    for b, p in enumerate(parts):
        label = f"{name} sources {int(p[0])}..{int(p[-1])} (batch {b + 1} of {len(parts)})"
        batch = int(p[0]) if single else p.tolist()
        futures.append(client.submit(tasks.sources, label, name, graph, batch, kwargs, pure=False))
    out = gather(client, futures, f"{name} on dask")
    if single:
        return out[0]
    if isinstance(out[0], tuple):
        return tuple(np.concatenate([o[i] for o in out]) for i in range(len(out[0])))
    return np.concatenate(out)
