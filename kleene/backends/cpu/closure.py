"""Fused dense closure primitives on the CPU, compiled with Numba.

The CPU twins of ``kleene/backends/cuda/dense.py`` and ``cuda/closure.py``, with the
signatures of ``kleene/engine/primitives.md``:

- ``mxm_dense_acc(semiring, a, b, c, pb=None, pc=None)``: C ⊕= A ⊗ B in place;
- ``closure_dense(semiring, a, one, pred=None)``: A ← A* in place.

They compile where a loop of compare-and-selects is exact: an add of min or max and
a multiply of tplus (a float add; on integers the saturating sum of
``semiring/_funcs.tplus``), min, max or times (floats), on float64, float32, int64
and int32, and Boolean semirings of lor/land/min/max (run as max/min on the bool
array's bytes): min_plus, max_plus, max_min, min_max, max_times, lor_land and any
user semiring built of those operators. Anything else (other operators, other or
mixed dtypes, predecessors that are not int64) runs the composed form of
``kleene.backends.generic_closure``, so these are drop-ins for it.

What is computed, exactly:

- Without overlap, ``mxm_dense_acc`` equals the composed form bit for bit, the
  predecessors too: each C(i, j) meets its candidates A(i, k) ⊗ B(k, j) in increasing
  k and takes one only where it is strictly better (a NaN candidate never is, as in
  ``fmin``/``fmax``), so ``pc`` names the first k reaching the final value: the
  rank-1 rule of ``closure_generic``. A min-plus candidate is one rounded add, as in
  NumPy. Rows of C holding NaN (which ``fmin`` replaces) run the composed form.
- Operands that overlap C (or ``pc``) are copied first: the product is C ⊕= A₀ ⊗ B₀
  on the values before the call, whatever the schedule (deterministic for any number
  of threads). Where the closure algorithms overlap operands (a closed block times
  its row or column: A12 ← A11* A12, Buluç §2.2; blocked Floyd-Warshall's passes)
  that is the composed form's in-place rank-1 result exactly in exact arithmetic,
  predecessors included; float sums may round differently.
- ``closure_dense`` up to ``FW_LIMIT`` rows is Floyd-Warshall in one loop, identical
  to the composed form (predecessors, ties and cycles better than ``one`` included).
  Larger blocks run Katz & Kider's three passes over ``FW_BLOCK`` rows on the product
  kernel: the same closure, float sums may round differently, predecessors may name
  another equally good path. A matrix holding NaN runs the composed form.

The loops: four rows of C against one row of B (one load of B feeds four
candidates) over a panel of ``_NC`` columns and ``_KC`` rows of B, so the innermost
loop is a contiguous compare-and-select that LLVM vectorises (no fast-math: the
strict compare is the exact rule). A k where the four entries of A are the
semiring's zero, which can never improve C, is skipped. Threads: Python threads
over row ranges of C, each running the compiled loop without the GIL (``nogil``),
so there is one compile per (add, multiply) kind and dtype for the product and one
for Floyd-Warshall, and none for a parallel runtime. Compiled on first use, cached
on disk (``cache=True``).

Numba is optional: without it ``mxm_dense_acc`` and ``closure_dense`` are None, so a
back end exporting them has no fused closures and the composed forms run.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.lib.stride_tricks import as_strided

from kleene.errors import DimensionMismatch, InvalidValue
from kleene.semiring import binary as _ops

from .primitives import binary

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None

# add codes
_ADD_MIN, _ADD_MAX = 0, 1
# multiply codes
_MUL_PLUS, _MUL_TPLUS, _MUL_MIN, _MUL_MAX, _MUL_TIMES = 0, 1, 2, 3, 4

FW_LIMIT = 256  # closure_dense runs one Floyd-Warshall loop up to this many rows
FW_BLOCK = 128  # the diagonal blocks of the blocked closure beyond it
# A product runs over panels of _NC columns of C and _KC rows of B: four rows of C
# (4 x 512 x 8 B = 16 KiB, twice that with predecessors) stay in L1 while B's panel
# (512 KiB) stays in L2 for all the row tiles. 1024 columns spill L1 with predecessors;
# the k panel (64, 128, all of K) made no measurable difference.
_NC = 512
_KC = 128
_MIN_THREADED = 1 << 21  # multiply-adds below which a product runs on the calling thread
_CHUNKS_PER_THREAD = 2  # row ranges per thread (balance on a busy machine)

_NUMERIC = tuple(np.dtype(t) for t in (np.float64, np.float32, np.int64, np.int32))
_BOOL = np.dtype(np.bool_)


# ---- the compiled loops ---------------------------------------------------------------


def _mul(code, x, y, lo, hi):
    """x ⊗ y; ``code`` is a compile-time constant, so one branch survives.

    _MUL_TPLUS is kleene's saturating integer sum (semiring/_funcs.tplus): hi wins,
    then lo, then sums past a bound clamp to it.
    """
    if code == _MUL_PLUS:
        return x + y
    if code == _MUL_TPLUS:
        if x == hi or y == hi:
            return hi
        if x == lo or y == lo:
            return lo
        if y > 0 and x > hi - y:
            return hi
        if y < 0 and x < lo - y:
            return lo
        return x + y
    if code == _MUL_MIN:  # fmin: a NaN operand gives the other (x != x folds on integers)
        return y if y < x or x != x else x
    if code == _MUL_MAX:
        return y if y > x or x != x else x
    return x * y


def _better(code, x, c):
    """Is candidate x strictly better than c? (x NaN: never, as fmin/fmax keep c.)"""
    if code == _ADD_MIN:
        return x < c
    return x > c


def _tile4(
    ADD,
    MUL,
    SKIP,
    a,
    lda,
    b,
    ldb,
    c,
    ldc,
    pb,
    ldpb,
    pc,
    ldpc,
    rows,
    k0,
    k1,
    j0,
    w,
    zero,
    lo,
    hi,
    track,
):
    """C[r, j0:j0+w] ⊕= A[r, k0:k1] ⊗ B[k0:k1, j0:j0+w] for the four rows r of ``rows``,
    k increasing; one load of B feeds four candidates. A row may repeat (the last
    tile of an odd count): the repeat sees its own update and changes nothing."""
    r0, r1, r2, r3 = rows
    c0 = c[r0 * ldc + j0 : r0 * ldc + j0 + w]
    c1 = c[r1 * ldc + j0 : r1 * ldc + j0 + w]
    c2 = c[r2 * ldc + j0 : r2 * ldc + j0 + w]
    c3 = c[r3 * ldc + j0 : r3 * ldc + j0 + w]
    if track:
        p0 = pc[r0 * ldpc + j0 : r0 * ldpc + j0 + w]
        p1 = pc[r1 * ldpc + j0 : r1 * ldpc + j0 + w]
        p2 = pc[r2 * ldpc + j0 : r2 * ldpc + j0 + w]
        p3 = pc[r3 * ldpc + j0 : r3 * ldpc + j0 + w]
    for k in range(k0, k1):
        a0 = a[r0 * lda + k]
        a1 = a[r1 * lda + k]
        a2 = a[r2 * lda + k]
        a3 = a[r3 * lda + k]
        if SKIP and a0 == zero and a1 == zero and a2 == zero and a3 == zero:
            continue
        br = b[k * ldb + j0 : k * ldb + j0 + w]
        if track:
            pr = pb[k * ldpb + j0 : k * ldpb + j0 + w]
            for j in range(w):
                bj = br[j]
                pj = pr[j]
                x = _mul(MUL, a0, bj, lo, hi)
                if _better(ADD, x, c0[j]):
                    c0[j] = x
                    p0[j] = pj
                x = _mul(MUL, a1, bj, lo, hi)
                if _better(ADD, x, c1[j]):
                    c1[j] = x
                    p1[j] = pj
                x = _mul(MUL, a2, bj, lo, hi)
                if _better(ADD, x, c2[j]):
                    c2[j] = x
                    p2[j] = pj
                x = _mul(MUL, a3, bj, lo, hi)
                if _better(ADD, x, c3[j]):
                    c3[j] = x
                    p3[j] = pj
        else:
            for j in range(w):
                bj = br[j]
                x = _mul(MUL, a0, bj, lo, hi)
                if _better(ADD, x, c0[j]):
                    c0[j] = x
                x = _mul(MUL, a1, bj, lo, hi)
                if _better(ADD, x, c1[j]):
                    c1[j] = x
                x = _mul(MUL, a2, bj, lo, hi)
                if _better(ADD, x, c2[j]):
                    c2[j] = x
                x = _mul(MUL, a3, bj, lo, hi)
                if _better(ADD, x, c3[j]):
                    c3[j] = x


def _rows4(i, end):
    """Rows i..i+3, the last one repeated past ``end``."""
    last = end - 1
    return (i, min(i + 1, last), min(i + 2, last), min(i + 3, last))


def _any_nan(c, ldc, r0, r1, p):
    """Does C[r0:r1, :p] hold NaN? (always False on integers: folded away)"""
    found = False
    for i in range(r0, r1):
        cr = c[i * ldc : i * ldc + p]
        for j in range(p):
            found |= cr[j] != cr[j]
    return found


def _make_kernels(ADD: int, MUL: int, SKIP: bool):
    """The product and Floyd-Warshall loops of one (add, multiply) kind.

    ADD, MUL and SKIP are constants of the closure: Numba freezes them into the
    compiled code (LLVM folds the branches on them) and keys its disk cache on them.
    """

    def acc(a, lda, b, ldb, c, ldc, pb, ldpb, pc, ldpc, r0, r1, K, p, zero, lo, hi, track):
        """C[r0:r1, :p] ⊕= A[r0:r1, :K] ⊗ B[:K, :p] on flat row-major buffers; returns
        False, having written nothing, if these rows of C hold NaN (fmin/fmax replace
        NaN: the caller runs the composed form on them)."""
        if _any_nan(c, ldc, r0, r1, p):
            return False
        for j0 in range(0, p, _NC):
            w = min(_NC, p - j0)
            for k0 in range(0, K, _KC):
                k1 = min(K, k0 + _KC)
                for i in range(r0, r1, 4):
                    _tile4(
                        ADD,
                        MUL,
                        SKIP,
                        a,
                        lda,
                        b,
                        ldb,
                        c,
                        ldc,
                        pb,
                        ldpb,
                        pc,
                        ldpc,
                        _rows4(i, r1),
                        k0,
                        k1,
                        j0,
                        w,
                        zero,
                        lo,
                        hi,
                        track,
                    )
        return True

    def fw(a, lda, pred, ldp, n, zero, lo, hi, track):
        """Floyd-Warshall on the n x n block at a[0] (row stride lda), in place: step k
        reads column k and row k as they were before it (the composed form's copies:
        a row's A(i, k) is read before the row changes, row k from a copy)."""
        row = np.empty(n, dtype=a.dtype)
        prow = np.empty(n if track else 1, dtype=pred.dtype)
        nil = n - n  # 0 as a run-time int: the call below then shares acc's compiled tile
        for k in range(n):
            for j in range(n):
                row[j] = a[k * lda + j]
            if track:
                for j in range(n):
                    prow[j] = pred[k * ldp + j]
            for i in range(0, n, 4):
                # B is the copied row: row stride 0, read at "row" k
                _tile4(
                    ADD,
                    MUL,
                    SKIP,
                    a,
                    lda,
                    row,
                    nil,
                    a,
                    lda,
                    prow,
                    nil,
                    pred,
                    ldp,
                    _rows4(i, n),
                    k,
                    k + 1,
                    nil,
                    n,
                    zero,
                    lo,
                    hi,
                    track,
                )

    jit = numba.njit(cache=True, nogil=True)
    return jit(acc), jit(fw)


if HAVE_NUMBA:
    _inline = numba.njit(cache=True, nogil=True)
    _mul, _better, _tile4 = _inline(_mul), _inline(_better), _inline(_tile4)
    _rows4, _any_nan = _inline(_rows4), _inline(_any_nan)

_KERNELS: dict = {}


def _kernels(spec):
    key = (spec.add, spec.mul, spec.skip)
    if key not in _KERNELS:
        _KERNELS[key] = _make_kernels(*key)
    return _KERNELS[key]


# ---- which semirings and dtypes run compiled ------------------------------------------


class _Spec:
    """How a (semiring, dtype) runs compiled: add and multiply codes, the dtype the
    loops see (bool as uint8), the semiring's zero when a row of A equal to it can be
    skipped, and the dtype's bounds (the saturating sum's infinities)."""

    __slots__ = ("add", "mul", "skip", "view", "zero", "lo", "hi")

    def __init__(self, add, mul, view):
        self.add, self.mul, self.view = add, mul, np.dtype(view)
        if self.view.kind == "f":
            self.lo, self.hi = self.view.type(-np.inf), self.view.type(np.inf)
        elif self.view == np.uint8:  # bool: False and True
            self.lo, self.hi = np.uint8(0), np.uint8(1)
        else:
            info = np.iinfo(self.view)
            self.lo, self.hi = self.view.type(info.min), self.view.type(info.max)
        # a zero row of A never improves C: zero ⊗ y is zero, NaN (ignored) or worse
        skip_min = add == _ADD_MIN and mul in (_MUL_PLUS, _MUL_TPLUS, _MUL_MAX)
        skip_max = add == _ADD_MAX and mul in (_MUL_PLUS, _MUL_MIN)
        self.skip = skip_min or skip_max
        self.zero = self.hi if add == _ADD_MIN else self.lo


def _spec(semiring, dtype) -> _Spec | None:
    """The compiled form of ``semiring`` on ``dtype``, or None (composed form)."""
    d = np.dtype(dtype)
    add, mul = semiring.add.op, semiring.mul
    if d == _BOOL:  # lor = max, land = min on {0, 1}
        codes = {_ops.lor: _ADD_MAX, _ops.max: _ADD_MAX, _ops.min: _ADD_MIN}
        muls = {_ops.land: _MUL_MIN, _ops.min: _MUL_MIN, _ops.max: _MUL_MAX}
        if add not in codes or mul not in muls:
            return None
        return _Spec(codes[add], muls[mul], np.uint8)
    if d not in _NUMERIC:
        return None
    if add is _ops.min:
        a = _ADD_MIN
    elif add is _ops.max:
        a = _ADD_MAX
    else:
        return None
    floating = d.kind == "f"
    if mul is _ops.tplus:
        m = _MUL_PLUS if floating else _MUL_TPLUS
    elif mul is _ops.plus and floating:
        m = _MUL_PLUS
    elif mul is _ops.times and floating:
        m = _MUL_TIMES
    elif mul is _ops.min:
        m = _MUL_MIN
    elif mul is _ops.max:
        m = _MUL_MAX
    else:
        return None
    return _Spec(a, m, d)


# ---- arrays as the loops see them -----------------------------------------------------


def _rowmajor(x):
    """(flat 1-D buffer from x's first element, row stride in elements), or None when
    x's rows are not contiguous."""
    rows, cols = x.shape
    item = x.itemsize
    s0, s1 = x.strides
    if cols > 1 and s1 != item:
        return None
    if rows <= 1:
        ld = cols
    elif s0 < 0 or s0 % item:
        return None
    else:
        ld = s0 // item
    span = (rows - 1) * ld + cols
    return as_strided(x, shape=(span,), strides=(item,)), ld


_TOO_HARD = getattr(np, "exceptions", np).TooHardError


def _overlap(x, y) -> bool:
    """Do x and y share memory? Exact for block views of one matrix (A11 and A12 do
    not, though their address ranges interleave); True where NumPy gives up."""
    try:
        return bool(np.shares_memory(x, y, max_work=10_000))
    except _TOO_HARD:  # pragma: no cover - exotic strides
        return True


class _Operand:
    """A 2-D array as the loops see it: ``flat`` (a 1-D buffer in the loops' dtype from
    the first element) and ``ld`` (its row stride); ``arr`` is the 2-D array behind it.

    An input (``writers`` given) that may overlap an output is copied, so it is read
    as it was before the call; any array whose rows are not contiguous goes through a
    contiguous copy, written back by ``done`` for an output."""

    def __init__(self, x, view, writers=()):
        self.x = x
        if not x.flags.writeable or any(_overlap(x, w) for w in writers if w is not None):
            x = np.array(x, order="C")  # (a read-only array would need a loop of its own)
        got = _rowmajor(x)
        if got is None:
            x = np.ascontiguousarray(x)
            got = _rowmajor(x)
        self.arr = x
        flat, self.ld = got
        self.flat = flat.view(view) if flat.dtype != view else flat

    def done(self):
        if self.arr is not self.x:
            self.x[...] = self.arr


_NO_PRED = np.zeros(1, dtype=np.int64)
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


_POOL_PID = 0


def _threads() -> int:
    """Threads a product may use: the CPUs this process may run on, at most
    ``NUMBA_NUM_THREADS`` (read from Numba's config: asking Numba's threading layer
    would start its own workers)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        n = os.cpu_count() or 1
    return max(1, min(n, int(numba.config.NUMBA_NUM_THREADS)))


def _pool() -> ThreadPoolExecutor:
    """The worker threads, made on first use (again in a forked child: the parent's
    threads do not exist there)."""
    global _POOL, _POOL_PID
    with _POOL_LOCK:
        if _POOL is None or _POOL_PID != os.getpid():
            _POOL = ThreadPoolExecutor(max_workers=_threads(), thread_name_prefix="kleene-cpu")
            _POOL_PID = os.getpid()
        return _POOL


def _row_ranges(m: int, work: int) -> list[tuple[int, int]]:
    """Row ranges of C, one job each (multiples of the 4-row tile): one range for a
    small product, else ``_CHUNKS_PER_THREAD`` per thread (balance on a busy machine)."""
    threads = _threads() if work >= _MIN_THREADED else 1
    parts = min(threads * _CHUNKS_PER_THREAD if threads > 1 else 1, max(1, m // 4))
    step = -(-m // parts)
    step += -step % 4
    return [(r, min(m, r + step)) for r in range(0, m, step)]


def _has_nan(x) -> bool:
    return x.dtype.kind == "f" and bool(np.isnan(x).any())


# ---- the primitives ---------------------------------------------------------------


def _generic_acc(semiring, a, b, c, pb, pc):
    from kleene.backends import cpu
    from kleene.backends import generic_closure as closure_generic

    return closure_generic.mxm_dense_acc(cpu, semiring, a, b, c, pb, pc)


def _generic_closure(semiring, a, one, pred):
    from kleene.backends import cpu
    from kleene.backends import generic_closure as closure_generic

    return closure_generic.closure_dense(cpu, semiring, a, one, pred)


def _check_preds(name, pb, pc, bshape, cshape):
    if (pb is None) != (pc is None):
        raise InvalidValue(f"{name}: pass both pb and pc, or neither")
    if pc is None:
        return
    if pb.shape != bshape or pc.shape != cshape:
        raise DimensionMismatch(
            f"{name}: pb is {pb.shape} (B is {bshape}), pc is {pc.shape} (C is {cshape})"
        )


def _acc(semiring, spec, a, b, c, pb, pc) -> None:
    """The compiled C ⊕= A ⊗ B (arguments checked)."""
    m, K = a.shape
    p = b.shape[1]
    if m == 0 or p == 0 or K == 0:
        return
    track = pc is not None
    i64 = np.dtype(np.int64)
    outs = (c, pc)
    A, B, C = _Operand(a, spec.view, outs), _Operand(b, spec.view, outs), _Operand(c, spec.view)
    if track:
        PB, PC = _Operand(pb, i64, outs), _Operand(pc, i64)
        preds = (PB.flat, PB.ld, PC.flat, PC.ld)
    else:
        preds = (_NO_PRED, 0, _NO_PRED, 0)
    acc = _kernels(spec)[0]
    args = (A.flat, A.ld, B.flat, B.ld, C.flat, C.ld, *preds)
    tail = (K, p, spec.zero, spec.lo, spec.hi, track)
    ranges = _row_ranges(m, m * K * p)
    if len(ranges) == 1:
        done = [acc(*args, 0, m, *tail)]
    else:
        pool = _pool()
        jobs = [pool.submit(acc, *args, r0, r1, *tail) for r0, r1 in ranges]
        done = [job.result() for job in jobs]
    for (r0, r1), ok in zip(ranges, done, strict=True):
        if not ok:  # NaN in these rows of C: the composed form (rows are independent)
            rows = slice(r0, r1)
            _generic_acc(
                semiring,
                A.arr[rows],
                B.arr,
                C.arr[rows],
                PB.arr if track else None,
                PC.arr[rows] if track else None,
            )
    C.done()
    if track:
        PC.done()


def _mxm_dense_acc(semiring, a, b, c, pb=None, pc=None) -> None:
    """C ⊕= A ⊗ B in place (primitives.md); ``pc[i, j] = pb[k, j]`` where C(i, j)
    strictly improves through k. Overlapping operands are read as they were before
    the call. Semirings and dtypes without a compiled form run the composed one.

    Example
    -------
    >>> import numpy as np
    >>> from kleene.semiring import min_plus
    >>> c = np.array([[9.0, 9.0]])
    >>> _mxm_dense_acc(min_plus, np.array([[1.0]]), np.array([[2.0, 10.0]]), c)
    >>> c.tolist()
    [[3.0, 9.0]]
    """
    if a.ndim != 2 or b.ndim != 2 or c.ndim != 2:
        raise InvalidValue("mxm_dense_acc: a, b and c must be 2-D")
    if a.shape[1] != b.shape[0] or (a.shape[0], b.shape[1]) != c.shape:
        raise DimensionMismatch(f"mxm_dense_acc: a is {a.shape}, b is {b.shape}, c is {c.shape}")
    _check_preds("mxm_dense_acc", pb, pc, b.shape, c.shape)
    spec = _spec(semiring, c.dtype) if HAVE_NUMBA else None
    compiled = (
        spec is not None
        and a.dtype == b.dtype == c.dtype
        and c.flags.writeable
        and (pc is None or (pb.dtype == pc.dtype == np.int64 and pc.flags.writeable))
    )
    if not compiled:
        return _generic_acc(semiring, a, b, c, pb, pc)
    _acc(semiring, spec, a, b, c, pb, pc)


def _closure_dense(semiring, a, one, pred=None) -> None:
    """A ← A* in place (primitives.md): diagonal ⊕= one, then Floyd-Warshall;
    ``pred`` (int64, like a) updated by the same rule. Up to ``FW_LIMIT`` rows the
    composed form's results exactly; beyond, Katz & Kider's blocked passes.

    Example
    -------
    >>> import numpy as np
    >>> from kleene.semiring import min_plus
    >>> d = np.array([[np.inf, 1.0], [2.0, np.inf]])
    >>> _closure_dense(min_plus, d, 0.0)
    >>> d.tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise DimensionMismatch(f"closure_dense: a must be square, got shape {a.shape}")
    if pred is not None and pred.shape != a.shape:
        raise DimensionMismatch(f"closure_dense: pred is {pred.shape}, a is {a.shape}")
    spec = _spec(semiring, a.dtype) if HAVE_NUMBA else None
    nan = _has_nan(a) or (a.dtype.kind == "f" and bool(np.isnan(one)))
    writable = a.flags.writeable and (pred is None or pred.flags.writeable)
    if spec is None or (pred is not None and pred.dtype != np.int64) or nan or not writable:
        return _generic_closure(semiring, a, one, pred)
    n = a.shape[0]
    if n == 0:
        return
    idx = np.arange(n)
    ones = np.full(n, one, dtype=a.dtype)
    a[idx, idx] = binary(semiring.add.op, np.diagonal(a).copy(), ones, a.dtype)
    if n <= FW_LIMIT:
        _fw_block(spec, a, pred)
        return
    A = _Operand(a, a.dtype)  # the passes run on views of a row-major array
    P = _Operand(pred, pred.dtype) if pred is not None else None
    _blocked(semiring, spec, A.arr, None if P is None else P.arr, FW_BLOCK)
    A.done()
    if P is not None:
        P.done()


def _fw_block(spec, a, pred) -> None:
    """Floyd-Warshall on a square block in one compiled loop (exact)."""
    track = pred is not None
    A = _Operand(a, spec.view)
    P = _Operand(pred, np.dtype(np.int64)) if track else None
    fp, ldp = (P.flat, P.ld) if track else (_NO_PRED, 0)
    fw = _kernels(spec)[1]
    fw(A.flat, A.ld, fp, ldp, a.shape[0], spec.zero, spec.lo, spec.hi, track)
    A.done()
    if track:
        P.done()


def _blocked(semiring, spec, a, pred, block: int) -> None:
    """Katz & Kider: per diagonal block, close it (pass 1), then its row and column
    (pass 2: products with the closed block), then everything (pass 3: the block's own
    rows and columns, already closed, come out the same but for rounding). Operands
    that overlap the block they update are copied by ``_acc``."""
    n = a.shape[0]
    track = pred is not None
    for s in range(0, n, block):
        k = slice(s, min(n, s + block))
        _fw_block(spec, a[k, k], pred[k, k] if track else None)
        star = a[k, k].copy()
        pstar = pred[k, k].copy() if track else None
        prow = pred[k, :] if track else None
        _acc(semiring, spec, star, a[k, :], a[k, :], prow, prow)
        _acc(semiring, spec, a[:, k], star, a[:, k], pstar, pred[:, k] if track else None)
        _acc(semiring, spec, a[:, k], a[k, :], a, prow, pred)


# None without Numba: the back end then has no fused closures (the composed forms run).
mxm_dense_acc = _mxm_dense_acc if HAVE_NUMBA else None
closure_dense = _closure_dense if HAVE_NUMBA else None
