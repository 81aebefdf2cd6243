"""Format conversions shared by Matrix and Vector (array-module generic)."""

from __future__ import annotations

import numpy as np

from kleene.backends.device import backend
from kleene.errors import DimensionMismatch, IndexOutOfBound, InvalidValue
from kleene.semiring import Monoid
from kleene.semiring.dtypes import resolve_scalar

INDEX = np.int32  # CSR column indices
OFFSET = np.int64  # CSR row pointers and flat keys


def present_mask(xp, values, missing):
    """Bool array: where ``values`` differs from the missing marker (None: everywhere, and
    then None). One comparison pass (``!=``): an ``==`` and its ``~`` would read and
    write the array twice."""
    if missing is None:
        return None
    if isinstance(missing, float) and np.isnan(missing):
        return values == values if values.dtype.kind == "f" else None  # (NaN != NaN)
    if values.dtype.kind == "b":
        return values != bool(missing)
    if isinstance(missing, (float, np.floating)) and np.isinf(missing):
        return values != resolve_scalar(missing, values.dtype)  # the dtype's own infinity
    return values != missing  # compared by value: 0.5 matches no integer


def absent_marker(missing, given, dtype):
    """The marker a dense matrix keeps instead of its bitmap (``Storage.absent``): an
    infinite ``missing`` of a float array taken in its own dtype (equal to no other
    value, so the bitmap it stands for is exact); else None (the bitmap built now).

    >>> import numpy as np
    >>> f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    >>> absent_marker(float("inf"), f32, f32), absent_marker(0.0, f64, f64)
    (np.float32(inf), None)
    """
    infinite = isinstance(missing, (float, np.floating)) and bool(np.isinf(missing))
    if not infinite or dtype.kind != "f" or np.dtype(given) != dtype:
        return None
    return dtype.type(missing)


def counts_to_offsets(xp, counts):
    out = xp.zeros(counts.size + 1, dtype=OFFSET)
    xp.cumsum(counts, out=out[1:])
    return out


def offsets_to_rows(xp, indptr):
    """Row index of every stored entry of a CSR matrix."""
    return segment_of(xp, indptr)


def segment_of(xp, offsets, total=None):
    """For each position in [0, offsets[-1]), the segment holding it.

    ``np.repeat(arange(n), counts)`` without a repeat on device arrays (CuPy's
    repeat takes only host counts).
    """
    if xp is np:
        counts = np.diff(offsets)
        return np.repeat(np.arange(counts.size, dtype=OFFSET), counts)
    expand = getattr(backend(xp), "expand_rows", None)
    if expand is not None:  # one coalesced write per entry, no search
        return expand(offsets, total)
    total = int(offsets[-1]) if total is None else total
    pos = xp.arange(total, dtype=OFFSET)
    return (xp.searchsorted(offsets[1:], pos, side="right")).astype(OFFSET)


def repeat_index(xp, counts):
    """``np.repeat(arange(len(counts)), counts)`` for host or device counts."""
    return segment_of(xp, counts_to_offsets(xp, counts.astype(OFFSET)))


def sort_and_combine(xp, keys, values, dup: Monoid | None, what: str):
    """Sort entries by key; combine equal keys with ``dup`` (ValueError if None)."""
    order = xp.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    if keys.size < 2:
        return keys, values
    first = xp.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    if bool(first.all()):
        return keys, values
    if dup is None:
        raise InvalidValue(f"{what} has duplicate entries and no dup monoid was given")
    starts = xp.flatnonzero(first).astype(OFFSET)
    offsets = xp.concatenate([starts, xp.asarray([keys.size], dtype=OFFSET)])
    values = backend(xp).segment_reduce(dup, values, offsets, values.dtype)
    return keys[starts], values


def coo_to_csr(xp, rows, cols, values, shape, dup: Monoid | None, what="matrix"):
    """CSR arrays (indptr, indices, values) from unsorted COO, duplicates combined."""
    nrows, ncols = shape
    rows = xp.asarray(rows, dtype=OFFSET)
    cols = xp.asarray(cols, dtype=OFFSET)
    keys, values = sort_and_combine(xp, rows * max(ncols, 1) + cols, values, dup, what)
    r = keys // max(ncols, 1)
    if xp is np:  # one array of nrows + 1: a file's declared size costs 8 bytes a row, no more
        indptr = _sorted_rows_to_offsets(r, nrows)
    else:
        indptr = counts_to_offsets(xp, xp.bincount(r, minlength=nrows)[:nrows])
    return indptr, (keys - r * max(ncols, 1)).astype(INDEX), values


