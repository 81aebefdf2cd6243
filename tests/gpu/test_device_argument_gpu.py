"""``device="gpu"`` on a host graph computes on the GPU (CuPy results, the CPU's
answers), and ``device="cpu"`` brings a GPU graph back. Skipped without a GPU."""

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

import cupy  # noqa: E402

import kleene  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the CPU test's table
from test_device_argument import CALLS  # noqa: E402


def _graph(n=300, seed=7):
    rng = np.random.default_rng(seed)
    g = sp.random(n, n, density=0.02, random_state=rng, format="csr")
    g = (g + g.T).tocsr()  # undirected, for the triangle family
    g.data = rng.integers(1, 9, g.nnz).astype(np.float64)
    g.setdiag(0)
    g.eliminate_zeros()
    return g


def _host(x):
    if isinstance(x, kleene.Matrix):
        x = x.to_dense(missing=0)
    return x.get() if isinstance(x, cupy.ndarray) else np.asarray(x)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_host_graph_on_the_gpu_agrees_with_the_cpu(name):
    g = _graph()
    want = _host(CALLS[name](g))
    got = CALLS[name](g, device="gpu")
    if np.ndim(want):  # arrays come back on the GPU
        assert isinstance(got, cupy.ndarray) or (
            isinstance(got, kleene.Matrix) and got.xp is cupy
        ), type(got)
    np.testing.assert_allclose(_host(got), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "connected_components"])
def test_gpu_graph_back_on_the_cpu(name):
    g = _graph(seed=9)
    on_gpu = kleene.Matrix.from_scipy(g).to("gpu")
    got = CALLS[name](on_gpu, device="cpu")
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, _host(CALLS[name](g)), rtol=1e-9, atol=1e-12)
