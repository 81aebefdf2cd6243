"""Whether a matrix's stored values are finite, and where they are not: the passes behind
the algorithms' weight rules (``kleene.algorithms.graph_input.finite_weights``: +inf is
no edge, NaN and -inf are refused).

Each reads the value buffer as it is: a dense matrix taken with "inf = no edge" keeps
that marker in its absent slots and no presence bitmap, and these passes build none.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kleene.core import access
from kleene.core.matrix import Matrix
from kleene.core.value_scan import scan_csr

from .operations import reduce


def all_finite(A: Matrix, *, fingerprint: bool = True) -> bool:
    """Whether no stored value of ``A`` is NaN or infinite, by one sum of its value
    buffer (a dense matrix's absent slots included, so a false answer only sends the
    caller to the exact checks, as does an overflow of large finite values); on the
    GPU by the range the NaN scan finds besides (``value_scan``), so that a first call
    compiles no CuPy reduction. A true one is cached on ``A`` (``has_nan`` False,
    "finite weights" True). ``fingerprint=False``, for a caller that reads the pattern
    only: where that scan runs first here, it hashes the pattern but not the values
    (whether the weights are symmetric stays unknown; the pass costs less).

    >>> import numpy as np, kleene
    >>> all_finite(kleene.Matrix.from_edges([0], [1], [2.0]))
    True
    >>> all_finite(kleene.Matrix.from_edges([0], [1], [np.inf]))
    False
    """
    if A.dtype.kind != "f" or A.known("finite weights"):
        return True
    if A.xp is not np:  # kleene's fused scan, not a CuPy reduction (compiled on first use)
        finite = _finite_by_scan(A, fingerprint)
        if finite is False:
            return False
    else:
        finite = None
    if finite is None:
        with np.errstate(invalid="ignore", over="ignore"):
            total = _sum(access.values(A))
        if not bool(A.xp.isfinite(total)):
            return False
    A.cached("has_nan", lambda: False)
    A.cached("finite weights", lambda: True)
    return True


_SLAB = 1 << 24  # entries a thread sums at a time on the host


def _sum(values):
    """The float64 sum of a value buffer; a large host one by slabs on a few threads
    (NumPy's sums release the GIL), since a dense graph's buffer is n² entries."""
    if values.size < 4 * _SLAB or not isinstance(values, np.ndarray):
        return values.sum(dtype=np.float64)
    flat = values.reshape(-1)  # (a dense graph's buffer is C-contiguous: a view)
    bounds = range(0, flat.size, _SLAB)
    with ThreadPoolExecutor(max(1, min(8, os.cpu_count() or 1))) as pool:
        parts = pool.map(lambda lo: flat[lo : lo + _SLAB].sum(dtype=np.float64), bounds)
        return np.float64(sum(parts))


def _finite_by_scan(A: Matrix, fingerprint: bool = True) -> bool | None:
    """Whether every stored value is finite, from the NaN scan's by-products (the range
    it caches: the pass the shortest-path checks run anyway), or None where that scan
    keeps no range (a value type or layout without a fused kernel)."""
    if not fingerprint and A.known("has_nan") is None:
        nan = scan_csr(A, fingerprint=False)
        if nan is not None:
            A.cached("has_nan", lambda: nan)
    if A.has_nan():
        return False
    least, stats = A.known("min_value"), A.known("value_stats")
    if least is None or stats is None:
        return None
    return bool(least > -np.inf and stats[0] < np.inf)


def stored_min(A: Matrix) -> float:
    """``A``'s least stored value (+inf if none), cached as "min_value" (what the
    shortest-path checks for negative weights read). A dense matrix whose absent slots
    hold +inf is read whole, without the presence bitmap a ``reduce`` would build.

    >>> import kleene
    >>> stored_min(kleene.Matrix.from_edges([0, 1], [1, 0], [3.0, -1.0]))
    -1.0
    """

    def least():
        if _absent_is(A, np.inf):
            return access.values(A).min() if access.values(A).size else np.inf
        return reduce(A, "min") if A.nvals else np.inf

    return float(A.cached("min_value", least))


def stores(A: Matrix, value: float) -> bool:
    """Whether a stored value of ``A`` equals ``value`` (an infinity, say): one pass.

    >>> import numpy as np, kleene
    >>> stores(kleene.Matrix.from_dense(np.array([[0.0, np.inf]])), np.inf)  # inf: absent
    False
    """
    hit = _equal(A, value)
    return hit is not None and bool(hit.any())


def first_stored(A: Matrix, value: float) -> tuple[int, int] | None:
    """(row, column) of the first stored entry of ``A`` equal to ``value``, row-major,
    or None.

    >>> import numpy as np, kleene
    >>> first_stored(kleene.Matrix.from_edges([0, 2], [1, 1], [1.0, -np.inf]), -np.inf)
    (2, 1)
    """
    hit = _equal(A, value)
    xp = A.xp
    if hit is None or not bool(hit.any()):
        return None
    if A.format != "dense":
        k = int(xp.flatnonzero(hit)[0])
        row = int(xp.searchsorted(access.indptr(A), xp.asarray([k]), side="right")[0]) - 1
        return row, int(access.indices(A)[k])
    rows, cols = xp.nonzero(hit)
    return int(rows[0]), int(cols[0])


def _equal(A: Matrix, value):
    """Where the stored values equal ``value`` (over the value buffer; absent slots
    False), or None where none can (``value`` is the absent marker)."""
    if A.format == "dense" and access.window(A) is None and access.storage(A).absent is not None:
        if bool(access.storage(A).absent == value):
            return None
        return access.values(A) == value  # (a slot equal to value is not a marked, absent one)
    hit = access.values(A) == value
    if A.format == "dense" and access.present(A) is not None:
        hit &= access.present(A)
    return hit


def _absent_is(A: Matrix, value) -> bool:
    """Whether ``A`` is a dense matrix whose absent slots are exactly those equal to
    ``value`` (a dense array taken with "inf = no edge": no bitmap, the marker kept)."""
    if A.format != "dense" or access.window(A) is not None:
        return False
    mark = access.storage(A).absent
    return mark is not None and bool(mark == value)
