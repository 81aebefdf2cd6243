"""PageRank's power iteration on the CPU, compiled with Numba (parallel over rows).

One optional fused primitive (``kleene/engine/primitives.md``), the same name and
signature on both back ends:

``pagerank(indptr, indices, values, n, x, p, w, alpha, tol, max_iter, *, transposed=None)``
    runs NetworkX's iteration ``x ← α (x P + (x · d) w) + (1 − α) p`` from ``x``
    (P: A with each row divided by its sum, d: the vertices whose row sums to zero)
    until the L1 change of a step is below ``n * tol``, and returns ``(x, k)``: the
    vector of step k, the first whose change is below it, or ``(last x, 0)`` when no
    step of ``max_iter`` was. ``indptr, indices, values`` are A's CSR (``values``
    None: every edge weighs 1), ``x, p, w`` float64 arrays of length n,
    ``transposed`` Aᵀ's CSR ``(indptr, indices, values)`` where the caller has it
    (A's own arrays when A equals its transpose); None builds it here.

A step is ``y = x ∘ s`` (s: the inverse row sums, 0 at a dangling vertex) with the
dangling sum ``x · d`` beside it, then one pull over Aᵀ's rows, ``(yᵀ A)_j = Σ_i
A_ij y_i``, fused with the update and the L1 change: each row's sum is taken in its
stored order, so the vector is the same bits whatever the threads. The row sums are
summed in float64 in the row's order, as NetworkX sums them.
Without Numba, or with ``KLEENE_CPU=numpy``, the primitive is None and the composed
form of ``kleene.algorithms.analytics.pagerank`` (kleene operations) runs.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None
prange = numba.prange if HAVE_NUMBA else range
# From this many entries on, the steps pull over Aᵀ's rows on every thread (after a
# transpose); below it one thread scatters from A's rows: a step takes less time than
# waking the threads (and one busy core stalls every step's barrier), and no
# transpose is built.
PARALLEL_ENTRIES = 1 << 21


def _inverse_sums(indptr, values, n, pattern):
    """(s, dangling ids): s[i] = 1 / (row i's sum), 0 where it sums to zero."""
    s = np.empty(n, dtype=np.float64)
    count = 0
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        total = 0.0
        if pattern:
            total = float(hi - lo)
        else:
            for e in range(lo, hi):
                total += values[e]
        if total != 0.0:
            s[i] = 1.0 / total
        else:
            s[i] = 0.0
            count += 1
    dangling = np.empty(count, dtype=np.int64)
    k = 0
    for i in range(n):
        if s[i] == 0.0:
            dangling[k] = i
            k += 1
    return s, dangling


def _transpose(indptr, indices, values, n, pattern):
    """Aᵀ's CSR by a counting sort (rows of Aᵀ in increasing source order)."""
    m = indptr[n]
    tptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        tptr[np.uint64(indices[e]) + 1] += 1
    for j in range(n):
        tptr[j + 1] += tptr[j]
    fill = tptr[:-1].copy()
    tidx = np.empty(m, dtype=indices.dtype)
    tval = np.empty(0 if pattern else m, dtype=np.float64)
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            j = np.uint64(indices[e])
            slot = fill[j]
            fill[j] = slot + 1
            tidx[slot] = i
            if not pattern:
                tval[slot] = values[e]
    return tptr, tidx, tval


def _iterate(tptr, tidx, tval, n, s, dangling, x, p, w, alpha, tol, max_iter, pattern):
    """The steps by pulls over Aᵀ's rows, in parallel."""
    xa = x.copy()
    xb = np.empty(n, dtype=np.float64)
    y = np.empty(n, dtype=np.float64)
    keep = 1.0 - alpha
    for it in range(1, max_iter + 1):
        for i in prange(n):
            y[i] = xa[i] * s[i]
        lost = 0.0
        for k in range(dangling.size):
            lost += xa[dangling[k]]
        err = 0.0
        for j in prange(n):  # the row's sum in its stored order: the same bits on any threads
            acc = 0.0
            lo, hi = tptr[j], tptr[j + 1]
            if pattern:
                for e in range(lo, hi):
                    acc += y[np.uint64(tidx[e])]
            else:
                for e in range(lo, hi):
                    acc += tval[e] * y[np.uint64(tidx[e])]
            v = alpha * (acc + lost * w[j]) + keep * p[j]
            xb[j] = v
            err += abs(v - xa[j])
        xa, xb = xb, xa
        if err < n * tol:
            return xa, it
    return xa, 0


def _push(indptr, indices, values, n, x, p, w, alpha, tol, max_iter, pattern):
    """The steps by scatters from A's rows on one thread, no transpose built: every
    sum takes its terms in increasing source order, as a pull over a counting-sorted
    Aᵀ does, so the bits are the pull's. The first step finds the row sums."""
    s = np.empty(n, dtype=np.float64)
    xa = x.copy()
    xb = np.empty(n, dtype=np.float64)
    acc = np.zeros(n, dtype=np.float64)  # the scatter's sums, zeroed again as they are read
    keep = 1.0 - alpha
    for it in range(1, max_iter + 1):
        lost = 0.0
        for i in range(n):
            lo, hi = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
            if it == 1:
                total = 0.0
                if pattern:
                    total = float(hi - lo)
                else:
                    for e in range(lo, hi):
                        total += values[e]
                s[i] = 1.0 / total if total != 0.0 else 0.0
            si = s[i]
            if si == 0.0:  # dangling: its rank goes to w
                lost += xa[i]
                continue
            yi = xa[i] * si
            if pattern:
                for e in range(lo, hi):
                    acc[np.uint64(indices[e])] += yi
            else:
                for e in range(lo, hi):
                    acc[np.uint64(indices[e])] += values[e] * yi
        err = 0.0
        for j in range(n):
            v = alpha * (acc[j] + lost * w[j]) + keep * p[j]
            acc[j] = 0.0
            xb[j] = v
            err += abs(v - xa[j])
        xa, xb = xb, xa
        if err < n * tol:
            return xa, it
    return xa, 0


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _inverse_sums, _transpose, _push = _jit(_inverse_sums), _jit(_transpose), _jit(_push)
    _iterate = numba.njit(cache=True, nogil=True, parallel=True)(_iterate)


def pagerank(indptr, indices, values, n, x, p, w, alpha, tol, max_iter, *, transposed=None):
    """(x, k): NetworkX's PageRank iteration on A's CSR (see the module docstring)."""
    n = int(n)
    indptr, indices = np.asarray(indptr), np.asarray(indices)
    pattern = values is None
    vals = np.zeros(0, dtype=np.float64) if pattern else np.asarray(values)
    if not pattern and vals.dtype.kind != "f":
        vals = vals.astype(np.float64)
    x = np.ascontiguousarray(x, dtype=np.float64)
    p = np.ascontiguousarray(p, dtype=np.float64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    alpha, tol, max_iter = float(alpha), float(tol), int(max_iter)
    if indices.size < PARALLEL_ENTRIES:
        out, k = _push(indptr, indices, vals, n, x, p, w, alpha, tol, max_iter, pattern)
        return out, int(k)
    s, dangling = _inverse_sums(indptr, vals, n, pattern)
    if transposed is None:
        tptr, tidx, tval = _transpose(indptr, indices, vals, n, pattern)
    else:
        tptr, tidx = np.asarray(transposed[0]), np.asarray(transposed[1])
        tval = vals if pattern else np.asarray(transposed[2])
        if not pattern and tval.dtype.kind != "f":
            tval = tval.astype(np.float64)
    out, k = _iterate(tptr, tidx, tval, n, s, dangling, x, p, w, alpha, tol, max_iter, pattern)
    return out, int(k)
