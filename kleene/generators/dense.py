"""Dense Erdős–Rényi graphs for APSP."""

from __future__ import annotations

import numpy as np

from kleene.core import Matrix

from ._random import rng_for, uniform


def erdos_renyi(
    n: int, p: float = 1.0, *, weights=(1.0, 100.0), dtype=np.float32, seed=0, device: str = "cpu"
) -> Matrix:
    """A dense-format directed G(n, p): each ordered pair i != j is an edge with
    probability p and a uniform weight in [weights[0], weights[1]). Absent
    entries are inf; the diagonal is empty. Generated where it will be used.

    Example
    -------
    >>> from kleene.generators import erdos_renyi
    >>> A = erdos_renyi(64, 0.5, seed=2)
    >>> A.format, A.shape
    ('dense', (64, 64))
    """
    xp, rng = rng_for(seed, device)
    w = uniform(rng, weights[0], weights[1], (n, n), dtype)
    if p < 1.0:
        w[rng.random((n, n)) >= p] = np.inf
    idx = xp.arange(n)
    w[idx, idx] = np.inf
    return Matrix.from_dense(w)
