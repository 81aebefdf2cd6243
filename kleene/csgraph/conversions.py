"""SciPy's graph conversions: dense, masked and compressed-sparse forms of a graph.

A dense graph marks "no edge" with ``null_value`` (and NaN, and inf, unless told
otherwise); a masked array with its mask; a sparse matrix by what it does not store
(a stored zero is an edge of weight zero). NumPy input gives SciPy containers; a CuPy
array gives a ``cupyx.scipy.sparse`` matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kleene.backends import array_module, is_cupy_array
from kleene.core import Matrix
from kleene.errors import InvalidValue

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

DTYPE = np.float64
ITYPE = np.int32
# the dtypes the compiled passes read (others, float16 and complex among them: NumPy's forms)
_COMPILED = {np.dtype(t) for t in (np.bool_, np.float32, np.float64)} | {
    np.dtype(k + str(b)) for k in "iu" for b in (1, 2, 4, 8)
}


def _null_mask(x, null, tol, close, use_null, inf_null, nan_null, mask):
    """``mask`` (flat, bool) of the entries of ``x`` (flat) that are no edge: within
    ``tol`` of ``null`` where ``close`` (a float array: ``np.ma.masked_values``'s test,
    which for a finite null is ``|x - null| <= atol + rtol·|null|``), equal to it
    otherwise; with ``inf_null``/``nan_null`` the infinite/NaN entries too. One pass,
    no temporaries."""
    for i in range(x.size):
        v = np.float64(x[i])
        hit = False
        if use_null:
            hit = abs(v - null) <= tol if close else v == null
        if inf_null and (v == np.inf or v == -np.inf):
            hit = True
        if nan_null and v != v:
            hit = True
        mask[i] = hit


def _from_mask(mask, x, n, data, cols, indptr):
    """The CSR arrays of the entries of ``x`` (n × n, C order) that ``mask`` leaves:
    ``indptr`` (n + 1) written, and ``data``/``cols`` (at least as long as the entries
    kept); returns how many."""
    k = 0
    for i in range(n):
        indptr[i] = k
        row = i * n
        for j in range(n):
            if not mask[row + j]:
                data[k] = np.float64(x[row + j])
                cols[k] = j
                k += 1
    indptr[n] = k
    return k


if numba is not None:  # compiled on first use per dtype, then loaded from the disk cache
    _null_mask = numba.njit(cache=True, nogil=True)(_null_mask)
    _from_mask = numba.njit(cache=True, nogil=True)(_from_mask)


def _square(graph) -> int:
    if len(graph.shape) != 2:
        raise InvalidValue("graph should have two dimensions")
    if graph.shape[0] != graph.shape[1]:
        raise InvalidValue("graph should be a square array")
    return graph.shape[0]


def _csr_type(graph):
    """csr_matrix for np.matrix input (SciPy's rule), csr_array otherwise."""
    base = getattr(graph, "_baseclass", None)
    return sp.csr_matrix if isinstance(graph, np.matrix) or base is np.matrix else sp.csr_array


def csgraph_masked_from_dense(graph, null_value=0, nan_null=True, infinity_null=True, copy=True):
    """A masked array of ``graph``: ``null_value`` (and NaN, inf) entries masked.

    Example
    -------
    >>> from kleene import csgraph
    >>> csgraph.csgraph_masked_from_dense([[0, 1], [2, 0]]).mask.tolist()
    [[True, False], [False, True]]
    """
    graph = np.array(graph) if copy else np.asarray(graph)
    _square(graph)
    if null_value is not None:
        null_value = DTYPE(null_value)
        if np.isnan(null_value):
            nan_null, null_value = True, None
        elif np.isinf(null_value):
            infinity_null, null_value = True, None
    if numba is not None and graph.dtype in _COMPILED:
        # np.ma.masked_values's mask (isclose for floats, its default tolerances; ==
        # otherwise) and the inf/NaN tests in one compiled pass
        mask = np.empty(graph.shape, dtype=bool)
        null = DTYPE(0.0) if null_value is None else null_value
        tol = 1e-8 + 1e-5 * abs(null)
        flat = graph.reshape(-1) if graph.flags.c_contiguous else graph.ravel()
        close = graph.dtype.kind == "f"
        _null_mask(
            flat,
            null,
            tol,
            close,
            null_value is not None,
            bool(infinity_null),
            bool(nan_null),
            mask.reshape(-1),
        )
        if null_value is None:
            return np.ma.masked_array(graph, mask, copy=False)
        return np.ma.masked_array(graph, mask, copy=False, fill_value=null_value)
    if null_value is None:
        graph = np.ma.masked_array(graph, np.zeros(graph.shape, dtype=bool), copy=False)
    else:
        graph = np.ma.masked_values(graph, null_value, copy=False, shrink=False)
    if infinity_null:
        graph.mask |= np.isinf(graph.data)
    if nan_null:
        graph.mask |= np.isnan(graph.data)
    return graph


def csgraph_from_masked(graph):
    """A CSR graph of the unmasked entries of a masked array (a zero there is an edge).

    Example
    -------
    >>> import numpy as np
    >>> from kleene import csgraph
    >>> G = np.ma.masked_array([[0, 1], [2, 0]], mask=[[True, False], [False, False]])
    >>> csgraph.csgraph_from_masked(G).toarray().tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    container = _csr_type(graph)
    graph = np.ma.asarray(graph)
    n = _square(graph)
    values = np.ma.getdata(graph)
    if numba is not None and values.dtype in _COMPILED:
        masked = np.ascontiguousarray(np.ma.getmaskarray(graph)).reshape(-1)
        x = np.ascontiguousarray(values).reshape(-1)
        kept = x.size - int(np.count_nonzero(masked))
        data = np.empty(kept, dtype=DTYPE)
        cols = np.empty(kept, dtype=ITYPE)
        indptr = np.empty(n + 1, dtype=ITYPE)
        _from_mask(masked, x, n, data, cols, indptr)
        return container((data, cols, indptr), shape=(n, n))
    mask = ~np.ma.getmaskarray(graph)
    data = np.asarray(graph.data[mask], dtype=DTYPE, order="C")
    cols = np.broadcast_to(np.arange(n, dtype=ITYPE), (n, n))[mask]
    indptr = np.zeros(n + 1, dtype=ITYPE)
    np.cumsum(mask.sum(1), out=indptr[1:])
    return container((data, np.ascontiguousarray(cols, dtype=ITYPE), indptr), shape=(n, n))


def csgraph_from_dense(graph, null_value=0, nan_null=True, infinity_null=True):
    """A CSR graph of a dense one: ``null_value``, NaN and inf entries are no edge.

    Example
    -------
    >>> from kleene import csgraph
    >>> G = csgraph.csgraph_from_dense([[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    >>> G.nnz, G.toarray().tolist()
    (2, [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
    """
    if is_cupy_array(graph):
        return _cupy_from_dense(graph, null_value, nan_null, infinity_null)
    container = _csr_type(graph)
    masked = csgraph_masked_from_dense(graph, null_value, nan_null, infinity_null, copy=False)
    out = csgraph_from_masked(masked)
    return container(out) if container is not type(out) else out


def _cupy_from_dense(graph, null_value, nan_null, infinity_null):
    import cupyx.scipy.sparse as csp

    xp = array_module(graph)
    a = xp.asarray(graph, dtype=DTYPE)
    _square(a)
    keep = xp.ones(a.shape, dtype=bool)
    if null_value is not None:
        null = DTYPE(null_value)
        if np.isnan(null):
            nan_null = True
        elif np.isinf(null):
            infinity_null = True
        else:
            keep &= a != null
    if infinity_null:
        keep &= ~xp.isinf(a)
    if nan_null:
        keep &= ~xp.isnan(a)
    rows, cols = xp.nonzero(keep)
    return csp.coo_matrix((a[rows, cols], (rows, cols)), shape=a.shape).tocsr()


def csgraph_to_dense(csgraph, null_value=0):
    """The dense form of a sparse graph, ``null_value`` where there is no edge (of
    several edges between two vertices, the lightest).

    Example
    -------
    >>> import scipy.sparse as sp
    >>> from kleene import csgraph
    >>> G = sp.csr_array(([0.0, 2.0], ([0, 1], [1, 0])), shape=(2, 2))
    >>> csgraph.csgraph_to_dense(G, null_value=-1).tolist()
    [[-1.0, 0.0], [2.0, -1.0]]
    """
    from .pydata import from_pydata

    csgraph, _ = from_pydata(csgraph, null_value)
    if not (sp.issparse(csgraph) or type(csgraph).__module__.startswith("cupyx")):
        csgraph = sp.csr_array(np.asarray(csgraph))
    _square(csgraph)
    if not sp.issparse(csgraph):  # cupyx: kleene's dense form, on the device
        M = Matrix.from_scipy(csgraph.tocsr().astype(DTYPE), dup="min")
        return M.to_dense(missing=DTYPE(null_value))
    S = csgraph.tocsr()
    rows = np.repeat(np.arange(S.shape[0]), np.diff(S.indptr))
    out = np.full(S.shape, DTYPE(null_value))
    if S.has_canonical_format:  # one entry per edge: written as it is
        out[rows, S.indices] = S.data
        return out
    least = np.full(S.shape, np.inf)  # several: the lightest
    np.minimum.at(least, (rows, S.indices), S.data.astype(DTYPE))
    seen = np.zeros(S.shape, dtype=bool)
    seen[rows, S.indices] = True
    out[seen] = least[seen]
    return out
