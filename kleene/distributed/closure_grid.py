"""APSP on Dask: blocked Floyd-Warshall over a 2-D grid of blocks held by the workers.

D (and P) is cut into an nb × nb grid of b × b blocks (the last row and column of
blocks smaller when b does not divide n), block (i, j) owned by the worker at
(i mod pr, j mod pc) of a pr × pc grid of workers (2-D block-cyclic). Round k:

1. the pivot block's closure, D_kk ← D_kk*, on its owner;
2. the pivot row D_kj ← D_kj ⊕ D_kk* ⊗ D_kj and column D_ik ← D_ik ⊕ D_ik ⊗ D_kk*,
   each on its block's owner (D_kk* travels to the owners of row and column k);
3. every other block D_ij ← D_ij ⊕ D_ik ⊗ D_kj on its owner (D_ik travels along
   block row i, D_kj along block column j).

Every task is submitted at once with its input futures as arguments, and Dask frees
each block version once its readers have run. Each worker runs its tasks in an order
decided before submission (:mod:`grid_order`: a list schedule that puts the critical
path first, so the next rounds' pivot work runs while the current round's trailing
updates fill the wait). Where blocks travel by CUDA IPC (GPU workers of one host) the
order is fixed by giving each task the one before it on its worker as an extra input:
a GPU worker's host runs far ahead of its GPU, so the order its host queues the
products in is the GPU's schedule. Elsewhere it is given to Dask as priorities.

``G`` may be a ``dask.array.Array``: then each b × b chunk is computed on the worker
that owns its block (``client.compute(..., workers=[owner])``), turned into the
block's initial value there, and never passes through the client; the result is a
``dask.array.Array`` too (``as_dask_array``). See docs/scaling.md.
"""

from __future__ import annotations

import math
import uuid

import numpy as np

from kleene.algorithms.apsp_memory import check_fits, out_of_memory
from kleene.algorithms.dense_closure import (
    check_block_size,
    check_cycles,
    cycle_error,
    initial,
    repair,
    resolve_method,
    weights,
)
from kleene.algorithms.graph_input import as_graph
from kleene.backends import is_cupy_array, to_host
from kleene.core import Matrix
from kleene.errors import DimensionMismatch, DomainMismatch, InvalidValue
from kleene.progress import progress_for
from kleene.semiring import get_semiring

from . import device_ipc, grid_order, tasks
from .failures import check_client, gather, settle, worker_addresses

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


