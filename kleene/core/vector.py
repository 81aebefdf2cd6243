"""Vector: a dense (bitmap) or sparse vector on the CPU (NumPy) or GPU (CuPy)."""

from __future__ import annotations

import numpy as np

from kleene.backends.device import array_module, module_for
from kleene.errors import DimensionMismatch, InvalidObject, InvalidValue
from kleene.semiring import get_monoid
from kleene.semiring.dtypes import as_dtype, resolve_scalar

from . import layout, methods
from .matrix import _DEFAULT, _is_nan, default_missing
from .methods import OperationMethods
from .storage import Storage


class Vector(OperationMethods):
    """A dense or sparse vector over any supported dtype, on the CPU or the GPU.

    Dense vectors keep values plus an optional presence bitmap; sparse vectors keep
    sorted indices and values (a BFS frontier, say).

    Example
    -------
    >>> import numpy as np, kleene
    >>> u = kleene.Vector.from_coo([0, 3], [1.0, 2.0], 5)
    >>> u.nvals, u.to_dense().tolist()
    (2, [1.0, inf, inf, 2.0, inf])
    """

    __slots__ = ("_store", "__weakref__")

    def __init__(self):
        raise InvalidObject("use Vector.from_dense, from_coo or empty")

    @classmethod
    def _new(cls, xp, dtype, size, fmt, values, present=None, indices=None):
        self = object.__new__(cls)
        self._store = Storage(xp, dtype, (int(size),), fmt, values, present, None, indices)
        return self

    @classmethod
    def _from_bitmap(cls, xp, values, present=None):
        if present is not None and bool(present.all()):
            present = None
        return cls._new(xp, values.dtype, values.size, "dense", values, present)

    @classmethod
    def _from_sparse(cls, xp, indices, values, size):
        return cls._new(xp, values.dtype, size, "sparse", values, None, indices)

    @classmethod
    def from_dense(cls, a, missing=_DEFAULT, *, dtype=None) -> Vector:
        """A dense-format vector from a 1-D array; entries equal to ``missing`` are absent.

        >>> import numpy as np, kleene
        >>> kleene.Vector.from_dense(np.array([0.0, np.inf, 3.0])).nvals
        2
        """
        xp = array_module(a)
        a = xp.asarray(a)
        if a.ndim != 1:
            raise DimensionMismatch(f"from_dense needs a 1-D array, got shape {a.shape}")
        d = as_dtype(dtype if dtype is not None else a.dtype)
        missing = default_missing(d) if missing is _DEFAULT else missing
        present = layout.present_mask(xp, a, missing)
        values = xp.array(a, dtype=d, copy=True)
        return cls._from_bitmap(xp, values, present)

    @classmethod
    def from_coo(cls, indices, values, size, *, dup="min", dtype=None) -> Vector:
        """A sparse vector with entries ``values`` at ``indices`` (duplicates: ``dup``).

        >>> import kleene
        >>> kleene.Vector.from_coo([2, 2], [5, 3], 4).to_dense(missing=0).tolist()
        [0, 0, 3, 0]
        """
        xp = array_module(indices, values)
        idx = layout.as_ids(xp, indices, "vector index")
        vals = layout.per_entry(xp, values, idx.size, "values", "indices")
        if dtype is not None:
            vals = vals.astype(as_dtype(dtype))
        as_dtype(vals.dtype)
        size = int(size)
        if size < 0:
            raise InvalidValue(f"size must be non-negative, got {size}")
        layout.check_indices(xp, idx, size, "vector")
        dup_m = None if dup is None else get_monoid(dup)
        idx, vals = layout.sort_and_combine(xp, idx, vals, dup_m, "vector")
        return cls._from_sparse(xp, idx, vals, size)

    @classmethod
    def empty(cls, size, dtype=np.float64, *, format="sparse", device="cpu") -> Vector:
        """A vector with no entries.

        >>> import kleene
        >>> kleene.Vector.empty(4).nvals
        0
        """
        xp = module_for(device)
        d = as_dtype(dtype)
        if format == "dense":
            return cls._new(xp, d, size, "dense", xp.zeros(size, d), xp.zeros(size, bool))
        if format != "sparse":
            raise InvalidValue(f"format must be 'dense' or 'sparse', got {format!r}")
        return cls._from_sparse(xp, xp.zeros(0, np.int64), xp.zeros(0, d), size)

    # ---- properties -------------------------------------------------------
    size = property(lambda self: self._store.shape[0])
    shape = property(lambda self: self._store.shape)
    dtype = property(lambda self: self._store.dtype)
    format = property(lambda self: self._store.fmt)
    xp = property(lambda self: self._store.xp)
    # The storage's arrays (internal, for the operations).
    _xp = property(lambda self: self._store.xp)
    _dtype = property(lambda self: self._store.dtype)
    _size = property(lambda self: self._store.shape[0])
    _fmt = property(lambda self: self._store.fmt)
    _values = property(lambda self: self._store.values)
    _present = property(lambda self: self._store.present)
    _indices = property(lambda self: self._store.indices)

    @property
    def version(self) -> int:
        """Counter bumped by every write to this vector."""
        return self._store.version

    def cached(self, name: str, compute):
        """``compute()`` for this vector, remembered until the next write."""
        return self._store.cached(name, compute)

    def has_nan(self) -> bool:
        """Whether a stored value is NaN (cached until the next write)."""
        if self.dtype.kind not in "fc":
            return False
        return self.cached("has_nan", lambda: bool(self._xp.isnan(self._stored()).any()))

    @property
    def nvals(self) -> int:
        if self._fmt == "sparse" or self._present is None:
            return int(self._values.size)
        return int(self._present.sum())

    # ---- internal views ---------------------------------------------------
    def _stored(self):
        """The values of the stored entries, in no particular order (cheap)."""
        if self._fmt == "sparse" or self._present is None:
            return self._values
        return self._values[self._present]

    def _keys(self):
        """(sorted indices int64, values) of the stored entries."""
        if self._fmt == "sparse":
            return self._indices, self._values
        xp = self._xp
        if self._present is None:
            return xp.arange(self._size, dtype=np.int64), self._values
        idx = xp.flatnonzero(self._present).astype(np.int64)
        return idx, self._values[idx]

    def _bitmap(self):
        if self._fmt == "dense":
            return self._values, self._present
        xp = self._xp
        values = xp.zeros(self._size, dtype=self._dtype)
        present = xp.zeros(self._size, dtype=bool)
        values[self._indices] = self._values
        present[self._indices] = True
        return values, present

    def _assign_from(self, other: Vector) -> None:
        """Take over ``other``'s contents (how results are written into ``out``)."""
        self._store.replace(other._store)

    # ---- conversions ------------------------------------------------------
    def to_dense(self, missing=_DEFAULT):
        """A 1-D array with ``missing`` (default inf, False for bool) where absent."""
        missing = default_missing(self._dtype) if missing is _DEFAULT else missing
        values, present = self._bitmap()
        if present is None:
            return values.copy()
        if _is_nan(missing) and self._dtype.kind != "f":
            raise InvalidValue(f"missing=nan needs a floating dtype, this vector is {self._dtype}")
        fill = missing if _is_nan(missing) else resolve_scalar(missing, self._dtype)
        return self._xp.where(present, values, self._xp.asarray(fill, dtype=self._dtype))

    def to_coo(self):
        """(indices int64, values) of the stored entries, sorted by index."""
        idx, vals = self._keys()
        return idx.copy(), vals.copy()

    def to(self, device: str) -> Vector:
        xp = module_for(device)
        if xp is self._xp:
            return self
        move = (lambda a: a.get()) if xp is np else xp.asarray
        arrays = [
            None if a is None else move(a) for a in (self._values, self._present, self._indices)
        ]
        return Vector._new(xp, self._dtype, self._size, self._fmt, *arrays)

    def to_format(self, format: str) -> Vector:
        if format == self._fmt:
            return self.dup()
        if format == "dense":
            values, present = self._bitmap()
            return Vector._new(self._xp, self._dtype, self._size, "dense", values, present)
        if format == "sparse":
            idx, vals = self._keys()
            return Vector._from_sparse(self._xp, idx, vals, self._size)
        raise InvalidValue(f"format must be 'dense' or 'sparse', got {format!r}")

    def dup(self) -> Vector:
        copy = [
            None if a is None else a.copy() for a in (self._values, self._present, self._indices)
        ]
        return Vector._new(self._xp, self._dtype, self._size, self._fmt, *copy)

    def isequal(self, other: Vector) -> bool:
        if not isinstance(other, Vector) or other.size != self.size or other.dtype != self.dtype:
            return False
        (ia, va), (ib, vb) = self._keys(), other.to(self.device)._keys()
        if ia.size != ib.size:
            return False
        eqv = (va == vb) | ((va != va) & (vb != vb))
        return bool((ia == ib).all()) and bool(self._xp.all(eqv))

    def __repr__(self) -> str:
        return (
            f"kleene.Vector(size={self._size}, dtype={self._dtype}, nvals={self.nvals}, "
            f"format={self._fmt!r}, device={self.device!r})"
        )

    # ---- products as methods (the rest come from OperationMethods) --------
    def vxm(self, A, semiring, **kw):
        return methods._operations.vxm(self, A, semiring, **kw)
