"""Connected components as fused primitives over a Matrix's own CSR arrays."""

from __future__ import annotations

import numpy as np

from kleene.backends import backend
from kleene.core import access
from kleene.core.matrix import Matrix
from kleene.errors import InvalidValue
from kleene.ops import is_symmetric


def has_weak_components(xp) -> bool:
    """Whether the back end of ``xp`` has a compiled weak-components kernel."""
    return getattr(backend(xp), "components_weak", None) is not None


def weak_components(A: Matrix):
    """``(count, int32 labels)`` of the weakly connected components of A's pattern,
    numbered by their smallest vertex (SciPy's numbering), on A's device.

    The back end's kernel (``components_weak``: union-find on the CPU, Afforest on the
    GPU) reads A's CSR arrays as stored, with no copy and no row expansion; whether the
    pattern is symmetric (``is_symmetric``, cached on A) lets Afforest skip the giant
    component's rows. InvalidValue when the back end has none.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 3], [1, 0, 2], [1.0, 1.0, 1.0], n=5)
    >>> count, labels = weak_components(A)
    >>> count, labels.tolist()
    (3, [0, 0, 1, 1, 2])
    """
    kernel = getattr(backend(A.xp), "components_weak", None)
    if kernel is None:
        raise InvalidValue("connected_components: this back end has no compiled kernel")
    if A.format != "csr":
        A = A.to_format("csr")
    ptr, idx, _ = access.csr(A)
    # (only the GPU's Afforest reads it; the CPU's union-find reads every edge anyway)
    symmetric = A.xp is not np and is_symmetric(A, values=False)
    return kernel(ptr, idx, A.nrows, symmetric=symmetric)


def strong_components(A: Matrix):
    """``(count, int32 labels)`` of the strongly connected components of A's pattern,
    numbered as the installed SciPy numbers them, on A's device.

    A depth-first search on the host (``backends.cpu.components_strong``) over A's CSR
    pattern as stored: a GPU matrix sends only its row pointers and column indices to
    the host (no values, no SciPy matrix built), and the labels come back. InvalidValue
    without the compiled host kernel (no Numba).

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 1], [1, 0, 2], [1.0, 1.0, 1.0])
    >>> count, labels = strong_components(A)
    >>> count, sorted(set(labels.tolist()))
    (2, [0, 1])
    """
    kernel = getattr(backend(np), "components_strong", None)
    if kernel is None:
        raise InvalidValue("connected_components: no compiled strong-components kernel")
    if A.format != "csr":
        A = A.to_format("csr")
    ptr, idx, _ = access.csr(A)
    if A.xp is np:
        return kernel(ptr, idx, A.nrows)
    count, labels = kernel(ptr.get(), idx.get(), A.nrows)
    return count, A.xp.asarray(labels)


__all__ = ["has_weak_components", "strong_components", "weak_components"]
