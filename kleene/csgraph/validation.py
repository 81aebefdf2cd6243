"""SciPy's graph input rules, turned into what kleene's algorithms read.

SciPy reads a dense array's 0, NaN and inf entries as "no edge", a masked array's
masked entries likewise, and a sparse matrix's stored entries as edges (a stored zero
is a zero-weight edge; duplicates add up, as ``tocsr`` adds them), except a BSR
matrix's zeros, which pad its blocks. kleene's native
API reads a dense array's inf as "no edge" and 0 as a zero-weight edge, so the dense
forms are rewritten here: a float64 array with inf where SciPy sees no edge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from kleene.backends import array_module, is_cupy_array
from kleene.errors import InvalidValue

from .conversions import DTYPE, csgraph_from_dense, csgraph_from_masked
from .pydata import from_pydata


@dataclass
class Graph:
    """A validated graph: ``data`` is what kleene reads (a float64 CSR matrix, SciPy's
    or cupyx's, or a dense float64 array with inf for "no edge")."""

    data: object
    n: int
    xp: object
    pydata: object = None  # the pydata class of the input, if any
    matrix: bool = False  # the input was an np.matrix or a spmatrix: trees are csr_matrix

    @property
    def sparse(self) -> bool:
        return not hasattr(self.data, "ndim") or _is_sparse(self.data)


def _is_sparse(G) -> bool:
    return sp.issparse(G) or type(G).__module__.startswith("cupyx.scipy.sparse")


def _shape_check(a) -> int:
    if len(a.shape) != 2:
        raise InvalidValue("compressed-sparse graph must be 2-D")
    if a.shape[0] != a.shape[1]:
        raise InvalidValue("compressed-sparse graph must be shape (N, N)")
    return a.shape[0]


def validate(csgraph, directed: bool, *, unweighted: bool = False, dense: bool = True) -> Graph:
    """``csgraph`` under SciPy's rules. ``dense``: keep a dense input dense (inf = no
    edge), for the all-pairs closures; otherwise every input becomes a CSR matrix."""
    csgraph, cls = from_pydata(csgraph)
    matrix = isinstance(csgraph, (np.matrix, sp.spmatrix)) or (
        getattr(csgraph, "_baseclass", None) is np.matrix
    )
    if _is_sparse(csgraph):
        if not directed and csgraph.format == "csc":
            csgraph = csgraph.T  # (undirected: the transpose is the same graph)
        G = csgraph.tocsr()
        if csgraph.format == "bsr":  # a block's zeros are its padding, not edges (SciPy 1.18)
            G = G.copy()
            G.eliminate_zeros()
        if G.dtype != DTYPE:
            G = G.astype(DTYPE)
        if not G.has_canonical_format:
            G = G.copy()
            G.sum_duplicates()  # SciPy adds duplicates; kleene would keep the lightest
        n = _shape_check(G)
        if unweighted:
            G = G.copy()
            G.data[:] = 1.0
        xp = array_module(G.data)
        return Graph(G, n, xp, cls, matrix)
    if np.ma.isMaskedArray(csgraph):
        G = csgraph_from_masked(csgraph)
        if unweighted:
            G.data[:] = 1.0
        return Graph(G, _shape_check(G), np, cls, matrix)
    xp = array_module(csgraph)
    a = xp.asarray(csgraph)
    if a.ndim != 2:
        raise InvalidValue("compressed-sparse graph must be 2-D")
    if not dense:
        G = csgraph_from_dense(a, null_value=0)
        if unweighted:
            G.data[:] = 1.0
        return Graph(G, _shape_check(G), xp, cls, matrix)
    n = _shape_check(a)
    a = a.astype(DTYPE, copy=False)
    edge = (a != 0) & xp.isfinite(a)
    d = xp.where(edge, 1.0 if unweighted else a, xp.inf)
    return Graph(xp.ascontiguousarray(d), n, xp, cls, matrix)


def check_indices(indices, n: int):
    """(flat int64 NumPy array, output shape prefix) of SciPy's ``indices``; None: all."""
    if indices is None:
        return np.arange(n, dtype=np.int64), (n,)
    if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
        i = int(indices) + n if indices < 0 else int(indices)  # SciPy wraps negative indices
        if not 0 <= i < n:
            raise InvalidValue("indices out of range 0...N")
        return np.array([i], dtype=np.int64), ()
    idx = np.asarray(indices.get() if is_cupy_array(indices) else indices)
    if idx.dtype.kind not in "iu":
        if idx.dtype.kind == "f" and np.all(np.mod(idx, 1) == 0):
            idx = idx.astype(np.int64)
        else:
            raise InvalidValue("indices must be integers")
    shape = idx.shape
    flat = idx.astype(np.int64).ravel()
    if flat.size and flat.min() < 0:
        flat = np.where(flat < 0, flat + n, flat)  # SciPy wraps negative indices
        if flat.min() < 0:
            raise InvalidValue("indices out of range 0...N")
    if flat.size and flat.max() >= n:
        raise InvalidValue("indices out of range 0...N")
    return flat, shape


def check_vertex(i, n: int, name: str = "i_start") -> int:
    """A vertex id in [0, n) (ValueError otherwise)."""
    try:
        v = int(i)
    except (TypeError, ValueError):
        raise InvalidValue(f"{name} must be an integer vertex id, got {i!r}") from None
    if not 0 <= v < n:
        raise InvalidValue(f"{name} {v} is out of range for a graph of {n} vertices")
    return v


def scipy_predecessors(pred, xp=None):
    """kleene's int64 predecessors (-1: none) as SciPy's: int32 with -9999."""
    xp = xp or array_module(pred)
    p = xp.asarray(pred).astype(np.int32)
    p[p < 0] = -9999
    return p
