"""A graph stored across the workers: row blocks, one a worker, no worker holding the
whole graph; BFS, SSSP and PageRank by rounds of frontier exchange through Dask.

``load_graph`` (``loaded_graph.py``) copies the whole graph to every worker, which
then answers whole searches on its own; that stops where one worker's memory does.
:func:`partition_graph` instead cuts the rows of A into contiguous ranges of about
equal numbers of edges and leaves range k on worker k (and, for PageRank, the same
ranges of Aᵀ's rows). Each round the client sends every worker the part of the
frontier (or of the vector) its rows need, the workers scan their own edges
(``row_tasks.py``: one kleene product each, on the worker's CPU or GPU), and the
client merges what comes back:

- ``bfs``: a level-synchronous push. Worker k returns the vertices its rows of the
  frontier reach; the client keeps the unvisited ones as the next level.
- ``sssp``: Bellman-Ford by frontiers. Worker k returns, for each vertex its
  frontier's edges reach, the least tentative distance; the client keeps the
  improvements, whose vertices are the next frontier. A round count past n - 1 is
  a negative cycle (NegativeCycleError).
- ``pagerank``: NetworkX's power iteration. The client broadcasts y = x / out-weight
  each step; worker k returns its range of Aᵀ·y; the client finishes the step (the
  dangling mass, the damping) and the L1 check.

Per round the data moved is the frontier (or y) and the answers, never the graph;
the client's own work is O(n) vector merging. The answers are the in-process
algorithms' (tested against them).
"""

from __future__ import annotations

import numpy as np

from kleene.algorithms.graph_input import as_graph, check_source
from kleene.errors import InvalidObject, InvalidValue, NegativeCycleError

from . import row_tasks
from .failures import (
    DistributedError,
    check_client,
    gather,
    require_workers,
    settle,
    worker_addresses,
)

_INLINE_BYTES = 1 << 20  # a round's argument above this is scattered to its worker


