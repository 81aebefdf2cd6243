"""A container's arrays, as the operation and engine layers read and build them.

This is the one interface between the containers and the layers that compute on
them (``kleene.ops``, ``kleene.engine``): what is stored, in which layout, and how
a result is wrapped back into a container without a copy or a check. A container's
own attributes stay private to ``kleene.core``; the layers above the engine
(algorithms, front ends) use neither: they see only the public methods.

Arrays returned here are the container's own (views for a block view): writing
into one is a write to the container, to be followed by :func:`touched`.

Example
-------
>>> import kleene
>>> from kleene.core import access
>>> A = kleene.Matrix.from_edges([0, 1], [1, 2], [5.0, 7.0], n=3)
>>> indptr, indices, values = access.csr(A)
>>> indptr.tolist(), indices.tolist(), values.tolist()
([0, 1, 2, 2], [1, 2], [5.0, 7.0])
"""

from __future__ import annotations

from .matrix import Matrix
from .vector import Vector

# ---- reading ---------------------------------------------------------------------


def values(x):
    """The stored values: the full dense array (a block view's window of it), or a
    sparse container's values in storage order."""
    return x._values


def present(x):
    """A dense container's presence bitmap (None: every entry is stored)."""
    return x._present


def indices(x):
    """A sparse container's column (Matrix) or position (Vector) indices."""
    return x._indices


def indptr(A: Matrix):
    """A CSR matrix's row pointers."""
    return A._indptr


def csr(A: Matrix):
    """``(indptr, indices, values)`` of A in CSR form, converted once and cached."""
    return A._csr()


def bitmap(x):
    """``(values, present)`` of x in full dense form (present None: all stored)."""
    return x._bitmap()


def keys(x):
    """Sorted linear keys of the stored entries (``i * ncols + j`` for a Matrix)."""
    return x._keys()


def stored(x):
    """``(keys, values)`` of the stored entries."""
    return x._stored()


def diagonal_keys(A: Matrix, k: int = 0):
    """The linear keys of the k-th diagonal's positions."""
    return A._diagonal_keys(k)


def storage(x):
    """The Storage that owns x's arrays (shared with every block view of it)."""
    return x._store


def window(A: Matrix):
    """The ``(rows, cols)`` slices of a block view, None for a whole matrix."""
    return A._window


# ---- writing -----------------------------------------------------------------------


def touched(x) -> None:
    """Tell x its arrays were written in place: bumps the version, drops derived data."""
    x._touched()


def assign_from(out, other) -> None:
    """Make ``out`` hold ``other``'s contents (same kind), in place."""
    out._assign_from(other)


# ---- building ----------------------------------------------------------------------


def new(kind, *args, **kwargs):
    """A Matrix or Vector (``kind``) around arrays already in its layout, no checks:
    ``new(Matrix, xp, dtype, shape, fmt, values, present=, indptr=, indices=)``."""
    return kind._new(*args, **kwargs)


def from_bitmap(kind, xp, values_, present_=None):
    """A full dense Matrix or Vector around ``values_`` and its presence bitmap."""
    return kind._from_bitmap(xp, values_, present_)


def from_csr(xp, indptr_, indices_, values_, shape) -> Matrix:
    """A CSR Matrix around canonical arrays (sorted, no duplicates), no checks."""
    return Matrix._from_csr(xp, indptr_, indices_, values_, shape)


def from_sparse(xp, indices_, values_, size) -> Vector:
    """A sparse Vector around sorted unique indices and their values, no checks."""
    return Vector._from_sparse(xp, indices_, values_, size)
