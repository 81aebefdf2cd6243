"""Multi-source BFS on dense frontiers (``bfs(G, sources, method="dense")``) against
the sparse multi-source kernels and SciPy's BFS, on the CPU back end (the GPU suite
runs the same on tensor cores: tests/gpu/test_boolean_mma_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import kleene
from kleene.algorithms import dense_frontiers


def _graph(n: int, density: float, seed: int):
    rng = np.random.default_rng(seed)
    m = max(1, int(density * n * n))
    return sp.csr_matrix((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))


@pytest.mark.parametrize("n", [1, 2, 17, 64, 250])
@pytest.mark.parametrize("density", [0.0, 0.005, 0.05, 0.3])
@pytest.mark.parametrize("directed", [True, False])
def test_dense_levels_equal_sparse_and_scipy(n, density, directed):
    G = _graph(n, density, seed=n)
    rng = np.random.default_rng(n + 1)
    sources = list(rng.integers(0, n, 9)) + [0, 0]  # repeats allowed
    got = kleene.bfs(G, sources, method="dense", directed=directed)
    assert got.dtype == np.int64 and got.shape == (len(sources), n)
    np.testing.assert_array_equal(got, kleene.bfs(G, sources, directed=directed))
    hops = shortest_path(G, unweighted=True, directed=directed, indices=sources)
    np.testing.assert_array_equal(got, np.where(np.isinf(hops), -1, hops).astype(np.int64))


def test_single_source_and_errors():
    G = _graph(40, 0.05, seed=3)
    np.testing.assert_array_equal(kleene.bfs(G, 5, method="dense"), kleene.bfs(G, 5))
    with pytest.raises(ValueError, match="levels only"):
        kleene.bfs(G, [1, 2], method="dense", return_predecessors=True)
    with pytest.raises(IndexError, match="out of range"):
        kleene.bfs(G, [1, 40], method="dense")


def test_auto_stays_sparse_on_the_cpu():
    A = kleene.Matrix.from_scipy(_graph(100, 0.5, seed=1))
    assert not dense_frontiers.dense_frontiers_win(A, 1000)  # the CPU: never
