"""The order in which each worker runs the blocked closure's tasks.

A GPU worker's tasks only queue work on its stream and return, so its host runs far
ahead of its GPU, and the stream runs the products in the order the host queued them.
A copy from another worker waits on the stream for that worker's event: if the
reader queued it before work it could have done meanwhile, its GPU idles until the
other GPU gets there, however much work is queued behind the wait. Which task a
worker's host runs next among the ready ones is therefore the GPU's schedule, and
Dask's choice (by priority, among the tasks whose inputs the host has) leaves each GPU
waiting on the other for whole products at a time.

So the order is decided here, before anything is submitted: a list schedule of the
closure's task graph over the workers (every block's owner fixed), by a simulation in
which each worker runs one task at a time, always the ready task with the longest
path of work after it (its upward rank: the critical path first, HEFT's priority),
and idles only when no task of its own is ready. Where blocks travel by CUDA IPC,
each task is then submitted with the one before it on its worker as an extra input
(:func:`kleene.distributed.tasks.in_order`), so every worker's host queues exactly that
sequence. Elsewhere (CPU workers, Dask's comm) the sequence goes to Dask as
priorities: a chain there would run a multi-threaded worker's updates one at a time
and start moving each input only once the task before it ends.

Costs are in units of one b × b × b product: a block product is s_i s_k s_j / b³, a
pivot closure 1.1 s³ / b³ (R-Kleene's products are smaller, a little slower), a
block's copy into an IPC buffer or out of one a small fixed cost, and a result used on
another worker arrives ``latency`` later (short with CUDA IPC, longer through Dask's
comm). The simulation is only a guide: the real durations differ a little, and a
worker whose next task waits simply waits.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

# Costs in units of one b × b × b block product (see the module docstring).
STAR = 1.1
EXPORT = 0.005
FETCH = 0.02
LATENCY_IPC = 0.005
LATENCY_COMM = 0.25
_SCAN = 32  # ready tasks a worker looks through for one it can start at once


@dataclass
class Op:
    """One task of the closure. ``kind``: "input" (a block's first value, given),
    "star", "row", "column", "rest" (a block update), "export", "fetch" (a block
    from its owner's GPU to ``worker``'s). ``args``: the ops whose results it takes,
    in the task's argument order; ``block``: the (i, j) it writes (updates) or
    carries (export, fetch)."""

    kind: str
    k: int
    block: tuple[int, int]
    worker: str
    cost: float
    args: list[int] = field(default_factory=list)


def closure_ops(sizes: list[int], owner, ipc: bool) -> tuple[list[Op], dict]:
    """The blocked closure's ops for blocks of ``sizes`` (rows of each block row),
    owned by ``owner(i, j)``, in a topological order, and the op that last writes
    each block: (ops, {(i, j): op index}). With ``ipc``, a block read on a worker
    other than its owner's is exported once by its owner and fetched once by each
    such reader; without, the reader takes the result itself (Dask moves it)."""
    nb = len(sizes)
    b = max(sizes)
    ops: list[Op] = []
    last: dict[tuple[int, int], int] = {}
    copies: dict[tuple[int, str], int] = {}  # (producer, reader) -> the op to read

    def add(op: Op) -> int:
        ops.append(op)
        return len(ops) - 1

    for i in range(nb):
        for j in range(nb):
            last[i, j] = add(Op("input", -1, (i, j), owner(i, j), 0.0))

    def at(src: int, worker: str) -> int:
        """The op whose result ``worker`` reads for the result of ``src``."""
        made = ops[src]
        if made.worker == worker or not ipc:
            return src
        if (src, worker) not in copies:
            ex = copies.get((src, "export"))
            if ex is None:
                ex = copies[src, "export"] = add(
                    Op("export", made.k, made.block, made.worker, EXPORT, [src])
                )
            copies[src, worker] = add(Op("fetch", made.k, made.block, worker, FETCH, [ex]))
        return copies[src, worker]

    def product(i: int, k: int, j: int) -> float:
        return sizes[i] * sizes[k] * sizes[j] / b**3

    for k in range(nb):
        kk = last[k, k] = add(
            Op("star", k, (k, k), owner(k, k), STAR * sizes[k] ** 3 / b**3, [last[k, k]])
        )
        others = [m for m in range(nb) if m != k]
        for j in others:
            w = owner(k, j)
            last[k, j] = add(Op("row", k, (k, j), w, product(k, k, j), [at(kk, w), last[k, j]]))
        for i in others:
            w = owner(i, k)
            last[i, k] = add(Op("column", k, (i, k), w, product(i, k, k), [last[i, k], at(kk, w)]))
        for i in others:
            for j in others:
                w = owner(i, j)
                ik, kj = at(last[i, k], w), at(last[k, j], w)
                last[i, j] = add(Op("rest", k, (i, j), w, product(i, k, j), [last[i, j], ik, kj]))
    return ops, last


def schedule(ops: list[Op], latency: float) -> list[int]:
    """The ops' indices in the order a list schedule over their workers starts them
    (see the module docstring): each op after the ops it takes, and each worker's ops
    in the order that worker runs them.

    >>> ops, _ = closure_ops([4, 4], lambda i, j: "ab"[j], ipc=True)
    >>> order = schedule(ops, LATENCY_IPC)
    >>> sorted(order) == list(range(len(ops)))
    True
    >>> [ops[x].kind for x in order if ops[x].worker == "b" and ops[x].kind != "input"]
    ['fetch', 'row', 'fetch', 'rest', 'star', 'export', 'column', 'export']
    """
    n = len(ops)
    succ: list[list[int]] = [[] for _ in range(n)]
    need = [len(set(op.args)) for op in ops]
    for x, op in enumerate(ops):
        for a in set(op.args):
            succ[a].append(x)
    rank = [0.0] * n
    for x in range(n - 1, -1, -1):  # (ops come in a topological order)
        w = ops[x].worker
        rank[x] = ops[x].cost + max(
            (rank[s] + (latency if ops[s].worker != w else 0.0) for s in succ[x]), default=0.0
        )
    finish = [0.0] * n
    clock: dict[str, float] = {}
    ready: dict[str, list] = {}
    queued: set[str] = set()
    active: list = []  # (clock, worker) of workers with ready ops

    def wake(w: str) -> None:
        if w not in queued:
            queued.add(w)
            heapq.heappush(active, (clock.setdefault(w, 0.0), w))

    def start(x: int, w: str) -> float:
        return max(
            [clock[w]] + [finish[a] + (latency if ops[a].worker != w else 0.0) for a in ops[x].args]
        )

    for x in range(n):
        if need[x] == 0:
            heapq.heappush(ready.setdefault(ops[x].worker, []), (-rank[x], x))
            wake(ops[x].worker)
    order: list[int] = []
    while active:
        _, w = heapq.heappop(active)
        queued.discard(w)
        heap = ready[w]
        looked, pick = [], None
        while heap and len(looked) < _SCAN:
            entry = heapq.heappop(heap)
            t = start(entry[1], w)
            if t <= clock[w]:
                pick = entry
                break
            looked.append((t, entry))
        if pick is None:  # nothing can start now: the one that can start first
            looked.sort()
            pick = looked.pop(0)[1]
        for _, entry in looked:
            heapq.heappush(heap, entry)
        x = pick[1]
        finish[x] = start(x, w) + ops[x].cost
        clock[w] = finish[x]
        order.append(x)
        for s in succ[x]:
            need[s] -= 1
            if need[s] == 0:
                heapq.heappush(ready.setdefault(ops[s].worker, []), (-rank[s], s))
                wake(ops[s].worker)
        if heap:
            wake(w)
    if len(order) != n:  # (a cycle: cannot happen for closure_ops' graphs)
        raise RuntimeError(f"grid_order: scheduled {len(order)} of {len(ops)} ops")
    return order


def makespan(ops: list[Op], order: list[int], latency: float) -> float:
    """The simulated time of running ``order`` with each worker in that order (for
    tests and for comparing orders)."""
    finish = [0.0] * len(ops)
    clock: dict[str, float] = {}
    for x in order:
        w = ops[x].worker
        t = max(
            [clock.get(w, 0.0)]
            + [finish[a] + (latency if ops[a].worker != w else 0.0) for a in ops[x].args]
        )
        finish[x] = clock[w] = t + ops[x].cost
    return max(finish, default=0.0)
