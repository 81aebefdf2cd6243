"""What a worker does with its row block of a partitioned graph (``partitioned.py``).

A block is a ``kleene.Matrix`` of the rows ``lo .. hi - 1`` of A (or of Aᵀ for a
pull) with global column ids, made on its worker by :func:`to_block` and kept there,
on that worker's CPU or GPU. Each round's task reads its block and the slice of the
frontier or vector that falls in it, and returns only what the client must merge,
as host (NumPy) arrays: the vertices a frontier reaches, the best candidate distance
per reached vertex, a range of the next PageRank vector. Each is one kleene product
of a sparse frontier with the block (the semiring says what is merged), so a GPU
block runs the GPU kernels. None of them writes what it was given.
"""

from __future__ import annotations

import numpy as np

from kleene.core import Matrix, Vector
from kleene.ops import apply, cache_transpose, mxv, vxm

from .failures import named_task


def _host(a) -> np.ndarray:
    return a.get() if hasattr(a, "get") else np.asarray(a)


@named_task
def to_block(rows, device: str, frontier_rows: bool = True):
    """The SciPy CSR ``rows`` as a kleene Matrix on this worker's ``device``. A block of
    ``frontier_rows`` (what :func:`reach` and :func:`relax` read) keeps its transpose
    on a GPU (``cache_transpose``): a round whose frontier holds a sixteenth of the
    block's rows or more pulls through it, and the first such round would otherwise
    build it (and grow the device's memory pool) inside a call. Aᵀ's rows for
    :func:`pull` are read as they are, and the CPU pushes from a frontier with no
    mask: neither has a use for it."""
    block = Matrix.from_scipy(rows).to(device)
    return cache_transpose(block) if frontier_rows and device == "gpu" else block


def packed(ids, n: int, xp):
    """A set of ids in 0..n-1 as the smaller of two forms: the ids (int64, 8 bytes
    each) or ("bits", n/8 bytes of marks, ``np.packbits``'s order), made with ``xp``
    where the ids are. A large BFS level is most of n: its marks are 64 times smaller
    than its ids, which cross the workers' links and the client's every round."""
    if int(ids.size) * 64 < n:
        return _host(ids).astype(np.int64)
    mark = xp.zeros(n, dtype=np.bool_)
    mark[ids] = True
    return ("bits", _host(xp.packbits(mark)))


def unpacked(part, n: int, xp=np):
    """The ids of :func:`packed`'s ``part`` (sorted where it was marks), with ``xp``."""
    if isinstance(part, tuple):
        bits = xp.unpackbits(xp.asarray(part[1]))[:n]
        if xp is np:  # NumPy finds nonzeros of bools about three times as fast as of bytes
            bits = bits.view(np.bool_)
        return xp.flatnonzero(bits)
    return xp.asarray(part)


def _frontier(block: Matrix, lo: int, frontier, values=None):
    """The part of a frontier in this block's rows as a sparse vector over them (its
    values, or True each): global ids, or :func:`packed` marks over the block's rows."""
    xp = block.xp
    if isinstance(frontier, tuple):
        ids = unpacked(frontier, block.nrows, xp)
    else:
        ids = xp.asarray(np.asarray(frontier, dtype=np.int64) - lo)
    vals = xp.ones(ids.size, dtype=np.bool_) if values is None else xp.asarray(values)
    return Vector.from_coo(ids, vals, block.nrows)


@named_task
def reach(block: Matrix, lo: int, frontier):
    """The distinct heads of the edges out of ``frontier`` (global ids in this block),
    :func:`packed`."""
    f = _frontier(block, lo, frontier)
    heads, _ = vxm(f, block, "any_pair").to_coo()
    return packed(heads, block.ncols, block.xp)


@named_task
def relax(block: Matrix, lo: int, frontier, dist):
    """(heads, least dist[tail] + w over the edges out of ``frontier`` into each head):
    one Bellman-Ford relaxation of this block's part of the frontier (``min_plus``)."""
    f = _frontier(block, lo, frontier, np.asarray(dist, dtype=np.float64))
    heads, cand = vxm(f, block, "min_plus").to_coo()
    return _host(heads).astype(np.int64), _host(cand).astype(np.float64)


@named_task
def pull(block: Matrix, y):
    """This block's rows of Aᵀ·y (its values the weights, or ones for the pattern)."""
    v = Vector.from_dense(block.xp.asarray(np.asarray(y, dtype=np.float64)), missing=None)
    return _host(mxv(block, v, "plus_times").to_dense(missing=0.0))


@named_task
def unit_values(block: Matrix) -> Matrix:
    """``block``'s pattern with every stored value 1.0: PageRank's unweighted rows of
    Aᵀ, from A's own rows where A is symmetric."""
    return apply(block, "second", right=1.0)


__all__ = ["packed", "pull", "reach", "relax", "to_block", "unit_values", "unpacked"]
