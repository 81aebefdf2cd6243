"""kleene on Dask (kleene.distributed): apsp / bfs / sssp with client= against SciPy.

One LocalCluster for the module (tests/dask_support.py: 2 worker processes × 1
thread). The graph stored across workers is tested in tests/test_dask_partitioned.py.
Skipped as a whole when dask.distributed is not installed.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, shortest_path

import kleene

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install 'kleene[dask]')"
)
from dask_support import WorkerLeft as _WorkerLeft  # noqa: E402
from dask_support import graph as _graph  # noqa: E402
from dask_support import two_workers  # noqa: E402

from kleene.distributed import DistributedError, apsp_on_dask  # noqa: E402
from kleene.distributed.failures import scheduler_workers  # noqa: E402


@pytest.fixture(scope="module")
def client():
    yield from two_workers()


def test_import_kleene_does_not_import_dask():
    code = "import sys, kleene; sys.exit('dask' in sys.modules or 'distributed' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


@pytest.mark.parametrize("n, block", [(97, 16), (150, 40), (130, None), (50, 64)])
def test_apsp_equals_scipy(client, n, block):
    G = _graph(n, 0.05, seed=n)
    got = kleene.apsp(G, client=client, block_size=block)
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, shortest_path(G, method="FW"))


def test_pivot_blocks_past_the_one_step_base_close_by_r_kleene(client):
    """Blocks of 160 and 140 rows, over the CPU's one-step base of 128: each pivot's
    closure is the recursive plan (tasks.star); distances and paths as SciPy's."""
    from kleene.algorithms.dense_closure import dense_method

    assert dense_method(160, np.float64, np, False) == ("recursive", 128)
    G = _graph(300, 0.02, seed=8)
    want = shortest_path(G, method="FW")
    np.testing.assert_allclose(kleene.apsp(G, client=client, block_size=160), want)
    dist, pred = kleene.apsp(G, client=client, return_predecessors=True, block_size=160)
    np.testing.assert_allclose(dist, want)
    for i, j in [(0, 299), (150, 3), (299, 161)]:
        path = kleene.reconstruct_path(pred, i, j)
        if np.isfinite(dist[i, j]):
            assert (path[0], path[-1]) == (i, j)
            weights = sum(G[a, b] for a, b in zip(path, path[1:], strict=False))
            assert weights == pytest.approx(dist[i, j])


def test_apsp_undirected_float32_and_predecessors(client):
    G = _graph(90, 0.05, seed=1)
    want = shortest_path(G, method="FW", directed=False)
    got = kleene.apsp(G.astype(np.float32), client=client, directed=False, block_size=32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5)
    dist, pred = kleene.apsp(G, client=client, return_predecessors=True, block_size=25)
    np.testing.assert_allclose(dist, shortest_path(G, method="FW"))
    here = kleene.apsp(G, return_predecessors=True, method="blocked", block_size=25)
    np.testing.assert_array_equal(pred, here[1])  # the same plan: the same ties
    for i, j in [(0, 5), (3, 77), (89, 2)]:
        path = kleene.reconstruct_path(pred, i, j)
        if np.isfinite(dist[i, j]):
            weights = sum(G[a, b] for a, b in zip(path, path[1:], strict=False))
            assert weights == pytest.approx(dist[i, j])


def test_apsp_negative_weights_and_other_semirings(client):
    G = _graph(70, 0.06, seed=2, negative=True)
    G.data -= 1.0  # some negative edges, a DAG-free graph may still have negative cycles
    G = sp.triu(G, k=1, format="csr")  # upper triangular: no cycles, negative weights fine
    np.testing.assert_allclose(kleene.apsp(G, client=client, block_size=20), shortest_path(G))
    W = _graph(60, 0.08, seed=3)
    for semiring in ("max_min", "lor_land"):
        here = kleene.apsp(W, semiring=semiring)
        np.testing.assert_array_equal(
            kleene.apsp(W, semiring=semiring, client=client, block_size=16), here
        )


def test_apsp_negative_cycle_raises(client):
    G = sp.csr_matrix(([1.0, -3.0, 1.0], ([0, 1, 2], [1, 2, 0])), shape=(40, 40))
    with pytest.raises(kleene.NegativeCycleError):
        kleene.apsp(G, client=client, block_size=16)


