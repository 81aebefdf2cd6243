"""Whether a CSR equals its transpose, and A ∪ Aᵀ, on the CPU: compiled with Numba.

The host twins of ``symmetry_sums`` and ``union_min`` in ``cuda/structure.py``, for
``kleene.ops.symmetry``. The test is one sequential pass over the CSR, with no
transpose built: each entry (i, j) off the diagonal adds a salted 64-bit hash of the
unordered pair {i, j} where i < j and subtracts it where i > j (``_mix``: the
SplitMix64 finaliser, as ``kl_mix`` in ``kernels/structure.cu``), so the sum is 0 when
every entry has its mirror; with values, a hash of ({i, j}, w) the same way. "Not
symmetric" is then exact, and a non-symmetric CSR passes only by a 2**-64 coincidence
of a salt it cannot know. The comparison with a built transpose that it replaces
reads and writes every entry at a random place; this pass reads them in order, the
rows cut into ``GROUPS`` runs of about equal entries over the threads from
``PARALLEL_ENTRIES`` entries (the hash sums wrap around, so any split gives the same
bits; the runs are fixed, so the value scan's float sum is too). Before it,
``SAMPLES`` entries spread over the CSR have their mirrors looked up by bisection:
a graph stored one way (an edge list read as directed) is answered there.

The merge takes two CSRs with sorted rows, no duplicates (A's and Aᵀ's), and walks
each row pair once to count, then once to write: no sort, no key arrays.

Without Numba (or with ``KLEENE_CPU=numpy``, read at import) both are None and
``kleene.ops.symmetry`` compares with the transpose and merges with ``ewise_add``.
"""

from __future__ import annotations

import os

import numpy as np

from kleene.errors import DomainMismatch, InvalidValue

from .twin import twin

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None
prange = numba.prange if numba is not None else range

_K1, _K2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_ZERO = np.uint64(0)
_NEG_ZERO = np.uint64(1 << 63)  # -0.0's word


def _mix(z):
    z = (z ^ (z >> _S30)) * _K1
    z = (z ^ (z >> _S27)) * _K2
    return z ^ (z >> _S31)


def _pattern_sum(indptr, indices, salt, bounds):
    """The pattern sum, the rows in groups bounds[g] .. bounds[g + 1] (one a thread
    at a time under ``parallel=True``; wrap-around sums, so the same whatever the split)."""
    parts = np.zeros(bounds.size - 1, dtype=np.uint64)
    for g in prange(bounds.size - 1):
        part = np.uint64(0)
        for i in range(bounds[g], bounds[g + 1]):
            ui = np.uint64(i)
            for e in range(indptr[i], indptr[i + 1]):
                j = np.uint64(indices[e])
                h = _mix(salt ^ ((min(ui, j) << _S32) | max(ui, j)))
                part += h if ui < j else (_ZERO - h if ui > j else _ZERO)  # (selects)
        parts[g] = part
    total = np.uint64(0)
    for g in range(parts.size):
        total += parts[g]
    return total


