"""Harish & Narayanan's test graphs: uniform random and scale-free, weights 1..10."""

from __future__ import annotations

import numpy as np

from kleene.core import Matrix

from ._random import integers, rng_for


def random_graph(
    n: int, avg_degree: int = 6, *, weights=(1, 10), seed=0, device: str = "cpu"
) -> Matrix:
    """Harish's random graph: n vertices, n·avg_degree directed edges with uniformly
    random endpoints and integer weights in [weights[0], weights[1]] (as float32).

    Example
    -------
    >>> from kleene.generators import random_graph
    >>> A = random_graph(1000, seed=1)
    >>> A.shape, A.nvals <= 6000
    ((1000, 1000), True)
    """
    xp, rng = rng_for(seed, device)
    m = int(n) * int(avg_degree)
    src = integers(xp, rng, 0, n, m)
    dst = integers(xp, rng, 0, n, m)
    w = integers(xp, rng, weights[0], weights[1] + 1, m).astype(np.float32)
    return Matrix.from_edges(src, dst, w, n)


def scale_free_graph(
    n: int,
    avg_degree: int = 6,
    *,
    hub_fraction: float = 0.001,
    max_degree: int = 1000,
    weights=(1, 10),
    seed=0,
    device: str = "cpu",
) -> Matrix:
    """Harish's scale-free graph: 0.1% of the vertices are hubs with out-degree up to
    ``max_degree``, the rest share the remaining edges so the average is ``avg_degree``.

    Example
    -------
    >>> from kleene.generators import scale_free_graph
    >>> A = scale_free_graph(10_000, seed=1)
    >>> 4 < A.nvals / A.nrows <= 6
    True
    """
    xp, rng = rng_for(seed, device)
    hubs = max(1, int(n * hub_fraction))
    hub_deg = integers(xp, rng, max(1, max_degree // 2), max_degree + 1, hubs)
    rest = max(0, n * avg_degree - int(hub_deg.sum()))
    other = n - hubs
    base = rest // max(other, 1)
    deg = xp.concatenate([hub_deg, xp.full(other, base, np.int64)])
    extra = rest - base * other
    if extra > 0 and other > 0:  # spread the remainder over random non-hubs
        deg[hubs + integers(xp, rng, 0, other, extra)] += 1
    deg = deg[rng.permutation(n)] if hasattr(rng, "permutation") else deg
    offsets = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(deg)])
    m = int(offsets[-1])
    src = xp.searchsorted(offsets[1:], xp.arange(m), side="right").astype(np.int64)
    dst = integers(xp, rng, 0, n, m)
    w = integers(xp, rng, weights[0], weights[1] + 1, m).astype(np.float32)
    return Matrix.from_edges(src, dst, w, n)
