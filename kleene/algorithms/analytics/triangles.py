"""Triangles, clustering and transitivity of an undirected graph, as masked products.

A triangle {i, j, k} is a wedge i - k - j closed by the edge (i, j): the number of
triangles through an edge is the entry of ``A ⊕.⊗ A`` at that edge, which is the
product under the mask of A's structure (GraphBLAS's masked ``plus_times`` on 0/1
values: the "plus_pair" count). The total counts each triangle once with the
strictly lower triangle L (LAGraph's Sandia form): ``sum(L ⊕.⊗ Lᵀ <L.S>)``, where
entry (i, j), j < i, counts the k < j adjacent to both. Self-loops are no edges
here, as in NetworkX.
"""

from __future__ import annotations

import numpy as np

from kleene.backends import array_module
from kleene.core import Matrix
from kleene.errors import InvalidValue
from kleene.ops import apply, mxm, reduce, select, transpose
from kleene.semiring import plus_times

from ..graph_input import as_graph


def simple_pattern(G, directed: bool, fname: str) -> Matrix:
    """The symmetric 0/1 int64 pattern of ``G`` without self-loops; InvalidValue for a
    directed graph (NetworkX's functions are not implemented for directed graphs)."""
    if directed:
        raise InvalidValue(
            f"{fname}: not implemented for directed graphs (as in NetworkX); "
            "pass directed=False to read the graph as undirected"
        )
    A = as_graph(G, directed=False, pattern=True, check_nan=False)
    A = select(A, "offdiag", 0)
    return apply(A, "one").astype(np.int64)


def _per_vertex(P: Matrix):
    """Triangles through each vertex (int64) and its degree, on P's device."""
    C = mxm(P, P, plus_times, mask=P.S, replace=True)  # triangles through each edge
    t = reduce(C, "plus", axis=1).to_dense(0) // 2
    d = reduce(P, "plus", axis=1).to_dense(0)
    return t, d


def triangle_count(G, *, directed: bool = False) -> int:
    """The number of triangles of an undirected graph.

    ``sum(L ⊕.⊗ Lᵀ)`` under the mask of L, the strictly lower triangle of the
    pattern (``plus_times`` on 0/1 values): each triangle k < j < i is counted once,
    at its edge (i, j). Edge weights and self-loops are ignored.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Read as undirected: an edge given one way is an edge both ways.
    directed : bool
        True is an error (triangles are defined here for undirected graphs).

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
    P = simple_pattern(G, directed, "triangle_count")
    L = select(P, "tril", -1)
    C = mxm(L, transpose(L), plus_times, mask=L.S, replace=True)
    return int(reduce(C, "plus"))


def triangles(G, *, directed: bool = False):
    """The number of triangles through each vertex (NetworkX's ``triangles``).

    Row sums of ``A ⊕.⊗ A`` under the mask of A (the triangles through each edge),
    halved. Edge weights and self-loops are ignored.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
    directed : bool
        True is an error, as NetworkX's ``triangles`` is for undirected graphs.

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
    t, _ = _per_vertex(simple_pattern(G, directed, "triangles"))
    return t


def clustering(G, *, directed: bool = False):
    """The clustering coefficient of each vertex (NetworkX's unweighted ``clustering``):
    ``2 T(v) / (deg(v) (deg(v) - 1))``, 0 where v is on no triangle.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Edge weights are ignored (the unweighted coefficient); self-loops too.
    directed : bool
        True is an error (NetworkX's directed clustering is not offered).

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
    t, d = _per_vertex(simple_pattern(G, directed, "clustering"))
    pairs = (d * (d - 1)).astype(np.float64)
    xp = array_module(t)
    return 2.0 * t / xp.where(t > 0, pairs, 1.0)


def transitivity(G, *, directed: bool = False) -> float:
    """The fraction of connected triples that are triangles (NetworkX's
    ``transitivity``): ``3 × triangles / triads`` = ``Σ 2 T(v) / Σ deg(v) (deg(v) - 1)``,
    0 when there is no triangle.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
    directed : bool
        True is an error, as in NetworkX.

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
    t, d = _per_vertex(simple_pattern(G, directed, "transitivity"))
    closed = int((2 * t).sum())
    if closed == 0:
        return 0.0
    return closed / int((d * (d - 1)).sum())