def test_apsp_as_dask_array(client):
    da = pytest.importorskip("dask.array")
    G = _graph(75, 0.05, seed=4)
    x = apsp_on_dask(client, G, block_size=20, as_dask_array=True)
    assert isinstance(x, da.Array) and x.chunks[0] == (20, 20, 20, 15)
    np.testing.assert_allclose(x.compute(), shortest_path(G, method="FW"))


def test_apsp_rejects_other_methods(client):
    with pytest.raises(ValueError, match="with client="):
        kleene.apsp(_graph(10, 0.2, 0), client=client, method="recursive")


def test_apsp_progress(client):
    seen = []
    kleene.apsp(
        _graph(60, 0.05, 5), client=client, block_size=16, progress=lambda d, t: seen.append((d, t))
    )
    assert seen[-1][0] == seen[-1][1] and [d for d, _ in seen] == sorted(d for d, _ in seen)


def _bfs_levels(G, s: int, directed: bool) -> np.ndarray:
    """Levels by SciPy: BFS order and predecessors, levels following the tree."""
    order, pred = breadth_first_order(G, s, directed=directed, return_predecessors=True)
    lv = np.full(G.shape[0], -1)
    lv[s] = 0
    for v in order[1:]:
        lv[v] = lv[pred[v]] + 1
    return lv


@pytest.mark.parametrize("directed", [True, False])
def test_bfs_many_sources(client, directed):
    G = _graph(300, 0.01, seed=6)
    sources = [0, 17, 5, 299, 17, 42, 8]
    got = kleene.bfs(G, sources, client=client, directed=directed)
    want = np.stack([_bfs_levels(G, s, directed) for s in sources])
    np.testing.assert_array_equal(got, want)
    lv, par = kleene.bfs(G, sources, client=client, directed=directed, return_predecessors=True)
    here = kleene.bfs(G, sources, directed=directed, return_predecessors=True)
    np.testing.assert_array_equal(lv, here[0])
    np.testing.assert_array_equal(par, here[1])
    np.testing.assert_array_equal(kleene.bfs(G, 17, client=client), _bfs_levels(G, 17, True))


@pytest.mark.parametrize("directed", [True, False])
def test_sssp_many_sources(client, directed):
    G = _graph(300, 0.01, seed=7)
    sources = [3, 0, 250, 3, 99]
    got = kleene.sssp(G, sources, client=client, directed=directed)
    np.testing.assert_allclose(got, shortest_path(G, directed=directed, indices=sources))
    d, p = kleene.sssp(G, sources, client=client, directed=directed, return_predecessors=True)
    here = kleene.sssp(G, sources, directed=directed, return_predecessors=True)
    np.testing.assert_allclose(d, here[0])
    np.testing.assert_array_equal(p, here[1])
    got = kleene.sssp(G, sources, client=client, method="delta-stepping")
    np.testing.assert_allclose(got, shortest_path(G, indices=sources))
    assert kleene.sssp(G, [], client=client).shape == (0, 300)


def test_sssp_errors_as_in_process(client):
    G = sp.csr_matrix(([1.0, -3.0, 1.0], ([0, 1, 2], [1, 2, 0])), shape=(5, 5))
    with pytest.raises(kleene.NegativeCycleError, match="sssp sources"):
        kleene.sssp(G, [0, 1], client=client, method="bellman-ford")
    with pytest.raises(IndexError):
        kleene.sssp(G, [0, 9], client=client)


def _failing_semiring():
    """min_plus whose multiply raises on a Dask worker (not on the client)."""
    from kleene.semiring import BinaryOp, monoid

    def plus_but_not_on_workers(x, y):
        from distributed import get_worker

        try:
            get_worker()
        except ValueError:
            return x + y
        raise ZeroDivisionError("boom on a worker")

    mul = BinaryOp("plus_not_on_workers", plus_but_not_on_workers, "x + y")
    return kleene.Semiring(monoid.min, mul, name="min_boom", one=0.0)


def test_task_error_names_the_task(client):
    G = _graph(50, 0.1, seed=8)
    with pytest.raises(DistributedError, match=r"apsp round 0: closure of block \(0, 0\).*boom"):
        kleene.apsp(G, client=client, semiring=_failing_semiring(), block_size=32)
    # the cluster is still usable afterwards
    np.testing.assert_allclose(kleene.apsp(G, client=client), shortest_path(G, method="FW"))


