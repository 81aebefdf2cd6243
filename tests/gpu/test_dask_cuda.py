"""kleene on Dask with a GPU worker (``dask_cuda.LocalCUDACluster``, one worker per
GPU): apsp / bfs / sssp with client= give the in-process answers, blocks as CuPy
arrays on the worker. Skipped without a GPU or without dask-cuda (on the device
the wheels travel in .whl: see benchmarks/device_check.sh)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

pytestmark = pytest.mark.gpu

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

try:  # a dask-cuda that is there but fails to import (e.g. its cuda-core) is an error
    import dask_cuda
    import distributed
except ModuleNotFoundError as e:
    pytest.skip(
        f"{e.name} is not installed (pip install 'kleene[dask]' dask-cuda)", allow_module_level=True
    )

import cupy  # noqa: E402
import cupyx.scipy.sparse as csp  # noqa: E402

import kleene  # noqa: E402
from kleene.distributed.failures import scheduler_workers  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = dask_cuda.LocalCUDACluster(n_workers=1, dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@contextlib.contextmanager
def _ipc_pair():
    """Two worker processes on this host sharing blocks by CUDA IPC: (client, workers)."""
    from kleene.distributed import device_ipc

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        with distributed.Client(cluster) as c:
            workers = sorted(scheduler_workers(c))
            assert device_ipc.enabled(c, workers), device_ipc.last_reason
            yield c, workers


def _graph(n: int, density: float, seed: int):
    rng = np.random.default_rng(seed)
    G = sp.random(n, n, density=density, random_state=rng, format="csr")
    G.data = np.round(G.data * 10, 1) + 1.0
    return G


def _host(a):
    return a.get() if isinstance(a, cupy.ndarray) else np.asarray(a)


def test_worker_sees_a_gpu(client):
    """kleene itself runs on the GPU in the worker (else every task would take the
    NumPy path and the other tests would pass without a GPU)."""
    (on_gpu,) = client.run(kleene.gpu_available).values()
    assert on_gpu


@pytest.mark.parametrize("preds", [False, True])
def test_apsp_on_a_gpu_worker_equals_in_process(client, preds):
    G = csp.csr_matrix(_graph(300, 0.03, seed=1))
    got = kleene.apsp(G, client=client, block_size=64, return_predecessors=preds)
    want = kleene.apsp(G, return_predecessors=preds)
    for part in got if preds else (got,):  # NumPy on the client, as documented
        assert isinstance(part, np.ndarray)
    if preds:
        np.testing.assert_allclose(_host(got[0]), _host(want[0]))
        d = _host(got[0])
        P = _host(got[1])
        # each predecessor is the last hop of a shortest path: d(i,p) + w(p,j) == d(i,j)
        W = _graph(300, 0.03, seed=1).toarray()
        i, j = np.nonzero(P >= 0)
        p = P[i, j]
        np.testing.assert_allclose(d[i, p] + W[p, j], d[i, j])
    else:
        np.testing.assert_allclose(_host(got), _host(want))


def test_bfs_and_sssp_sources_on_a_gpu_worker(client):
    S = _graph(400, 0.02, seed=2)
    G = csp.csr_matrix(S)
    sources = [0, 7, 99, 250]
    levels = kleene.bfs(G, sources, client=client)
    dist = kleene.sssp(G, sources, client=client)
    assert isinstance(levels, np.ndarray) and isinstance(dist, np.ndarray)
    np.testing.assert_array_equal(levels, _host(kleene.bfs(G, sources)))
    np.testing.assert_allclose(dist, _host(kleene.sssp(G, sources)))


@pytest.mark.parametrize("preds", [False, True])
def test_sources_left_on_gpu_workers_stay_cupy(client, preds):
    """A graph loaded on GPU workers: as_dask_array rows stay on the GPUs as CuPy chunks
    (no copy to the workers' hosts), equal to the in-process answer."""
    from kleene.distributed import bfs_on_dask, load_graph, sssp_on_dask

    S = _graph(400, 0.02, seed=4)
    H = load_graph(client, S)
    assert H.on_device
    sources = [0, 7, 99, 250, 399]
    try:
        for fn, ref in ((sssp_on_dask, kleene.sssp), (bfs_on_dask, kleene.bfs)):
            R = fn(client, H, sources, as_dask_array=True, return_predecessors=preds)
            for part in R if preds else (R,):
                assert isinstance(part._meta, cupy.ndarray)
            got = [p.compute() for p in R] if preds else [R.compute()]
            assert all(isinstance(g, cupy.ndarray) for g in got)
            want = ref(S, sources, return_predecessors=preds)
            np.testing.assert_allclose(_host(got[0]), _host(want[0] if preds else want))
            one = fn(client, H, 99, as_dask_array=True).compute()
            assert isinstance(one, cupy.ndarray) and one.shape == (400,)
            np.testing.assert_allclose(_host(one), _host(ref(S, 99)))
    finally:
        H.release()


def test_dask_array_result_has_numpy_chunks(client):
    from kleene.distributed import apsp_on_dask

    G = _graph(200, 0.03, seed=5)
    arr = apsp_on_dask(client, G, as_dask_array=True, block_size=64)
    got = arr.compute()
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, kleene.apsp(G))