class PartitionedGraph:
    """A graph held as row blocks across the workers of ``client`` (see
    :func:`partition_graph`): ``bounds[k] .. bounds[k + 1] - 1`` are worker
    ``workers[k]``'s rows. ``directed=False`` says A holds every edge both ways with
    one weight (symmetric, as :func:`partition_graph` makes it): Aᵀ's rows are then
    A's own."""

    def __init__(self, client, A, workers: list[str], directed: bool, device: str = "cpu"):
        self.client, self.n, self.directed = client, A.shape[0], directed
        self.workers, self.device = workers, device
        target = np.arange(len(workers) + 1) * (A.nnz / len(workers))
        bounds = np.searchsorted(A.indptr, target, side="left")
        if self.n >= 16 * len(workers):  # each range starts on a byte of n-long marks
            bounds -= bounds % 8
        bounds[0], bounds[-1] = 0, self.n
        self.bounds = np.maximum.accumulate(bounds).astype(np.int64)
        self.aligned = bool(np.all(self.bounds[:-1] % 8 == 0))
        self.out_weight = np.asarray(A.sum(axis=1)).ravel().astype(np.float64)
        self.out_degree = np.diff(A.indptr)
        self.min_weight = float(A.data.min()) if A.nnz else 0.0
        self.out_blocks = self._scatter(A)
        self._A, self._in_blocks = A, {}

    def _scatter(self, M, what: str = "partition_graph", frontier_rows: bool = True) -> list:
        """M's row ranges, each sent to its worker (and kept there; ``frontier_rows``:
        rows the searches push or pull from, see ``row_tasks.to_block``); a
        DistributedError if one of the workers has left."""
        require_workers(self.client, self.workers, what)
        rows, out = [], []
        for k, w in enumerate(self.workers):
            lo, hi = int(self.bounds[k]), int(self.bounds[k + 1])
            rows.append(self._send(M[lo:hi], w, what))
            label = f"{what}: rows {lo}..{hi - 1} to a kleene Matrix on the {self.device}"
            task = self.client.submit(
                row_tasks.to_block,
                label,
                rows[-1],
                self.device,
                frontier_rows,
                workers=[w],
                allow_other_workers=False,
                pure=False,
            )
            out.append(task)
        settle(out, what, watch=(self.client, self.workers))  # (a worker without a GPU: its error)
        for f in rows:  # the host copies go; each worker keeps its Matrix
            f.release()
        return out

    def _send(self, data, worker: str, what: str):
        """``data`` scattered to ``worker`` (a future); a DistributedError if it left."""
        try:
            return self.client.scatter(data, workers=[worker], hash=False)
        except KeyError as e:  # the scheduler's word for a worker that left meanwhile
            raise DistributedError(
                f"{what} did not finish: a Dask worker or its data was lost ({worker} left "
                "the cluster); no partial result is returned"
            ) from e

    def in_blocks(self, weighted: bool) -> list:
        """Aᵀ's row ranges on the workers (values: the weights, or ones), made once: for a
        graph partitioned with ``directed=False`` from the rows the workers hold,
        else by a transpose on the client, sent. ``pagerank_partitioned(H, weight=w)``
        reads ``in_blocks(w)``; calling it first builds a directed graph's blocks
        before the clock, as its first call otherwise does."""
        if self._A is None:
            raise InvalidObject("pagerank: this PartitionedGraph was released; partition again")
        if not self.directed and weighted:  # A is symmetric (both ways): Aᵀ's rows are A's
            return self.out_blocks
        if weighted not in self._in_blocks:
            if not self.directed:  # the pattern of the rows each worker holds
                self._in_blocks[weighted] = self._on_workers(row_tasks.unit_values, "pagerank")
            else:  # (the client's transpose, sent as the rows are)
                T = self._A.T.tocsr()
                if not weighted:
                    T.data = np.ones_like(T.data, dtype=np.float64)
                self._in_blocks[weighted] = self._scatter(T.astype(np.float64), "pagerank", False)
        return self._in_blocks[weighted]

    def _on_workers(self, fn, what: str) -> list:
        """``fn(label, block)`` on each worker's own row block, kept there."""
        require_workers(self.client, self.workers, what)
        out = [
            self.client.submit(
                fn,
                f"{what}: rows {int(self.bounds[k])}..{int(self.bounds[k + 1]) - 1}",
                block,
                workers=[w],
                allow_other_workers=False,
                pure=False,
            )
            for k, (w, block) in enumerate(zip(self.workers, self.out_blocks, strict=True))
        ]
        settle(out, what, watch=(self.client, self.workers))
        return out

    def rows_per_worker(self) -> dict[str, int]:
        return {w: int(self.bounds[k + 1] - self.bounds[k]) for k, w in enumerate(self.workers)}

    def release(self) -> None:
        """Free the workers' blocks now (they also go with this object)."""
        for f in self.out_blocks + [f for fs in self._in_blocks.values() for f in fs]:
            f.release()
        self.out_blocks, self._in_blocks, self._A = [], {}, None

    def run_round(self, fn, what: str, blocks: list, per_worker: list) -> list:
        """fn(label, block_k, *per_worker[k]) on each worker with work (an entry not
        None); the answers, gathered (a failed task or a lost worker: DistributedError,
        nothing partial); a released graph or a closed client is named before any work."""
        if not blocks:
            raise InvalidObject(f"{what}: this PartitionedGraph was released; partition again")
        check_client(self.client, what)
        futures = []
        for k, w in enumerate(self.workers):
            args = per_worker[k]
            if args is None:
                continue
            # large arrays go straight to their worker, not inside the task graph
            # (which the scheduler would unpack and forward)
            args = tuple(
                self._send(a, w, what)
                if isinstance(a, np.ndarray) and a.nbytes > _INLINE_BYTES
                else a
                for a in args
            )
            lo, hi = int(self.bounds[k]), int(self.bounds[k + 1])
            label = f"{what}: rows {lo}..{hi - 1}"
            futures.append(
                self.client.submit(
                    fn, label, blocks[k], *args, workers=[w], allow_other_workers=False, pure=False
                )
            )
        return gather(self.client, futures, what, watch=self.workers)

    def frontier_parts(self, frontier: np.ndarray):
        """The sorted ``frontier``'s part in each worker's rows."""
        cuts = np.searchsorted(frontier, self.bounds)
        return [frontier[cuts[k] : cuts[k + 1]] for k in range(len(self.workers))]

    def level_parts(self, level: np.ndarray, marks: np.ndarray | None) -> list:
        """Each worker's part of a BFS level (sorted ids; ``marks``: the same level as
        ``np.packbits`` marks over all n, or None) for :func:`row_tasks.reach`: None
        where it has none, else (its first row, its global ids, or marks over its rows
        where those are smaller: ``row_tasks.packed``). Where every range starts on a
        byte (``aligned``), a worker's marks are a slice of ``marks``, not made again."""
        cuts = np.searchsorted(level, self.bounds)
        out = []
        for k in range(len(self.workers)):
            lo, hi = int(self.bounds[k]), int(self.bounds[k + 1])
            part = level[cuts[k] : cuts[k + 1]]
            if part.size == 0:
                out.append(None)
            elif part.size * 64 < hi - lo:
                out.append((lo, part))
            elif marks is not None and self.aligned:
                out.append((lo, ("bits", marks[lo // 8 : -(-hi // 8)])))
            else:
                out.append((lo, row_tasks.packed(part - lo, hi - lo, np)))
        return out

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return (
            f"<kleene PartitionedGraph: {self.n} vertices, {kind}, row blocks on "
            f"{len(self.workers)} workers' {self.device}>"
        )


def partition_graph(client, G, *, directed: bool = True, device: str = "cpu") -> PartitionedGraph:
    """Cut ``G``'s rows into one contiguous range a worker of ``client`` (about equal
    edge counts) and leave each range there: a :class:`PartitionedGraph` for
    :func:`bfs_partitioned`, :func:`sssp_partitioned` and :func:`pagerank_partitioned`.
    ``G`` is any graph kleene's algorithms take, read by their rules (+inf is no
    edge, NaN refused); ``directed=False`` adds every edge both ways first.
    ``device="gpu"`` keeps each block in its worker's GPU memory (a dask-cuda worker's
    own card), where the rounds' products then run, with the block's transpose beside
    it (``kleene.ops.cache_transpose``: a round with a large frontier pulls through it;
    twice the block's entries); a worker without one fails the call with its
    DeviceUnavailable.

    >>> import scipy.sparse as sp, kleene.distributed as kd  # doctest: +SKIP
    >>> from dask.distributed import Client  # doctest: +SKIP
    >>> client = Client(n_workers=2)  # doctest: +SKIP
    >>> G = sp.csr_matrix(([1.0, 2.0], ([0, 1], [1, 2])), shape=(3, 3))  # doctest: +SKIP
    >>> H = kd.partition_graph(client, G)  # doctest: +SKIP
    >>> kd.bfs_partitioned(H, 0).tolist(), kd.sssp_partitioned(H, 0).tolist()  # doctest: +SKIP
    ([0, 1, 2], [0.0, 1.0, 3.0])
    """
    if device not in ("cpu", "gpu"):
        raise InvalidValue(f"partition_graph: device must be 'cpu' or 'gpu', got {device!r}")
    workers = worker_addresses(client, "partition_graph")
    A = as_graph(G, directed=directed).to("cpu").to_scipy()
    A.sum_duplicates()
    if A.dtype != np.float64:  # distances add in float64, as kleene.sssp's do
        A = A.astype(np.float64)
    return PartitionedGraph(client, A, sorted(workers), directed, device)


def _one_source(source, n: int, name: str) -> int:
    ids = check_source(source, n, name)
    if ids.size != 1:
        raise InvalidValue(f"{name}: one source vertex, got {ids.size}")
    return int(ids[0])


def bfs_partitioned(H: PartitionedGraph, source: int) -> np.ndarray:
    """Breadth-first levels from ``source`` (int64, -1 where unreachable), as
    ``kleene.bfs(G, source)`` gives them, by a level-synchronous push over the row
    blocks (see the module docstring)."""
    source = _one_source(source, H.n, "bfs_partitioned")
    level = np.full(H.n, -1, dtype=np.int64)
    level[source] = 0
    unvisited = np.packbits(np.ones(H.n, dtype=bool))
    _clear(unvisited, np.array([source], dtype=np.int64))
    frontier, marks, depth = np.array([source], dtype=np.int64), None, 0
    while frontier.size:
        parts = H.level_parts(frontier, marks)
        found = H.run_round(row_tasks.reach, f"bfs level {depth}", H.out_blocks, parts)
        frontier, marks = _next_level(found, H.n, unvisited)
        depth += 1
        level[frontier] = depth
    return level


def _bit_of(ids: np.ndarray) -> np.ndarray:
    """Each id's bit in its byte of ``np.packbits`` marks (the first id the high bit)."""
    return np.left_shift(1, 7 - (ids & 7)).astype(np.uint8)


def _clear(marks: np.ndarray, ids: np.ndarray) -> None:
    """Clear the marks of ``ids`` (several may share a byte: unbuffered)."""
    np.bitwise_and.at(marks, ids >> 3, ~_bit_of(ids))


def _next_level(found: list, n: int, unvisited: np.ndarray):
    """(sorted ids, their marks or None): the vertices of ``found`` (the workers' answers:
    id arrays, or ``row_tasks.packed`` marks over all n) that ``unvisited`` (marks over
    n) still holds, which are cleared there. Few ids and no marks: sorted, tested and
    cleared one by one (O(r log r), r the ids returned; a deep graph runs thousands of
    small levels); else merged as marks, n/8 bytes a pass, and read out once."""
    marks = [p[1] for p in found if isinstance(p, tuple)]
    found = [p for p in found if not isinstance(p, tuple)]
    if not marks and sum(int(h.size) for h in found) * 64 < n:
        ids = np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64)
        ids = ids[(unvisited[ids >> 3] & _bit_of(ids)) != 0]
        _clear(unvisited, ids)
        return ids, None
    level = np.zeros(unvisited.size, dtype=np.uint8)
    for bits in marks:
        level |= bits
    for ids in found:  # (each fewer than n / 64: the workers' rule)
        np.bitwise_or.at(level, ids >> 3, _bit_of(ids))
    level &= unvisited
    unvisited &= ~level
    return np.flatnonzero(np.unpackbits(level, count=n).view(bool)), level


def _distinct(found: list, n: int) -> np.ndarray:
    """The sorted distinct ids in ``found`` (id arrays over n; an id may be in several).
    Few: sorted (O(r log r), r the ids); many: marked in an n-long array (O(n + r)),
    which a large round's ids cost less than a sort, and a deep graph's thousands of
    small rounds would pay each."""
    if sum(int(h.size) for h in found) * 64 < n:
        return np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64)
    mark = np.zeros(n, dtype=bool)
    for ids in found:
        mark[ids] = True
    return np.flatnonzero(mark)


def _relaxed(found: list, dist: np.ndarray) -> np.ndarray:
    """Lower ``dist`` to the workers' candidates ((heads, candidates) a block, its heads
    distinct); the sorted vertices it lowered. Few candidates: block by block, in time
    proportional to them (a deep graph runs thousands of small rounds); many (an
    eighth of n or more): through an n-long array of the least, which streams where
    the block-by-block form gathers at random."""
    n = dist.size
    if sum(int(h.size) for h, _ in found) * 8 < n:
        lowered = []
        for heads, cand in found:
            better = cand < dist[heads]
            dist[heads[better]] = cand[better]
            lowered.append(heads[better])
        return _distinct(lowered, n)
    best = np.full(n, np.inf)
    for heads, cand in found:
        best[heads] = np.minimum(best[heads], cand)
    better = np.flatnonzero(best < dist)
    dist[better] = best[better]
    return better


def sssp_partitioned(H: PartitionedGraph, source: int) -> np.ndarray:
    """Shortest-path distances from ``source`` (float64, inf where unreachable), as
    ``kleene.sssp(G, source)`` gives them, by Bellman-Ford over frontiers of improved
    vertices; NegativeCycleError when one is reachable."""
    source = _one_source(source, H.n, "sssp_partitioned")
    dist = np.full(H.n, np.inf)
    dist[source] = 0.0
    frontier, rounds = np.array([source], dtype=np.int64), 0
    while frontier.size:
        if rounds >= H.n:  # improvements past n - 1 rounds: a cycle that keeps paying
            raise NegativeCycleError("sssp: the graph has a negative cycle reachable from a source")
        parts = H.frontier_parts(frontier)
        found = H.run_round(
            row_tasks.relax,
            f"sssp round {rounds}",
            H.out_blocks,
            [None if p.size == 0 else (int(H.bounds[k]), p, dist[p]) for k, p in enumerate(parts)],
        )
        frontier, rounds = _relaxed(found, dist), rounds + 1
    return dist


def pagerank_partitioned(
    H: PartitionedGraph,
    *,
    alpha: float = 0.85,
    max_iter: int = 100,
    tol: float = 1e-6,
    weight: bool = True,
) -> np.ndarray:
    """PageRank as ``kleene.pagerank(G, alpha=, max_iter=, tol=, weight=)`` computes it
    (NetworkX's iteration, uniform personalization, dangling mass spread uniformly),
    each product over the workers' row blocks of Aᵀ; PowerIterationFailedConvergence
    after ``max_iter`` steps without the L1 change dropping below ``n * tol``."""
    from kleene.algorithms import PowerIterationFailedConvergence

    if not 0.0 <= alpha <= 1.0:
        raise InvalidValue(f"pagerank: alpha must lie in [0, 1], got {alpha}")
    if weight and H.min_weight < 0:
        raise InvalidValue("pagerank: edge weights must be non-negative")
    n = H.n
    if n == 0:
        return np.zeros(0)
    out = H.out_weight if weight else H.out_degree.astype(np.float64)
    scale = np.divide(1.0, out, out=np.zeros(n), where=out > 0)
    dangling = out == 0
    blocks = H.in_blocks(weight)
    x = np.full(n, 1.0 / n)
    for step in range(1, int(max_iter) + 1):
        y = H.client.scatter(x * scale, broadcast=True, hash=False)
        parts = H.run_round(row_tasks.pull, f"pagerank step {step}", blocks, [(y,)] * len(blocks))
        lost = float(x[dangling].sum())
        new = alpha * (np.concatenate(parts) + lost / n) + (1.0 - alpha) / n
        done = float(np.abs(new - x).sum()) < n * tol
        x = new
        if done:
            return x
    raise PowerIterationFailedConvergence(int(max_iter))


__all__ = [
    "PartitionedGraph",
    "bfs_partitioned",
    "pagerank_partitioned",
    "partition_graph",
    "sssp_partitioned",
]
