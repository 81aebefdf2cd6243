"""Random geometric graph (Pathak et al.'s Graph 5): points in the unit square,
edges between points closer than a radius, weighted by their distance."""

from __future__ import annotations

import numpy as np

from kleene.backends import module_for
from kleene.core import Matrix


def geometric_graph(
    n: int, avg_degree: float = 6.0, *, radius: float | None = None, seed=0, device: str = "cpu"
) -> Matrix:
    """An undirected random geometric graph (both directions stored).

    ``radius`` defaults to the one giving ``avg_degree`` expected neighbours:
    n·π·r² = avg_degree. Built on the CPU with a k-d tree, then moved.

    Example
    -------
    >>> from kleene.generators import geometric_graph
    >>> A = geometric_graph(2000, seed=3)
    >>> A.shape
    (2000, 2000)
    """
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    pts = rng.random((int(n), 2))
    r = float(radius) if radius is not None else float(np.sqrt(avg_degree / (np.pi * max(n, 1))))
    pairs = cKDTree(pts).query_pairs(r, output_type="ndarray")
    i, j = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    w = np.linalg.norm(pts[i] - pts[j], axis=1).astype(np.float32)
    src, dst = np.concatenate([i, j]), np.concatenate([j, i])
    xp = module_for(device)
    return Matrix.from_edges(
        xp.asarray(src), xp.asarray(dst), xp.asarray(np.concatenate([w, w])), n
    )
