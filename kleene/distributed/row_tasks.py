"""What a worker does with its row block of a partitioned graph (``partitioned.py``).

Each task reads one block (a SciPy CSR of the rows ``lo .. hi - 1`` of A, or of Aᵀ
for a pull, with global column ids) and the slice of the frontier or vector that
falls in it, and returns only what the client must merge: the vertices a frontier
reaches, the best candidate distance per reached vertex, a range of the next
PageRank vector. None of them writes what it was given.
"""

from __future__ import annotations

import numpy as np

from .failures import named_task


def _rows(block, local):
    """(tails as local row ids repeated per edge, heads, weights) of the rows ``local``."""
    sub = block[local]
    tails = np.repeat(np.arange(local.size), np.diff(sub.indptr))
    return tails, sub.indices, sub.data


@named_task
def reach(block, lo: int, frontier):
    """The distinct heads of the edges out of ``frontier`` (global ids in this block)."""
    _, heads, _ = _rows(block, np.asarray(frontier, dtype=np.int64) - lo)
    return np.unique(heads)


@named_task
def relax(block, lo: int, frontier, dist):
    """(heads, least dist[tail] + w over the edges out of ``frontier`` into each head):
    one Bellman-Ford relaxation of this block's part of the frontier."""
    tails, heads, w = _rows(block, np.asarray(frontier, dtype=np.int64) - lo)
    if heads.size == 0:
        return heads.astype(np.int64), np.zeros(0)
    cand = np.asarray(dist, dtype=np.float64)[tails] + w
    order = np.lexsort((cand, heads))  # by head, the least candidate first
    heads, cand = heads[order], cand[order]
    first = np.flatnonzero(np.r_[True, heads[1:] != heads[:-1]])
    return heads[first].astype(np.int64), cand[first]


@named_task
def pull(block, y):
    """This block's rows of Aᵀ·y (its values the weights, or ones for the pattern)."""
    return block @ np.asarray(y, dtype=np.float64)


__all__ = ["pull", "reach", "relax"]
