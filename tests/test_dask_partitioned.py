"""kleene on Dask: a graph stored across the workers (``partition_graph``, then
``bfs_partitioned`` / ``sssp_partitioned`` / ``pagerank_partitioned``) against the
in-process answers; the client's merges of a round; errors and lost workers.

One LocalCluster for the module (tests/dask_support.py: 2 worker processes × 1
thread). Skipped as a whole when dask.distributed is not
installed.
"""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest
import scipy.sparse as sp

import kleene

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install 'kleene[dask]')"
)
from dask_support import WorkerLeft, two_workers  # noqa: E402
from dask_support import graph as _graph  # noqa: E402

from kleene.distributed import DistributedError  # noqa: E402


@pytest.fixture(scope="module")
def client():
    yield from two_workers()


@pytest.mark.parametrize("directed", [True, False])
def test_partitioned_graph_answers_as_in_process(client, directed):
    from kleene.distributed import (
        bfs_partitioned,
        pagerank_partitioned,
        partition_graph,
        sssp_partitioned,
    )

    G = _graph(400, 0.01, seed=11 if directed else 12)
    H = partition_graph(client, G, directed=directed)
    rows = H.rows_per_worker()
    assert sum(rows.values()) == 400 and len(rows) == 2 and all(r < 400 for r in rows.values())
    # a CPU block pushes from every frontier: no transpose is built for it
    kept = client.gather([client.submit(lambda b: b.known("csr_T"), f) for f in H.out_blocks])
    assert kept == [None, None]
    for s in (0, 17, 399):
        np.testing.assert_array_equal(bfs_partitioned(H, s), kleene.bfs(G, s, directed=directed))
        np.testing.assert_allclose(
            sssp_partitioned(H, s), kleene.sssp(G, s, directed=directed), rtol=1e-12
        )
    for weight in (True, False):
        same = G if directed else kleene.ops.symmetrize(kleene.Matrix.from_scipy(G))
        want = kleene.pagerank(same, weight=weight, tol=1e-10)
        got = pagerank_partitioned(H, weight=weight, tol=1e-10)
        assert np.abs(got - want).sum() < 1e-9
    H.release()


def test_undirected_pagerank_takes_its_rows_from_the_workers(client):
    """With directed=False the partitioned A is symmetric, so Aᵀ's row blocks are the
    workers' own (the weights) or their pattern (made there): nothing is transposed
    on the client or sent again, and PageRank equals the in-process one."""
    from kleene.distributed import pagerank_partitioned, partition_graph

    class NoTranspose:  # the client's copy of A, made unusable for a transpose
        @property
        def T(self):
            raise AssertionError("Aᵀ was built on the client")

    G = _graph(300, 0.02, seed=29)
    H = partition_graph(client, G, directed=False)
    H._A = NoTranspose()
    same = kleene.ops.symmetrize(kleene.Matrix.from_scipy(G))
    for weight in (True, False):
        got = pagerank_partitioned(H, weight=weight, tol=1e-10)
        assert np.abs(got - kleene.pagerank(same, weight=weight, tol=1e-10)).sum() < 1e-9
    assert H.in_blocks(True) is H.out_blocks
    H.release()


def test_directed_pagerank_blocks_built_ahead_are_the_ones_it_reads(client):
    """H.in_blocks(weight) builds a directed graph's Aᵀ blocks before the clock: the
    first pagerank_partitioned call then transposes and sends nothing."""
    from kleene.distributed import pagerank_partitioned, partition_graph

    G = _graph(300, 0.02, seed=31)
    H = partition_graph(client, G)
    ahead = {weight: H.in_blocks(weight) for weight in (True, False)}

    class NoTranspose:  # the client's copy of A, made unusable for a transpose
        @property
        def T(self):
            raise AssertionError("Aᵀ was built again")

    H._A = NoTranspose()
    for weight in (True, False):
        got = pagerank_partitioned(H, weight=weight, tol=1e-10)
        assert np.abs(got - kleene.pagerank(G, weight=weight, tol=1e-10)).sum() < 1e-9
        assert H.in_blocks(weight) is ahead[weight]
    H.release()


def test_partitioned_graph_of_float32_weights_adds_in_float64(client):
    from kleene.distributed import partition_graph, sssp_partitioned

    G = _graph(300, 0.02, seed=13).astype(np.float32)
    G.data += np.float32(0.1)  # sums that float32 would round
    H = partition_graph(client, G)
    for s in (0, 150):
        got = sssp_partitioned(H, s)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, kleene.sssp(G, s), rtol=1e-12)
    H.release()