def test_worker_loss_is_an_error_not_a_partial_result():
    # its own cluster: the module's keeps its two workers
    G = _graph(400, 0.02, seed=9)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as c:
        victim = sorted(scheduler_workers(c))[1]
        pid = c.run(os.getpid, workers=[victim])[victim]
        left = _WorkerLeft(victim)

        async def watch():  # the cluster's scheduler runs in this process, on its loop
            cluster.scheduler.add_plugin(left)

        cluster.sync(watch)
        killed = []

        def kill_once(done, total):  # after round 0's pivot: the run is under way
            if done < total and not killed:
                killed.append(pid)
                os.kill(pid, signal.SIGKILL)
                # the rest of the run starts once the scheduler has seen the worker go
                assert left.gone.wait(timeout=120), "the scheduler never saw the worker go"

        with pytest.raises(DistributedError, match="worker or its data was lost"):
            kleene.apsp(G, client=c, block_size=50, progress=kill_once)


def test_docstring_examples():
    import doctest

    import kleene.distributed.closure_grid as grid

    assert doctest.testmod(grid).failed == 0


def _dense_with_gaps(n: int, seed: int, dtype=np.float64) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = np.round(rng.random((n, n)) * 10, 1) + 0.5
    a[rng.random((n, n)) < 0.9] = np.inf  # inf = no edge, as for a dense array
    return a.astype(dtype)


@pytest.mark.parametrize("chunks, block", [(37, 40), (50, 50), (150, None)])
def test_apsp_dask_array_input_stays_distributed(client, chunks, block):
    da = pytest.importorskip("dask.array")
    a = _dense_with_gaps(150, seed=chunks)
    got = kleene.apsp(da.from_array(a, chunks=chunks), client=client, block_size=block)
    assert isinstance(got, da.Array)  # dask in, dask out
    want = shortest_path(np.where(np.isinf(a), 0, a), method="FW")
    np.testing.assert_allclose(got.compute(), want)


def test_apsp_dask_array_float32_bool_and_numpy_result(client):
    da = pytest.importorskip("dask.array")
    a = _dense_with_gaps(120, seed=3, dtype=np.float32)
    got = apsp_on_dask(client, da.from_array(a, chunks=50), block_size=64, as_dask_array=False)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    np.testing.assert_allclose(got, kleene.apsp(a), rtol=1e-6)
    reach = np.isfinite(a)  # bool: False = no edge; lor_land gives reachability
    got = apsp_on_dask(
        client,
        da.from_array(reach, chunks=40),
        semiring="lor_land",
        block_size=32,
        as_dask_array=False,
    )
    np.testing.assert_array_equal(got, kleene.apsp(reach, semiring="lor_land"))


def test_apsp_dask_array_errors(client):
    da = pytest.importorskip("dask.array")
    a = _dense_with_gaps(90, seed=5)
    b = a.copy()
    b[10, 70], b[70, 10] = -20.0, 1.0  # a negative cycle through 10 and 70
    with pytest.raises(kleene.NegativeCycleError, match="negative cycle through vertex"):
        kleene.apsp(da.from_array(b, chunks=30), client=client, block_size=30)
    b = a.copy()
    b[65, 3] = np.nan
    with pytest.raises(ValueError, match=r"NaN edge weights in rows 60\.\.89"):
        kleene.apsp(da.from_array(b, chunks=30), client=client, block_size=30)
    b = a.copy()
    b[65, 33] = -np.inf
    with pytest.raises(ValueError, match=r"-inf edge weight, at edge \(65, 33\)"):
        kleene.apsp(da.from_array(b, chunks=30), client=client, block_size=30)
    with pytest.raises(ValueError, match="square"):
        kleene.apsp(da.from_array(a[:, :80], chunks=30), client=client)
    with pytest.raises(ValueError, match="predecessors"):
        kleene.apsp(da.from_array(a, chunks=30), client=client, return_predecessors=True)
    with pytest.raises(ValueError, match="directed=False"):
        kleene.apsp(da.from_array(a, chunks=30), client=client, directed=False)


