"""Connected components as fused primitives over a Matrix's own CSR arrays."""

from __future__ import annotations

import numpy as np

from kleene.backends import backend
from kleene.core import access
from kleene.core.matrix import Matrix
from kleene.core.value_scan import SYMMETRY_SALT
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
    component's rows; where it is not known yet, the GPU decides it in the same call
    (``components_if_symmetric``: one wait). InvalidValue when the back end has none.

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
    if A.xp is np:  # (the CPU's union-find reads every edge either way)
        return kernel(ptr, idx, A.nrows)
    found = _weak_if_symmetric(A, ptr, idx)  # (Afforest's skip needs a symmetric pattern)
    return found if found is not None else kernel(ptr, idx, A.nrows, symmetric=False)


def strong_components(A: Matrix, *, numbering: str | None = None):
    """``(count, int32 labels)`` of the strongly connected components of A's pattern,
    on A's device.

    ``numbering`` says how the components are numbered: "scipy", in the order the
    installed SciPy's depth-first search completes them (the CPU's Tarjan search,
    ``backends.cpu.components_strong``; a GPU matrix sends only its row pointers and
    column indices to the host, and the labels come back); "smallest", by their
    smallest vertex (cupyx's numbering; the GPU computes it by trimming and colouring,
    ``backends.cuda.strong_colouring``, and hands a graph too deep for its sweeps to
    the host search); None: "scipy" on the CPU, "smallest" on the GPU. Where the
    pattern is symmetric the two agree: the components are then the weak ones, which
    a GPU matrix finds by Afforest (``weak_components``). InvalidValue for another
    ``numbering``, or without the compiled host search (no Numba) where it is needed.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 2, 2], [1, 2, 1, 3], [1.0, 1.0, 1.0, 1.0])
    >>> strong_components(A)[1].tolist()  # (3 completes first, then {1, 2}, then 0)
    [2, 1, 1, 0]
    >>> strong_components(A, numbering="smallest")[1].tolist()
    [0, 1, 1, 2]
    """
    if numbering not in (None, "scipy", "smallest"):
        raise InvalidValue(f"numbering must be 'scipy' or 'smallest', got {numbering!r}")
    on_gpu = A.xp is not np
    numbering = numbering or ("smallest" if on_gpu else "scipy")
    if A.format != "csr":
        A = A.to_format("csr")
    ptr, idx, _ = access.csr(A)
    if on_gpu:  # (symmetric: both numberings are the weak one)
        found = _weak_if_symmetric(A, ptr, idx)
        if found is not None:
            return found
    if on_gpu and numbering == "smallest":
        found = backend(A.xp).strong_colouring(ptr, idx, A.nrows)
        if found is not None:
            return found
    kernel = getattr(backend(np), "components_strong", None)
    if kernel is None:
        raise InvalidValue("connected_components: no compiled strong-components kernel")
    if on_gpu:
        count, labels = kernel(ptr.get(), idx.get(), A.nrows)
        labels = A.xp.asarray(labels)
    else:
        count, labels = kernel(ptr, idx, A.nrows)
    if numbering == "smallest":
        labels = by_smallest_vertex(A.xp, labels)
    return count, labels


def _weak_if_symmetric(A: Matrix, ptr, idx):
    """The weak components of a GPU matrix whose pattern is symmetric, else None.
    Where A's symmetry is not known yet and the back end has ``components_if_symmetric``,
    the symmetry pass and Afforest run together and are read in one wait (the
    verdict is cached on A): a directed graph pays a wasted Afforest, a symmetric one
    saves a round trip to the device."""
    speculate = getattr(backend(A.xp), "components_if_symmetric", None)
    if speculate is None or A.known("pattern_symmetric") is not None:
        if not is_symmetric(A, values=False):
            return None
        return backend(A.xp).components_weak(ptr, idx, A.nrows, symmetric=True)
    symmetric, count, labels = speculate(ptr, idx, A.nrows, salt=SYMMETRY_SALT)
    A.cached("pattern_symmetric", lambda: symmetric)
    return (count, labels) if symmetric else None


def by_smallest_vertex(xp, labels):
    """The same partition as ``labels`` (int32, 0 .. count - 1), its parts renumbered
    in the order of their smallest vertex.

    Example
    -------
    >>> import numpy as np
    >>> by_smallest_vertex(np, np.array([2, 0, 2, 1], dtype=np.int32)).tolist()
    [0, 1, 0, 2]
    """
    n = labels.size
    if n == 0:
        return labels
    ids = xp.arange(n, dtype=np.int64)
    by_part = xp.lexsort(xp.stack((ids, labels.astype(np.int64))))  # part, then vertex
    parts = labels[by_part]
    starts = xp.flatnonzero(xp.concatenate((xp.ones(1, dtype=bool), parts[1:] != parts[:-1])))
    first = xp.empty(int(labels.max()) + 1, dtype=np.int64)
    first[parts[starts]] = by_part[starts]  # each part's smallest vertex
    rank = xp.empty(first.size, dtype=np.int32)
    rank[xp.argsort(first)] = xp.arange(first.size, dtype=np.int32)
    return rank[labels]


__all__ = ["by_smallest_vertex", "has_weak_components", "strong_components", "weak_components"]
