"""kleene on Dask with a GPU worker (``dask_cuda.LocalCUDACluster``, one worker per
GPU): apsp / bfs / sssp with client= give the in-process answers, blocks as CuPy
arrays on the worker. Skipped without a GPU or without dask-cuda (on the device
the wheels travel in .whl: see benchmarks/device_check.sh)."""

from __future__ import annotations

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

dask_cuda = pytest.importorskip("dask_cuda", reason="dask-cuda is not installed")
distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed")

import cupy  # noqa: E402
import cupyx.scipy.sparse as csp  # noqa: E402

import kleene  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = dask_cuda.LocalCUDACluster(n_workers=1, dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _graph(n: int, density: float, seed: int):
    rng = np.random.default_rng(seed)
    G = sp.random(n, n, density=density, random_state=rng, format="csr")
    G.data = np.round(G.data * 10, 1) + 1.0
    return G


def _host(a):
    return a.get() if isinstance(a, cupy.ndarray) else np.asarray(a)


def test_worker_sees_a_gpu(client):
    def devices():
        import cupy

        return cupy.cuda.runtime.getDeviceCount()

    (count,) = client.run(devices).values()
    assert count >= 1


@pytest.mark.parametrize("preds", [False, True])
def test_apsp_on_a_gpu_worker_equals_in_process(client, preds):
    G = csp.csr_matrix(_graph(300, 0.03, seed=1))
    got = kleene.apsp(G, client=client, block_size=64, return_predecessors=preds)
    want = kleene.apsp(G, return_predecessors=preds)
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
    np.testing.assert_array_equal(_host(kleene.bfs(G, sources, client=client)),
                                  _host(kleene.bfs(G, sources)))  # fmt: skip
    np.testing.assert_allclose(_host(kleene.sssp(G, sources, client=client)),
                               _host(kleene.sssp(G, sources)))  # fmt: skip