def test_blocks_cross_processes_between_gpu_workers():
    """Two worker processes on the one GPU: the blocks of the grid travel between them
    as CuPy arrays (distributed's CuPy serialization), and the answer is unchanged."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        with distributed.Client(cluster) as c:
            assert all(c.run(kleene.gpu_available).values())
            G = _graph(256, 0.03, seed=9)
            got = kleene.apsp(G, client=c, block_size=64)
            assert isinstance(got, np.ndarray)
            np.testing.assert_allclose(got, kleene.apsp(G))


def test_ipc_blocks_over_many_rounds_repeat_bit_for_bit():
    """Eight rounds of 128-vertex blocks by CUDA IPC, where every copy in and out of a
    shared buffer is ordered by events on the workers' streams (no host waits) and the
    buffers are reused round after round: a copy that ran early or late would change
    the distances, so two runs must agree bit for bit and with one GPU in process."""
    rng = np.random.default_rng(21)
    W = rng.random((1024, 1024), dtype=np.float32) * 10 + 1
    with _ipc_pair() as (c, workers):
        first = kleene.apsp(W, client=c, block_size=128)
        again = kleene.apsp(W, client=c, block_size=128)
        np.testing.assert_array_equal(first, again)
        np.testing.assert_allclose(first, _host(kleene.apsp(cupy.asarray(W))), rtol=1e-6)


def test_a_persisted_gpu_input_moves_to_its_owners_by_ipc():
    """A dask.array of CuPy chunks persisted on one of two worker processes: the other
    worker's chunks reach it GPU to GPU (export_chunk / fetch_chunk), the result is a
    dask.array of CuPy chunks equal to one GPU's answer in process, and nothing is
    left behind."""
    import dask.array as da

    from kleene.distributed import device_ipc

    rng = np.random.default_rng(23)
    W = cupy.asarray(rng.random((512, 512), dtype=np.float32) * 10 + 1)
    with _ipc_pair() as (c, workers):
        G = c.persist(da.from_array(W, chunks=128, asarray=False), workers=[workers[0]])
        distributed.wait(G)
        with distributed.get_task_stream(c) as ts:
            R = kleene.apsp(G, client=c, block_size=128)
            R = c.persist(R)
            distributed.wait(R)
        fetched = [t for t in ts.data if str(t["key"]).endswith("-fetch")]
        assert any("kleene-apsp-input-" in str(t["key"]) for t in fetched)
        assert isinstance(R._meta, cupy.ndarray)  # CuPy in, CuPy chunks out, on the GPUs
        got = R.compute()
        assert isinstance(got, cupy.ndarray)
        np.testing.assert_allclose(_host(got), _host(kleene.apsp(W)), rtol=1e-6)
        kept = c.run(lambda: (len(device_ipc._EXPORTS), len(device_ipc._FREE)))
        assert set(kept.values()) == {(0, 0)}, kept


@pytest.mark.parametrize("preds", [False, True])
def test_blocks_by_cuda_ipc_between_gpu_worker_processes(monkeypatch, preds):
    """Two worker processes on one host: blocks go from GPU to GPU by CUDA IPC
    (kleene.distributed.device_ipc; ordered by interprocess events, no host waits),
    the answer unchanged, no buffer or mapping left behind, and the same input gives
    bit-identical results run after run."""
    from kleene.distributed import device_ipc

    with _ipc_pair() as (c, workers):
        G = _graph(300, 0.03, seed=10)
        runs = [
            kleene.apsp(G, client=c, block_size=64, return_predecessors=preds) for _ in range(3)
        ]
        want = kleene.apsp(G, return_predecessors=preds)
        parts = [r if preds else (r,) for r in runs]
        for got in parts:
            np.testing.assert_allclose(got[0], _host(want[0] if preds else want))
            for a, b in zip(got, parts[0], strict=True):
                np.testing.assert_array_equal(a, b)
        left = c.run(lambda: len(device_ipc._EXPORTS))
        assert set(left.values()) == {0}, left
        # the buffers kept for reuse and the peers' mappings are released after a run
        kept = c.run(lambda: (len(device_ipc._FREE), len(device_ipc._MAPPED)))
        assert set(kept.values()) == {(0, 0)}, kept
        monkeypatch.setenv("KLEENE_DASK_IPC", "0")  # the switch turns it off
        assert not device_ipc.enabled(c, workers)