@pytest.mark.parametrize("directed", [True, False])
def test_loaded_graph_serves_many_calls(client, directed):
    from kleene.distributed import LoadedGraph, load_graph

    G = _graph(300, 0.01, seed=11)
    H = load_graph(client, G, directed=directed)
    assert isinstance(H, LoadedGraph) and H.shape == (300, 300) and len(H.workers) == 2
    assert H.on_device is False  # CPU workers: results left on them are NumPy chunks
    for sources in ([0, 5, 299], [7], list(range(40))):
        want = shortest_path(G, indices=sources, directed=directed)
        np.testing.assert_allclose(kleene.sssp(H, sources, directed=directed), want)
        got = kleene.bfs(H, sources, client=client, directed=directed)
        np.testing.assert_array_equal(got, [_bfs_levels(G, s, directed) for s in sources])
    with pytest.raises(ValueError, match="loaded with directed"):
        kleene.sssp(H, [0], directed=not directed)
    H.release()
    assert H.parts == {}


def test_sources_as_dask_array(client):
    da = pytest.importorskip("dask.array")
    from kleene.distributed import bfs_on_dask, sssp_on_dask

    G = _graph(200, 0.02, seed=12)
    sources = [3, 1, 4, 1, 5, 9, 2, 6]
    d = sssp_on_dask(client, G, sources, as_dask_array=True, batches=3)
    assert isinstance(d, da.Array) and d.chunks == ((3, 3, 2), (200,))
    assert isinstance(d._meta, np.ndarray)
    np.testing.assert_allclose(d.compute(), shortest_path(G, indices=sources))
    lv, pred = bfs_on_dask(client, G, sources, return_predecessors=True, as_dask_array=True)
    want_lv, want_pred = kleene.bfs(G, sources, return_predecessors=True)
    np.testing.assert_array_equal(lv.compute(), want_lv)
    np.testing.assert_array_equal(pred.compute(), want_pred)
    one = sssp_on_dask(client, G, 4, as_dask_array=True)
    np.testing.assert_allclose(one.compute(), shortest_path(G, indices=4))


def test_block_sharing_plumbing_of_the_ipc_path(monkeypatch):
    """The IPC path's task wiring (export on the owner, a fetch per reader worker, the
    buffers dropped after the fetches) with host blocks: two thread workers of one
    process, where fetch copies the exported arrays (the GPU path maps them by CUDA
    IPC instead: tests/gpu/test_dask_cuda.py)."""
    from kleene.distributed import device_ipc

    monkeypatch.setattr(device_ipc, "enabled", lambda client, workers: True)
    G = _graph(130, 0.04, seed=13)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as c:
        got = kleene.apsp(G, client=c, block_size=30)
        np.testing.assert_allclose(got, shortest_path(G, method="FW"))
        dist, pred = kleene.apsp(G, client=c, block_size=40, return_predecessors=True)
        np.testing.assert_allclose(dist, shortest_path(G, method="FW"))
        _, want_pred = shortest_path(G, method="FW", return_predecessors=True)
        reach = np.isfinite(dist) & ~np.eye(130, dtype=bool)
        # predecessors may differ on ties; each must lie on a shortest path
        i, j = np.nonzero(reach)
        p = pred[i, j]
        np.testing.assert_allclose(dist[i, p] + G.toarray()[p, j], dist[i, j])
        # apsp returns only once its drop tasks (each after its block's last fetch)
        # have finished, so the exported buffers are gone by now: no wait needed
        assert device_ipc._EXPORTS == {}


def test_a_persisted_input_held_off_its_owners_is_moved_to_them(monkeypatch):
    """A dask.array persisted wholly on one worker: the chunks of the other worker's
    blocks go to it by the IPC path's export and fetch (here host chunks, which Dask
    moves itself), the answer unchanged and nothing left exported."""
    import dask.array as da

    from kleene.distributed import device_ipc

    monkeypatch.setattr(device_ipc, "enabled", lambda client, workers: True)
    W = _graph(120, 0.05, seed=17).toarray()
    W[W == 0] = np.inf
    np.fill_diagonal(W, 0)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as c:
        first = sorted(scheduler_workers(c))[0]
        G = c.persist(da.from_array(W, chunks=30), workers=[first])
        distributed.wait(G)
        with distributed.get_task_stream(c) as ts:
            got = kleene.apsp(G, client=c, block_size=30).compute()
        np.testing.assert_allclose(got, shortest_path(W, method="FW"))
        moved = {str(t["key"]) for t in ts.data if "kleene-apsp-input-" in str(t["key"])}
        assert any(k.endswith("-fetch") for k in moved), moved  # some chunks were moved
        assert device_ipc._EXPORTS == {}


