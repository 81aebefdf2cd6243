"""Compiled CPU kernels generated from the algebra: masked SpMV (pull and push) and
SpGEMM, the CPU counterpart of the CUDA back end's generated kernels.

Drop-ins for the NumPy primitives of ``primitives.md`` (same signatures, same
results): ``mxv_pull``, ``vxm_push``, plus the optional fused ``mxm_sparse`` that
``multiply._spgemm`` looks up and ``mxm_masked`` that ``multiply._masked_spgemm``
looks up. A semiring whose add and multiply have a scalar form
(``BinaryOp(scalar=...)``: every built-in; user operators that give one) runs
compiled; anything else runs the NumPy reference path (``cpu/primitives.py``).

How a kernel is specialised. Per (add monoid, multiply, x dtype, y dtype, result
dtype, flip) ``scalar_ops.prelude`` writes a module prelude (the two scalar
functions as text, the identity, the terminal value, "stop at the first"), this file
appends the kernel templates below, and the text is run as a module: the algebra is
compile-time constants and inlined expressions, so the loops are as tight as
hand-written ones. The mask arrives as ``allowed`` (a bool per output entry: the op
layer resolves structural / valued / complemented masks); ``allowed``, ``u_present``
and "none" are a runtime flag (a predictable branch per row) rather than three more
compiles. Caching, two levels:

- per process: ``functools.cache`` over the specialisation;
- on disk: the module text is written to ``<cache dir>/kl_<sha256 of the text>.py``
  and imported from there with every kernel ``@njit(cache=True)``, so Numba's disk
  cache keys it by that file (a new text is a new file; an unchanged text keeps its
  file and its compiled code). The cache dir is ``$KLEENE_CACHE_DIR``, else
  ``~/.cache/kleene/cpu``, else a per-user temp dir; where none is writable the text
  runs from memory, compiled per process. Operators whose scalar form is a Python
  function (not text) are bound into the module's globals and compiled per process.

We generate text rather than closing over jitted scalar functions because Numba's
disk cache keys a closure by pickling its cells, and a pickled dispatcher carries a
per-process uuid: a closure over one never hits the cache.

The kernels (all ``nogil``; Python threads over ranges, as ``cpu/closure.py``, except
``pull_full_par``):

- ``pull_full``: ``pull`` where every u(k) is present and every row allowed (the
  dense product): no flags per entry, unsigned positions, and a row's loop not
  unrolled (a position past u also ends it), so a row of irregular length costs one
  mispredicted exit, not two. ``pull_full2`` takes a row's terms two a loop turn
  (one exit test and one position check for two entries), still added one after
  the other in stored order; for a monoid with a terminal value or ``any`` it is
  ``pull_full``. The dense product runs it where rows hold ``_LONG_ROW_ENTRIES``
  entries or more on average (shorter rows lose more to the test after its loop
  than they gain). ``pull_full_par`` runs either
  over one range of rows per thread on Numba's threading layer (``numba.prange``),
  whose workers stay at hand between calls: a product this short would otherwise
  wait on a pool worker's wake-up as long as its own work. A row is still summed
  in its stored order by one thread, so the split does not change a bit.
- ``pull``: row-parallel masked SpMV, w(i) = ⊕_k A(i,k) ⊗ u(k) for allowed rows
  only, rows split by stored entries. The first product starts the sum (the identity
  is never folded in, as in ``segment_reduce``); a row stops at the monoid's
  terminal value (-inf for min, True for lor, ...) and ``any`` stops at the first.
- ``push``: scatter from u's entries in u's order into a dense accumulator. Large
  pushes split u's entries by edge count over threads, each into an accumulator of
  its own, merged in thread order (so ``any`` keeps the first in u's order, as the
  NumPy path does).
- ``spgemm``: Gustavson row by row with a dense accumulator per thread, two passes
  (``spgemm_count``, the symbolic count, then the numeric pass) whose columns-seen
  set is a bit row (ncols/8 bytes, cache-resident). The count sets a product's bit
  with no test and counts a row's bits by word where its words are few for its
  products, else by a second walk of its products. The numeric pass lists a row's
  columns as first seen in a scratch list, then writes the row to C in column
  order: by a scan of its bit words where they hold two columns a word or more;
  else each entry straight to its place, its rank among the row's columns (a running
  count of set bits by word plus the set bits below it in its word: no branch per
  bit); where the words span many words a column (short rows of a wide C), by a
  sort of the list. The output is C's CSR arrays, written in place
  (``mxm_sparse_csr``: stored as they are by ``multiply._spgemm``), or as sorted
  keys ``i * ncols + j`` (``mxm_sparse``).
- ``dot3``: the masked product, one dot product per entry of the mask's pattern.
  A(i,:)'s positions are scattered by k into a per-thread array once per mask row;
  an entry whose Bᵀ(j,:) is the shorter list looks each of its k up there, else
  A(i,:)'s entries are found in Bᵀ(j,:) by galloping search. Either way the products
  come in k order and fold left to right as in ``spgemm``, so the values equal its
  values at those positions. Rows of the mask are split over threads by their work.

Results equal the NumPy path exactly for integers, bool and every idempotent add;
a float plus-sum is summed left to right in the NumPy path's term order (row order,
u's order, k order) where NumPy's reduction may sum pairwise, so the last bits may
differ (threaded pushes also add per-thread partial sums).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

from . import primitives as _ref
from .scalar_ops import Spec, prelude, spec_for

try:
    import numba
    from numba.core.errors import NumbaError
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None
    NumbaError = Exception

HAVE_NUMBA = numba is not None

_MIN_THREADED = 1 << 17  # stored entries (or products) below which one thread runs
_CHUNKS_PER_THREAD = 4  # ranges per thread, taken in turn (balance on a busy machine)
_LONG_ROW_ENTRIES = 20  # mean stored entries a row from which pull_full2 runs
_NO_BOOL = np.zeros(1, dtype=bool)
_PARALLEL_LOCK = threading.Lock()  # around the kernels on Numba's threading layer

# ---- the kernel templates (appended to scalar_ops.prelude) ------------------------------

_KERNELS = """
from numba.cpython.unsafe.numbers import leading_zeros as _clz
from numba.cpython.unsafe.numbers import trailing_zeros as _ctz
from numba.extending import intrinsic as _intrinsic