def apsp_on_dask(
    client,
    G,
    *,
    method: str = "auto",
    directed: bool = True,
    return_predecessors: bool = False,
    semiring="min_plus",
    block_size: int | None = None,
    progress=None,
    as_dask_array: bool | None = None,
):
    """``kleene.apsp(G, client=client)``: the blocked closure on the client's workers.

    ``method`` must be "auto" or "blocked" (the one distributed method);
    ``block_size`` defaults to :func:`default_block_size`. ``G`` is any graph
    ``kleene.apsp`` takes, or a square ``dask.array.Array`` (inf = no edge, as for
    a dense array; its chunks are computed on the workers that own their blocks and
    never reach the client; ``directed=False`` is not available for it).

    The result is a NumPy array (and predecessors, if asked), or with
    ``as_dask_array=True`` (the default for a dask.array ``G``) a
    ``dask.array.Array`` whose chunks are the blocks left on the workers, every
    block computed and the diagonal checked for negative cycles before it returns
    (its chunks CuPy arrays left on the workers' GPUs where G is a dask.array of CuPy
    chunks, else NumPy; predecessors are not available this way).

    A task that raises comes back as an exception naming the task and its worker;
    a lost worker as a :class:`DistributedError`. Neither returns a partial result.

    >>> import numpy as np, kleene, distributed  # doctest: +SKIP
    >>> client = distributed.Client(n_workers=2)  # doctest: +SKIP
    >>> G = np.array([[0, 3, np.inf], [np.inf, 0, 1], [2, np.inf, 0]])
    >>> kleene.distributed.apsp_on_dask(client, G, block_size=2).tolist()  # doctest: +SKIP
    [[0.0, 3.0, 4.0], [3.0, 0.0, 1.0], [2.0, 5.0, 0.0]]
    """
    if method not in ("auto", "blocked"):
        raise InvalidValue(
            f"apsp: with client=, method must be 'auto' or 'blocked', got {method!r}"
        )
    check_client(client, "apsp")
    preds = bool(return_predecessors)
    lazy = is_dask_array(G)
    as_dask_array = lazy if as_dask_array is None else bool(as_dask_array)
    if lazy and preds:
        raise InvalidValue("apsp: predecessors are not available for a dask.array G")
    if as_dask_array and preds:
        raise InvalidValue("apsp: as_dask_array=True returns distances only")
    sr = get_semiring(semiring)
    if lazy:
        n, dtype = _lazy_input(G, sr, directed)
    else:
        A = weights(as_graph(G, directed=directed, fmt=None), sr)
        if A.xp is not np:
            A = A.to("cpu")  # the client builds D on the host; the workers pick their device
        resolve_method(A, sr, "blocked", preds)  # the semiring must have an idempotent add
        n, dtype = A.nrows, A.dtype
        if n == 0:
            from kleene.algorithms import apsp

            return apsp(A, method="blocked", return_predecessors=preds, semiring=sr)
    workers = sorted(worker_addresses(client, "apsp"))
    b = default_block_size(n, len(workers)) if block_size is None else check_block_size(block_size)
    total = sum(_round_work(n, min(b, n - s)) for s in range(0, n, b))
    srarg = tasks.semiring_arg(sr)
    if lazy:
        with progress_for(progress, total, "apsp on dask") as bar:
            grid, moved = _blocks_from_dask(client, G, srarg, preds, b, workers)
            grid = _rounds(client, grid, srarg, workers, bar, n, b, drops=moved)
            on_device = is_cupy_array(getattr(G, "_meta", None))
            return _finish_distributed(
                client, grid, workers, n, b, dtype, sr, as_dask_array, on_device
            )
    need = check_fits(n, dtype, preds, np, method="blocked", sparse_ok=False)
    with out_of_memory(need), progress_for(progress, total, "apsp on dask") as bar:
        D, P = initial(A, sr, preds)
        grid = _scatter(client, D, P, b, workers)
        del D, P
        grid = _rounds(client, grid, srarg, workers, bar, n, b)
        if as_dask_array:
            return _finish_distributed(client, grid, workers, n, b, dtype, sr, True)
        dist, pred = _collect(client, grid, workers)
        del grid
        check_cycles(Matrix.from_dense(dist, missing=None), sr)
        if not preds:
            return dist
        return dist, repair(A, sr, dist, pred)


def is_dask_array(G) -> bool:
    """Whether ``G`` is a ``dask.array.Array`` (without importing Dask for anything else)."""
    return type(G).__module__.startswith("dask.array") and hasattr(G, "chunks")


def _lazy_input(G, sr, directed: bool) -> tuple[int, np.dtype]:
    """n and the closure's dtype for a dask.array graph; the checks the eager path makes
    on the whole graph that can be made without computing it."""
    if not directed:
        raise InvalidValue(
            "apsp: directed=False needs the whole graph; symmetrize the "
            "dask array first (e.g. da.minimum(G, G.T))"
        )
    if G.ndim != 2 or G.shape[0] != G.shape[1] or any(math.isnan(s) for s in G.shape):
        raise DimensionMismatch(f"G must be square (an adjacency matrix), got shape {G.shape}")
    if G.dtype.kind not in "biuf":
        raise DomainMismatch(f"G must hold real or bool edge weights, got dtype {G.dtype}")
    if not sr.idempotent:
        raise InvalidValue(
            f"apsp: semiring {sr.name} has no in-place closure (add must be idempotent)"
        )
    probe = Matrix.from_dense(np.zeros((1, 1), dtype=G.dtype), missing=None)
    probe = probe if G.dtype.kind in "bf" else probe.astype(np.float64)
    return G.shape[0], weights(probe, sr).dtype


