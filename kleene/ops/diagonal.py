"""diagonal: a square matrix's diagonal as a Vector (GxB_Vector_diag's k = 0)."""

from __future__ import annotations

from kleene.core import access
from kleene.core.checks import as_container
from kleene.core.matrix import Matrix
from kleene.core.vector import Vector
from kleene.errors import DimensionMismatch

from .operations import select


def diagonal(A: Matrix) -> Vector:
    """The stored diagonal entries A(i, i) of a square matrix, as a Vector of size n.

    A full dense matrix gives a dense vector read straight off its diagonal (n
    entries touched, not n²: the closures check their diagonal for cycles after
    every dense APSP); otherwise the entries ``select(A, "diag")`` keeps.

    Example
    -------
    >>> import numpy as np, kleene
    >>> D = kleene.Matrix.from_dense(np.array([[0.0, 4.0], [1.0, -2.0]]), missing=None)
    >>> kleene.ops.diagonal(D).to_dense().tolist()
    [0.0, -2.0]
    """
    as_container("diagonal", "A", A, (Matrix,))
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"diagonal: A must be square, got shape {A.shape}")
    if A.format == "dense" and access.present(A) is None:
        # one copy: the diagonal of a full dense matrix, read straight off its array
        return access.from_bitmap(Vector, A.xp, A.xp.diagonal(access.values(A)).copy())
    rows, _, vals = select(A, "diag", 0).to_coo()
    return Vector.from_coo(rows, vals, A.nrows)