def test_each_worker_runs_its_updates_in_the_planned_order(monkeypatch):
    """Where blocks travel by CUDA IPC, every worker computes its block updates in
    grid_order's schedule (each task takes the one before it on its worker as an
    input): the task stream's compute start times, per worker, give back the planned
    sequence. (IPC forced on workers in this process: their exports and fetches of
    host blocks are copies.)"""
    from kleene.distributed import device_ipc, grid_order
    from kleene.distributed.closure_grid import _op_name, _owner

    monkeypatch.setattr(device_ipc, "enabled", lambda client, workers: True)
    G = _graph(150, 0.05, seed=5)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=2, processes=False, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as c:
        with distributed.get_task_stream(c) as ts:
            got = kleene.apsp(G, client=c, block_size=30)
        workers = sorted(scheduler_workers(c))
    np.testing.assert_allclose(got, shortest_path(G, method="FW"))
    ops, _ = grid_order.closure_ops([30] * 5, lambda i, j: _owner(workers, i, j), ipc=True)
    order = grid_order.schedule(ops, grid_order.LATENCY_IPC)
    for w in workers:
        planned = [
            _op_name(ops[x])
            for x in order
            if ops[x].worker == w and ops[x].kind in ("star", "row", "column", "rest")
        ]
        ran = sorted(
            (
                min(s["start"] for s in t["startstops"] if s["action"] == "compute"),
                str(t["key"]).split("-")[2:-1],
            )
            for t in ts.data
            if t["worker"] == w
            and str(t["key"]).startswith("kleene-apsp-")
            and str(t["key"]).split("-")[2] in ("star", "row", "col", "rest")
            and not str(t["key"]).endswith(("-export", "-drop"))
            and "-fetch-" not in str(t["key"])
        )
        assert ["-".join(name) for _, name in ran] == planned, w


def test_a_persisted_input_is_taken_by_its_keys(client):
    """A persisted dask.array's chunks go to the closure as they are: no task of the
    array's graph (a block's selection) runs inside the call, and the answer is
    SciPy's."""
    da = pytest.importorskip("dask.array")
    W = _graph(90, 0.05, seed=23).toarray()
    W[W == 0] = np.inf
    np.fill_diagonal(W, 0)
    G = client.persist(da.from_array(W, chunks=30))
    distributed.wait(G)
    with distributed.get_task_stream(client) as ts:
        got = kleene.apsp(G, client=client, block_size=30).compute()
    np.testing.assert_allclose(got, shortest_path(W, method="FW"))
    ran = {str(t["key"]) for t in ts.data}
    assert not any("blocks" in k or G.name in k for k in ran), sorted(ran)[:5]


def test_initial_blocks_are_freed_as_the_rounds_take_them(client, monkeypatch):
    """No first value of a block is still in the workers' memory once every round has
    run (checked at the final wait for the shared blocks' drops)."""
    da = pytest.importorskip("dask.array")
    from kleene.distributed import closure_grid

    seen = []
    settle = closure_grid.settle

    def spy(futures, what, **kw):
        out = settle(futures, what, **kw)
        if "freeing" in what:
            # the client holds none of them any more (kleene let go as the rounds took them)
            mine = [k for k, count in client.refcount.items() if count and "apsp-init-" in str(k)]
            # its releases travel to the scheduler on the batched stream that carries task
            # submissions too: a task submitted now is handled after them, so once it has
            # run the scheduler has read every release sent before (no wait on a clock)
            client.submit(int, 0, pure=False).result()
            held = client.who_has().items()  # (released keys are listed with no worker)
            workers = [k for k, where in held if where and "kleene-apsp-init-" in str(k)]
            seen.append((mine, workers))
        return out

    monkeypatch.setattr(closure_grid, "settle", spy)
    W = _graph(120, 0.05, seed=31).toarray()
    W[W == 0] = np.inf
    np.fill_diagonal(W, 0)
    got = kleene.apsp(da.from_array(W, chunks=30), client=client, block_size=30).compute()
    np.testing.assert_allclose(got, shortest_path(W, method="FW"))
    assert seen == [([], [])]


