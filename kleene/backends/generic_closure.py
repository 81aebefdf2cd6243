"""Closure primitives written once over any back end's ``binary`` and ``mxm_dense``.

The CPU back end uses these as they are; a back end may ship fused kernels
under the same names (``mxm_dense_acc``, ``closure_dense``), which win.
"""

from __future__ import annotations

from kleene.semiring import Semiring

from .device import array_module
from .memory import overlaps  # also used from here by ops/closure.py


def _rank1(be, semiring, c, col, row, pc, prow):
    """c ⊕= col ⊗ row (one k); pc takes prow where c strictly improves."""
    xp = array_module(c)
    cand = be.binary(semiring.mul, col, row, c.dtype)
    new = be.binary(semiring.add.op, c, cand, c.dtype)
    if pc is not None:
        pc[...] = xp.where(new != c, xp.broadcast_to(prow, c.shape), pc)
    c[...] = new


def mxm_dense_acc(be, semiring: Semiring, a, b, c, pb=None, pc=None) -> None:
    """C ⊕= A ⊗ B in place; rank-1 steps when predecessors or aliasing need them."""
    if pc is None and not (overlaps(a, c) or overlaps(b, c)):
        part = be.mxm_dense(semiring, a, b, c.dtype)
        c[...] = be.binary(semiring.add.op, c, part, c.dtype)
        return
    for k in range(a.shape[1]):
        prow = None if pb is None else pb[k : k + 1, :].copy()
        _rank1(be, semiring, c, a[:, k : k + 1].copy(), b[k : k + 1, :].copy(), pc, prow)


def closure_dense(be, semiring: Semiring, a, one, pred=None) -> None:
    """A ← A* in place: diagonal ⊕= one, then Floyd-Warshall's n rank-1 steps."""
    xp = array_module(a)
    n = a.shape[0]
    diag = xp.diagonal(a).copy()
    ones = xp.full(n, one, dtype=a.dtype)
    idx = xp.arange(n)
    a[idx, idx] = be.binary(semiring.add.op, diag, ones, a.dtype)
    for k in range(n):
        prow = None if pred is None else pred[k : k + 1, :].copy()
        _rank1(be, semiring, a, a[:, k : k + 1].copy(), a[k : k + 1, :].copy(), pred, prow)