def _both_sums(indptr, indices, vals, bits, salt, bounds, is_float, stats):
    """(pattern sum, value sum) in one pass, the rows in groups as ``_pattern_sum``;
    ``bits`` the values' words (``is_float``: float64's own, -0.0 read as +0.0, and
    ``vals`` those floats, whose scan goes to ``stats``: NaN count, least and greatest
    other value, positive sum and count, as ``kl_value_scan`` on the GPU)."""
    groups = bounds.size - 1
    pparts = np.zeros(groups, dtype=np.uint64)
    vparts = np.zeros(groups, dtype=np.uint64)
    scans = np.zeros((groups, 5))
    for g in prange(groups):
        part, vpart = np.uint64(0), np.uint64(0)
        nans, least, most, pos, npos = 0.0, np.inf, -np.inf, 0.0, 0.0
        for i in range(bounds[g], bounds[g + 1]):
            ui = np.uint64(i)
            for e in range(indptr[i], indptr[i + 1]):
                j = np.uint64(indices[e])
                h = _mix(salt ^ ((min(ui, j) << _S32) | max(ui, j)))
                word = bits[e]
                if is_float:
                    word = _ZERO if word == _NEG_ZERO else word
                    x = vals[e]
                    if x != x:
                        nans += 1.0
                    else:
                        least, most = min(least, x), max(most, x)
                        if x > 0:
                            pos += x
                            npos += 1.0
                hv = _mix(h ^ _mix(word + salt))
                part += h if ui < j else (_ZERO - h if ui > j else _ZERO)  # (selects)
                vpart += hv if ui < j else (_ZERO - hv if ui > j else _ZERO)
        pparts[g], vparts[g] = part, vpart
        scans[g, 0], scans[g, 1], scans[g, 2], scans[g, 3], scans[g, 4] = (
            nans,
            least,
            most,
            pos,
            npos,
        )
    pattern, value = np.uint64(0), np.uint64(0)
    stats[0], stats[1], stats[2], stats[3], stats[4] = 0.0, np.inf, -np.inf, 0.0, 0.0
    for g in range(groups):  # (in group order: the positive sum's rounding is fixed)
        pattern += pparts[g]
        value += vparts[g]
        stats[0] += scans[g, 0]
        stats[1] = min(stats[1], scans[g, 1])
        stats[2] = max(stats[2], scans[g, 2])
        stats[3] += scans[g, 3]
        stats[4] += scans[g, 4]
    return pattern, value


def _first_missing_mirror(indptr, indices, samples):
    """Whether one of ``samples`` entries, spread evenly over the CSR, has no mirror:
    for entry e (row i by bisection of indptr, column j) a bisection of row j for i."""
    n = indptr.size - 1
    nnz = indices.size
    for k in range(samples):
        e = (k * nnz) // samples
        lo, hi = 0, n - 1  # the row i with indptr[i] <= e < indptr[i + 1]
        while lo < hi:
            mid = (lo + hi + 1) >> 1
            if indptr[mid] <= e:
                lo = mid
            else:
                hi = mid - 1
        i, j = lo, indices[e]
        a, b = indptr[j], indptr[j + 1]
        while a < b:
            mid = (a + b) >> 1
            if indices[mid] < i:
                a = mid + 1
            else:
                b = mid
        if a == indptr[j + 1] or indices[a] != i:
            return True
    return False


def _union_count(a_ptr, a_idx, b_ptr, b_idx, out_ptr):
    n = a_ptr.size - 1
    out_ptr[0] = 0
    for i in range(n):
        p, pe, q, qe = a_ptr[i], a_ptr[i + 1], b_ptr[i], b_ptr[i + 1]
        count = 0
        while p < pe and q < qe:
            x, y = a_idx[p], b_idx[q]
            if x <= y:
                p += 1
            if y <= x:
                q += 1
            count += 1
        out_ptr[i + 1] = out_ptr[i] + count + (pe - p) + (qe - q)


def _union_write(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, out_ptr, out_idx, out_val, values):
    n = a_ptr.size - 1
    for i in range(n):
        p, pe, q, qe = a_ptr[i], a_ptr[i + 1], b_ptr[i], b_ptr[i + 1]
        k = out_ptr[i]
        while p < pe or q < qe:
            if q >= qe or (p < pe and a_idx[p] < b_idx[q]):
                out_idx[k] = a_idx[p]
                if values:
                    out_val[k] = a_val[p]
                p += 1
            elif p >= pe or b_idx[q] < a_idx[p]:
                out_idx[k] = b_idx[q]
                if values:
                    out_val[k] = b_val[q]
                q += 1
            else:  # both hold (i, j): the lesser value
                out_idx[k] = a_idx[p]
                if values:
                    out_val[k] = min(a_val[p], b_val[q])
                p += 1
                q += 1
            k += 1


