"""APSP on Dask: blocked Floyd-Warshall over a 2-D grid of blocks held by the workers.

D (and P) is cut into an nb × nb grid of b × b blocks (the last row and column of
blocks smaller when b does not divide n), block (i, j) owned by the worker at
(i mod pr, j mod pc) of a pr × pc grid of workers (2-D block-cyclic). Round k:

1. the pivot block's closure, D_kk ← D_kk*, on its owner;
2. the pivot row D_kj ← D_kj ⊕ D_kk* ⊗ D_kj and column D_ik ← D_ik ⊕ D_ik ⊗ D_kk*,
   each on its block's owner (D_kk* travels to the owners of row and column k);
3. every other block D_ij ← D_ij ⊕ D_ik ⊗ D_kj on its owner (D_ik travels along
   block row i, D_kj along block column j).

Every task is submitted at once with its input futures as arguments, so Dask
starts round k + 1's pivot as soon as its inputs are ready (look-ahead) and frees
each block version once its readers have run. See docs/scaling.md.
"""

from __future__ import annotations

import math
import uuid

import numpy as np

from ..algorithms.all_pairs import (
    _block_size,
    _check_cycles,
    _initial,
    _repair,
    _resolve,
    _weights,
)
from ..algorithms.apsp_memory import check_fits, out_of_memory
from ..algorithms.graph_input import as_graph
from ..ops import Matrix, to_host
from ..progress import progress_for
from ..semiring import get_semiring
from . import tasks
from .failures import gather, settle, worker_addresses

_MIN_BLOCK, _MAX_BLOCK = 64, 8192


def default_block_size(n: int, workers: int) -> int:
    """About 2·√workers blocks a side (a few blocks per worker, so that the row, column
    and trailing updates of a round spread over all of them), clamped to 64..8192.

    >>> default_block_size(1000, 2), default_block_size(100_000, 64)
    (250, 6250)
    """
    side = 2 * math.ceil(math.sqrt(max(workers, 1)))
    return max(_MIN_BLOCK, min(_MAX_BLOCK, math.ceil(max(n, 1) / side)))


def worker_grid(count: int) -> tuple[int, int]:
    """pr × pc = count with pr ≤ pc as close as the divisors allow.

    >>> worker_grid(2), worker_grid(8), worker_grid(64)
    ((1, 2), (2, 4), (8, 8))
    """
    pr = max(d for d in range(1, math.isqrt(count) + 1) if count % d == 0)
    return pr, count // pr


def _round_work(n: int, s: int) -> int:
    """Multiply-adds of one round with an s-wide pivot (closure, row, column, the rest)."""
    return s**3 + 2 * s * s * n + n * s * n


def apsp_on_dask(client, G, *, method: str = "auto", directed: bool = True,
                 return_predecessors: bool = False, semiring="min_plus",
                 block_size: int | None = None, progress=None,
                 as_dask_array: bool = False):  # fmt: skip
    """``kleene.apsp(G, client=client)``: the blocked closure on the client's workers.

    ``method`` must be "auto" or "blocked" (the one distributed method);
    ``block_size`` defaults to :func:`default_block_size`. The result is a NumPy
    array (and predecessors, if asked), or with ``as_dask_array=True`` a
    ``dask.array.Array`` whose chunks are the blocks left on the workers (no cycle
    check then: a negative cycle shows as a negative diagonal entry; predecessors
    are not available this way).

    A task that raises comes back as an exception naming the task and its worker;
    a lost worker as a :class:`DistributedError`. Neither returns a partial result.
    """
    if method not in ("auto", "blocked"):
        raise ValueError(f"apsp: with client=, method must be 'auto' or 'blocked', got {method!r}")
    preds = bool(return_predecessors)
    if as_dask_array and preds:
        raise ValueError("apsp: as_dask_array=True returns distances only")
    sr = get_semiring(semiring)
    A = _weights(as_graph(G, directed=directed, fmt=None), sr)
    if A.xp is not np:
        A = A.to("cpu")  # the client builds D on the host; the workers pick their device
    _resolve(A, sr, "blocked", preds)  # the semiring must have an idempotent add
    n = A.nrows
    if n == 0:
        from ..algorithms import apsp

        return apsp(A, method="blocked", return_predecessors=preds, semiring=sr)
    workers = sorted(worker_addresses(client, "apsp"))
    b = default_block_size(n, len(workers)) if block_size is None else _block_size(block_size)
    need = check_fits(n, A.dtype, preds, np, method="blocked", sparse_ok=False)
    total = sum(_round_work(n, min(b, n - s)) for s in range(0, n, b))
    with out_of_memory(need), progress_for(progress, total, "apsp on dask") as bar:
        D, P = _initial(A, sr, preds)
        grid = _scatter(client, D, P, b, workers)
        del D, P
        grid = _rounds(client, grid, tasks.semiring_arg(sr), workers, bar, n, b)
        if as_dask_array:
            return _dask_array(grid, n, b, A.dtype)
        dist, pred = _collect(client, grid, workers)
        del grid
        _check_cycles(Matrix.from_dense(dist, missing=None), sr)
        if not preds:
            return dist
        return dist, _repair(A, sr, dist, pred)