@_intrinsic
def _popc(typingctx, x):
    # the count of set bits of an unsigned integer (LLVM's ctpop: one instruction)
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen

_U1 = np.uint64(1)
_U6 = np.uint64(6)
_U63 = np.uint64(63)

@numba.njit(cache=CACHE, nogil=True)
def pull(indptr, indices, avals, u, up, has_up, allowed, has_allowed, r0, r1, w, wp):
    for i in range(r0, r1):
        if has_allowed and not allowed[i]:
            continue
        found = False
        acc = ZERO
        for p in range(indptr[i], indptr[i + 1]):
            k = indices[p]
            if has_up and not up[k]:
                continue
            t = {pull_mul}
            if found:
                acc = _add(acc, t)
            else:
                acc = t
                found = True
            if STOP_FIRST:
                break
            if HAS_TERM and acc == TERM:
                break
        if found:
            w[i] = acc
            wp[i] = True


@numba.njit(cache=CACHE, nogil=True)
def pull_full(indptr, indices, avals, u, r0, r1, w, wp):
    # pull with every u(k) present and every row allowed: no flags to test per entry,
    # unsigned positions (no negative-index wraparound per access); writes every row.
    # A position past u ends a row (never, in a valid matrix): the loop's second exit
    # keeps LLVM from unrolling it by a count known at run time, whose remainder loop
    # adds a mispredicted exit to every row of irregular length. Rows too go by
    # unsigned position, a row's end read once (it is the next row's start).
    nu = np.uint64(u.size)
    i = np.uint64(r0)
    end = np.uint64(r1)
    if i >= end:
        return
    p1 = np.uint64(indptr[i])
    while i < end:
        p = p1
        p1 = np.uint64(indptr[i + _U1])
        if p == p1:
            w[i] = ZERO
            wp[i] = False
            i += _U1
            continue
        k = np.uint64(indices[p])
        acc = {pull_mul}
        p += _U1
        if not STOP_FIRST:
            while p < p1:
                if HAS_TERM and acc == TERM:
                    break
                k = np.uint64(indices[p])
                if k >= nu:
                    break
                acc = _add(acc, {pull_mul})
                p += _U1
        w[i] = acc
        wp[i] = True
        i += _U1


