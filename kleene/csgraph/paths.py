"""Predecessors to graphs: ``reconstruct_path`` (a tree) and ``construct_dist_matrix``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kleene.backends import is_cupy_array, to_host

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

from .conversions import DTYPE
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
    return tree_of(validate(csgraph, directed, dense=False), predecessors, directed)


def tree_of(g, predecessors, directed):
    """:func:`reconstruct_path` of a validated graph (``validation.Graph``)."""
    S = g.data if g.xp is np else sp.csr_matrix(g.data.get())
    n = g.n
    pred = np.ascontiguousarray(to_host(predecessors), dtype=np.int64).ravel()
    indptr, indices, data = _tree_compiled(pred, S.indptr, S.indices, S.data, not directed)
    container = sp.csr_matrix if g.matrix else sp.csr_array
    tree = container((data, indices, indptr), shape=(n, n))
    if g.xp is not np:
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(sp.csr_matrix(tree))
    return to_pydata(tree, g.pydata)


def _weight(indptr, indices, data, u, v):
    # Edge u -> v's weight in a CSR with sorted rows (validation.py makes them so), 0 if
    # there is none: what SciPy's ``csgraph[u, v]`` reads.
    lo, hi = indptr[u], indptr[u + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    if lo < indptr[u + 1] and indices[lo] == v:
        return data[lo]
    return 0.0


def _tree(pred, indptr, indices, data, undirected):
    # SciPy's reconstruct_path: an edge pred[v] -> v per vertex with a predecessor, its
    # weight the graph's (undirected: the lesser of the two directions, a missing or
    # zero one counting as inf, as SciPy counts it). Rows by counting sort, each sorted.
    n = pred.size
    out_ptr = np.zeros(n + 1, np.int32)
    for v in range(n):
        if pred[v] >= 0:
            out_ptr[pred[v] + 1] += 1
    for u in range(n):
        out_ptr[u + 1] += out_ptr[u]
    fill = out_ptr[:-1].copy()
    out_idx = np.empty(out_ptr[n], np.int32)
    out_w = np.empty(out_ptr[n], np.float64)
    for v in range(n):
        u = pred[v]
        if u < 0:
            continue
        w = _weight_c(indptr, indices, data, u, v)
        if undirected:
            back = _weight_c(indptr, indices, data, v, u)
            w = np.inf if w == 0 else w
            back = np.inf if back == 0 else back
            w = min(w, back)
        out_idx[fill[u]] = v
        out_w[fill[u]] = w
        fill[u] += 1
    return out_ptr, out_idx, out_w


if numba is not None:
    _weight_c = numba.njit(cache=True, nogil=True)(_weight)
    _tree_compiled = numba.njit(cache=True, nogil=True)(_tree)
else:  # pragma: no cover
    _weight_c, _tree_compiled = _weight, _tree


def construct_dist_matrix(graph, predecessors, directed=True, null_value=np.inf):
    """The (n, n) distances along the paths of an int32 predecessor matrix, as
    ``scipy.sparse.csgraph.construct_dist_matrix`` (``null_value`` where there is no
    path; TypeError for predecessors that are not int32, as in SciPy).

    Each row sums its tree's edges from the root down, each vertex once (compiled
    with Numba on the host; pointer doubling over whole rows on the GPU).

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
    if xp is np:
        out = np.empty((n, n), dtype=DTYPE)
        _sums(np.ascontiguousarray(P), np.ascontiguousarray(W, dtype=DTYPE), DTYPE(null_value), out)
        return out
    return _doubling(xp, P, W, n, null_value)


def _path_sums(P, W, null, out):
    # Row i: each vertex j's distance is its parent's plus the edge (parent, j); the
    # chain up to a finished vertex is stacked, then summed on the way down.
    n = P.shape[0]
    stack = np.empty(n, np.int64)
    done = np.zeros(n, np.bool_)
    reach = np.zeros(n, np.bool_)
    for i in range(n):
        done[:] = False
        row = out[i]
        row[i] = 0.0
        done[i] = True
        reach[i] = True
        for j in range(n):
            top = 0
            v = j
            while not done[v] and P[i, v] >= 0 and top < n:
                stack[top] = v
                top += 1
                v = P[i, v]
            ok = done[v] and reach[v]
            base = row[v] if ok else 0.0
            while top > 0:
                top -= 1
                u = stack[top]
                if ok:
                    base += W[P[i, u], u]
                    row[u] = base
                else:
                    row[u] = null
                reach[u] = ok
                done[u] = True
            if not done[j]:  # no predecessor and not the root: no path
                row[j] = null
                reach[j] = False
                done[j] = True


_sums = numba.njit(cache=True, nogil=True)(_path_sums) if numba is not None else _path_sums


def _doubling(xp, P, W, n, null_value):
    """The GPU form: after round r each entry knows the weight of the last 2^r edges of
    its path and the vertex before them."""
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
