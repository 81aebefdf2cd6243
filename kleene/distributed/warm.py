"""Workers warm before the clock: every kernel a distributed run needs, compiled on
every worker by one small run of the same tasks (``tasks.py``), then one small call
of each algorithm through the cluster.

A worker compiles a kernel the first time a task needs it (NVRTC on a GPU worker,
Numba on a CPU one), so the first distributed call pays for every compile on the
workers' critical paths. :func:`warm` runs, on all workers at once, the tasks of
the blocked closure (``initial``, ``star``, ``row``, ``column``, ``trailing``) on a
small block of the run's semiring and dtype, with and without predecessors as
asked, BFS/SSSP on a small graph, and (with "partitioned") a partitioned call's
products on row blocks of mean degrees from 1.5 to 384, since a GPU kernel is
compiled per lane-group size and that follows the rows' mean length; a later call
finds its kernels in the worker's caches.

Compiles are not a first call's only cost. The first Dask task on a GPU worker that
takes a block of a dask.array of device chunks waits while Dask registers the array
library's dispatch there, and the first APSP call between GPU workers decides
whether CUDA IPC works and opens each peer's mappings. Both are paid once per
worker (or client), whatever the sizes, so :func:`warm` then makes one small call of
each algorithm asked for, the way a user's call goes: APSP of a dask.array whose
chunks are made on the workers (on their GPUs where they have one) and placed off
their blocks' owners, so the call moves them as it moves a persisted input; BFS and
SSSP from a graph loaded with :func:`load_graph`, the rows kept as a dask.array;
with "partitioned", BFS, SSSP and PageRank on a small partitioned graph.
"""

from __future__ import annotations

import time

import numpy as np

from kleene.backends import gpu_available
from kleene.errors import InvalidValue
from kleene.semiring import get_semiring

from . import tasks
from .failures import worker_addresses

ALGORITHMS = ("apsp", "bfs", "sssp", "partitioned")
DEFAULT = ("apsp", "bfs", "sssp")


def warm(
    client,
    *,
    semiring="min_plus",
    dtype=np.float32,
    predecessors: bool | tuple[bool, ...] = False,
    algorithms: tuple[str, ...] = DEFAULT,
    block: int = 1024,
    calls: bool = True,
) -> dict[str, float]:
    """Compile on every worker of ``client`` the kernels of the distributed calls named
    in ``algorithms``, for ``semiring`` and ``dtype`` (with predecessors too where
    ``predecessors`` says so: a bool or a tuple of both), before the first timed call.

    ``algorithms``: any of "apsp", "bfs", "sssp" (the default: all three) and
    "partitioned" (``bfs_partitioned``, ``sssp_partitioned`` and
    ``pagerank_partitioned`` on a small partitioned graph; warmed by that call alone).
    ``block``: the side of the warm-up blocks, large enough to take the products'
    large-matrix paths (a smaller block may leave a kernel for the first real call).
    ``calls``: then one small call of each algorithm through the cluster (see the
    module docstring; False compiles only, and leaves "partitioned" cold).
    Returns the seconds each worker spent compiling, by worker address. Call it once
    after the cluster starts (or after workers join): compiled kernels stay in each
    worker process.

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
    seconds = client.run(_warm_worker, *args)
    if calls:
        _first_calls(client, sr, np.dtype(dtype), tuple(algorithms))
    return seconds


def _weights(rng, shape, dtype) -> np.ndarray:
    """Weights in [1, 10) of ``dtype``, about half of them no edge (inf; an integer
    type has no inf, so every entry is an edge there)."""
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 10, shape).astype(dtype)
    a = rng.uniform(1, 10, shape).astype(dtype)
    a[rng.random(shape) < 0.5] = np.inf
    return a


def _hub_graph(dtype):
    """A 512-vertex CSR graph with a hub (vertex 0, an edge to every vertex) beside
    sparse rows, weights of ``dtype`` where it is a float type: searches on it take
    their heavy-vertex and dense-frontier paths as a large graph's do."""
    import scipy.sparse as sp

    g = sp.random(512, 512, density=0.02, random_state=1, format="lil")
    g[0, 1:] = 1.0
    g = g.tocsr()
    dtype = np.dtype(dtype)
    return g.astype(dtype) if dtype.kind == "f" else g