@numba.njit(cache=CACHE, nogil=True)
def pull_full2(indptr, indices, avals, u, r0, r1, w, wp):
    # pull_full taking a row's terms two a loop turn: one exit test and one position
    # check for two entries, on rows long enough for the loop's own work to be what
    # they wait on. The terms are still added one after the other in stored order:
    # the same bits as pull_full
    if STOP_FIRST or HAS_TERM:
        pull_full(indptr, indices, avals, u, r0, r1, w, wp)
        return
    nu = np.uint64(u.size)
    i = np.uint64(r0)
    end = np.uint64(r1)
    if i >= end:
        return
    p1 = np.uint64(indptr[i])
    while i < end:
        p = p1
        p1 = np.uint64(indptr[i + _U1])
        if p == p1:
            w[i] = ZERO
            wp[i] = False
            i += _U1
            continue
        k = np.uint64(indices[p])
        acc = {pull_mul}
        p += _U1
        while p + _U1 < p1:
            k = np.uint64(indices[p])
            k2 = np.uint64(indices[p + _U1])
            if k >= nu or k2 >= nu:
                break
            t = {pull_mul}
            p += _U1
            k = k2
            t2 = {pull_mul}
            p += _U1
            acc = _add(_add(acc, t), t2)
        if p < p1:
            k = np.uint64(indices[p])
            if k < nu:
                acc = _add(acc, {pull_mul})
        w[i] = acc
        wp[i] = True
        i += _U1


@numba.njit(cache=CACHE, nogil=True, parallel=True)
def pull_full_par(indptr, indices, avals, u, bounds, w, wp, long_rows):
    # pull_full2 (``long_rows``) or pull_full over the row ranges
    # [bounds[t], bounds[t + 1]) on Numba's threads
    for t in numba.prange(bounds.size - 1):
        if long_rows:
            pull_full2(indptr, indices, avals, u, bounds[t], bounds[t + 1], w, wp)
        else:
            pull_full(indptr, indices, avals, u, bounds[t], bounds[t + 1], w, wp)


@numba.njit(cache=CACHE, nogil=True)
def push(indptr, indices, avals, u_idx, u_vals, s0, s1, allowed, has_allowed, w, wp):
    for s in range(s0, s1):
        k = u_idx[s]
        v = u_vals[s]
        for p in range(indptr[k], indptr[k + 1]):
            j = indices[p]
            if has_allowed and not allowed[j]:
                continue
            if wp[j]:
                if STOP_FIRST:
                    continue
                c = w[j]
                if HAS_TERM and c == TERM:
                    continue
                w[j] = _add(c, {push_mul})
            else:
                w[j] = {push_mul}
                wp[j] = True


@numba.njit(cache=CACHE, nogil=True)
def merge(ws, wps, c0, c1, w, wp):
    for t in range(ws.shape[0]):
        for j in range(c0, c1):
            if wps[t, j]:
                if not wp[j]:
                    w[j] = ws[t, j]
                    wp[j] = True
                elif not STOP_FIRST:
                    w[j] = _add(w[j], ws[t, j])


@numba.njit(cache=CACHE, nogil=True)
def spgemm_count(a_ptr, a_idx, b_ptr, b_idx, ncols, r0, r1, counts):
    # symbolic pass: distinct columns per row, the columns seen as bits (ncols/8 bytes,
    # cache-resident), set with no test (no branch per product); a row's count is
    # then the set bits of the words it touched where they are few for its products,
    # else a second walk of its products clearing each bit as it counts it
    nw = (ncols + 63) // 64
    bits = np.zeros(nw, np.uint64)
    for i in range(r0, r1):
        lo = np.uint64(nw)
        hi = np.uint64(0)
        f = np.uint64(0)
        for p in range(a_ptr[i], a_ptr[i + 1]):
            k = np.uint64(a_idx[p])
            q0 = np.uint64(b_ptr[k])
            q1 = np.uint64(b_ptr[k + _U1])
            f += q1 - q0
            for q in range(q0, q1):
                j = np.uint64(b_idx[q])
                wd = j >> _U6
                bits[wd] |= _U1 << (j & _U63)
                lo = min(lo, wd)
                hi = max(hi, wd)
        c = 0
        if f == 0:
            pass
        elif hi - lo < np.uint64(4) * f:
            for wd in range(lo, hi + _U1):
                c += np.int64(_popc(bits[wd]))
                bits[wd] = 0
        else:
            for p in range(a_ptr[i], a_ptr[i + 1]):
                k = np.uint64(a_idx[p])
                for q in range(np.uint64(b_ptr[k]), np.uint64(b_ptr[k + _U1])):
                    j = np.uint64(b_idx[q])
                    wd = j >> _U6
                    bit = _U1 << (j & _U63)
                    x = bits[wd]
                    if x & bit:
                        bits[wd] = x & ~bit
                        c += 1
        counts[i] = c


