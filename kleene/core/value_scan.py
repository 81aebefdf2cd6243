"""What a pass over a matrix's stored values finds: NaNs (``Matrix.has_nan``) and, from
the same read, the least and greatest value and the positive sum and count, cached on
the matrix so no other pass reads them (APSP's and SSSP's checks and bucket sizes)."""

from __future__ import annotations

import os

import numpy as np

from kleene.backends.device import backend

from .matrix import Matrix

# Salt of the GPU fingerprint: fixed per process (so cached answers agree), unknown
# to whoever builds the input (so no input is a planned collision).
SYMMETRY_SALT = int.from_bytes(os.urandom(8), "little")


def scan_nan(m: Matrix) -> bool:
    """Whether a stored value of ``m`` is NaN, by the cheapest pass there is: the answer
    ``to_dense(scan=True)`` gathered, else one fused scan (GPU CSR or dense), else NumPy
    or CuPy's ``isnan``. What the fused scans find besides is kept (``keep_value_stats``).

    Example
    -------
    >>> import numpy as np, kleene
    >>> scan_nan(kleene.Matrix.from_edges([0, 1], [1, 0], [np.nan, 2.0]))
    True
    """
    pending = m.known("value_scan")  # gathered by to_dense(scan=True)
    if pending is not None:
        nans, stats = pending.result()
        keep_value_stats(m, nans, stats)
        return nans > 0
    xp = m._xp
    if m._fmt != "dense":
        if xp is not np:
            nan = scan_csr(m)  # one GPU pass answers symmetry too
            if nan is not None:
                return nan
        return bool(xp.isnan(m._values).any())
    scan = getattr(backend(xp), "dense_scan", None)  # fused where there is one
    if scan is not None:
        stats: dict = {}
        mark = m._store.absent if m._window is None else None  # (no bitmap to build)
        try:
            if mark is not None:
                nans = scan(m._values, None, stats, mark=mark)
            else:
                nans = scan(m._values, m._present, stats)
        except TypeError:  # a value type without a kernel
            pass
        else:
            keep_value_stats(m, nans, stats)
            return nans > 0
    nan = xp.isnan(m._values)  # one pass, no compaction of a dense matrix
    if m._window is None and m._store.absent is not None:
        return bool(nan.any())  # (the absent entries hold an infinity: no NaN among them)
    present = m._present
    return bool((nan if present is None else nan & present).any())


def keep_value_stats(m: Matrix, nans: int, stats: dict) -> None:
    """Cache what a scan of ``m``'s stored values found besides NaNs (floats free of
    NaN): the least value ("min_value", what an APSP or SSSP tests for negative
    weights) and (greatest, positive sum, positive count) ("value_stats", what the
    fused shortest-path loops size their buckets by), so no other pass reads them.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0], [1], [3.0])
    >>> keep_value_stats(A, 0, {"least": 3.0, "greatest": 3.0, "positive_sum": 3.0,
    ...                         "positive_count": 1})
    >>> A.known("min_value"), A.known("value_stats")
    (3.0, (3.0, 3.0, 1))
    """
    if m._dtype.kind == "f" and not nans and "least" in stats:
        m.cached("min_value", lambda: stats["least"])
        m.cached(
            "value_stats",
            lambda: (stats["greatest"], stats["positive_sum"], stats["positive_count"]),
        )


def scan_csr(A: Matrix, *, fingerprint: bool = True):
    """One pass over a CSR on a back end with the fingerprint kernel: whether A has a
    NaN value, with both symmetry answers cached on A as a by-product (the input checks
    of a graph and the symmetry test share the read), and for floating-point values
    their range and positive part (``value_stats``: what the shortest-path loops ask
    next, without another pass and host read). ``fingerprint=False``: the values are
    scanned but not hashed, so only the pattern's symmetry is learnt (the cheaper pass
    for callers that read the pattern alone). None where it cannot."""
    sums = getattr(backend(A.xp), "symmetry_sums", None)
    if sums is None or A._fmt != "csr" or A.nrows != A.ncols:
        return None
    ptr, idx, val = A._csr()
    stats: dict = {}
    try:
        found = sums(ptr, idx, val, SYMMETRY_SALT, stats=stats, fingerprint=fingerprint)
    except TypeError:  # a value type without a kernel
        return None
    pattern, weighted, nans = found
    A.cached("pattern_symmetric", lambda: pattern == 0)
    if weighted is not None:
        A.cached("symmetric", lambda: pattern == 0 and weighted == 0)
    elif pattern != 0:
        A.cached("symmetric", lambda: False)
    keep_value_stats(A, nans, stats)  # (the least value is exact in float64)
    return nans > 0
