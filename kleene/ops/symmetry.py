"""Whether a matrix equals its transpose, decided without building the transpose where
the back end can (the test that lets undirected and symmetric graphs skip Aᵀ), and
A ∪ Aᵀ for the graphs that do not."""

from __future__ import annotations

import functools

import numpy as np

from kleene.backends import backend
from kleene.core import access
from kleene.core.checks import as_container
from kleene.core.matrix import Matrix
from kleene.core.value_scan import SYMMETRY_SALT, keep_value_stats
from kleene.errors import DimensionMismatch


def is_symmetric(A: Matrix, *, values: bool = True) -> bool:
    """Whether ``A`` equals its transpose (``values=False``: its pattern does).

    Cached on A until its next write. The answer is one pass over A's CSR (on the
    GPU, and on the CPU with Numba: ``cpu/symmetry.py``): a salted 64-bit hash of
    each entry's unordered pair {i, j} (with its value w) is added where i < j and
    subtracted where i > j, so an entry and its mirror (j, i, w) cancel and the sum is
    0 for a symmetric matrix: "not symmetric" is exact, and a non-symmetric matrix
    passes only by a 2**-64 coincidence. No transpose is built
    for it. Without such a pass (other formats, value types, no Numba) A is compared
    with its transpose (which is then cached for pull products). A non-square
    matrix is not symmetric.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1], [1, 0], [2.0, 3.0])
    >>> kleene.ops.is_symmetric(A), kleene.ops.is_symmetric(A, values=False)
    (False, True)
    """
    as_container("is_symmetric", "A", A, (Matrix,))
    if A.nrows != A.ncols:
        return False
    if A.dtype.kind == "b":
        values = False  # a Boolean matrix's stored values are its pattern
    if values and A.known("pattern_symmetric") is False:
        return False
    key = "symmetric" if values else "pattern_symmetric"
    return bool(A.cached(key, lambda: _decide(A, values)))


def _decide(A: Matrix, values: bool) -> bool:
    xp = A.xp
    ptr, idx, val = access.csr(A)
    sums = getattr(backend(xp), "symmetry_sums", None)
    stats: dict = {}
    if sums is None and xp is np:
        host = backend(np).host_symmetry_sums  # the pass of cpu/symmetry.py (None without Numba)
        # (which also scans float values: what the shortest-path loops ask next)
        sums = None if host is None else functools.partial(host, stats=stats)
    if sums is not None:
        try:
            pattern, weighted = sums(ptr, idx, val if values else None, SYMMETRY_SALT)[:2]
        except TypeError:  # a value type without a kernel: compare with the transpose
            pass
        else:
            A.cached("pattern_symmetric", lambda: pattern == 0)  # the same pass decided it
            if "nans" in stats:
                keep_value_stats(A, stats["nans"], stats)
            return pattern == 0 and weighted == 0
    if values and not is_symmetric(A, values=False):
        return False
    from .multiply import transposed_csr  # here: multiply asks this module too

    tptr, tidx, tval = transposed_csr(A, build=True)
    same = bool(xp.array_equal(ptr, tptr)) and bool(xp.array_equal(idx, tidx))
    return same and (not values or bool(xp.array_equal(val, tval)))


def symmetrize(A: Matrix, *, pattern: bool = False) -> Matrix:
    """A ∪ Aᵀ: every edge in both directions, the lesser value where both exist.

    Composed form: ``ewise_add(A, transpose(A), "min")``. A matrix that already
    equals its transpose (``is_symmetric``; with ``pattern=True`` its pattern
    suffices, for callers that ignore the values) is returned as it is. On the GPU,
    and on the CPU with Numba, a CSR is merged row by row with its transpose in two
    passes (count, write), with no sort and no key arrays; ``pattern=True`` then
    returns a Boolean matrix.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1], [1, 0], [5.0, 3.0], n=3)
    >>> kleene.ops.symmetrize(A).to_dense(missing=0).tolist()
    [[0.0, 3.0, 0.0], [3.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    as_container("symmetrize", "A", A, (Matrix,))
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"symmetrize: A must be square, got shape {A.shape}")
    if is_symmetric(A, values=not pattern):
        return A
    host = backend(np)
    if pattern and A.xp is np and host.host_union_pattern is not None and A.format == "csr":
        # Aᵀ's pattern only (no values moved), merged: the pattern is all a caller reads
        ptr, idx = host.host_union_pattern(*access.csr(A)[:2], A.nrows)
        return access.from_csr(np, ptr, idx, np.ones(idx.size, dtype=np.bool_), A.shape)
    merge = getattr(backend(A.xp), "union_min", None)
    if merge is None and A.xp is np:
        merge = host.host_union_min  # cpu/symmetry.py (None without Numba)
    if merge is not None and A.format == "csr" and A.dtype in _MERGED:
        from .multiply import transposed_csr

        ptr, idx, val = merge(access.csr(A), transposed_csr(A, build=True), A.nrows, not pattern)
        if pattern:
            val = A.xp.ones(idx.size, dtype=np.bool_)
        return access.from_csr(A.xp, ptr, idx, val, A.shape)
    from .operations import ewise_add, transpose

    return ewise_add(A, transpose(A), "min")


_MERGED = {np.dtype(t) for t in (np.bool_, np.int32, np.int64, np.float32, np.float64)}

__all__ = ["is_symmetric", "symmetrize"]