@numba.njit(cache=CACHE, nogil=True)
def spgemm(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols, r0, r1, c_ptr, c_idx, c_val):
    # numeric pass, CSR out: a dense accumulator, the columns seen as bits and, in a
    # scratch list, in the order first seen. A row's entries then go to C in column
    # order: by a scan of its bit words where they hold two columns a word or more;
    # else each to its place by rank, the seen columns below j (a running count of
    # the bits by word plus the bits below j in its word: no branch per bit); where
    # its words span many words a column, by a sort of the list
    nw = (ncols + 63) // 64
    bits = np.zeros(nw, np.uint64)
    rank = np.empty(nw, np.int64)
    acc = np.empty(ncols, OUT)
    seen = np.empty(ncols, np.uint32)
    for i in range(r0, r1):
        c = 0
        lo = np.uint64(nw)
        hi = np.uint64(0)
        for p in range(a_ptr[i], a_ptr[i + 1]):
            k = np.uint64(a_idx[p])
            x = a_val[p]
            for q in range(np.uint64(b_ptr[k]), np.uint64(b_ptr[k + _U1])):
                j = np.uint64(b_idx[q])
                wd = j >> _U6
                bit = _U1 << (j & _U63)
                y = bits[wd]
                if y & bit:
                    if not STOP_FIRST:
                        a = acc[j]
                        if not (HAS_TERM and a == TERM):
                            acc[j] = _add(a, _mul(x, b_val[q]))
                else:
                    bits[wd] = y | bit
                    acc[j] = _mul(x, b_val[q])
                    seen[c] = j
                    c += 1
                    if wd < lo:
                        lo = wd
                    if wd > hi:
                        hi = wd
        if c == 0:
            continue
        e0 = c_ptr[i]
        span = np.int64(hi - lo) + 1
        if c >= 2 * span:  # dense in its words: a scan, in column order
            e = e0
            for wd in range(lo, hi + _U1):
                y = bits[wd]
                bits[wd] = 0
                base = np.uint64(wd) << _U6
                while y:
                    j = base + np.uint64(_ctz(y))
                    y &= y - _U1
                    c_idx[e] = j
                    c_val[e] = acc[j]
                    e += 1
        elif span < 2 * c * (64 - np.int64(_clz(np.uint64(c)))):
            run = e0
            for wd in range(lo, hi + _U1):
                rank[wd] = run
                run += np.int64(_popc(bits[wd]))
            for s in range(c):
                j = np.uint64(seen[s])
                wd = j >> _U6
                e = rank[wd] + np.int64(_popc(bits[wd] & ((_U1 << (j & _U63)) - _U1)))
                c_idx[e] = j
                c_val[e] = acc[j]
            bits[lo : hi + _U1] = 0
        else:
            row = seen[:c]
            row.sort()
            for s in range(c):
                j = np.uint64(row[s])
                c_idx[e0 + s] = j
                c_val[e0 + s] = acc[j]
                bits[j >> _U6] = 0


@numba.njit(cache=CACHE, nogil=True)
def _seek(idx, lo, hi, key):
    # the first position in [lo, hi) with idx >= key: lo, else galloping, then a search
    if lo >= hi or idx[lo] >= key:
        return lo
    prev = lo
    step = 1
    while prev + step < hi and idx[prev + step] < key:
        prev += step
        step *= 2
    a = prev + 1
    b = min(prev + step, hi)
    while a < b:
        mid = (a + b) >> 1
        if idx[mid] < key:
            a = mid + 1
        else:
            b = mid
    return a


