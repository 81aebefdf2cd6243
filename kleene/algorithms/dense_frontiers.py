"""Multi-source BFS levels on dense frontiers: each level one Boolean product F · A.

With k sources the frontiers form a k × n Boolean matrix F; the next level is
(F · A) ∧ ¬visited over (or, and) with A the n × n adjacency as a dense bool
matrix. On the GPU that product runs on the int8 tensor cores
(``kleene/backends/cuda/boolean_mma.py``): 2·k·n² operations a level whatever the
frontier, against the sparse kernels' work proportional to the edges the
frontiers touch. It wins on dense graphs (few levels, many edges a vertex) and
loses on sparse ones; ``bfs(..., method="auto")`` with a list of sources picks it
by :func:`dense_frontiers_win` (a measured crossover, docs/algorithms.md).
"""

from __future__ import annotations

import numpy as np

from kleene.backends import bool_tensor_cores
from kleene.core import Matrix
from kleene.ops import mxm

# Dense frontiers when the graph has at least this share of all n² pairs as edges
# and at least DENSE_MIN_SOURCES sources: the dense product's work does not depend on
# the edges, the sparse kernels' grows with them, and on random digraphs they cross
# near a density of 0.1 (``benchmarks/bench_apsp.py --frontiers`` measures it).
DENSE_MIN_DENSITY = 0.1
DENSE_MIN_SOURCES = 64
# Largest n whose dense bool adjacency (n² bytes) auto will build: 1 GiB.
DENSE_MAX_N = 32768


def dense_frontiers_win(A: Matrix, k: int) -> bool:
    """Whether ``method="auto"`` runs k sources on dense frontiers: on the GPU with
    tensor cores, k >= DENSE_MIN_SOURCES, n <= DENSE_MAX_N and density >=
    DENSE_MIN_DENSITY."""
    n = A.nrows
    if A.xp is np or not bool_tensor_cores() or k < DENSE_MIN_SOURCES or not 0 < n <= DENSE_MAX_N:
        return False
    return A.nvals >= DENSE_MIN_DENSITY * n * n


def levels_dense(A: Matrix, sources) -> object:
    """BFS levels (k, n) int64 from each of ``sources`` (-1 unreachable) by dense
    Boolean products, on A's device. n is padded to a multiple of 16 (isolated
    vertices) so the products stay on the tensor cores' aligned path.

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> from kleene.algorithms.dense_frontiers import levels_dense
    >>> G = kleene.Matrix.from_scipy(sp.csr_matrix(([1, 1], ([0, 1], [1, 2])), shape=(3, 3)))
    >>> levels_dense(G, [0, 2]).tolist()
    [[0, 1, 2], [-1, -1, 0]]
    """
    xp, n = A.xp, A.nrows
    srcs = np.asarray(sources, dtype=np.int64).reshape(-1)
    k = srcs.size
    size = n + (-n) % 16
    adj = xp.zeros((size, size), dtype=bool)
    rows, cols, _ = A.to_coo()
    adj[rows, cols] = True
    del rows, cols
    M = Matrix.from_dense(adj, missing=None)
    del adj
    levels = xp.full((k, size), -1, dtype=np.int64)
    at = xp.arange(k)
    s = xp.asarray(srcs)
    frontier = xp.zeros((k, size), dtype=bool)
    frontier[at, s] = True
    levels[at, s] = 0
    visited = frontier.copy()
    depth = 0
    while True:
        reached = mxm(Matrix.from_dense(frontier, missing=None), M, "lor_land").to_dense(
            missing=False
        )
        frontier = reached & ~visited
        if not bool(frontier.any()):
            break
        depth += 1
        levels[frontier] = depth
        visited |= frontier
    return xp.ascontiguousarray(levels[:, :n])