def _blocks_from_dask(client, G, sr, preds: bool, b: int, workers: list[str]):
    """Each b × b chunk of G computed on its block's owner and turned there into the
    block's initial value: ({(i, j): future of (d, p)}, the drops of chunks moved).

    A chunk already in a worker's memory (a persisted G chunked b × b) is taken by its
    key, with no task of G's graph run for it. One that is not its owner's goes to the
    owner GPU to GPU by CUDA IPC where the workers allow it (:mod:`device_ipc`), not
    through Dask's comm, whose device → host → socket → host → device copy would take
    longer than the closure's own work on that block."""
    G = G.rechunk((b, b))
    nb = len(G.chunks[0])
    token = uuid.uuid4().hex[:12]
    ipc = device_ipc.enabled(client, workers)
    held = _holders(client, G)
    # above the rounds' tasks (priorities 0 and below): a worker makes all its initial
    # blocks before it queues round work, so their input checks, which read back from
    # the device, wait for their own kernels only
    first = 1
    grid, drops = {}, []
    for i in range(nb):
        for j in range(nb):
            at = [_owner(workers, i, j)]
            where = held.get((i, j), ())
            if where and at[0] not in where and ipc:
                tag = f"kleene-apsp-input-{i}-{j}-{token}"
                chunk, drop = _moved(client, held["futures"][i, j], where[0], at[0], tag, first)
                drops.append(drop)
            elif where:  # in memory already: the chunk's own key (Dask moves it if need be)
                chunk = held["futures"][i, j]
            else:
                chunk = client.compute(
                    G.blocks[i, j], workers=at, allow_other_workers=False, priority=first
                )
            grid[i, j] = client.submit(
                tasks.initial,
                f"apsp: initial block ({i}, {j})",
                sr,
                chunk,
                i * b,
                j * b,
                preds,
                key=f"kleene-apsp-init-{i}-{j}-{token}",
                workers=at,
                allow_other_workers=False,
                priority=first,
                pure=False,
            )
    return grid, drops


def _holders(client, G) -> dict:
    """{(i, j): the workers holding chunk (i, j) of G} for the chunks G itself holds
    as finished futures of ``client`` (a persisted G: those futures keep the chunks in
    memory while the call runs), and "futures": those futures. A chunk held only by
    key (another client's, or one being released) is not counted: it may be gone
    before a task takes it."""
    from distributed import futures_of

    own = {f.key: f for f in futures_of(G) if f.client is client and f.status == "finished"}
    if not own:
        return {}
    try:
        who = client.who_has(list(own.values()))
    except Exception:  # (a scheduler that cannot say: Dask moves the chunks itself)
        return {}
    out: dict = {"futures": {}}
    for i, row in enumerate(G.__dask_keys__()):
        for j, key in enumerate(row):
            where = who.get(key)
            if where and key in own:
                out[i, j] = tuple(where)
                out["futures"][i, j] = own[key]
    return out


def _moved(client, chunk, holder: str, owner: str, tag: str, priority: int):
    """(a future of ``chunk`` on ``owner``, the future of its drop) by CUDA IPC from
    ``holder``: export there, fetch on the owner, the buffer dropped after the fetch."""
    pin = {"allow_other_workers": False, "pure": False, "priority": priority}
    info = client.submit(
        device_ipc.export_chunk,
        "apsp: export of an input chunk",
        chunk,
        tag,
        key=f"{tag}-export",
        workers=[holder],
        **pin,
    )
    got = client.submit(
        device_ipc.fetch_chunk,
        "apsp: fetch of an input chunk",
        info,
        key=f"{tag}-fetch",
        workers=[owner],
        **pin,
    )
    mark = client.submit(device_ipc.fetched_chunk, got, workers=[owner], **pin)
    drop = client.submit(device_ipc.drop, tag, mark, key=f"{tag}-drop", workers=[holder], **pin)
    return got, drop


def _finish_distributed(
    client,
    grid: dict,
    workers: list[str],
    n: int,
    b: int,
    dtype,
    sr,
    as_dask_array: bool,
    on_device: bool = False,
):
    """Wait for every block, check the diagonal blocks for a cycle better than the
    empty path, then the distances as a dask.array (or gathered, for a lazy G asked
    for NumPy)."""
    nb = int(math.isqrt(len(grid)))
    checks = [
        client.submit(
            tasks.cycle_on_diagonal,
            f"apsp: cycle check of block ({k}, {k})",
            tasks.semiring_arg(sr),
            grid[k, k],
            workers=[_owner(workers, k, k)],
            allow_other_workers=False,
            pure=False,
        )
        for k in range(nb)
    ]
    settle(list(grid.values()), "apsp on dask", watch=(client, workers))
    for k, at in enumerate(gather(client, checks, "apsp on dask", watch=workers)):
        if at is not None:
            raise cycle_error(sr, k * b + at, dtype)
    if as_dask_array:
        return _dask_array(grid, n, b, dtype, on_device)
    dist, _ = _collect(client, grid, workers)
    return dist


