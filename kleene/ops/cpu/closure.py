"""NumPy primitives for closures: in-place accumulating products and the dense star.

``pred`` arrays carry, for each entry, the predecessor of its column vertex on the
path whose weight the entry holds (Floyd-Warshall's rule): when k strictly
improves C(i,j) through C(i,k) ⊗ B(k,j), C's pred becomes B's pred at (k,j).
"""

from __future__ import annotations

import numpy as np

from ...semiring import Semiring
from .primitives import mxm_dense


def _rank1(semiring, c, col, row, pc, prow):
    """c ⊕= col ⊗ row (one k), updating pc from prow where c strictly improves."""
    add, mul = semiring.add.op, semiring.mul
    cand = np.asarray(mul.func(col, row), dtype=c.dtype)
    new = np.asarray(add.func(c, cand), dtype=c.dtype)
    if pc is not None:
        better = new != c
        if better.any():
            pc[better] = np.broadcast_to(prow, c.shape)[better]
    c[...] = new


def mxm_dense_acc(semiring: Semiring, a, b, c, pb=None, pc=None) -> None:
    """C ⊕= A ⊗ B in place (arrays may be views, and may alias when ⊕ is idempotent).

    With ``pb``/``pc`` (int64 predecessor arrays shaped like b and c) it follows
    the rank-1 updates one k at a time so the predecessors stay consistent.
    """
    with np.errstate(all="ignore"):
        if pc is None and not (np.shares_memory(a, c) or np.shares_memory(b, c)):
            part = mxm_dense(semiring, a, b, c.dtype)
            c[...] = np.asarray(semiring.add.op.func(c, part), dtype=c.dtype)
            return
        for k in range(a.shape[1]):
            prow = None if pb is None else pb[k : k + 1, :].copy()
            _rank1(semiring, c, a[:, k : k + 1].copy(), b[k : k + 1, :].copy(), pc, prow)


def closure_dense(semiring: Semiring, a, one, pred=None) -> None:
    """A ← A* = I ⊕ A ⊕ A² ⊕ … in place (Floyd-Warshall), ``pred`` updated alongside."""
    n = a.shape[0]
    idx = np.arange(n)
    with np.errstate(all="ignore"):
        diag = np.asarray(semiring.add.op.func(a[idx, idx], np.full(n, one, a.dtype)), a.dtype)
        a[idx, idx] = diag
        for k in range(n):
            prow = None if pred is None else pred[k : k + 1, :].copy()
            _rank1(semiring, a, a[:, k : k + 1].copy(), a[k : k + 1, :].copy(), pred, prow)