@numba.njit(cache=CACHE, nogil=True)
def dot3(
    a_ptr, a_idx, a_val, t_ptr, t_idx, t_val, m_ptr, m_idx, ncols, inner, r0, r1, keys, vals, hit
):
    pos = np.zeros(inner, np.int64)  # A(i,:)'s position + 1 by k, for the current row
    for i in range(r0, r1):
        pa0 = a_ptr[i]
        pa1 = a_ptr[i + 1]
        if pa0 == pa1 or m_ptr[i] == m_ptr[i + 1]:
            continue
        for p in range(pa0, pa1):
            pos[a_idx[p]] = p + 1
        base = i * ncols
        for e in range(m_ptr[i], m_ptr[i + 1]):
            j = m_idx[e]
            q = t_ptr[j]
            q1 = t_ptr[j + 1]
            found = False
            acc = ZERO
            if q1 - q <= pa1 - pa0:  # Bt(j,:) is the shorter: look its k up in A(i,:)
                for r in range(q, q1):
                    p = pos[t_idx[r]]
                    if p == 0:
                        continue
                    t = _mul(a_val[p - 1], t_val[r])
                    if found:
                        acc = _add(acc, t)
                    else:
                        acc = t
                        found = True
                    if STOP_FIRST:
                        break
                    if HAS_TERM and acc == TERM:
                        break
            else:  # A(i,:) is the shorter: merge, galloping through Bt(j,:)
                p = pa0
                while p < pa1 and q < q1:
                    ka = a_idx[p]
                    q = _seek(t_idx, q, q1, ka)
                    if q == q1:
                        break
                    if t_idx[q] == ka:
                        t = _mul(a_val[p], t_val[q])
                        if found:
                            acc = _add(acc, t)
                        else:
                            acc = t
                            found = True
                        if STOP_FIRST:
                            break
                        if HAS_TERM and acc == TERM:
                            break
                        q += 1
                    p += 1
            if found:
                keys[e] = base + j
                vals[e] = acc
                hit[e] = True
        for p in range(pa0, pa1):
            pos[a_idx[p]] = 0