@pytest.mark.parametrize("reached", [0, 3, 500, 5000])
@pytest.mark.parametrize("n", [4000, 4003])
def test_partitioned_bfs_level_merged_sorted_or_marked(reached, n):
    """Few heads are sorted, many (or any marks) are merged as marks: the same sorted,
    distinct, unvisited ids, their marks, and those ids cleared from unvisited."""
    from kleene.distributed.partitioned import _distinct, _next_level
    from kleene.distributed.row_tasks import packed

    rng = np.random.default_rng(reached + n)
    unvisited = rng.random(n) < 0.5
    found = [np.unique(rng.integers(0, n, reached)) for _ in range(3)]
    every = np.unique(np.concatenate(found))
    want = every[unvisited[every]]
    for answers in (found, [packed(h, n, np) for h in found]):
        marks = np.packbits(unvisited)
        ids, level = _next_level(answers, n, marks)
        np.testing.assert_array_equal(ids, want)
        np.testing.assert_array_equal(
            np.unpackbits(marks, count=n).view(bool), unvisited & ~np.isin(np.arange(n), want)
        )
        if level is not None:
            np.testing.assert_array_equal(np.flatnonzero(np.unpackbits(level, count=n)), want)
    np.testing.assert_array_equal(_distinct(found, n), every)
    assert _next_level([], n, np.packbits(unvisited))[0].size == 0


@pytest.mark.parametrize("size", [3, 300, 3000])
def test_partitioned_sssp_merge_lowers_to_the_least(size):
    """Few candidates block by block, many through an n-long array: the same distances
    and the same sorted set of lowered vertices."""
    from kleene.distributed.partitioned import _relaxed

    rng = np.random.default_rng(size)
    n = 4000
    dist = np.where(rng.random(n) < 0.3, np.inf, rng.random(n) * 10)
    found = [np.unique(rng.integers(0, n, size)) for _ in range(3)]
    found = [(h, rng.random(h.size) * 10) for h in found]
    best = dist.copy()
    for heads, cand in found:
        np.minimum.at(best, heads, cand)
    got = dist.copy()
    np.testing.assert_array_equal(_relaxed(found, got), np.flatnonzero(best < dist))
    np.testing.assert_array_equal(got, best)


@pytest.mark.parametrize("count", [0, 5, 200, 1000])
def test_round_ids_packed_as_the_smaller_form(count):
    """Ids cross as int64 while few, as packed marks (64 times smaller) when many; both
    come back as the same sorted ids, and the merge reads either."""
    from kleene.distributed.partitioned import _next_level
    from kleene.distributed.row_tasks import packed, unpacked

    n = 1000
    ids = np.sort(np.random.default_rng(count).choice(n, count, replace=False))
    part = packed(ids, n, np)
    assert isinstance(part, tuple) == (count * 64 >= n)
    if isinstance(part, tuple):
        assert part[1].nbytes == n // 8 + (n % 8 > 0)
    np.testing.assert_array_equal(unpacked(part, n), ids)
    other = np.array([3, 999], dtype=np.int64)
    want = np.union1d(ids, other)
    np.testing.assert_array_equal(
        _next_level([part, other], n, np.packbits(np.ones(n, bool)))[0], want
    )


def test_partitioned_bfs_levels_cross_as_marks(client):
    """A hub reaching every vertex: the big level goes to the workers and comes back as
    marks; the levels are the in-process ones."""
    import scipy.sparse as sp

    from kleene.distributed import bfs_partitioned, partition_graph

    n = 2000
    rng = np.random.default_rng(5)
    rows = np.concatenate([np.zeros(n - 1, np.int64), rng.integers(1, n, 3 * n)])
    cols = np.concatenate([np.arange(1, n), rng.integers(1, n, 3 * n)])
    G = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    H = partition_graph(client, G)
    for s in (0, 7):
        np.testing.assert_array_equal(bfs_partitioned(H, s), kleene.bfs(G, s))
    H.release()


@pytest.mark.parametrize("n", [20, 2000])
def test_partitioned_bfs_marks_with_ranges_on_bytes_or_not(client, n):
    """Ranges start on a byte of the marks where each holds 8 rows or more (a worker's
    marks are then a slice of the level's); a small graph's are cut as they fall, and
    its marks are made per worker. Levels as in process either way."""
    import scipy.sparse as sp

    from kleene.distributed import bfs_partitioned, partition_graph

    rng = np.random.default_rng(n)
    rows = np.concatenate([np.zeros(n - 1, np.int64), rng.integers(1, n, 2 * n)])
    cols = np.concatenate([np.arange(1, n), rng.integers(1, n, 2 * n)])
    G = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    H = partition_graph(client, G, directed=False)
    if n >= 32:
        assert H.aligned and all(b % 8 == 0 for b in H.bounds[:-1])
    for s in (0, 1, n - 1):
        np.testing.assert_array_equal(bfs_partitioned(H, s), kleene.bfs(G, s, directed=False))
    H.release()


