"""Dense APSP on a full matrix: Floyd-Warshall, blocked FW, recursive R-Kleene.

All three only call kleene operations on block views of one distance matrix D
(and of the predecessor matrix P): ``closure`` for a diagonal block and
``mxm_accumulate`` for C ⊕= A ⊗ B. In-place updates are valid because the
semiring's add is idempotent (Buluç et al. §2.2).

Each method is a plan of steps, ("star", block) or ("acc", a, b, c) (the blocked
and recursive plans also put independent steps on a side lane, ``kleene.engine.Lanes``),
whose costs in multiply-adds (s³ for an s×s closure, m·k·p for an m×k by k×p
product) are known before it runs: progress reports that share of the work.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from kleene.core import Matrix
from kleene.engine import Lanes, closure, mxm_accumulate
from kleene.errors import InvalidValue
from kleene.progress import progress_for

# ("star", r) or ("acc", a, b, c) with r a slice and a, b, c (rows, cols) slices; or
# ("on", lane, step): that step on a lane (kleene.engine.Lanes); ("fork", lane) /
# ("join", lane): the lane waits for the main lane's steps so far / the main lane
# for the lane's.
Step = tuple

# Peak memory of a dense closure, measured with tracemalloc on the CPU (n = 1000 and
# 2000, every method): up to 3.5 copies of D (its build from the graph, the block
# products' temporaries, the returned copy); with predecessors s + 48 bytes a pair
# for D of s bytes (P's build, P, its copy). FIXED_BYTES covers what does not grow
# with n (the CPU products work in slabs of 4 M entries).
FIXED_BYTES = 64 << 20


def bytes_per_pair(dtype, preds: bool, gpu: bool = False) -> int:
    """Peak bytes per (i, j) pair of a dense closure with D of ``dtype``.

    On the GPU CuPy's pool reuses the freed build temporaries: 3 copies, not the CPU's
    3.5 rounded up (the largest in-core closure, n = 65536 fp32, peaks there).
    """
    s = np.dtype(dtype).itemsize
    if preds:
        return 2 * s + 48
    return 3 * s if gpu else 4 * s


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


def _len(s: slice, n: int) -> int:
    return len(range(*s.indices(n)))


def step_cost(step: Step, n: int) -> int:
    """Multiply-adds of one step: s³ for a closure, m·k·p for a product."""
    if step[0] == "on":
        return step_cost(step[2], n)
    if step[0] in ("fork", "join"):
        return 0
    if step[0] == "star":
        return _len(step[1], n) ** 3
    (ar, ac), (_, bc) = step[1], step[2]
    return _len(ar, n) * _len(ac, n) * _len(bc, n)


def _blocked_plan(n: int, block: int) -> Iterator[Step]:
    """Katz & Kider's three passes per diagonal block with a look-ahead of one round.

    Round k's trailing update (pass 3) leaves out block row and column k + 1; the
    side lane brings those up to date for round k and then runs round k + 1's pivot
    closure, row and column (passes 1 and 2) beside it. Steps the lanes let run
    together write disjoint blocks and none reads what another writes, so any
    interleaving, and the plain issue order on the CPU, computes the same values;
    on the GPU the small pivot steps hide behind the big products instead of idling
    most SMs between rounds. Pass 3 also skips row and column k, which it cannot
    change (D_kk* ⊗ D_kk* = D_kk*), so no product reads a block it writes
    (tests/test_blocked_lookahead.py checks all of this)."""
    cuts = [slice(s, min(n, s + block)) for s in range(0, n, block)]
    al = slice(None)

    def around(*ks: int) -> list[slice]:
        """The index ranges left when the (adjacent) blocks ks are taken out."""
        lo, hi = cuts[min(ks)].start, cuts[max(ks)].stop
        return [r for r in (slice(0, lo), slice(hi, n)) if r.stop > r.start]

    def pivot(K: slice) -> Iterator[Step]:
        yield ("star", K)  # pass 1: the primary block
        yield ("acc", (K, K), (K, al), (K, al))  # pass 2: its row ...
        yield ("acc", (al, K), (K, K), (al, K))  # ... and its column

    yield from pivot(cuts[0])
    for k, K in enumerate(cuts):
        ahead = k + 1 < len(cuts)
        if ahead:
            N = cuts[k + 1]
            yield ("fork", "side")  # the side lane waits for round k - 1's pass 3
            for cs in around(k):  # round k's pass 3 on block row and column k + 1
                yield ("on", "side", ("acc", (N, K), (K, cs), (N, cs)))
            for rs in around(k, k + 1):  # (block (k + 1, k + 1) is in the row)
                yield ("on", "side", ("acc", (rs, K), (K, N), (rs, N)))
            for step in pivot(N):
                yield ("on", "side", step)
        rest = around(k, k + 1) if ahead else around(k)
        for rs in rest:  # pass 3: everything else, up to four rectangles around the band
            for cs in rest:  # (on one lane: splitting them over two lanes gained nothing)
                yield ("acc", (rs, K), (K, cs), (rs, cs))
        if ahead:
            yield ("join", "side")  # round k + 1's pass 3 waits for its pivot, row and column


def _recursive_plan(lo: int, hi: int, base: int, lower: bool = False) -> Iterator[Step]:
    """R-Kleene (Buluç Fig. 3) on rows/cols lo:hi, as a sequence of steps. ``lower``:
    the matrix is lower triangular (vertices in reverse topological order, as a
    condensation's components come from SciPy), so A12 is and stays empty and only
    A21 ← A22* A21 A11* is left beside the diagonal blocks: 2 products of 6."""
    if hi - lo <= base:
        yield ("star", slice(lo, hi))
        return
    half = (hi - lo) // 2
    if hi - lo >= 64:  # splits on multiples of 16: aligned views for the int8 tensor-core
        half = -(-half // 16) * 16  # products of Boolean closures (ops/cuda/boolean_mma.py)
    mid = lo + half
    one, two = slice(lo, mid), slice(mid, hi)
    yield from _recursive_plan(lo, mid, base, lower)  # A11 ← A11*
    # The two products of each pair below touch disjoint blocks (A12 and A21 with the
    # diagonal blocks only read): A21's on the side lane beside A12's.
    if not lower:
        yield ("fork", "side")
        yield ("on", "side", ("acc", (two, one), (one, one), (two, one)))  # A21 ← A21 A11
        yield ("acc", (one, one), (one, two), (one, two))  # A12 ← A11 A12
        yield ("join", "side")
        yield ("acc", (two, one), (one, two), (two, two))  # A22 ← A22 ⊕ A21 A12
    else:
        yield ("acc", (two, one), (one, one), (two, one))  # A21 ← A21 A11
    yield from _recursive_plan(mid, hi, base, lower)  # A22 ← A22*
    if not lower:
        yield ("fork", "side")
        yield ("on", "side", ("acc", (two, two), (two, one), (two, one)))  # A21 ← A22 A21
        yield ("acc", (one, two), (two, two), (one, two))  # A12 ← A12 A22
        yield ("join", "side")
        yield ("acc", (one, two), (two, one), (one, one))  # A11 ← A11 ⊕ A12 A21
    else:
        yield ("acc", (two, two), (two, one), (two, one))  # A21 ← A22 A21


def _plan(method: str, n: int, block: int) -> Iterator[Step]:
    if method == "blocked":
        return _blocked_plan(n, block)
    if method in ("recursive", "recursive-lower"):
        lower = method == "recursive-lower"
        return _recursive_plan(0, n, block, lower) if n else iter(())
    raise InvalidValue(f"no dense plan for method {method!r}")


@lru_cache(maxsize=64)  # a walk over every step of the plan: once per (method, n, block)
def work(method: str, n: int, block: int = 128) -> int:
    """Multiply-adds of a dense closure of n vertices (the units progress counts).

    Example
    -------
    >>> work("floyd-warshall", 10), work("recursive", 10, block=5)
    (1000, 1000)
    """
    if method == "floyd-warshall":
        return n**3
    return sum(step_cost(s, n) for s in _plan(method, n, block))


def _execute(sr, D: Matrix, P: Matrix | None, steps, progress, total: int, label: str) -> None:
    n = D.nrows
    blocks = _Blocks(D, P)
    lanes = Lanes(D.xp)

    def run(step: Step) -> None:
        if step[0] == "star":
            _star(sr, blocks, step[1])
        else:
            _acc(sr, blocks, *step[1:])

    with progress_for(progress, total, label) as bar:
        for step in steps:
            if step[0] == "fork":
                lanes.fork(step[1])
                continue
            if step[0] == "join":
                lanes.join(step[1])
                continue
            if step[0] == "on":
                with lanes.on(step[1]):
                    run(step[2])
            else:
                run(step)
            bar.step(step_cost(step, n))


def floyd_warshall(sr, D: Matrix, P: Matrix | None, progress=None) -> None:
    """n rank-1 updates D ⊕= D(:,k) ⊗ D(k,:) (Harish Alg. 6 / Buluç Fig. 2)."""
    n = D.nrows
    al = slice(None)
    steps = (("acc", (al, slice(k, k + 1)), (slice(k, k + 1), al), (al, al)) for k in range(n))
    _execute(sr, D, P, steps, progress, n**3, "floyd-warshall")


def blocked(sr, D: Matrix, P: Matrix | None, block: int, progress=None) -> None:
    """Katz & Kider's three passes per diagonal block: primary, its row and column, the rest."""
    n = D.nrows
    total = work("blocked", n, block)
    _execute(sr, D, P, _blocked_plan(n, block), progress, total, "blocked")


def recursive(
    sr, D: Matrix, P: Matrix | None, base: int, progress=None, *, lower: bool = False
) -> None:
    """R-Kleene (Buluç Fig. 3): in-place recursive closure on 2×2 blocks (``lower``:
    of a lower-triangular D, skipping the products of its empty upper blocks)."""
    n = D.nrows
    method = "recursive-lower" if lower else "recursive"
    total = work(method, n, base)
    _execute(sr, D, P, _plan(method, n, base), progress, total, method)
