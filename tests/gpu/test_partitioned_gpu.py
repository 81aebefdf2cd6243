"""A partitioned graph whose row blocks live in the workers' GPU memory
(``partition_graph(..., device="gpu")``): BFS, SSSP and PageRank give the in-process
answers. Two in-process workers share the one GPU here (a dask-cuda cluster gives
each its own card). Skipped without a GPU or without dask.distributed (on the device
the wheels travel with the call)."""

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

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install 'kleene[dask]')"
)

import kleene  # noqa: E402
from kleene.distributed import (  # noqa: E402
    bfs_partitioned,
    pagerank_partitioned,
    partition_graph,
    sssp_partitioned,
)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _graph(n: int, density: float, seed: int):
    rng = np.random.default_rng(seed)
    G = sp.random(n, n, density=density, format="csr", random_state=rng)
    G.data = rng.integers(1, 50, G.nnz).astype(np.float64)
    return G


@pytest.mark.parametrize("directed", [True, False])
def test_gpu_blocks_answer_as_in_process(client, directed):
    G = _graph(600, 0.01, seed=21 if directed else 22)
    H = partition_graph(client, G, directed=directed, device="gpu")
    where = client.gather([client.submit(lambda b: b.device, f) for f in H.out_blocks])
    assert where == ["gpu", "gpu"]
    # each block keeps its transpose, which the rounds with a large frontier pull through
    kept = client.gather([client.submit(lambda b: b.known("csr_T"), f) for f in H.out_blocks])
    assert all(t is not None for t in kept)
    for s in (0, 311, 599):
        np.testing.assert_array_equal(bfs_partitioned(H, s), kleene.bfs(G, s, directed=directed))
        np.testing.assert_allclose(
            sssp_partitioned(H, s), kleene.sssp(G, s, directed=directed), rtol=1e-12
        )
    same = G if directed else kleene.ops.symmetrize(kleene.Matrix.from_scipy(G))
    for weight in (True, False):
        want = kleene.pagerank(same, weight=weight, tol=1e-10)
        got = pagerank_partitioned(H, weight=weight, tol=1e-10)
        assert np.abs(got - want).sum() < 1e-9
    if directed:  # Aᵀ's blocks for PageRank are read row by row: no transpose is kept
        kept = client.gather(
            [client.submit(lambda b: b.known("csr_T"), f) for f in H.in_blocks(True)]
        )
        assert kept == [None, None]
    H.release()


def test_after_warm_a_graph_of_any_degree_compiles_nothing(client):
    """warm(algorithms=("partitioned",)) leaves no kernel for a first call to compile,
    whatever the graph's mean degree (a GPU kernel is built per lane-group size,
    which follows the rows' mean length)."""
    from kleene.backends.cuda import jit
    from kleene.distributed import warm

    warm(client, algorithms=("partitioned",))
    before = set(jit._functions) | set(jit._elementwise)
    for n, degree in ((3000, 3), (4096, 12), (3000, 40), (2048, 64), (2000, 150), (1200, 700)):
        for directed in (True, False):
            G = _graph(n, degree / n, seed=degree)
            H = partition_graph(client, G, directed=directed, device="gpu")
            for s in (0, n // 2):
                bfs_partitioned(H, s)
                sssp_partitioned(H, s)
            pagerank_partitioned(H, weight=True, tol=1e-8)
            pagerank_partitioned(H, weight=False, tol=1e-8)
            H.release()
    new = (set(jit._functions) | set(jit._elementwise)) - before
    assert not new, f"compiled after warm: {sorted(map(str, new))}"