def _owner(workers: list[str], i: int, j: int) -> str:
    pr, pc = worker_grid(len(workers))
    return workers[(i % pr) * pc + (j % pc)]


def _scatter(client, D: Matrix, P: Matrix | None, b: int, workers: list[str]) -> dict:
    """The blocks of D (and P) as futures, each on its owner: {(i, j): future of (d, p)}."""
    n = D.nrows
    cuts = [slice(s, min(n, s + b)) for s in range(0, n, b)]
    grid = {}
    for w in workers:  # one worker's blocks at a time: the client holds D and those only
        keys = [
            (i, j) for i in range(len(cuts)) for j in range(len(cuts)) if _owner(workers, i, j) == w
        ]
        blocks = [
            (
                to_host(D.block(cuts[i], cuts[j]).to_dense()),
                None if P is None else to_host(P.block(cuts[i], cuts[j]).to_dense()),
            )
            for i, j in keys
        ]
        if keys:
            futures = client.scatter(blocks, workers=[w], hash=False)
            grid.update(zip(keys, futures, strict=True))
        del blocks
    return grid


_UPDATES = {"star": tasks.star, "row": tasks.row, "column": tasks.column, "rest": tasks.trailing}


def _op_name(op: grid_order.Op) -> str:
    """The key stem of a block update: star-k, row-k-j, col-k-i, rest-k-i-j."""
    (i, j), k = op.block, op.k
    return {"star": f"star-{k}", "row": f"row-{k}-{j}", "column": f"col-{k}-{i}"}.get(
        op.kind, f"rest-{k}-{i}-{j}"
    )


def _op_label(op: grid_order.Op) -> str:
    (i, j), k = op.block, op.k
    what = {"star": "closure of block", "row": "row block", "column": "column block"}
    return f"apsp round {k}: {what.get(op.kind, 'block')} ({i}, {j})"


