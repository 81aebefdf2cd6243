"""Road-like 2-D grid graphs."""

from __future__ import annotations

import numpy as np

from ..ops import Matrix
from ._random import integers, rng_for


def grid_graph(rows: int, cols: int, *, weights=(1, 1000), seed=0, device: str = "cpu") -> Matrix:
    """A rows×cols 4-neighbour grid, each street in both directions with one random
    integer weight in [weights[0], weights[1]] (float32). Vertex (r, c) is r·cols + c.

    Example
    -------
    >>> from kleene.generators import grid_graph
    >>> A = grid_graph(3, 4)
    >>> A.nvals  # 2·(3·3 + 2·4) directed edges
    34
    """
    xp, rng = rng_for(seed, device)
    ids = xp.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    a = xp.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    b = xp.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    w = integers(xp, rng, weights[0], weights[1] + 1, a.size).astype(np.float32)
    return Matrix.from_edges(xp.concatenate([a, b]), xp.concatenate([b, a]),
                             xp.concatenate([w, w]), rows * cols)  # fmt: skip
