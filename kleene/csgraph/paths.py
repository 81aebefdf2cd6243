"""Predecessors to graphs: ``reconstruct_path`` (a tree) and ``construct_dist_matrix``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kleene.backends import is_cupy_array, to_host

from .conversions import DTYPE, ITYPE
from .pydata import to_pydata
from .validation import InvalidValue, validate


def reconstruct_path(csgraph, predecessors, directed=True):
    """The tree of ``predecessors`` (one row of them) as a sparse graph whose edges
    carry ``csgraph``'s weights, as ``scipy.sparse.csgraph.reconstruct_path``
    (undirected: the lighter of the two directions).

    Example
    -------
    >>> import numpy as np
    >>> from kleene import csgraph
    >>> G = np.array([[0, 1, 2], [0, 0, 3], [0, 0, 0]], dtype=float)
    >>> csgraph.reconstruct_path(G, np.array([-9999, 0, 1], np.int32)).toarray().tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]]
    """
    g = validate(csgraph, directed, dense=False)
    S = g.data if g.xp is np else sp.csr_matrix(g.data.get())
    n = g.n
    pred = np.asarray(to_host(predecessors)).ravel()
    nnull = int((pred < 0).sum())
    indices = np.argsort(pred, kind="stable")[nnull:].astype(ITYPE)
    pind = pred[indices]
    indptr = pind.searchsorted(np.arange(n + 1)).astype(ITYPE)
    S = sp.csr_array(S)
    if indices.size == 0:  # (SciPy's indexing with empty arrays gives a matrix, not values)
        data = np.zeros(0, dtype=DTYPE)
    elif directed:
        data = S[pind, indices]
    else:
        d1 = np.asarray(S[pind, indices], dtype=DTYPE).ravel()
        d2 = np.asarray(S[indices, pind], dtype=DTYPE).ravel()
        d1[d1 == 0] = np.inf
        d2[d2 == 0] = np.inf
        data = np.minimum(d1, d2)
    data = np.asarray(data, dtype=DTYPE).ravel()
    container = sp.csr_matrix if g.matrix else sp.csr_array
    tree = container((data, indices, indptr), shape=(n, n))
    if g.xp is not np:
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(sp.csr_matrix(tree))
    return to_pydata(tree, g.pydata)


def construct_dist_matrix(graph, predecessors, directed=True, null_value=np.inf):
    """The (n, n) distances along the paths of an int32 predecessor matrix, as
    ``scipy.sparse.csgraph.construct_dist_matrix`` (``null_value`` where there is no
    path; TypeError for predecessors that are not int32, as in SciPy).

    Each entry sums its path's edges by pointer doubling: after round r every entry
    knows the weight of the last 2^r edges of its path and the vertex before them.

    Example
    -------
    >>> from kleene import csgraph
    >>> G = [[0, 1, 4], [0, 0, 2], [0, 0, 0]]
    >>> d, p = csgraph.shortest_path(G, return_predecessors=True)
    >>> csgraph.construct_dist_matrix(G, p).tolist()
    [[0.0, 1.0, 3.0], [inf, 0.0, 2.0], [inf, inf, 0.0]]
    """
    g = validate(graph, directed)
    xp, n = g.xp, g.n
    W = g.data if not g.sparse else _dense(g.data, xp)
    if not directed:
        W = xp.minimum(W, W.T)
    if is_cupy_array(predecessors) != (xp is not np):
        predecessors = xp.asarray(to_host(predecessors) if xp is not np else predecessors)
    P = xp.asarray(predecessors)
    if P.dtype != np.int32:
        raise TypeError(f"predecessors must be int32 (SciPy's ITYPE), got {P.dtype}")
    if P.shape != (n, n):
        raise InvalidValue("graph and predecessors must have the same shape")
    cols = xp.arange(n)[None, :]
    rows = xp.arange(n)[:, None]
    anc = xp.where(P >= 0, P, -1).astype(np.int64)
    acc = xp.where(anc >= 0, W[xp.maximum(anc, 0), cols], 0.0)
    for _ in range(max(int(n).bit_length(), 1) + 1):
        live = anc >= 0
        if not bool(live.any()):
            break
        a = xp.maximum(anc, 0)
        acc = xp.where(live, acc + acc[rows, a], acc)
        anc = xp.where(live, anc[rows, a], anc)
    reach = (P >= 0) | (rows == cols)
    return xp.where(reach, acc, DTYPE(null_value))


def _dense(S, xp):
    """A sparse graph's dense weights, inf where there is no edge."""
    from kleene.core import Matrix

    return Matrix.from_scipy(S, dup="min").to_dense(missing=np.inf)
