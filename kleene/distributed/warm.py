"""Workers warm before the clock: every kernel a distributed run needs, compiled on
every worker by one small run of the same tasks (``tasks.py``).

A worker compiles a kernel the first time a task needs it (NVRTC on a GPU worker,
Numba on a CPU one), so the first distributed call pays for every compile on the
workers' critical paths. :func:`warm` runs, on all workers at once, the tasks of
the blocked closure (``initial``, ``star``, ``row``, ``column``, ``trailing``) on a
small block of the run's semiring and dtype, with and without predecessors as
asked, and BFS/SSSP on a small graph; a later call finds its kernels in the
worker's caches.
"""

from __future__ import annotations

import time

import numpy as np

from kleene.errors import InvalidValue
from kleene.semiring import get_semiring

from . import tasks
from .failures import worker_addresses

ALGORITHMS = ("apsp", "bfs", "sssp")


def warm(
    client,
    *,
    semiring="min_plus",
    dtype=np.float32,
    predecessors: bool | tuple[bool, ...] = False,
    algorithms: tuple[str, ...] = ALGORITHMS,
    block: int = 1024,
) -> dict[str, float]:
    """Compile on every worker of ``client`` the kernels of the distributed calls named
    in ``algorithms``, for ``semiring`` and ``dtype`` (with predecessors too where
    ``predecessors`` says so: a bool or a tuple of both), before the first timed call.

    ``block``: the side of the warm-up blocks, large enough to take the products'
    large-matrix paths (a smaller block may leave a kernel for the first real call).
    Returns the seconds each worker spent, by worker address. Call it once after the
    cluster starts (or after workers join): compiled kernels stay in each worker
    process.

    Example
    -------
    >>> import numpy as np, kleene.distributed as kd  # doctest: +SKIP
    >>> from dask.distributed import Client, LocalCluster  # doctest: +SKIP
    >>> client = Client(LocalCluster(n_workers=2))  # doctest: +SKIP
    >>> sorted(kd.warm(client, dtype=np.float64))  # doctest: +SKIP
    ['tcp://127.0.0.1:...', 'tcp://127.0.0.1:...']
    """
    worker_addresses(client, "warm")  # a clear error for a closed client or no workers
    sr = get_semiring(semiring)
    unknown = set(algorithms) - set(ALGORITHMS)
    if unknown:
        raise InvalidValue(f"warm: algorithms must be among {ALGORITHMS}, got {sorted(unknown)}")
    preds = (predecessors,) if isinstance(predecessors, bool) else tuple(predecessors)
    args = (tasks.semiring_arg(sr), np.dtype(dtype).str, preds, tuple(algorithms), int(block))
    return client.run(_warm_worker, *args)


def _warm_worker(sr, dtype: str, preds: tuple, algorithms: tuple, block: int) -> float:
    """The warm-up on one worker: the closure's tasks on a ``block``-sided graph of
    ``dtype``, then BFS and SSSP on a small loaded graph with a hub; its seconds."""
    import scipy.sparse as sp

    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    if "apsp" in algorithms:
        a = rng.uniform(1, 10, (block, block)).astype(np.dtype(dtype))
        a[rng.random((block, block)) < 0.5] = np.inf
        for p in preds:
            kk = tasks.initial("warm: a diagonal block", sr, a, 0, 0, p)
            off = tasks.initial("warm: a block", sr, a, 0, block, p)
            kk = tasks.star("warm: closure", sr, kk)
            col = tasks.column("warm: column block", sr, off, kk)
            tasks.trailing(
                "warm: trailing block", sr, off, col, tasks.row("warm: row", sr, kk, off)
            )
    if {"bfs", "sssp"} & set(algorithms):
        # a hub (vertex 0, an edge to every vertex) beside sparse rows: the searches
        # take their heavy-vertex and dense-frontier paths as a large graph's do
        g = sp.random(512, 512, density=0.02, random_state=1, format="lil")
        g[0, 1:] = 1.0
        g = g.tocsr()
        if np.dtype(dtype).kind == "f":  # the run's weights, where they are floats
            g = g.astype(np.dtype(dtype))
        graph = tasks.load_graph("warm: load a graph", g)
        for name in ("bfs", "sssp"):
            if name in algorithms:
                tasks.sources(f"warm: {name}", name, graph, [0, 1], {})
                tasks.sources(f"warm: {name}", name, graph, 0, {})
    return time.perf_counter() - t0


__all__ = ["warm"]