def _owner(workers: list[str], i: int, j: int) -> str:
    pr, pc = worker_grid(len(workers))
    return workers[(i % pr) * pc + (j % pc)]


def _scatter(client, D: Matrix, P: Matrix | None, b: int, workers: list[str]) -> dict:
    """The blocks of D (and P) as futures, each on its owner: {(i, j): future of (d, p)}."""
    n = D.nrows
    cuts = [slice(s, min(n, s + b)) for s in range(0, n, b)]
    by_worker: dict[str, dict] = {}
    for i, r in enumerate(cuts):
        for j, c in enumerate(cuts):
            d = to_host(D.block(r, c).to_dense())
            p = None if P is None else to_host(P.block(r, c).to_dense())
            by_worker.setdefault(_owner(workers, i, j), {})[(i, j)] = (d, p)
    grid = {}
    for w, blocks in by_worker.items():
        keys = list(blocks)
        futures = client.scatter([blocks[k] for k in keys], workers=[w], hash=False)
        grid.update(zip(keys, futures, strict=True))
    return grid


def _rounds(client, grid: dict, sr, workers: list[str], bar, n: int, b: int) -> dict:
    """Submit every round's tasks; step ``bar`` as each round's pivot closure finishes."""
    nb = len({i for i, _ in grid})
    token = uuid.uuid4().hex[:12]  # fresh keys: never a stale result of an earlier run

    def submit(fn, key: str, label: str, at: tuple[int, int], *args):
        return client.submit(fn, label, sr, *args, key=f"kleene-apsp-{key}-{token}",
                             workers=[_owner(workers, *at)], allow_other_workers=True,
                             pure=False)  # fmt: skip

    pivots = []
    for k in range(nb):
        kk = grid[k, k] = submit(tasks.star, f"star-{k}", f"apsp round {k}: closure of block "
                                 f"({k}, {k})", (k, k), grid[k, k])  # fmt: skip
        pivots.append(kk)
        for j in range(nb):
            if j != k:
                grid[k, j] = submit(tasks.row, f"row-{k}-{j}", f"apsp round {k}: row block "
                                    f"({k}, {j})", (k, j), kk, grid[k, j])  # fmt: skip
        for i in range(nb):
            if i != k:
                grid[i, k] = submit(tasks.column, f"col-{k}-{i}", f"apsp round {k}: column "
                                    f"block ({i}, {k})", (i, k), grid[i, k], kk)  # fmt: skip
        for i in range(nb):
            for j in range(nb):
                if i != k and j != k:
                    grid[i, j] = submit(tasks.trailing, f"rest-{k}-{i}-{j}", f"apsp round {k}: "
                                        f"block ({i}, {j})", (i, j), grid[i, j], grid[i, k],
                                        grid[k, j])  # fmt: skip
    for k, kk in enumerate(pivots):
        settle([kk], f"apsp on dask (round {k})")
        bar.step(_round_work(n, min(b, n - k * b)))
        pivots[k] = None  # let Dask free the pivot block's old version
    return grid


def _collect(client, grid: dict, workers: list[str]):
    """The blocks back as host arrays, assembled: (dist, pred or None)."""
    keys = sorted(grid)
    hosted = [client.submit(tasks.host, f"apsp: copy of block {k} to the host", grid[k],
                            workers=[_owner(workers, *k)], allow_other_workers=True)
              for k in keys]  # fmt: skip
    parts = dict(zip(keys, gather(client, hosted, "apsp on dask"), strict=True))
    nb = int(math.isqrt(len(keys)))
    dist = np.block([[parts[i, j][0] for j in range(nb)] for i in range(nb)])
    if parts[0, 0][1] is None:
        return dist, None
    return dist, np.block([[parts[i, j][1] for j in range(nb)] for i in range(nb)])


def _dask_array(grid: dict, n: int, b: int, dtype):
    """The distances as a dask.array whose chunks are the blocks' futures (left on the workers)."""
    import dask.array as da
    from dask import delayed

    nb = int(math.isqrt(len(grid)))
    size = [min(b, n - s) for s in range(0, n, b)]
    first = delayed(lambda pair: to_host(pair[0]), pure=True)  # NumPy chunks, GPU workers too
    rows = [[da.from_delayed(first(grid[i, j]), (size[i], size[j]), dtype=dtype)
             for j in range(nb)] for i in range(nb)]  # fmt: skip
    return da.block(rows)