def _all_gpu(client, workers: list[str]) -> bool:
    return all(client.run(gpu_available, workers=workers).values())


def _chunk(seed: int, side: int, dtype: str):
    """A ``side``-square chunk of the warm-up graph, on this worker's GPU if it has one."""
    a = _weights(np.random.default_rng(seed), (side, side), np.dtype(dtype))
    if gpu_available():
        import cupy

        return cupy.asarray(a)
    return a


def _first_calls(client, sr, dtype: np.dtype, algorithms: tuple[str, ...]) -> None:
    """One small call of each algorithm in ``algorithms``, through the public path, its
    result kept distributed and persisted, then dropped: the client holds none of the
    futures after (see the module docstring)."""
    if "apsp" in algorithms:
        _first_apsp(client, sr, dtype)
    searches = [a for a in ("bfs", "sssp") if a in algorithms]
    if searches:
        _first_searches(client, dtype, searches)
    if "partitioned" in algorithms:
        _first_partitioned(client, dtype)


def _first_apsp(client, sr, dtype: np.dtype) -> None:
    """APSP of a small dask.array (8 × 8 chunks, at least two a side) whose chunks are
    made on the workers (on their GPUs where they have one), each off its block's
    owner where there are two workers or more, so that the call moves them as it moves
    a persisted input; then of one not persisted, whose chunks the call computes on
    their owners (a worker's first task on a dask.array's block waits for Dask's
    first dispatch there)."""
    import dask
    import dask.array as da
    from distributed import wait

    from .closure_grid import _owner, apsp_on_dask, worker_grid

    workers = sorted(worker_addresses(client, "warm"))
    side = 8
    nb = max(2, *worker_grid(len(workers)))
    meta = np.empty((0, 0), dtype=dtype)
    if _all_gpu(client, workers):
        try:  # the chunks' type, for a client that can name it
            import cupy

            meta = cupy.empty((0, 0), dtype=dtype)
        except Exception:
            pass

    def graph(persisted: bool):
        rows = []
        for i in range(nb):
            row = []
            for j in range(nb):
                if persisted:
                    at = (workers.index(_owner(workers, i, j)) + 1) % len(workers)
                    f = client.submit(
                        _chunk, i * nb + j, side, dtype.str, workers=[workers[at]], pure=False
                    )
                else:
                    f = dask.delayed(_chunk, pure=True)(i * nb + j, side, dtype.str)
                row.append(da.from_delayed(f, (side, side), dtype=dtype, meta=meta))
            rows.append(row)
        return da.block(rows)

    for persisted in (True, False):
        G = graph(persisted)
        if persisted:
            G = client.persist(G)
            wait(G)
        R = client.persist(apsp_on_dask(client, G, semiring=sr, block_size=side))
        wait(R)
        del G, R


def _first_searches(client, dtype: np.dtype, searches: list[str]) -> None:
    """BFS and SSSP (as ``searches`` asks) from a small graph loaded on every worker,
    the rows kept as a dask.array."""
    from distributed import wait

    from .loaded_graph import load_graph
    from .sources import bfs_on_dask, sssp_on_dask

    H = load_graph(client, _hub_graph(dtype))
    try:
        sources = list(range(2 * len(H.workers)))
        for name in searches:
            run = bfs_on_dask if name == "bfs" else sssp_on_dask
            R = client.persist(run(client, H, sources, as_dask_array=True))
            wait(R)
    finally:
        H.release()


