"""Triangles, clustering and transitivity of an undirected graph, as masked products.

A triangle {i, j, k} is a wedge i - k - j closed by the edge (i, j): the number of
triangles through an edge is the entry of ``A ⊕.⊗ A`` at that edge, which is the
product under the mask of A's structure (GraphBLAS's masked ``plus_times`` on 0/1
values: the "plus_pair" count). The total counts each triangle once with the
strictly lower triangle L (LAGraph's Sandia form): ``sum(L ⊕.⊗ Lᵀ <L.S>)``, where
entry (i, j), j < i, counts the k < j adjacent to both. Self-loops are no edges
here, as in NetworkX.

Those products are the composed forms (``fused=False``), which define the answers.
Where the back end has them, ``fused=None`` runs its compiled kernels instead
(``triangle_count`` and ``triangle_vertices`` of ``backend(xp)``: Numba on the CPU,
CUDA on the GPU), which orient each edge from the lower to the higher end in the
order (degree, id) and intersect out-lists: every triangle is found once, at its
lowest vertex, and no list is longer than ``sqrt(2 m)``, where the products above
merge a hub's whole row for every one of its edges (the CPU takes the id order
where every degree is small). They read the canonical CSR of the pattern (rows
sorted, no duplicates), which every kleene Matrix keeps; no product is built.
"""

from __future__ import annotations

import numpy as np

from kleene.backends import array_module, backend
from kleene.core import Matrix
from kleene.errors import InvalidValue
from kleene.ops import apply, diagonal, mxm, reduce, select, transpose
from kleene.semiring import plus_times

from ..graph_input import as_graph, on_device


def _check_directed(directed: bool, fname: str) -> None:
    if directed:  # checked first: a directed graph is refused before it is read
        raise InvalidValue(
            f"{fname}: not implemented for directed graphs (as in NetworkX); "
            "pass directed=False to read the graph as undirected"
        )


def _undirected(G, directed: bool, fname: str) -> Matrix:
    """The graph's symmetric pattern (stored values and self-loops still there)."""
    _check_directed(directed, fname)
    return as_graph(G, directed=False, pattern=True, check_nan=False)


def _simple(A: Matrix) -> Matrix:
    """The 0/1 int64 pattern of ``A`` without self-loops."""
    return apply(select(A, "offdiag", 0), "one").astype(np.int64)


def simple_pattern(G, directed: bool, fname: str) -> Matrix:
    """The symmetric 0/1 int64 pattern of ``G`` without self-loops; InvalidValue for a
    directed graph (NetworkX's functions are not implemented for directed graphs)."""
    return _simple(_undirected(G, directed, fname))


def _compiled(xp, name: str, fused, fname: str):
    """The back end's compiled kernel ``name``, or None for the composed form."""
    if fused not in (None, True, False):
        raise InvalidValue(f"{fname}: fused must be None, True or False, got {fused!r}")
    kernel = None if fused is False else getattr(backend(xp), name, None)
    if fused is True and kernel is None:
        raise InvalidValue(f"{fname}: this back end has no compiled {name}")
    return kernel


def _pattern_csr(A: Matrix):
    """(row offsets, column ids) of A's stored entries, on A's device, rows sorted."""
    xp = A.xp
    if xp is np:
        s = A.to_scipy()
        return s.indptr, s.indices
    rows, cols, _ = A.to_coo()
    return xp.searchsorted(rows, xp.arange(A.nrows + 1, dtype=rows.dtype)), cols


def _per_vertex(G, directed: bool, fname: str, fused, degrees: bool = True):
    """Triangles through each vertex (int64) and its degree (None unless asked), on
    the graph's device."""
    A = _undirected(G, directed, fname)
    kernel = _compiled(A.xp, "triangle_vertices", fused, fname)
    if kernel is None:
        P = _simple(A)
        C = mxm(P, P, plus_times, mask=P.S, replace=True)  # triangles through each edge
        t = reduce(C, "plus", axis=1).to_dense(0) // 2
        d = reduce(P, "plus", axis=1).to_dense(0) if degrees else None
        return t, d
    indptr, indices = _pattern_csr(A)
    t = kernel(indptr, indices, A.nrows)
    d = None
    if degrees:
        xp = A.xp
        d = xp.diff(indptr).astype(np.int64)
        loops, _ = diagonal(A).to_coo()  # a self-loop is no edge
        d[loops] -= 1
    return t, d