@pytest.mark.parametrize("count", [0, 5, 600, 2403])
def test_level_parts_slice_the_marks_as_packing_would(count):
    """A worker's part of a level: None (none of it), its global ids (few), or marks
    over its rows: sliced from the level's marks where the ranges start on bytes, the
    same bytes as packing them again."""
    from kleene.distributed.partitioned import PartitionedGraph
    from kleene.distributed.row_tasks import unpacked

    n = 2403
    H = object.__new__(PartitionedGraph)
    H.workers, H.bounds = ["a", "b", "c"], np.array([0, 800, 1600, n])
    level = np.sort(np.random.default_rng(count).choice(n, count, replace=False))
    marks = np.packbits(np.isin(np.arange(n), level))
    H.aligned = True
    sliced = H.level_parts(level, marks)
    H.aligned = False
    packed_again = H.level_parts(level, marks)
    assert len(sliced) == len(packed_again) == 3
    for k, (a, b) in enumerate(zip(sliced, packed_again, strict=True)):
        lo, hi = H.bounds[k], H.bounds[k + 1]
        mine = level[(level >= lo) & (level < hi)]
        if mine.size == 0:
            assert a is None and b is None
            continue
        assert a[0] == b[0] == lo
        if isinstance(b[1], tuple):
            np.testing.assert_array_equal(a[1][1], b[1][1])
            np.testing.assert_array_equal(unpacked(b[1], hi - lo) + lo, mine)
        else:
            np.testing.assert_array_equal(a[1], mine)
            np.testing.assert_array_equal(b[1], mine)


def test_partitioned_bfs_on_a_deep_path(client):
    """A level a vertex (the sorted merge), levels as in process."""
    import scipy.sparse as sp

    from kleene.distributed import bfs_partitioned, partition_graph

    n = 60
    G = sp.csr_matrix((np.ones(n - 1), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))
    H = partition_graph(client, G)
    np.testing.assert_array_equal(bfs_partitioned(H, 0), np.arange(n))
    H.release()


def test_partitioned_graph_errors(client):
    from kleene.distributed import partition_graph, sssp_partitioned

    G = sp.csr_matrix(([1.0, -3.0, 1.0], ([0, 1, 2], [1, 2, 0])), shape=(3, 3))
    H = partition_graph(client, G)
    with pytest.raises(kleene.NegativeCycleError):
        sssp_partitioned(H, 0)
    with pytest.raises(IndexError):
        sssp_partitioned(H, 3)
    with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu'"):
        partition_graph(client, G, device="tpu")
    if not kleene.gpu_available():  # a worker without a GPU says so, from its task
        with pytest.raises(RuntimeError, match="GPU|CUDA|cupy"):
            partition_graph(client, G, device="gpu")


def test_partitioned_graph_failures_are_named_never_partial(monkeypatch):
    # its own cluster: a worker of it is killed
    from kleene.distributed import (
        bfs_partitioned,
        pagerank_partitioned,
        partition_graph,
        partitioned,
    )

    G = _graph(300, 0.02, seed=13)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as c:
        H = partition_graph(c, G)
        np.testing.assert_array_equal(bfs_partitioned(H, 0), kleene.bfs(G, 0))
        victim = H.workers[1]
        pid = c.run(os.getpid, workers=[victim])[victim]
        left = WorkerLeft(victim)

        async def watch():
            cluster.scheduler.add_plugin(left)

        cluster.sync(watch)
        os.kill(pid, signal.SIGKILL)
        assert left.gone.wait(timeout=120), "the scheduler never saw the worker go"
        with pytest.raises(DistributedError, match="worker or its data was lost"):
            bfs_partitioned(H, 0)  # its rows 150.. were on the worker that left
        with monkeypatch.context() as m:  # every round's frontier scattered, as a large one is
            m.setattr(partitioned, "_INLINE_BYTES", 0)
            with pytest.raises(DistributedError, match="worker or its data was lost"):
                bfs_partitioned(H, 0)
        with pytest.raises(DistributedError, match="worker or its data was lost"):
            pagerank_partitioned(H)
        H.release()
        with pytest.raises(TypeError, match="was released"):
            bfs_partitioned(H, 0)
        with pytest.raises(TypeError, match="was released"):
            pagerank_partitioned(H)
        H2 = partition_graph(c, G)  # the restarted worker takes a block again
    with pytest.raises(DistributedError, match="client is closed"):
        bfs_partitioned(H2, 0)