def _first_partitioned(client, dtype: np.dtype) -> None:
    """BFS, SSSP and PageRank on a small graph with a hub partitioned over the workers
    (their GPUs where every worker has one): the first products on row blocks, the
    levels that cross as packed marks, and Aᵀ's blocks."""
    from .partitioned import (
        bfs_partitioned,
        pagerank_partitioned,
        partition_graph,
        sssp_partitioned,
    )

    workers = sorted(worker_addresses(client, "warm"))
    device = "gpu" if _all_gpu(client, workers) else "cpu"
    H = partition_graph(client, _hub_graph(dtype), device=device)
    try:
        bfs_partitioned(H, 0)
        sssp_partitioned(H, 0)
        pagerank_partitioned(H)
    finally:
        H.release()


# A GPU product's kernel is instantiated per lane-group size, which follows the
# matrix's mean row length (by powers of two, capped): a row block of a large graph
# takes sizes a small warm-up graph does not. Blocks of mean degree 1.5, 3, 6, ...,
# 384 have one mean inside each power-of-two range, away from its ends, for a
# block's rows and for its transpose's alike (a power of two itself sits on an end,
# and a few entries more or less move it to the next size).
_DEGREES = tuple(1.5 * 2**k for k in range(9))


def _row_blocks_of_every_degree() -> None:
    """On this worker (its GPU where it has one), each product a partitioned call runs
    (``row_tasks``: pushes from a small frontier, pulls from a full one through the
    block's transpose, PageRank's rows) on a row block of a graph of each mean degree
    in ``_DEGREES``: the blocks are float64 as ``partition_graph`` makes them, half the
    rows of a 1024-vertex graph, as a worker of two holds."""
    import scipy.sparse as sp

    from . import row_tasks

    device = "gpu" if gpu_available() else "cpu"
    n = 1024
    lo, hi = 0, n // 2
    few = np.array([0, 1], dtype=np.int64)
    every = np.arange(hi - lo, dtype=np.int64)
    y = np.full(n, 1.0 / n)
    for k, d in enumerate(_DEGREES):
        label = f"warm: a row block of mean degree {d}"
        A = sp.random(n, n, density=d / n, random_state=k, format="csr", dtype=np.float64)
        A.data += 1.0  # weights in [1, 2)
        blk = row_tasks.to_block(label, A[lo:hi], device)
        row_tasks.reach(label, blk, lo, few)
        row_tasks.reach(label, blk, lo, row_tasks.packed(every, hi - lo, np))
        row_tasks.relax(label, blk, lo, few, np.zeros(few.size))
        row_tasks.relax(label, blk, lo, every, np.zeros(every.size))
        row_tasks.pull(label, blk, y)
        row_tasks.pull(label, row_tasks.unit_values(label, blk), y)


def _warm_worker(sr, dtype: str, preds: tuple, algorithms: tuple, block: int) -> float:
    """The warm-up on one worker: the closure's tasks on a ``block``-sided graph of
    ``dtype``, BFS and SSSP on a small loaded graph with a hub, and the partitioned
    calls' products on row blocks of every mean degree; its seconds."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    if "apsp" in algorithms:
        a = _weights(rng, (block, block), np.dtype(dtype))
        for p in preds:
            kk = tasks.initial("warm: a diagonal block", sr, a, 0, 0, p)
            off = tasks.initial("warm: a block", sr, a, 0, block, p)
            kk = tasks.star("warm: closure", sr, kk)
            col = tasks.column("warm: column block", sr, off, kk)
            tasks.trailing(
                "warm: trailing block", sr, off, col, tasks.row("warm: row", sr, kk, off)
            )
    if {"bfs", "sssp"} & set(algorithms):
        graph = tasks.load_graph("warm: load a graph", _hub_graph(dtype))
        for name in ("bfs", "sssp"):
            if name in algorithms:
                tasks.sources(f"warm: {name}", name, graph, [0, 1], {})
                tasks.sources(f"warm: {name}", name, graph, 0, {})
    if "partitioned" in algorithms:
        _row_blocks_of_every_degree()
    return time.perf_counter() - t0


__all__ = ["warm"]