def test_an_input_whose_persisted_copy_is_released_is_recomputed(client):
    """A dask.array whose keys another collection persisted and then let go of is
    computed from its graph, not taken by key (the key may be gone by then)."""
    da = pytest.importorskip("dask.array")
    W = _graph(80, 0.05, seed=37).toarray()
    W[W == 0] = np.inf
    np.fill_diagonal(W, 0)
    want = shortest_path(W, method="FW")
    for r in range(5):
        X = da.from_array(W, chunks=20, name=f"kleene-test-released-{r}")
        P = client.persist(X)
        distributed.wait(P)
        del P  # the keys are being released as the call starts
        got = kleene.apsp(X, client=client, block_size=20).compute()
        np.testing.assert_allclose(got, want)


def test_a_closed_client_is_named_not_a_key_error():
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    closed = distributed.Client(cluster)
    closed.close()
    cluster.close()
    G = _graph(20, 0.2, seed=1)
    calls = {
        "apsp": lambda: kleene.apsp(G, client=closed),
        "sssp": lambda: kleene.sssp(G, [0, 1], client=closed),
        "bfs": lambda: kleene.bfs(G, [0, 1], client=closed),
        "load_graph": lambda: kleene.distributed.load_graph(closed, G),
    }
    for name, call in calls.items():
        with pytest.raises(DistributedError, match=f"^{name}: the Dask client is closed"):
            call()
    assert issubclass(DistributedError, RuntimeError)
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client, got str"):
        kleene.apsp(G, client="tcp://127.0.0.1:8786")


def test_workers_are_asked_of_the_scheduler_not_the_clients_cache(client):
    """The client's cached identity is rewritten without workers by its periodic
    refresh; read between a fetch and its return, it said every worker had left (a
    call failed with both workers 'gone'). The checks ask the scheduler itself."""
    from kleene.distributed.failures import require_workers, worker_addresses

    workers = sorted(scheduler_workers(client))
    assert len(workers) == 2 and all(w.startswith("tcp://") for w in workers)
    real = client.scheduler_info
    client.scheduler_info = lambda **kw: {"workers": {}}  # what the refresh leaves
    try:
        require_workers(client, workers, "apsp")  # raised DistributedError before
        assert sorted(worker_addresses(client, "apsp")) == workers
    finally:
        client.scheduler_info = real


def test_a_client_whose_scheduler_does_not_answer_is_named():
    from kleene.distributed.failures import worker_addresses

    class Gone:  # what a client reports once its cluster went away under it
        status = "running"

        def submit(self, *a, **k):
            raise AssertionError("no work may be sent")

        def scheduler_info(self, **kw):
            return {}  # distributed's answer without a scheduler: no "workers" key

    with pytest.raises(DistributedError, match="apsp: the Dask client is closed or has no workers"):
        worker_addresses(Gone(), "apsp")


def test_warm_runs_the_tasks_on_every_worker(client):
    from kleene.distributed import warm

    workers = sorted(scheduler_workers(client))
    held = set(client.futures)
    seconds = warm(client, dtype=np.float64, predecessors=(False, True), block=64)
    assert sorted(seconds) == workers and all(s > 0 for s in seconds.values())
    # its first calls (a dask.array APSP, BFS/SSSP on a loaded graph) hold nothing after
    # (once Python has collected the reference cycles a dask graph makes)
    gc.collect()
    assert set(client.futures) <= held
    # what the warm-up ran is what a run then uses: the answers are the in-process ones
    G = _graph(90, 0.05, seed=3)
    np.testing.assert_allclose(kleene.apsp(G, client=client, block_size=32), shortest_path(G))
    with pytest.raises(ValueError, match="algorithms must be among"):
        warm(client, algorithms=("pagerank",))
    only_bfs = warm(client, algorithms=("bfs",), block=32)
    assert sorted(only_bfs) == workers
    assert sorted(warm(client, dtype=np.int64, block=32)) == workers  # (no inf in ints)
    held = set(client.futures)
    assert sorted(warm(client, algorithms=("partitioned",))) == workers
    gc.collect()
    assert set(client.futures) <= held