"""


# ---- generating and loading a specialisation -------------------------------------------


def source(spec: Spec) -> tuple[str, dict]:
    """The module text for ``spec`` and the globals (user scalar functions) it needs."""
    text, user_globals = prelude(spec)
    a_u = ("u[k]", "avals[p]") if spec.flip else ("avals[p]", "u[k]")
    v_a = ("avals[p]", "v") if spec.flip else ("v", "avals[p]")
    kernels = _KERNELS.format(
        pull_mul="_mul({}, {})".format(*a_u), push_mul="_mul({}, {})".format(*v_a)
    )
    return text + kernels, user_globals


@functools.cache
def cache_dir() -> Path | None:
    """Where generated module texts live (and Numba's cache beside them), or None."""
    env = os.environ.get("KLEENE_CACHE_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(Path.home() / ".cache" / "kleene" / "cpu")
    candidates.append(Path(tempfile.gettempdir()) / f"kleene-cpu-{os.getuid()}")
    for d in candidates:
        try:
            d.mkdir(parents=True, exist_ok=True)
            probe = d / f".probe-{os.getpid()}"
            probe.write_text("")
            probe.unlink()
            return d
        except OSError:
            continue
    return None


def _load(text: str, user_globals: dict):
    digest = hashlib.sha256(text.encode()).hexdigest()[:24]
    name = f"kleene_cpu_gen_{digest}"
    where = None if user_globals else cache_dir()
    if where is None:  # per process: user scalar functions, or nowhere to write
        text = text.replace("CACHE = True", "CACHE = False", 1)
        ns = {"__name__": name, **user_globals}
        exec(compile(text, f"<kleene cpu kernel {digest}>", "exec"), ns)
        return _Namespace(ns)
    path = where / f"kl_{digest}.py"
    if not path.exists():  # the name is the text's hash: an existing file is this text
        tmp = where / f".kl_{digest}.{os.getpid()}.tmp"
        tmp.write_text(text)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class _Namespace:
    def __init__(self, ns: dict):
        self.__dict__.update(ns)


@functools.cache
def _module(spec: Spec):
    text, user_globals = source(spec)
    return _load(text, user_globals)


_FAILED: set = set()  # specs whose user scalar functions Numba could not compile


# (semiring by identity, dtypes, flip) -> (its Spec, its module), looked up once: a
# Spec hashes all its fields, so a call hashes one only where a compile has failed
_SPECS: dict = {}
_SPECS_KEPT = 256


def _specialised(semiring, x, y, out, flip):
    key = (semiring, np.dtype(x), np.dtype(y), np.dtype(out), bool(flip))
    try:
        spec, mod = _SPECS[key]
    except KeyError:
        if len(_SPECS) >= _SPECS_KEPT:  # semirings made per call: keep the memo small
            _SPECS.clear()
        spec = spec_for(semiring, x, y, out, flip)
        mod = None if spec is None else _module(spec)
        _SPECS[key] = spec, mod
    if spec is None or (_FAILED and spec in _FAILED):
        return None, None
    return spec, mod


def _run(spec, kernel, head, ranges, tail) -> bool:
    """``kernel(*head, r0, r1, *tail)`` per range, on threads when there are several.
    False where a user scalar function does not compile (the caller runs NumPy)."""
    try:
        if len(ranges) == 1:
            kernel(*head, *ranges[0], *tail)
        else:
            # The calling thread and threads - 1 pool workers take the ranges in
            # turn from one iterator (its next() is atomic under the GIL; the kernels
            # release it): a worker the machine holds back takes fewer.
            from .closure import _pool

            todo = iter(ranges)

            def work():
                for r0, r1 in todo:
                    kernel(*head, r0, r1, *tail)

            helpers = min(_threads(), len(ranges)) - 1
            jobs = [_pool().submit(work) for _ in range(helpers)]
            try:
                work()
            finally:
                for job in jobs:
                    job.result()
    except NumbaError:
        if not spec.user:
            raise
        _FAILED.add(spec)
        return False
    return True


def _threads() -> int:
    from .closure import _threads as threads

    return threads()


def _split(cum, work: int, n: int, per_thread: int = _CHUNKS_PER_THREAD) -> list[tuple[int, int]]:
    """Ranges of [0, n) with about equal work; ``cum`` (length n + 1) is the running
    work, so range (r0, r1) costs cum[r1] - cum[r0]; ``per_thread`` ranges a thread."""
    threads = _threads() if work >= _MIN_THREADED else 1
    parts = min(n, threads * per_thread if threads > 1 else 1)
    if parts <= 1:
        return [(0, n)]
    return _cut(cum, work, n, parts)


def _cut(cum, work: int, n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` ranges of [0, n) about equal in work, empty ones dropped (integer
    targets: the search reads ``cum`` as it is, no converted copy)."""
    targets = (np.arange(1, parts, dtype=np.int64) * work) // parts
    cuts = np.searchsorted(cum, targets.astype(cum.dtype, copy=False), side="left")
    bounds = [0, *sorted({min(max(int(c), 0), n) for c in cuts.tolist()}), n]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if a < b]


def _flag(mask):
    if mask is None:
        return _NO_BOOL, False
    return np.ascontiguousarray(mask, dtype=bool), True


# ---- the primitives -----------------------------------------------------------------


def mxv_pull(semiring, indptr, indices, avals, u, u_present, allowed, out_dtype, flip=False):
    """Compiled ``primitives.mxv_pull`` (same signature and results)."""
    out_dtype = np.dtype(out_dtype)
    x, y = (u.dtype, avals.dtype) if flip else (avals.dtype, u.dtype)
    spec, mod = _specialised(semiring, x, y, out_dtype, flip)
    if mod is not None:
        nrows = indptr.size - 1
        work = int(indptr[-1]) if nrows > 0 else 0
        u = np.ascontiguousarray(u)
        if u_present is None and allowed is None:  # the dense product: no flags
            w = np.empty(nrows, dtype=out_dtype)
            wp = np.empty(nrows, dtype=bool)
            if _pull_full(spec, mod, (indptr, indices, avals, u), work, (w, wp)):
                return w, wp
        else:
            w = np.full(nrows, spec.identity, dtype=out_dtype)
            wp = np.zeros(nrows, dtype=bool)
            up, has_up = _flag(u_present)
            al, has_al = _flag(allowed)
            head = (indptr, indices, avals, u, up, has_up, al, has_al)
            if _run(spec, mod.pull, head, _split(indptr, work, nrows), (w, wp)):
                return w, wp
    return _ref.mxv_pull(semiring, indptr, indices, avals, u, u_present, allowed, out_dtype, flip)


def _pull_full(spec, mod, head, work: int, tail) -> bool:
    """The dense pull, ``work`` stored entries: one range of rows per thread on
    Numba's threading layer (its workers are at hand between calls, where a pool
    worker must be woken for each: a product this short is no longer than the
    wake), or one range on the calling thread where the work is small."""
    indptr = head[0]
    nrows = indptr.size - 1
    # Two terms a loop turn where rows are long on average (the loop's own work is
    # what they wait on), else one: the extra test after the loop costs short rows
    # more than it saves them.
    long_rows = work >= _LONG_ROW_ENTRIES * nrows
    threads = _threads() if work >= _MIN_THREADED else 1
    if threads == 1 or nrows < 2:
        kernel = mod.pull_full2 if long_rows else mod.pull_full
        return _run(spec, kernel, head, [(0, max(nrows, 0))], tail)
    # row bounds of about equal entries (a thread given an empty range does nothing);
    # each target is below indptr[-1], so its position is at most nrows
    bounds = np.empty(threads + 1, dtype=np.int64)
    bounds[0], bounds[-1] = 0, nrows
    for t in range(1, threads):
        bounds[t] = indptr.searchsorted(work * t // threads)
    try:
        with _PARALLEL_LOCK:  # one at a time: Numba's workqueue layer is not thread-safe
            mod.pull_full_par(*head, bounds, *tail, long_rows)
    except NumbaError:
        if not spec.user:
            raise
        _FAILED.add(spec)
        return False
    return True


def vxm_push(
    semiring, indptr, indices, avals, u_idx, u_vals, allowed, ncols, out_dtype, flip=False
):
    """Compiled ``primitives.vxm_push`` (same signature and results)."""
    out_dtype = np.dtype(out_dtype)
    x, y = (avals.dtype, u_vals.dtype) if flip else (u_vals.dtype, avals.dtype)
    spec, mod = _specialised(semiring, x, y, out_dtype, flip)
    if mod is not None:
        ok, w, wp = _push(spec, mod, indptr, indices, avals, u_idx, u_vals, allowed, ncols)
        if ok:
            return w, wp
    return _ref.vxm_push(
        semiring, indptr, indices, avals, u_idx, u_vals, allowed, ncols, out_dtype, flip
    )


def _push(spec, mod, indptr, indices, avals, u_idx, u_vals, allowed, ncols):
    w = np.full(ncols, spec.identity, dtype=spec.out)
    wp = np.zeros(ncols, dtype=bool)
    u_idx = np.ascontiguousarray(u_idx, dtype=np.int64)
    u_vals = np.ascontiguousarray(u_vals)
    al, has_al = _flag(allowed)
    head = (indptr, indices, avals, u_idx, u_vals)
    nu = u_idx.size
    work = 0
    if nu:
        cum = np.zeros(nu + 1, dtype=np.int64)
        np.cumsum(indptr[u_idx + 1] - indptr[u_idx], out=cum[1:])
        work = int(cum[-1])
    # Threads only where the work dwarfs the merge of their accumulators (ncols each).
    if nu == 0 or work < _MIN_THREADED or work < ncols or _threads() == 1:
        ok = _run(spec, mod.push, head, [(0, nu)], (al, has_al, w, wp))
        return ok, w, wp
    ranges = _even(cum, work, nu)
    extra = len(ranges) - 1
    ws = np.empty((extra, ncols), dtype=spec.out)
    wps = np.zeros((extra, ncols), dtype=bool)
    outs = [(w, wp)] + [(ws[t], wps[t]) for t in range(extra)]
    try:
        from .closure import _pool

        jobs = [
            _pool().submit(mod.push, *head, s0, s1, al, has_al, *o)
            for (s0, s1), o in zip(ranges, outs, strict=True)
        ]
        for job in jobs:
            job.result()
    except NumbaError:
        if not spec.user:
            raise
        _FAILED.add(spec)
        return False, w, wp
    cols = [(int(a), int(b)) for a, b in _even_cols(ncols, _threads())]
    _run(spec, mod.merge, (ws, wps), cols, (w, wp))
    return True, w, wp


def _even(cum, work, n) -> list[tuple[int, int]]:
    """One range of u's entries per thread, about equal in edges."""
    return _cut(cum, work, n, _threads())


def _even_cols(n, parts):
    step = -(-n // max(1, parts))
    return [(c, min(n, c + step)) for c in range(0, n, max(1, step))] or [(0, 0)]


def mxm_sparse_csr(semiring, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols, out_dtype):
    """C = A ⊕.⊗ B on CSR operands (Gustavson, a symbolic then a numeric pass) as C's
    CSR arrays (indptr int64, indices int32 sorted within rows, values of
    ``out_dtype``); None where the semiring has no compiled form."""
    out_dtype = np.dtype(out_dtype)
    spec, mod = _specialised(semiring, a_val.dtype, b_val.dtype, out_dtype, False)
    if mod is None:
        return None
    m = a_ptr.size - 1
    c_ptr = np.zeros(m + 1, dtype=np.int64)
    if m <= 0 or a_idx.size == 0 or b_idx.size == 0:
        return c_ptr, np.zeros(0, np.int32), np.zeros(0, out_dtype)
    flops = np.zeros(a_idx.size + 1, dtype=np.int64)
    np.cumsum(np.diff(b_ptr)[a_idx], out=flops[1:])
    row_cum = flops[a_ptr]  # products made by rows [0, i)
    work = int(row_cum[-1])
    if work == 0:
        return c_ptr, np.zeros(0, np.int32), np.zeros(0, out_dtype)
    ranges = _split(row_cum, work, m)
    head = (a_ptr, a_idx, b_ptr, b_idx, ncols)
    if not _run(spec, mod.spgemm_count, head, ranges, (c_ptr[1:],)):
        return None
    np.cumsum(c_ptr, out=c_ptr)
    c_idx = np.empty(int(c_ptr[-1]), dtype=np.int32)
    c_val = np.empty(c_idx.size, dtype=out_dtype)
    head = (a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols)
    if not _run(spec, mod.spgemm, head, ranges, (c_ptr, c_idx, c_val)):
        return None
    return c_ptr, c_idx, c_val


def mxm_sparse(semiring, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols, out_dtype):
    """C = A ⊕.⊗ B on CSR operands (``mxm_sparse_csr``), as sorted keys
    ``i * ncols + j`` (int64) and values of ``out_dtype``; None where the semiring has
    no compiled form (the caller runs the composed product of ``multiply._spgemm``)."""
    csr = mxm_sparse_csr(semiring, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols, out_dtype)
    if csr is None:
        return None
    c_ptr, c_idx, c_val = csr
    rows = np.repeat(np.arange(c_ptr.size - 1, dtype=np.int64), np.diff(c_ptr))
    return rows * ncols + c_idx, c_val


def mxm_masked(
    semiring, a_ptr, a_idx, a_val, bt_ptr, bt_idx, bt_val, m_ptr, m_idx, ncols, out_dtype
):
    """C<M> = A ⊕.⊗ B by dot products ("dot3"): for each entry (i, j) of the mask's
    pattern (``m_ptr``, ``m_idx``: CSR, rows sorted), the intersection of A(i,:) and
    Bᵀ(j,:) (``bt_*``: Bᵀ's CSR, rows sorted) merged in k order, its products
    reduced left to right. Returns sorted keys ``i * ncols + j`` (int64) and values of
    ``out_dtype`` for the entries whose intersection is not empty; None where the
    semiring has no compiled form (the caller runs the unmasked product)."""
    out_dtype = np.dtype(out_dtype)
    spec, mod = _specialised(semiring, a_val.dtype, bt_val.dtype, out_dtype, False)
    if mod is None:
        return None
    m = m_ptr.size - 1
    nm = int(m_ptr[-1]) if m >= 0 and m_ptr.size else 0
    keys = np.empty(nm, dtype=np.int64)
    vals = np.empty(nm, dtype=out_dtype)
    hit = np.zeros(nm, dtype=bool)
    if nm == 0 or a_idx.size == 0 or bt_idx.size == 0:
        return keys[:0], vals[:0]
    m_ptr = np.ascontiguousarray(m_ptr, dtype=np.int64)
    m_idx = np.ascontiguousarray(m_idx)
    # Work of a row: its mask entries times (its A row's length + 1), a mask entry's
    # Bᵀ row counted once: a merge reads both lists.
    rows_work = np.diff(m_ptr) * (np.diff(a_ptr) + 1)
    bt_len = np.diff(bt_ptr)
    cum = np.zeros(m + 1, dtype=np.int64)
    per_entry = np.zeros(nm + 1, dtype=np.int64)
    np.cumsum(bt_len[m_idx], out=per_entry[1:])
    np.cumsum(rows_work, out=cum[1:])
    cum += per_entry[m_ptr]
    ranges = _split(cum, int(cum[-1]), m)
    inner = max(int(bt_ptr.size) - 1, int(a_idx.max()) + 1)
    head = (a_ptr, a_idx, a_val, bt_ptr, bt_idx, bt_val, m_ptr, m_idx, ncols, inner)
    if not _run(spec, mod.dot3, head, ranges, (keys, vals, hit)):
        return None
    return keys[hit], vals[hit]
