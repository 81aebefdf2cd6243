"""Matrix: a dense (bitmap) or CSR matrix on the CPU (NumPy) or GPU (CuPy)."""

from __future__ import annotations

import numpy as np

from kleene.backends.device import array_module, backend, is_cupy_array, module_for
from kleene.errors import DimensionMismatch, InvalidObject, InvalidValue
from kleene.semiring import get_monoid
from kleene.semiring.dtypes import as_dtype, resolve_scalar

from . import layout, methods
from .methods import OperationMethods
from .storage import Storage

_DEFAULT = object()  # "missing" default: inf for numeric dtypes, False for bool


def default_missing(dtype):
    return False if np.dtype(dtype) == np.bool_ else float("inf")


class Matrix(OperationMethods):
    """A sparse or dense matrix over any supported dtype, on the CPU or the GPU.

    Absent entries are structural (GraphBLAS semantics): an operation only
    multiplies stored entries. Dense matrices keep an optional presence bitmap;
    CSR matrices keep their own index arrays (cupyx CSR cannot hold integers).

    Example
    -------
    >>> import numpy as np, kleene
    >>> inf = np.inf
    >>> A = kleene.Matrix.from_dense(np.array([[0, 2, inf], [inf, 0, 3], [1, inf, 0]]))
    >>> A.shape, A.nvals, A.format
    ((3, 3), 6, 'dense')
    >>> kleene.mxm(A, A, "min_plus").to_dense()[0, 2]
    np.float64(5.0)
    """

    __slots__ = ("_store", "_window", "_shape", "_sliced", "__weakref__")

    # ---- construction -----------------------------------------------------
    def __init__(self):
        raise InvalidObject("use Matrix.from_dense, from_edges, from_scipy, from_csr or empty")

    @classmethod
    def _new(cls, xp, dtype, shape, fmt, values, present=None, indptr=None, indices=None):
        return cls._on(Storage(xp, dtype, shape, fmt, values, present, indptr, indices))

    @classmethod
    def _on(cls, store: Storage, window=None, shape=None) -> Matrix:
        self = object.__new__(cls)
        self._store = store
        self._window = window  # (rows, cols) slices of a block view, None for the whole
        self._shape = store.shape if shape is None else tuple(shape)
        self._sliced = None  # (generation, values, present) of a view, re-sliced on change
        return self

    @classmethod
    def _from_bitmap(cls, xp, values, present=None):
        if present is not None and bool(present.all()):
            present = None
        return cls._new(xp, values.dtype, values.shape, "dense", values, present)

    @classmethod
    def _from_csr(cls, xp, indptr, indices, values, shape):
        return cls._new(xp, values.dtype, shape, "csr", values, None, indptr, indices)

    @classmethod
    def from_dense(cls, a, missing=_DEFAULT, *, dtype=None, copy: bool = True) -> Matrix:
        """A dense-format matrix from a 2-D NumPy or CuPy array.

        Entries equal to ``missing`` are absent (default: inf, or False for bool;
        for integer dtypes inf means the dtype's maximum). ``missing=None`` keeps
        every entry. The matrix lives where ``a`` lives. ``copy=False`` keeps ``a``
        itself as the values when it is C-contiguous and of the matrix's dtype (the
        matrix then owns it: write to it no more), saving a pass over n² entries. An
        infinite ``missing`` on a float array builds the presence bitmap only when
        something asks for it: a dense closure (``kleene.apsp``) never does.

        >>> import numpy as np, kleene
        >>> kleene.Matrix.from_dense(np.array([[1.0, np.inf]])).nvals
        1
        >>> kleene.Matrix.from_dense(np.zeros((2, 2)), missing=None, copy=False).nvals
        4
        """
        xp = array_module(a)
        a = xp.asarray(a)
        if a.ndim != 2:
            raise DimensionMismatch(f"from_dense needs a 2-D array, got shape {a.shape}")
        d = as_dtype(dtype if dtype is not None else a.dtype)
        missing = default_missing(d) if missing is _DEFAULT else missing
        mark = layout.absent_marker(missing, a.dtype, d)
        present = None if mark is not None else layout.present_mask(xp, a, missing)
        # A finite value beyond a narrower dtype's range becomes ±inf in the cast, as a
        # cast does; the entry stays present (its bitmap comes from ``a`` above).
        with np.errstate(over="ignore"):
            if copy:
                values = xp.array(a, dtype=d, order="C", copy=True)
            else:
                values = xp.ascontiguousarray(a, dtype=d)
        if mark is not None:  # the bitmap is built only if something asks for it
            return cls._on(Storage(xp, d, values.shape, "dense", values, absent=mark))
        return cls._from_bitmap(xp, values, present)

    @classmethod
    def from_csr(cls, indptr, indices, values, shape) -> Matrix:
        """A CSR matrix from its arrays (validated; column order within rows fixed).

        >>> import numpy as np, kleene
        >>> A = kleene.Matrix.from_csr([0, 1, 1], [1], [5.0], (2, 2))
        >>> A.to_dense()[0, 1]
        np.float64(5.0)
        """
        xp = array_module(indptr, indices, values)
        nrows, ncols = _check_shape(shape)
        indptr = xp.asarray(indptr, dtype=layout.OFFSET)
        indices = xp.asarray(indices, dtype=np.int64)
        values = xp.asarray(values)
        as_dtype(values.dtype)
        if indptr.shape != (nrows + 1,) or indices.shape != values.shape or indices.ndim != 1:
            raise DimensionMismatch(
                f"CSR arrays do not fit shape {shape}: indptr {indptr.shape}, "
                f"indices {indices.shape}, values {values.shape}"
            )
        if (
            int(indptr[0]) != 0
            or int(indptr[-1]) != indices.size
            or bool((xp.diff(indptr) < 0).any())
        ):
            raise InvalidValue("CSR indptr must start at 0, be non-decreasing and end at nnz")
        layout.check_indices(xp, indices, ncols, "column")
        rows = layout.offsets_to_rows(xp, indptr)
        return cls._coo_build(xp, rows, indices, values, (nrows, ncols), None, "CSR input")

    @classmethod
    def from_edges(cls, src, dst, weights=None, n=None, *, ncols=None, dup="min", dtype=None):
        """A CSR matrix with entry (src[e], dst[e]) = weights[e].

        ``n`` is the number of rows (default: 1 + the largest vertex id), ``ncols``
        the number of columns (default ``n``). Duplicate edges are combined with the
        ``dup`` monoid (default min: the lightest edge); ``dup=None`` rejects them.
        ``weights=None`` builds a Boolean pattern matrix; a scalar weight applies to
        every edge. Float ids must be whole numbers (never truncated).

        >>> import kleene
        >>> A = kleene.Matrix.from_edges([0, 0, 1], [1, 1, 2], [5.0, 3.0, 1.0])
        >>> A.nvals, float(A.to_dense()[0, 1])
        (2, 3.0)
        """
        xp = array_module(src, dst, weights)
        src = layout.as_ids(xp, src, "source vertex")
        dst = layout.as_ids(xp, dst, "target vertex")
        if src.shape != dst.shape:
            raise DimensionMismatch(f"src and dst differ in length: {src.size} and {dst.size}")
        if weights is None:
            values = xp.ones(src.size, dtype=dtype or np.bool_)
        else:
            values = layout.per_entry(xp, weights, src.size, "weights", "edges")
        if dtype is not None:
            values = values.astype(as_dtype(dtype))
        as_dtype(values.dtype)
        top = int(max(src.max(), dst.max())) + 1 if src.size else 0
        nrows = top if n is None else int(n)
        ncols = nrows if ncols is None else int(ncols)
        layout.check_indices(xp, src, nrows, "source vertex")
        layout.check_indices(xp, dst, ncols, "target vertex")
        dup_m = None if dup is None else get_monoid(dup)
        return cls._coo_build(xp, src, dst, values, (nrows, ncols), dup_m, "edge list")

    @classmethod
    def _coo_build(cls, xp, rows, cols, values, shape, dup, what):
        indptr, indices, values = layout.coo_to_csr(xp, rows, cols, values, shape, dup, what)
        return cls._from_csr(xp, indptr, indices, values, shape)

    @classmethod
    def from_diag(cls, v) -> Matrix:
        """A square CSR matrix with the entries of Vector ``v`` on its diagonal.

        >>> import kleene
        >>> kleene.Matrix.from_diag(kleene.Vector.from_coo([1], [2.0], 3)).to_coo()[0].tolist()
        [1]
        """
        idx, vals = v._keys()  # sorted and unique: the CSR arrays directly, no sort
        xp, n = v.xp, v.size
        counts = xp.zeros(n, dtype=np.int64)
        counts[idx] = 1
        indptr = layout.counts_to_offsets(xp, counts)
        return cls._from_csr(xp, indptr, idx.astype(layout.INDEX), vals.copy(), (n, n))

    @classmethod
    def from_networkx(cls, G, weight="weight", nodelist=None, *, dtype=None, default=1):
        """The adjacency matrix of a networkx graph: ``kleene.io.from_networkx``."""
        from .interop import from_networkx

        return from_networkx(G, weight, nodelist, dtype=dtype, default=default)

    @classmethod
    def from_scipy(cls, s, *, dtype=None, dup="min", copy: bool = True) -> Matrix:
        """A CSR matrix from a scipy.sparse (CPU) or cupyx.scipy.sparse (GPU) matrix.

        Stored entries, explicit zeros included, become entries; duplicates are
        combined with ``dup`` (default min). A CSR in canonical format (sorted
        indices, no duplicates: ``s.has_canonical_format``) is taken as it is, with
        no sort and at most one copy per array. ``copy=False`` borrows its arrays
        where their dtypes already fit (int32 column indices, int64 row pointers):
        nothing is copied, and ``s`` must not change while the matrix is used
        (kleene's algorithms borrow their input this way: they never write it).

        >>> import scipy.sparse as sp, kleene
        >>> kleene.Matrix.from_scipy(sp.eye(3, format="csr")).nvals
        3
        """
        if _canonical_csr(s):  # sorted, no duplicates: the arrays as they are, no sort
            xp = array_module(s.data)
            shape = _check_shape(s.shape)
            d = s.data.dtype if dtype is None else as_dtype(dtype)
            vals = s.data.astype(d, copy=copy)
            indptr = s.indptr.astype(layout.OFFSET, copy=copy)
            indices = s.indices.astype(layout.INDEX, copy=copy)
            return cls._from_csr(xp, indptr, indices, vals, shape)
        coo = s.tocoo()
        xp = array_module(coo.data)
        vals = coo.data if dtype is None else coo.data.astype(as_dtype(dtype))
        dup_m = None if dup is None else get_monoid(dup)
        shape = _check_shape(coo.shape)
        return cls._coo_build(xp, coo.row, coo.col, xp.asarray(vals), shape, dup_m, "matrix")

    @classmethod
    def empty(cls, shape, dtype=np.float64, *, format="csr", device="cpu") -> Matrix:
        """A matrix with no entries.

        >>> import kleene
        >>> kleene.Matrix.empty((2, 3)).nvals
        0
        """
        xp = module_for(device)
        nrows, ncols = _check_shape(shape)
        d = as_dtype(dtype)
        if format == "dense":
            values = xp.zeros((nrows, ncols), dtype=d)
            return cls._new(xp, d, (nrows, ncols), "dense", values, xp.zeros_like(values, bool))
        if format != "csr":
            raise InvalidValue(f"format must be 'dense' or 'csr', got {format!r}")
        indptr = xp.zeros(nrows + 1, dtype=layout.OFFSET)
        return cls._from_csr(xp, indptr, xp.zeros(0, layout.INDEX), xp.zeros(0, d), (nrows, ncols))

    # ---- properties -------------------------------------------------------
    shape = property(lambda self: self._shape)
    nrows = property(lambda self: self._shape[0])
    ncols = property(lambda self: self._shape[1])
    dtype = property(lambda self: self._store.dtype)
    format = property(lambda self: self._store.fmt)
    xp = property(lambda self: self._store.xp)
    # The storage's arrays, windowed for a block view (internal, for the operations).
    _xp = property(lambda self: self._store.xp)
    _dtype = property(lambda self: self._store.dtype)
    _fmt = property(lambda self: self._store.fmt)
    _indptr = property(lambda self: self._store.indptr)
    _indices = property(lambda self: self._store.indices)

    @property
    def _values(self):
        return self._store.values if self._window is None else self._view_arrays()[0]

    @property
    def _present(self):
        return self._store.present if self._window is None else self._view_arrays()[1]

    def _view_arrays(self):
        """(values, present) of a block view, sliced once per buffer generation."""
        store = self._store
        cached = self._sliced
        if cached is None or cached[0] != store.generation:
            if store.fmt != "dense":
                raise InvalidValue("the matrix of this block view is no longer in dense format")
            r, c = self._window
            present = None if store.present is None else store.present[r, c]
            if present is not None and bool(present.all()):
                present = None  # a full block of a matrix with holes elsewhere
            cached = self._sliced = (store.generation, store.values[r, c], present)
        return cached[1], cached[2]

    @property
    def version(self) -> int:
        """Counter bumped by every write to this matrix or any view sharing its storage.

        >>> import numpy as np, kleene
        >>> D = kleene.Matrix.from_dense(np.zeros((2, 2)), missing=None)
        >>> v = D.version
        >>> _ = kleene.apply(D.block(slice(0, 1), slice(0, 2)), "plus", right=1.0,
        ...                  out=D.block(slice(0, 1), slice(0, 2)))
        >>> D.version > v
        True
        """
        return self._store.version

    def cached(self, name: str, compute):
        """``compute()`` for this matrix (or view), remembered until the next write.

        The one place derived data lives (a transposed CSR, the NaN-free flag,
        degrees, symmetry): kept on the storage shared with every view, keyed to
        the version, so a write through any view invalidates it everywhere.

        >>> import kleene
        >>> A = kleene.Matrix.from_edges([0, 1], [1, 0], [1.0, 2.0])
        >>> A.cached("nnz", lambda: A.nvals)
        2
        """
        return self._store.cached((self._window_key(), name), compute)

    def known(self, name: str):
        """What ``cached(name, ...)`` holds now, or None if nothing: computes nothing.

        >>> import kleene
        >>> A = kleene.Matrix.from_edges([0, 1], [1, 0], [1.0, 2.0])
        >>> A.known("nnz") is None, A.cached("nnz", lambda: A.nvals), A.known("nnz")
        (True, 2, 2)
        """
        return self._store.known((self._window_key(), name))

    def _window_key(self):
        if self._window is None:
            return None
        return tuple((s.start, s.stop, s.step) for s in self._window)

    def has_nan(self) -> bool:
        """Whether a stored value is NaN (cached until the next write).

        >>> import numpy as np, kleene
        >>> kleene.Matrix.from_edges([0], [1], [np.nan]).has_nan()
        True
        """
        if self.dtype.kind not in "fc":
            return False
        from .value_scan import scan_nan

        return self.cached("has_nan", lambda: scan_nan(self))

    @property
    def nvals(self) -> int:
        """Number of stored (present) entries."""
        if self._fmt == "csr":
            return int(self._values.size)
        if self._window is None:  # (past an absent marker: counted, no bitmap built)
            return self._store.count_present()
        present = self._present
        return int(self._values.size if present is None else self._xp.count_nonzero(present))

    @property
    def T(self) -> Matrix:
        """The transpose (a new matrix)."""
        return methods._operations.transpose(self)

    # ---- views of the data (internal, used by the operations) -------------
    def _coo(self):
        """(rows, cols, values) of the stored entries, row-major, int64 indices."""
        xp = self._xp
        if self._fmt == "csr":
            return (
                layout.offsets_to_rows(xp, self._indptr),
                self._indices.astype(np.int64),
                self._values,
            )
        if self._present is None:
            m, n = self._shape
            flat = xp.arange(m * n, dtype=np.int64)
            return flat // max(n, 1), flat % max(n, 1), self._values.ravel()
        rows, cols = xp.nonzero(self._present)
        return rows.astype(np.int64), cols.astype(np.int64), self._values[rows, cols]

    def _touched(self) -> None:
        """The values were changed in place (a kernel wrote them): a write."""
        self._store.written()

    def _stored(self):
        """The values of the stored entries, in no particular order (cheap)."""
        if self._fmt == "csr" or self._present is None:
            return self._values.ravel()
        return self._values[self._present]

    def _keys(self):
        """(flat row-major keys, values) of the stored entries, keys sorted."""
        rows, cols, vals = self._coo()
        return rows * self._shape[1] + cols, vals

    def _diagonal_keys(self, k: int = 0):
        """(sorted flat keys, values) of the stored entries on diagonal j - i == k
        of a dense-format matrix, reading only that diagonal."""
        xp = self._xp
        m, n = self._shape
        i = xp.arange(max(0, -k), max(0, min(m, n - k)), dtype=np.int64)
        j = i + k
        values = self._values[i, j]
        if self._present is not None:
            keep = self._present[i, j]
            i, j, values = i[keep], j[keep], values[keep]
        return i * n + j, values

    def _csr(self):
        """(indptr, indices, values) CSR arrays, converting a dense matrix."""
        if self._fmt == "csr":
            return self._indptr, self._indices, self._values
        rows, cols, vals = self._coo()
        counts = self._xp.bincount(rows, minlength=self._shape[0])[: self._shape[0]]
        return layout.counts_to_offsets(self._xp, counts), cols.astype(layout.INDEX), vals

    def _bitmap(self):
        """(values, present or None) dense arrays; absent slots hold arbitrary values."""
        if self._fmt == "dense":
            return self._values, self._present
        xp = self._xp
        values = xp.zeros(self._shape, dtype=self._dtype)
        present = xp.zeros(self._shape, dtype=bool)
        rows, cols, vals = self._coo()
        values[rows, cols] = vals
        present[rows, cols] = True
        return values, present

    def _assign_from(self, other: Matrix) -> None:
        """Take over ``other``'s contents (how results are written into ``out``).

        A block view is written into its matrix's buffer. A matrix with live block
        views keeps its buffer too (results are copied in), so no view detaches.
        """
        store = self._store
        if self._window is not None:
            self._write_window(other)
        elif store.has_views() and store.fmt == "dense" and other._fmt == "dense":
            had_holes = store.present is not None  # (read before the values change)
            store.values[...] = other._values
            if other._present is not None or had_holes:
                store.set_present(None if other._present is None else other._present.copy())
            else:
                store.written()
        else:
            store.replace(other._store)

    def _write_window(self, other: Matrix) -> None:
        """Write a result of this view's shape into the matrix's buffer."""
        if other._fmt != "dense":
            other = other.to_format("dense")
        store = self._store
        values, present = self._view_arrays()
        values[...] = other._values
        if other._present is None and present is None:
            store.written()
            return
        # A new bitmap rather than an in-place one: a present array may be shared.
        full = self._xp.ones(store.shape, dtype=bool)
        new = full if store.present is None else store.present.copy()
        new[self._window] = True if other._present is None else other._present
        store.set_present(None if bool(new.all()) else new)

    def block(self, rows: slice, cols: slice) -> Matrix:
        """A view of the block ``[rows, cols]`` of a dense-format matrix.

        The view shares this matrix's storage: writes into it (as ``out=`` of an
        operation, or by ``closure``) land in this matrix, writes into the matrix
        show in the view, and both see one ``version``. The closure operations
        need views of a full matrix (``from_dense(..., missing=None)``).

        >>> import numpy as np, kleene
        >>> D = kleene.Matrix.from_dense(np.zeros((4, 4)), missing=None)
        >>> B = D.block(slice(0, 2), slice(2, 4))
        >>> _ = kleene.apply(B, "plus", right=1.0, out=B)
        >>> D.to_dense()[0].tolist()
        [0.0, 0.0, 1.0, 1.0]
        """
        if self._fmt != "dense":
            raise InvalidValue("block views need a dense-format matrix (Matrix.from_dense)")
        if not (isinstance(rows, slice) and isinstance(cols, slice)):
            raise InvalidObject(
                "block takes two slices, e.g. D.block(slice(0, 64), slice(64, 128))"
            )
        r, c = layout.compose_window(self._window, rows, cols, self._store.shape)
        shape = (
            len(range(*r.indices(self._store.shape[0]))),
            len(range(*c.indices(self._store.shape[1]))),
        )
        view = Matrix._on(self._store, (r, c), shape)
        self._store.add_view(view)
        return view

    # ---- conversions ------------------------------------------------------
    def to_dense(self, missing=_DEFAULT, *, out=None, scan: bool = False):
        """A 2-D array (on this matrix's device) with ``missing`` where no entry is stored.

        ``out``: write into this array instead (C-contiguous, of the matrix's shape and
        dtype, on its device; e.g. a buffer from ``kleene.engine.replay_buffers``) and
        return it; a ValueError before anything is written if it does not fit.
        ``scan``: where the back end fuses it (a float bitmap matrix on the GPU), the
        same pass also scans the stored values for what :meth:`has_nan` answers (and
        the least value beside it); the answer comes back to the host only when
        ``has_nan`` asks, so the caller can queue more GPU work first. Elsewhere
        (or with ``has_nan`` already known) the dense form alone.

        >>> import numpy as np, kleene
        >>> kleene.Matrix.from_edges([0], [1], [2.0]).to_dense().tolist()
        [[inf, 2.0], [inf, inf]]
        >>> buf = np.empty((2, 2))
        >>> kleene.Matrix.from_edges([0], [1], [2.0]).to_dense(0.0, out=buf) is buf
        True
        """
        xp = self._xp
        missing = default_missing(self._dtype) if missing is _DEFAULT else missing
        if out is not None:
            self._check_out(out)
        # kept with its absent marker (a row slab of one too): fill past it, no bitmap
        mark, values, present = self._store.absent, self._store.values, None
        if mark is not None and self._window is not None:
            values = values[self._window]
            mark = mark if values.flags.c_contiguous else None
        if mark is None:
            values, present = self._bitmap()
            if present is None:
                return self._copy_into(values, out)
        if _is_nan(missing) and self._dtype.kind != "f":
            raise InvalidValue(f"missing=nan needs a floating dtype, this matrix is {self._dtype}")
        fill = missing if _is_nan(missing) else resolve_scalar(missing, self._dtype)
        # a scalar of the matrix's dtype, passed to the kernel as an argument (an array
        # made of it would be a host-to-device copy first)
        fill = self._dtype.type(fill)
        be = backend(xp)
        marked = {} if mark is None else {"mark": mark}
        fused = getattr(be, "dense_fill_scan", None) if scan else None
        if fused is not None and self._dtype.kind == "f" and self.known("has_nan") is None:
            out, pending = fused(values, present, fill, out, **marked)
            if pending is not None:  # has_nan reads it (value_scan.scan_nan)
                self.cached("value_scan", lambda: pending)
            return out
        dense_fill = getattr(be, "dense_fill", None)  # one pass where there is one
        if dense_fill is not None:
            return dense_fill(values, present, fill, out, **marked)
        if mark is not None:
            if fill == mark:  # (both infinities: equal only if of one sign)
                return self._copy_into(values, out)
            values, present = self._bitmap()  # no pass takes the marker: build the bitmap
            if present is None:
                return self._copy_into(values, out)
        if out is None:
            return xp.where(present, values, fill)
        out.fill(fill)
        xp.copyto(out, values, where=present)
        return out

    def _copy_into(self, values, out):
        """``values`` copied into ``out`` (a new array if None) by assignment: CuPy runs
        that as one copy kernel, and a given ``out=`` fills the same way."""
        out = self._xp.empty(self._shape, dtype=self._dtype) if out is None else out
        out[...] = values
        return out

    def _check_out(self, out) -> None:
        """ValueError unless ``out`` can take this matrix's dense values as it is."""
        ok = (
            (isinstance(out, np.ndarray) or is_cupy_array(out))
            and array_module(out) is self._xp
            and out.shape == self._shape
            and out.dtype == self._dtype
            and out.flags.c_contiguous
            and getattr(out.flags, "writeable", True)  # (CuPy arrays are)
        )
        if not ok:
            where = "GPU" if self._xp is not np else "host"
            raise InvalidValue(
                f"to_dense: out must be a writable C-contiguous {where} array of shape "
                f"{self._shape} and dtype {self._dtype}, got "
                f"{type(out).__name__} {getattr(out, 'shape', '?')} {getattr(out, 'dtype', '?')}"
            )

    def to_coo(self):
        """(rows, cols, values) of the stored entries, sorted row-major."""
        rows, cols, vals = self._coo()
        return rows, cols, vals.copy()

    def to_scipy(self):
        """A scipy.sparse CSR matrix on the host (explicit zeros kept).

        >>> import kleene
        >>> kleene.Matrix.from_edges([0], [1], [0.0]).to_scipy().nnz
        1
        """
        import scipy.sparse as sp

        indptr, indices, values = (_host(a) for a in self._csr())
        return sp.csr_matrix((values, indices, indptr), shape=self._shape)

    def to_networkx(self, *, directed: bool = True, weight="weight"):
        """A networkx graph with nodes 0..n-1: ``kleene.io.to_networkx``."""
        from .interop import to_networkx

        return to_networkx(self, directed=directed, weight=weight)

    def to(self, device: str) -> Matrix:
        """A copy on ``device`` ("cpu" or "gpu"); self if already there."""
        xp = module_for(device)
        if xp is self._xp:
            return self
        move = (lambda a: a.get()) if xp is np else xp.asarray
        arrays = [
            None if a is None else move(a)
            for a in (self._values, self._present, self._indptr, self._indices)
        ]
        return Matrix._new(xp, self._dtype, self._shape, self._fmt, *arrays)

    def to_format(self, format: str) -> Matrix:
        """A copy in ``format`` ("dense" or "csr")."""
        if format == self._fmt:
            return self.dup()
        if format == "dense":
            values, present = self._bitmap()
            return Matrix._new(self._xp, self._dtype, self._shape, "dense", values, present)
        if format == "csr":
            return Matrix._from_csr(self._xp, *self._csr(), self._shape)
        raise InvalidValue(f"format must be 'dense' or 'csr', got {format!r}")

    def astype(self, dtype) -> Matrix:
        """A copy with values cast to ``dtype``, same structure and format.

        >>> import kleene
        >>> kleene.Matrix.from_edges([0], [1], [3]).astype("float64").dtype
        dtype('float64')
        """
        d = as_dtype(dtype)
        copy = [
            None if a is None else a.copy() for a in (self._present, self._indptr, self._indices)
        ]
        return Matrix._new(self._xp, d, self._shape, self._fmt, self._values.astype(d), *copy)

    def dup(self) -> Matrix:
        """A deep copy."""
        copy = [
            None if a is None else a.copy()
            for a in (self._values, self._present, self._indptr, self._indices)
        ]
        return Matrix._new(self._xp, self._dtype, self._shape, self._fmt, *copy)

    def isequal(self, other: Matrix) -> bool:
        """Same shape, dtype, structure and values (NaN equal to NaN)."""
        if not isinstance(other, Matrix) or other.shape != self.shape or other.dtype != self.dtype:
            return False
        a, b = self._coo(), other.to(self.device)._coo()
        xp = self._xp
        if a[0].size != b[0].size:
            return False
        same = bool((a[0] == b[0]).all() and (a[1] == b[1]).all())
        eqv = (a[2] == b[2]) | ((a[2] != a[2]) & (b[2] != b[2]))
        return same and bool(xp.all(eqv))

    def __repr__(self) -> str:
        return (
            f"kleene.Matrix(shape={self._shape}, dtype={self._dtype}, nvals={self.nvals}, "
            f"format={self._fmt!r}, device={self.device!r})"
        )

    # ---- products as methods (the rest come from OperationMethods) --------
    def mxm(self, other, semiring, **kw):
        return methods._operations.mxm(self, other, semiring, **kw)

    def mxv(self, u, semiring, **kw):
        return methods._operations.mxv(self, u, semiring, **kw)


def _canonical_csr(s) -> bool:
    """A CSR matrix that says its column indices are sorted with no duplicates."""
    if getattr(s, "format", None) != "csr":
        return False
    try:
        return bool(s.has_canonical_format)
    except Exception:  # a library whose flag cannot be read: take the general path
        return False


def _is_nan(x) -> bool:
    return isinstance(x, float) and x != x


def _host(a):
    return a.get() if is_cupy_array(a) else a


def _check_shape(shape):
    try:
        nrows, ncols = (int(s) for s in shape)
    except (TypeError, ValueError):
        raise InvalidValue(f"shape must be (nrows, ncols), got {shape!r}") from None
    if nrows < 0 or ncols < 0:
        raise InvalidValue(f"shape must be non-negative, got {shape!r}")
    return nrows, ncols