def triangle_count(
    G, *, directed: bool = False, fused: bool | None = None, device: str | None = None
) -> int:
    """The number of triangles of an undirected graph.

    ``sum(L ⊕.⊗ Lᵀ)`` under the mask of L, the strictly lower triangle of the
    pattern (``plus_times`` on 0/1 values): each triangle k < j < i is counted once,
    at its edge (i, j). Edge weights and self-loops are ignored. The compiled
    kernel counts each triangle once too, at its lowest vertex in the order
    (degree, id).

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Read as undirected: an edge given one way is an edge both ways.
    directed : bool
        True is an error (triangles are defined here for undirected graphs).
    fused : bool or None
        None runs the back end's compiled kernel where there is one (the
        degree-ordered count above), False the composed masked products, True
        requires the compiled kernel. The answers are the same.

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Returns
    -------
    int

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> K4 = sp.csr_matrix(1 - sp.identity(4).toarray())
    >>> kleene.triangle_count(K4)
    4
    """
    G = on_device(G, device)
    A = _undirected(G, directed, "triangle_count")
    kernel = _compiled(A.xp, "triangle_count", fused, "triangle_count")
    if kernel is not None:
        return int(kernel(*_pattern_csr(A), A.nrows))
    P = _simple(A)
    L = select(P, "tril", -1)
    C = mxm(L, transpose(L), plus_times, mask=L.S, replace=True)
    return int(reduce(C, "plus"))


def triangles(G, *, directed: bool = False, fused: bool | None = None, device: str | None = None):
    """The number of triangles through each vertex (NetworkX's ``triangles``).

    Row sums of ``A ⊕.⊗ A`` under the mask of A (the triangles through each edge),
    halved. Edge weights and self-loops are ignored.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
    directed : bool
        True is an error, as NetworkX's ``triangles`` is for undirected graphs.
    fused : bool or None
        None runs the back end's compiled kernel where there is one (the
        degree-ordered count above), False the composed masked products, True
        requires the compiled kernel. The answers are the same.

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Returns
    -------
    int64 array of length n, on the input's device

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> G = sp.csr_matrix(([1, 1, 1, 1], ([0, 1, 2, 2], [1, 2, 0, 3])), shape=(4, 4))
    >>> kleene.triangles(G).tolist()
    [1, 1, 1, 0]
    """
    G = on_device(G, device)
    t, _ = _per_vertex(G, directed, "triangles", fused, degrees=False)
    return t


def clustering(G, *, directed: bool = False, fused: bool | None = None, device: str | None = None):
    """The clustering coefficient of each vertex (NetworkX's unweighted ``clustering``):
    ``2 T(v) / (deg(v) (deg(v) - 1))``, 0 where v is on no triangle.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Edge weights are ignored (the unweighted coefficient); self-loops too.
    directed : bool
        True is an error (NetworkX's directed clustering is not offered).
    fused : bool or None
        None runs the back end's compiled kernel where there is one (the
        degree-ordered count above), False the composed masked products, True
        requires the compiled kernel. The answers are the same.

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Returns
    -------
    float64 array of length n, on the input's device

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> G = sp.csr_matrix(([1, 1, 1, 1], ([0, 1, 2, 2], [1, 2, 0, 3])), shape=(4, 4))
    >>> kleene.clustering(G).tolist()
    [1.0, 1.0, 0.3333333333333333, 0.0]
    """
    G = on_device(G, device)
    t, d = _per_vertex(G, directed, "clustering", fused)
    pairs = (d * (d - 1)).astype(np.float64)
    xp = array_module(t)
    return 2.0 * t / xp.where(t > 0, pairs, 1.0)


def transitivity(
    G, *, directed: bool = False, fused: bool | None = None, device: str | None = None
) -> float:
    """The fraction of connected triples that are triangles (NetworkX's
    ``transitivity``): ``3 × triangles / triads`` = ``Σ 2 T(v) / Σ deg(v) (deg(v) - 1)``,
    0 when there is no triangle.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
    directed : bool
        True is an error, as in NetworkX.
    fused : bool or None
        None runs the back end's compiled kernel where there is one (the
        degree-ordered count above), False the composed masked products, True
        requires the compiled kernel. The answers are the same.

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Returns
    -------
    float

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> G = sp.csr_matrix(([1, 1, 1, 1], ([0, 1, 2, 2], [1, 2, 0, 3])), shape=(4, 4))
    >>> kleene.transitivity(G)
    0.6
    """
    G = on_device(G, device)
    t, d = _per_vertex(G, directed, "transitivity", fused)
    closed = int((2 * t).sum())
    if closed == 0:
        return 0.0
    return closed / int((d * (d - 1)).sum())