def _transpose_pattern(indptr, indices, t_ptr, t_idx):
    """Aᵀ's pattern by a counting sort: rows come out sorted (A's rows are walked in
    order); no values moved."""
    n = indptr.size - 1
    t_ptr[:] = 0
    for e in range(indices.size):
        t_ptr[indices[e] + 1] += 1
    for j in range(n):
        t_ptr[j + 1] += t_ptr[j]
    cursor = t_ptr[:-1].copy()
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            j = indices[e]
            t_idx[cursor[j]] = i
            cursor[j] += 1


_ENABLED = numba is not None and os.environ.get("KLEENE_CPU", "").lower() != "numpy"
if _ENABLED:  # compiled on first call (per argument types), then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _mix = _jit(_mix)
    # twins: their own names in Numba's disk cache, which does not tell compile options
    # apart (twin.py); prange runs as range in the serial ones
    _parallel = numba.njit(cache=True, nogil=True, parallel=True)
    _pattern_sum_threads = _parallel(twin(_pattern_sum, "_threads"))
    _both_sums_threads = _parallel(twin(_both_sums, "_threads"))
    _pattern_sum, _both_sums = _jit(_pattern_sum), _jit(_both_sums)
    _union_count, _union_write = _jit(_union_count), _jit(_union_write)
    _transpose_pattern = _jit(_transpose_pattern)
    _first_missing_mirror = _jit(_first_missing_mirror)


# Entries whose mirrors are looked up before the pass: a graph stored one way (an edge
# list read as directed) fails at the first, for a few bisections instead of a pass.
SAMPLES = 64
# Entries from which the pass cuts the rows into GROUPS runs of about equal entries
# and spreads them over the threads (below: one run on one thread, whose pass takes
# less than starting the others would). The runs do not depend on the thread count, so
# the value scan's float sum, added run by run in order, is the same bits on any machine.
PARALLEL_ENTRIES = 1 << 18
GROUPS = 64


def row_groups(indptr, groups: int) -> np.ndarray:
    """Bounds (int64, groups + 1 of them, 0 first and n last) cutting the rows into
    ``groups`` runs of about equal entries (a run may be empty).

    >>> row_groups(np.array([0, 5, 5, 6, 10]), 2).tolist()
    [0, 1, 4]
    """
    ptr = np.asarray(indptr)
    n = ptr.size - 1
    marks = (np.arange(groups + 1, dtype=np.int64) * int(ptr[-1])) // groups
    bounds = np.searchsorted(ptr, marks, side="left").astype(np.int64)
    bounds[0], bounds[-1] = 0, n
    return np.minimum(bounds, n)


def _integer_words(values) -> np.ndarray:
    """uint64 words of bool or integer values, as ``kl_value_bits`` takes them (floats
    are read as their own float64 words inside the pass)."""
    return values.astype(np.int64).view(np.uint64)