def _rounds(
    client, grid: dict, sr, workers: list[str], bar, n: int, b: int, drops: list | None = None
) -> dict:
    """Submit every round's tasks in the order :mod:`grid_order` schedules them: with
    CUDA IPC each task takes the one before it on its worker as an extra input (the
    order fixed), otherwise the order goes to Dask as priorities (a worker with several
    threads runs updates side by side, and an input moved by Dask's comm travels while
    the task before it runs). Step ``bar`` as each round's pivot closure finishes.
    ``drops``: those of blocks shared before (the input's), waited for with the rest."""
    nb = len({i for i, _ in grid})
    token = uuid.uuid4().hex[:12]  # fresh keys: never a stale result of an earlier run
    ipc = device_ipc.enabled(client, workers)
    sizes = [min(b, n - k * b) for k in range(nb)]
    ops, last = grid_order.closure_ops(sizes, lambda i, j: _owner(workers, i, j), ipc)
    order = grid_order.schedule(ops, grid_order.LATENCY_IPC if ipc else grid_order.LATENCY_COMM)
    drops = list(drops or [])
    readers: dict[int, int] = {}  # op -> the ops that take its result, left to queue
    for op in ops:
        for a in op.args:
            readers[a] = readers.get(a, 0) + 1
    fetches = {x: readers.get(x, 0) for x, op in enumerate(ops) if op.kind == "export"}
    marks: dict[int, list] = {}
    final = set(last.values())
    made: dict[int, object] = {}
    tail: dict[str, object] = {}  # each worker's last task: the next one's extra input
    pivots: list = [None] * nb
    pin = {"allow_other_workers": False, "pure": False}
    args = call = future = None
    for position, x in enumerate(order):
        op = ops[x]
        if op.kind == "input":  # (taken out of grid: freed once its readers have run)
            made[x] = grid.pop(op.block)
            continue
        args = [made[a] for a in op.args]
        if op.kind in _UPDATES:
            key = f"kleene-apsp-{_op_name(op)}-{token}"
            call = (_UPDATES[op.kind], _op_label(op), sr, *args)
        else:  # the copy of a block between workers (export, then fetch by a reader)
            made_by = ops[op.args[0]] if op.kind == "export" else ops[ops[op.args[0]].args[0]]
            tag = f"kleene-apsp-{_op_name(made_by)}-{token}"
            if op.kind == "export":
                key = f"{tag}-export"
                call = (device_ipc.export, f"apsp: export of {_op_name(made_by)}", args[0], tag)
            else:
                key = f"{tag}-fetch-{op.worker}"
                call = (device_ipc.fetch, f"apsp: fetch of {_op_name(made_by)} to {op.worker}")
                call += (args[0],)
        if ipc:  # the order fixed: the task before it on its worker is an input
            call = (tasks.in_order, call[0], tail.get(op.worker), *call[1:])
        future = client.submit(*call, key=key, workers=[op.worker], priority=-position, **pin)
        made[x] = tail[op.worker] = future
        if op.kind == "star":
            pivots[op.k] = future
        if op.kind == "fetch":  # the reader's mark after its copy: the buffer's drop waits
            ex = op.args[0]
            tail[op.worker] = mark = client.submit(
                device_ipc.fetched, future, workers=[op.worker], priority=-position, **pin
            )
            marks.setdefault(ex, []).append(mark)
            if len(marks[ex]) == fetches[ex]:
                drops.append(
                    client.submit(
                        device_ipc.drop,
                        tag,
                        *marks.pop(ex),
                        key=f"{tag}-drop",
                        workers=[ops[ex].worker],
                        pure=False,
                    )
                )
        for a in op.args:  # the client lets go of a result once its readers are queued
            readers[a] -= 1
            if readers[a] == 0 and a not in final:
                made.pop(a, None)
    grid = {blk: made[x] for blk, x in last.items()}
    made.clear()
    tail.clear()
    args = call = future = None  # (the last task's inputs: not held through the waits)
    for k in range(nb):
        settle([pivots[k]], f"apsp on dask (round {k})", watch=(client, workers))
        bar.step(_round_work(n, sizes[k]))
        pivots[k] = None  # let Dask free the pivot block's old version
    settle(drops, "apsp on dask (freeing the shared blocks)", watch=(client, workers))
    if ipc:
        device_ipc.release_all(client, workers)
    return grid


def _collect(client, grid: dict, workers: list[str]):
    """The blocks back as host arrays, assembled: (dist, pred or None)."""
    keys = sorted(grid)
    hosted = [
        client.submit(
            tasks.host,
            f"apsp: copy of block {k} to the host",
            grid[k],
            workers=[_owner(workers, *k)],
            allow_other_workers=False,
        )
        for k in keys
    ]
    parts = dict(zip(keys, gather(client, hosted, "apsp on dask", watch=workers), strict=True))
    nb = int(math.isqrt(len(keys)))
    dist = np.block([[parts[i, j][0] for j in range(nb)] for i in range(nb)])
    if parts[0, 0][1] is None:
        return dist, None
    return dist, np.block([[parts[i, j][1] for j in range(nb)] for i in range(nb)])


def _dask_array(grid: dict, n: int, b: int, dtype, on_device: bool = False):
    """The distances as a dask.array whose chunks are the blocks' futures (left on the
    workers): NumPy chunks, or with ``on_device`` (a G of CuPy chunks) the blocks as
    they are on the workers' GPUs, with no copy to their hosts."""
    import dask.array as da
    from dask import delayed

    nb = int(math.isqrt(len(grid)))
    size = [min(b, n - s) for s in range(0, n, b)]
    if on_device:
        import cupy

        meta = cupy.empty((0, 0), dtype=dtype)
        first = delayed(lambda pair: pair[0], pure=True)
    else:
        meta = np.empty((0, 0), dtype=dtype)
        first = delayed(lambda pair: to_host(pair[0]), pure=True)  # NumPy chunks, GPU workers too
    rows = [
        [
            da.from_delayed(first(grid[i, j]), (size[i], size[j]), dtype=dtype, meta=meta)
            for j in range(nb)
        ]
        for i in range(nb)
    ]
    return da.block(rows)
