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

The kernels and what each does: ``cpu/kernel_templates.py``.

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
from .kernel_templates import KERNELS
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


# ---- generating and loading a specialisation -------------------------------------------


def source(spec: Spec) -> tuple[str, dict]:
    """The module text for ``spec`` and the globals (user scalar functions) it needs."""
    text, user_globals = prelude(spec)
    a_u = ("u[k]", "avals[p]") if spec.flip else ("avals[p]", "u[k]")
    v_a = ("avals[p]", "v") if spec.flip else ("v", "avals[p]")
    kernels = KERNELS.format(
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