def _symmetry_sums(indptr, indices, values, salt: int, stats: dict | None = None):
    """(pattern sum, value sum): both 0 when the CSR equals its transpose (see the module
    docstring). ``values`` None: the pattern only (the value sum is 0). TypeError for a
    value type it cannot hash. The CSR must have sorted rows (a Matrix's CSR): the
    ``SAMPLES`` entries looked up first bisect them, and one without its mirror
    answers (1, 1) without the pass. ``stats``, a dict, gets from the same pass over
    float values what ``kleene.core.value_scan.keep_value_stats`` keeps: "nans",
    "least" and "greatest" (NaN aside; absent when every value is NaN), "positive_sum"
    and "positive_count" (left empty after the mirrors' answer, or for other values).
    """
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    idx = np.ascontiguousarray(indices, dtype=np.int32)
    if values is not None:
        values = np.asarray(values)
        if values.dtype.kind not in "biuf":
            raise DomainMismatch(f"symmetry_sums: no pass for {values.dtype} values")
    if idx.size and _first_missing_mirror(ptr, idx, SAMPLES):
        return 1, 1  # an entry without its mirror: not symmetric, no pass needed
    s = np.uint64(salt & 0xFFFFFFFFFFFFFFFF)
    if idx.size >= PARALLEL_ENTRIES:
        bounds = row_groups(ptr, GROUPS)
        threaded = numba.get_num_threads() > 1
    else:
        bounds, threaded = np.array([0, ptr.size - 1], dtype=np.int64), False
    if threaded:
        pattern_sum, both_sums = _pattern_sum_threads, _both_sums_threads
    else:
        pattern_sum, both_sums = _pattern_sum, _both_sums
    if values is None:
        return int(pattern_sum(ptr, idx, s, bounds)), 0
    is_float = values.dtype.kind == "f"
    if is_float:  # float64's own words (no copy), -0.0 read as +0.0 in the pass
        vals = np.ascontiguousarray(values, dtype=np.float64)
        bits = vals.view(np.uint64)
    else:
        vals, bits = np.zeros(0), _integer_words(values)
    scan = np.zeros(5)
    pattern, value = both_sums(ptr, idx, vals, bits, s, bounds, is_float, scan)
    if stats is not None and is_float:
        stats["nans"] = int(scan[0])
        if scan[1] <= scan[2]:  # (a value other than NaN was seen)
            stats["least"], stats["greatest"] = float(scan[1]), float(scan[2])
        stats["positive_sum"], stats["positive_count"] = float(scan[3]), int(scan[4])
    return int(pattern), int(value)


def _union_min(a, b, n: int, values: bool = True):
    """CSR (indptr, indices, values or None) of the row-wise union of CSRs ``a`` and ``b``
    (each (indptr, indices, values) with sorted rows and no duplicates): the lesser
    value where both hold an entry; ``values=False`` merges the patterns only."""
    a_ptr = np.ascontiguousarray(a[0], dtype=np.int64)
    b_ptr = np.ascontiguousarray(b[0], dtype=np.int64)
    a_idx = np.ascontiguousarray(a[1], dtype=np.int32)
    b_idx = np.ascontiguousarray(b[1], dtype=np.int32)
    if a_ptr.size != n + 1 or b_ptr.size != n + 1:
        raise InvalidValue(f"union_min: indptr must have {n + 1} entries")
    out_ptr = np.empty(n + 1, dtype=np.int64)
    _union_count(a_ptr, a_idx, b_ptr, b_idx, out_ptr)
    out_idx = np.empty(int(out_ptr[-1]), dtype=np.int32)
    if values:
        a_val = np.ascontiguousarray(a[2])
        b_val = np.ascontiguousarray(b[2], dtype=a_val.dtype)
        out_val = np.empty(out_idx.size, dtype=a_val.dtype)
    else:
        a_val = b_val = out_val = np.zeros(0, dtype=np.bool_)
    _union_write(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, out_ptr, out_idx, out_val, values)
    return out_ptr, out_idx, (out_val if values else None)


def _union_pattern(indptr, indices, n: int):
    """(indptr, indices) of the pattern of A ∪ Aᵀ for a square CSR with sorted rows and
    no duplicates: Aᵀ's pattern built here (no values moved), then the row merge."""
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    idx = np.ascontiguousarray(indices, dtype=np.int32)
    if ptr.size != n + 1:
        raise InvalidValue(f"union_pattern: indptr must have {n + 1} entries")
    t_ptr = np.empty(n + 1, dtype=np.int64)
    t_idx = np.empty(idx.size, dtype=np.int32)
    _transpose_pattern(ptr, idx, t_ptr, t_idx)
    out_ptr, out_idx, _ = _union_min((ptr, idx, None), (t_ptr, t_idx, None), n, values=False)
    return out_ptr, out_idx


# None without Numba (or under KLEENE_CPU=numpy): kleene.ops.symmetry's NumPy forms run.
symmetry_sums = _symmetry_sums if _ENABLED else None
union_min = _union_min if _ENABLED else None
union_pattern = _union_pattern if _ENABLED else None
