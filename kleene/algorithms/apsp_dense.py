"""Dense APSP on a full matrix: Floyd-Warshall, blocked FW, recursive R-Kleene.

All three only call kleene operations on block views of one distance matrix D
(and of the predecessor matrix P): ``closure`` for a diagonal block and
``mxm_accumulate`` for C ⊕= A ⊗ B. In-place updates are valid because the
semiring's add is idempotent (Buluç et al. §2.2).
"""

from __future__ import annotations

from ..ops import Matrix, closure, mxm_accumulate
from ..progress import Progress


class _Blocks:
    """Block views of D (and of P), each made once: the recursion revisits blocks, and
    at n = 8192 it issues hundreds of small products whose host time adds up."""

    def __init__(self, D: Matrix, P: Matrix | None):
        self.D, self.P, self._made = D, P, {}

    def __call__(self, r: slice, c: slice):
        key = (r.start, r.stop, c.start, c.stop)
        pair = self._made.get(key)
        if pair is None:
            pb = None if self.P is None else self.P.block(r, c)
            pair = self._made[key] = (self.D.block(r, c), pb)
        return pair


def _acc(sr, blocks: _Blocks, a, b, c):
    """D[c] ⊕= D[a] ⊗ D[b] on block coordinates a, b, c = (rows, cols) slices."""
    A, _ = blocks(*a)
    B, PB = blocks(*b)
    C, PC = blocks(*c)
    mxm_accumulate(A, B, C, sr, pred_b=PB, pred_c=PC)


def _star(sr, blocks: _Blocks, r: slice):
    Dk, Pk = blocks(r, r)
    closure(Dk, sr, out=Dk, pred=Pk)


def floyd_warshall(sr, D: Matrix, P: Matrix | None, progress=None) -> None:
    """n rank-1 updates D ⊕= D(:,k) ⊗ D(k,:) (Harish Alg. 6 / Buluç Fig. 2)."""
    n = D.nrows
    bar = Progress(progress, n, "floyd-warshall")
    everything = slice(None)
    blocks = _Blocks(D, P)
    for k in range(n):
        kk = slice(k, k + 1)
        _acc(sr, blocks, (everything, kk), (kk, everything), (everything, everything))
        bar.step()


def blocked(sr, D: Matrix, P: Matrix | None, block: int, progress=None) -> None:
    """Katz & Kider's three passes per diagonal block: primary, its row and column, the rest."""
    n = D.nrows
    starts = range(0, n, block)
    bar = Progress(progress, len(starts), "blocked")
    al = slice(None)
    blocks = _Blocks(D, P)
    for s in starts:
        k = slice(s, min(n, s + block))
        _star(sr, blocks, k)  # pass 1: the primary block
        _acc(sr, blocks, (k, k), (k, al), (k, al))  # pass 2: its row ...
        _acc(sr, blocks, (al, k), (k, k), (al, k))  # ... and its column
        _acc(sr, blocks, (al, k), (k, al), (al, al))  # pass 3: everything else
        bar.step()


def recursive(sr, D: Matrix, P: Matrix | None, base: int, progress=None) -> None:
    """R-Kleene (Buluç Fig. 3): in-place recursive closure on 2×2 blocks."""
    n = D.nrows
    bar = Progress(progress, max(1, -(-n // base)), "recursive")
    blocks = _Blocks(D, P)

    def rk(lo: int, hi: int) -> None:
        if hi - lo <= base:
            _star(sr, blocks, slice(lo, hi))
            bar.step()
            return
        mid = lo + (hi - lo) // 2
        one, two = slice(lo, mid), slice(mid, hi)
        rk(lo, mid)  # A11 ← A11*
        _acc(sr, blocks, (one, one), (one, two), (one, two))  # A12 ← A11 A12
        _acc(sr, blocks, (two, one), (one, one), (two, one))  # A21 ← A21 A11
        _acc(sr, blocks, (two, one), (one, two), (two, two))  # A22 ← A22 ⊕ A21 A12
        rk(mid, hi)  # A22 ← A22*
        _acc(sr, blocks, (two, two), (two, one), (two, one))  # A21 ← A22 A21
        _acc(sr, blocks, (one, two), (two, two), (one, two))  # A12 ← A12 A22
        _acc(sr, blocks, (one, two), (two, one), (one, one))  # A11 ← A11 ⊕ A12 A21

    if n:
        rk(0, n)