def _sorted_rows_to_offsets(r, nrows):
    """Row pointers from sorted row ids, built in place (a bincount and its cumulative sum
    would hold two arrays of nrows at once)."""
    indptr = np.zeros(nrows + 1, dtype=OFFSET)
    if r.size:
        starts = np.flatnonzero(np.concatenate(([True], r[1:] != r[:-1])))
        indptr[r[starts] + 1] = np.diff(np.append(starts, r.size))
    np.cumsum(indptr, out=indptr)
    return indptr


def csr_transpose(xp, indptr, indices, values, shape):
    """CSR of the transpose (stable: rows of the result stay sorted)."""
    if xp is np:
        return _csr_transpose_host(indptr, indices, values, shape)
    return _csr_transpose_sorted(xp, indptr, indices, values, shape)


def _csr_transpose_host(indptr, indices, values, shape):
    """SciPy's csr→csc pass: O(nnz + n), a counting sort, no comparison sort.

    Rows come out sorted (it walks A's rows in order), as the stable sort gives.
    """
    import scipy.sparse as sp

    m = sp.csr_matrix((values, indices, indptr), shape=shape, copy=False).tocsc()
    return m.indptr.astype(OFFSET), m.indices.astype(INDEX), m.data


def _csr_transpose_sorted(xp, indptr, indices, values, shape):
    """A stable sort by column (CUB's radix sort on the GPU), the row ids gathered."""
    nrows, ncols = shape
    expand = getattr(backend(xp), "expand_rows", None)
    if expand is not None and nrows <= np.iinfo(INDEX).max:
        rows = expand(indptr, indices.size, INDEX)  # the row ids as they will be stored
    else:
        rows = offsets_to_rows(xp, indptr)
    order = xp.argsort(indices, kind="stable")
    count = getattr(backend(xp), "count_ids", None)  # no bincount range check (compiled)
    if count is not None:
        counts = count(indices, ncols)
    else:  # sliced: CuPy's bincount of an empty array has length 1 even for minlength=0
        counts = xp.bincount(indices, minlength=ncols)[:ncols]
    t_indptr = counts_to_offsets(xp, counts)
    t_indices = rows[order].astype(INDEX, copy=False)
    del rows
    return t_indptr, t_indices, values[order]


def check_indices(xp, idx, bound: int, what: str):
    """Validate an index array against [0, bound)."""
    if idx.size == 0:
        return
    lo, hi = int(idx.min()), int(idx.max())
    if lo < 0 or hi >= bound:
        bad = lo if lo < 0 else hi
        raise IndexOutOfBound(f"{what} index {bad} out of range for size {bound}")


def as_ids(xp, ids, what: str):
    """Vertex/index ids as a flat int64 array; ValueError for non-integral ids.

    Floats are accepted only when every value is a whole number (``[0.0, 2.0]``),
    never truncated (``0.5`` is an error, not vertex 0).
    """
    arr = xp.asarray(ids)
    kind = arr.dtype.kind
    if kind in "iu":
        return arr.astype(OFFSET, copy=False).ravel()
    if kind == "f" and arr.size:
        whole = xp.isfinite(arr) & (arr == xp.trunc(arr))
        if not bool(whole.all()):
            bad = arr.ravel()[xp.flatnonzero(~whole.ravel())[0]]
            raise InvalidValue(f"{what} ids must be integers, got {float(bad)!r}")
        return arr.astype(OFFSET).ravel()
    if kind == "f":
        return arr.astype(OFFSET).ravel()
    raise InvalidValue(f"{what} ids must be integers, got an array of dtype {arr.dtype}")


def per_entry(xp, values, count: int, what: str, entries: str):
    """``values`` with one value per entry: a scalar is repeated, any other length is
    an error (a 1-element list for three edges is a mistake, not a broadcast)."""
    arr = xp.asarray(values)
    if arr.ndim == 0:
        return xp.full(count, arr, dtype=arr.dtype)
    arr = arr.ravel()
    if arr.size != count:
        raise DimensionMismatch(
            f"{what} has {arr.size} entries for {count} {entries}; give one per entry or a scalar"
        )
    return arr


def compose_window(window, rows: slice, cols: slice, shape):
    """Slices of the underlying storage for ``[rows, cols]`` of a view at ``window``
    (None: the whole storage, of ``shape``): a block of a block is one window."""
    if window is None:
        return (slice(*rows.indices(shape[0])), slice(*cols.indices(shape[1])))
    out = []
    for outer, inner, size in zip(window, (rows, cols), shape, strict=True):
        span = range(*outer.indices(size))
        sub = span[inner]
        stop = sub.stop if sub.stop >= 0 else None
        out.append(slice(sub.start, stop, sub.step))
    return tuple(out)
