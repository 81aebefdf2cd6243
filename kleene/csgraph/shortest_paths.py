"""SciPy's shortest-path entry points over kleene's ``sssp``, ``apsp`` and ``bfs``.

Every distance comes from kleene's algorithms: all pairs from ``kleene.apsp`` (its
cost models pick the dense closure, repeated SSSP or Johnson), chosen sources from
``kleene.sssp`` (delta-stepping, Bellman-Ford, batched sources), hop counts
(``unweighted=True``) from ``kleene.bfs``. This layer adds SciPy's conventions:
``indices`` of any shape, ``limit``, ``min_only``, int32 predecessors with -9999.
SciPy's ``method`` names the algorithm; here it names the checks (negative weights
for Dijkstra, no ``indices`` for Floyd-Warshall): the answer is the same.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

import kleene
from kleene.algorithms.graph_input import as_graph
from kleene.backends import backend
from kleene.core import Matrix
from kleene.engine import multi_source_sssp
from kleene.ops import symmetrize

from .errors import scipy_cycles
from .ties import parents, settled_first
from .validation import Graph, InvalidValue, check_indices, scipy_predecessors, validate

METHODS = ("auto", "FW", "D", "BF", "J")


@scipy_cycles
def shortest_path(
    csgraph,
    method="auto",
    directed=True,
    return_predecessors=False,
    unweighted=False,
    overwrite=False,
    indices=None,
):
    """Shortest-path distances, as ``scipy.sparse.csgraph.shortest_path``.

    ``method`` is one of "auto", "FW", "D", "BF", "J" (ValueError otherwise; "FW"
    takes no ``indices``). Dense input: 0, NaN and inf entries are no edge; a masked
    entry is no edge; a sparse matrix's stored entries are edges (zeros too).
    Predecessors are int32, -9999 where there is none. Raises ``NegativeCycleError``.

    Example
    -------
    >>> import numpy as np
    >>> from kleene import csgraph
    >>> G = np.array([[0, 1, 4], [0, 0, 2], [0, 0, 0]], dtype=float)
    >>> csgraph.shortest_path(G, indices=0).tolist()
    [0.0, 1.0, 3.0]
    >>> d, p = csgraph.shortest_path(G, return_predecessors=True)
    >>> p[0].tolist()
    [-9999, 0, 1]
    """
    if method not in METHODS:
        raise InvalidValue(f"unrecognized method '{method}'")
    if method == "FW":
        if indices is not None:
            raise InvalidValue("Cannot specify indices with method == 'FW'.")
        return floyd_warshall(csgraph, directed, return_predecessors, unweighted, overwrite)
    if method == "D":
        return dijkstra(csgraph, directed, indices, return_predecessors, unweighted)
    if method == "BF":
        return bellman_ford(csgraph, directed, indices, return_predecessors, unweighted)
    if method == "J":
        return johnson(csgraph, directed, indices, return_predecessors, unweighted)
    if indices is None:
        return _all_pairs(csgraph, "auto", directed, return_predecessors, unweighted, overwrite)
    return _some(csgraph, "auto", directed, indices, return_predecessors, unweighted)


@scipy_cycles
def floyd_warshall(
    csgraph, directed=True, return_predecessors=False, unweighted=False, overwrite=False
):
    """All-pairs distances, as ``scipy.sparse.csgraph.floyd_warshall``: the closure
    of ``kleene.apsp`` (whose cost model may take repeated SSSP on a sparse graph:
    same distances). ``overwrite=True`` writes them into a dense float64 C-ordered
    input and returns it.

    Example
    -------
    >>> from kleene import csgraph
    >>> csgraph.floyd_warshall([[0, 2, 0], [0, 0, 3], [1, 0, 0]]).tolist()
    [[0.0, 2.0, 5.0], [4.0, 0.0, 3.0], [1.0, 3.0, 0.0]]
    """
    return _all_pairs(csgraph, "auto", directed, return_predecessors, unweighted, overwrite)


@scipy_cycles
def johnson(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False):
    """Distances by Johnson's reweighting, as ``scipy.sparse.csgraph.johnson``
    (``kleene.apsp(method="johnson")`` for all pairs, ``kleene.sssp`` for ``indices``).

    Example
    -------
    >>> import numpy as np
    >>> from kleene import csgraph
    >>> G = np.array([[0, 0, 0], [-1, 0, 0], [0, -1, 0]], dtype=float)
    >>> csgraph.johnson(G).tolist()
    [[0.0, inf, inf], [-1.0, 0.0, inf], [-2.0, -1.0, 0.0]]
    """
    if indices is None:
        return _all_pairs(csgraph, "johnson", directed, return_predecessors, unweighted, False)
    return _some(csgraph, "auto", directed, indices, return_predecessors, unweighted)


@scipy_cycles
def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False):
    """Distances by Bellman-Ford, as ``scipy.sparse.csgraph.bellman_ford``
    (``kleene.sssp(method="bellman-ford")``; ``NegativeCycleError`` on a cycle).

    Example
    -------
    >>> from kleene import csgraph
    >>> csgraph.bellman_ford([[0, 1, 0], [0, 0, -3], [0, 0, 0]], indices=0).tolist()
    [0.0, 1.0, -2.0]
    """
    return _some(csgraph, "bellman-ford", directed, indices, return_predecessors, unweighted)


@scipy_cycles
def dijkstra(
    csgraph,
    directed=True,
    indices=None,
    return_predecessors=False,
    unweighted=False,
    limit=np.inf,
    min_only=False,
):
    """Distances by Dijkstra's rule, as ``scipy.sparse.csgraph.dijkstra``.

    ``kleene.sssp`` computes them (delta-stepping; several sources batched).
    ``limit``: distances beyond it are inf (their predecessors -9999).
    ``min_only=True``: one row, each vertex's distance to its nearest source in
    ``indices``; with ``return_predecessors`` also the predecessors and ``sources``
    (the nearest source, -9999 if none), from one SSSP out of a virtual vertex joined
    to every source by a zero-weight edge. Negative weights, which SciPy's Dijkstra
    gets wrong, take kleene's Bellman-Ford (exact; ``NegativeCycleError`` on a cycle).

    Example
    -------
    >>> import numpy as np
    >>> from kleene import csgraph
    >>> G = np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]])
    >>> csgraph.dijkstra(G, indices=0, limit=2).tolist()
    [0.0, 1.0, 2.0, inf]
    >>> d, p, s = csgraph.dijkstra(G, indices=[0, 2], min_only=True, return_predecessors=True)
    >>> d.tolist(), s.tolist()
    ([0.0, 1.0, 0.0, 1.0], [0, 0, 2, 2])
    """
    limit = float(limit)
    if not limit >= 0:
        raise InvalidValue("limit must be >= 0")
    if min_only:
        return _nearest(csgraph, directed, indices, return_predecessors, unweighted, limit)
    return _some(csgraph, "auto", directed, indices, return_predecessors, unweighted, limit)


def _all_pairs(csgraph, method, directed, preds, unweighted, overwrite):
    """(n, n) distances [and predecessors] of every pair by ``kleene.apsp``."""
    g = validate(csgraph, directed, unweighted=unweighted)
    if unweighted:
        out = _hops(g, np.arange(g.n), directed, preds)
    else:
        out = _solve(g, method, directed, None, preds)
    dist, pred = out if preds else (out, None)
    if overwrite and _writable(csgraph):
        csgraph[...] = dist
        dist = csgraph
    return (dist, scipy_predecessors(pred, g.xp)) if preds else dist


def _writable(a) -> bool:
    return (
        type(a) is np.ndarray
        and a.dtype == np.float64
        and a.flags.c_contiguous
        and a.flags.writeable
    )


def _some(csgraph, method, directed, indices, preds, unweighted, limit=np.inf):
    """Distances from ``indices`` (any shape; None: all) by ``kleene.sssp``."""
    g = validate(csgraph, directed, unweighted=unweighted, dense=False)
    idx, shape = check_indices(indices, g.n)
    if unweighted:
        out = _hops(g, idx, directed, preds)
    elif idx.size == 0:
        z = g.xp.zeros((0, g.n))
        out = (z, z.astype(np.int64)) if preds else z
    else:  # (kleene drops what lies past ``limit``)
        out = _solve(g, method, directed, idx, preds, limit)
    dist, pred = out if preds else (out, None)
    if limit != np.inf and unweighted:
        far = dist > limit
        dist[far] = np.inf
        if preds:
            pred[far] = -1
    dist = dist.reshape(shape + (g.n,))
    if not preds:
        return dist
    return dist, scipy_predecessors(pred, g.xp).reshape(shape + (g.n,))


def _solve(g: Graph, method, directed, idx, preds, limit=np.inf):
    """(k, n) distances [and int64 predecessors, -1 for none] from ``idx`` (None: all
    pairs, ``kleene.apsp``), with SciPy's choice among equally short paths (``ties.py``).
    ``limit`` goes to ``kleene.sssp``, whose searches from many sources stop there.

    With positive weights kleene computes the distances alone and one compiled pass over
    the edges picks the parents; otherwise kleene's tree is re-picked where it can be."""
    host = g.xp is np
    least = _least_weight(g)
    bound = None if limit == np.inf else limit
    positive = preds and host and least > 0
    tree = preds and not positive
    if idx is None and least >= 0 and _sparse(g):
        # A sparse graph with non-negative weights: every vertex a source of kleene's
        # batched multi-source SSSP, which on such graphs beats the dense closure and
        # costs less than apsp's repeated-SSSP route (its grouping and bookkeeping).
        idx, method = np.arange(g.n), "auto"
    if idx is None:
        out = kleene.apsp(g.data, method=method, directed=directed, return_predecessors=tree)
        srcs = np.arange(g.n)
    elif idx.size == 1:  # one source: kleene's single-source loop, not the batched one
        out = _one_source(g, directed, int(idx[0]), bound) if host and least > 0 else None
        if out is None:
            out = kleene.sssp(
                g.data,
                int(idx[0]),
                method=method,
                directed=directed,
                return_predecessors=tree,
                limit=bound,
            )
        out = tuple(a.reshape(1, -1) for a in out) if tree else out.reshape(1, -1)
        srcs = idx
    elif bound is not None and host and least >= 0 and method == "auto":
        # Sources bounded by ``limit``: sssp's own route (the multi-source rows on the
        # graph as sssp reads it), whose CPU rows stop each search at the bound and
        # drop what lies past it, without a second pass over the (k, n) rows.
        out = _bounded_rows(g, directed, idx, tree, bound)
        srcs = idx
    else:
        out = kleene.sssp(
            g.data,
            idx.tolist(),
            method=method,
            directed=directed,
            return_predecessors=tree,
            limit=bound,
        )
        srcs = idx
    if not preds:
        return out
    if positive:
        dist = out
        pred = parents(_host_csr(g), directed, dist, srcs)
        if pred is not None:
            return dist, pred
        return _solve_with_tree(g, method, directed, idx, bound)
    dist, pred = out
    if host and pred.size:
        pred = settled_first(_directed_csr(g, directed), dist, pred)
    return dist, pred


def _bounded_rows(g: Graph, directed, idx, tree: bool, bound: float):
    """(k, n) distances [and predecessors] from ``idx`` over a host graph of
    non-negative weights, exact up to ``bound`` and inf past it: the CPU back end's
    multi-source rows (``sssp_rows``, as ``kleene.engine.multi_source_sssp`` runs them)
    on the graph as ``kleene.sssp`` reads it (``as_graph``: its weight checks done),
    into rows allocated here (NumPy refuses with a MemoryError what cannot fit); the
    op's own route where the back end has no such rows."""
    rows = backend(np).sssp_rows
    if rows is None:
        A = _as_searched(g, directed)
        dist, pred = multi_source_sssp(A, idx, predecessors=tree, limit=bound)
        return (dist, pred) if tree else dist
    ptr, ind, w = _searched_csr(g, directed)
    dist = np.empty((idx.size, g.n))
    pred = np.empty((idx.size, g.n), dtype=np.int64) if tree else None
    rows(ptr, ind, w, idx, tree, out=(dist, pred), limit=bound)
    return (dist, pred) if tree else dist


def _equals_transpose(indptr, indices, data):
    """Whether a canonical CSR (sorted rows, no duplicates) equals its transpose,
    without building it: the transpose's counting sort would put entry (i, j, w),
    rows taken in order, at the next free place of row j, and the two are equal when
    each entry finds (j, i, w) stored at that place and every row is used up. One
    pass over the entries; stops at the first mismatch. The index arrays are read
    through unsigned views (``_unsigned``): Numba then indexes with them as they are,
    where a signed index costs a test for a negative one at every access."""
    n = indptr.size - 1
    at = np.empty(n, np.uint64)  # row j's next free place
    for v in range(n):
        at[v] = indptr[v]
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            j = indices[e]
            p = at[j]
            if p == indptr[j + 1] or indices[p] != i or data[p] != data[e]:
                return False
            at[j] = p + np.uint64(1)
    for v in range(n):
        if at[v] != indptr[v + 1]:
            return False
    return True


if numba is not None:
    _equals_transpose = numba.njit(cache=True, nogil=True)(_equals_transpose)


def _unsigned(a):
    """A view of a non-negative index array as the unsigned integers of its width."""
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _as_searched(g: Graph, directed) -> Matrix:
    """The host graph as ``kleene.sssp`` reads it (``as_graph``). Undirected, a CSR
    equal to its transpose (``_stored_both_ways``) is read as it is, which costs less
    than the general symmetry test: stored both ways already, it is its own union
    with its transpose."""
    S = g.data
    if not directed and g.sparse and _stored_both_ways(S):
        return as_graph(S, directed=True)
    return as_graph(S, directed=directed)


def _stored_both_ways(S) -> bool:
    """Whether a validated host CSR equals its transpose (``_equals_transpose``: one
    compiled pass, nothing of the edges' size allocated); False without Numba."""
    if numba is None or not S.has_canonical_format or not S.shape[0]:
        return False
    return bool(_equals_transpose(_unsigned(S.indptr), _unsigned(S.indices), S.data))


def _searched_csr(g: Graph, directed):
    """(indptr, indices, weights) of a host graph as ``kleene.sssp`` reads it, for
    callers that found its least weight >= 0 (so no NaN or -inf weight): the validated
    CSR as it is (canonical; a stored +inf weight, no edge to ``as_graph``, only offers
    inf sums, which improve nothing) where it is directed or stored both ways (then it
    is what ``as_graph`` reads as directed); otherwise ``as_graph``'s."""
    S = g.data
    if g.sparse and (directed or _stored_both_ways(S)):
        return S.indptr, S.indices, S.data
    T = as_graph(S, directed=directed).to_scipy()  # (its CSR arrays, not copied)
    return T.indptr, T.indices, T.data


def _one_source(g: Graph, directed, s: int, bound):
    """Distances (n,) from ``s`` over a host graph of positive weights, or None where
    the back end has no fused delta-stepping: its loop (the one ``kleene.sssp`` runs
    for one source) on the graph as ``kleene.sssp`` reads it (``as_graph``), given the
    weights' bounds and mean, which on a graph met once per call cost less than
    ``sssp``'s cached summaries; past ``bound`` inf."""
    step = backend(np).delta_stepping
    if step is None:
        return None
    ptr, idx, w = _searched_csr(g, directed)
    if w.size == 0 or w.dtype != np.float64:
        return None
    least, most = float(w.min()), float(w.max())
    if not (least > 0 and most < np.inf):
        return None
    dist = step(ptr, idx, w, g.n, s, float(w.mean()), bounds=(least, most))
    if bound is not None:
        dist[dist > bound] = np.inf
    return dist


def _solve_with_tree(g: Graph, method, directed, idx, bound=None):
    """:func:`_solve` with kleene's own tree, re-picked (the rare fallback of ``parents``)."""
    if idx is None:
        dist, pred = kleene.apsp(g.data, method=method, directed=directed, return_predecessors=True)
    else:
        dist, pred = kleene.sssp(
            g.data,
            idx.tolist(),
            method=method,
            directed=directed,
            return_predecessors=True,
            limit=bound,
        )
    return dist, settled_first(_directed_csr(g, directed), dist, pred)


def _sparse(g: Graph) -> bool:
    """At most a tenth of the pairs are edges (a dense array: its finite entries)."""
    if g.n == 0:
        return False
    edges = g.data.nnz if g.sparse else int(g.xp.isfinite(g.data).sum())
    return edges <= 0.1 * g.n * g.n


def _least_weight(g: Graph) -> float:
    w = g.data.data if g.sparse else g.data
    return float(w.min()) if w.size else np.inf


def _host_csr(g: Graph):
    """The graph as a SciPy CSR (a dense one's inf entries left out)."""
    if g.sparse:
        return g.data
    return Matrix.from_dense(g.data, missing=np.inf, copy=False).to_scipy()


def _directed_csr(g: Graph, directed):
    """The host CSR with every edge both ways if undirected (the lighter where both)."""
    A = Matrix.from_scipy(_host_csr(g), copy=False)
    return (A if directed else symmetrize(A)).to_scipy()


def _hops(g: Graph, idx, directed, preds):
    """Hop counts (float, inf unreachable) from ``idx`` by ``kleene.bfs``."""
    xp = g.xp
    out = kleene.bfs(g.data, idx.tolist(), directed=directed, return_predecessors=preds)
    lv, pred = out if preds else (out, None)
    dist = xp.where(lv < 0, xp.inf, lv.astype(np.float64))
    return (dist, pred) if preds else dist


def _nearest(csgraph, directed, indices, preds, unweighted, limit):
    """``min_only``: one SSSP from a virtual vertex n with a zero-weight edge to each
    source; the source of a vertex is the root of its branch in the predecessor tree."""
    g = validate(csgraph, directed, unweighted=unweighted, dense=False)
    xp, n = g.xp, g.n
    idx, _ = check_indices(indices, n)
    idx = np.unique(idx)
    if idx.size == 0:
        dist = xp.full(n, np.inf)
        none = xp.full(n, -9999, dtype=np.int32)
        return (dist, none, none.copy()) if preds else dist
    M, ext = _with_virtual_source(g, idx, directed)
    least = _least_weight(g)
    quick = preds and ext is not None and least > 0
    both = not directed and ext is None  # (the host's ext is symmetric already)
    step = backend(np).delta_stepping if ext is not None and least > 0 else None
    if step is not None and np.isfinite(least):
        # positive weights on the host: the delta-stepping loop kleene.sssp runs for
        # one source, on the extended CSR as it is (its weights were checked above)
        w = g.data.data
        most = float(w.max())
        positive = w[w < np.inf] if most == np.inf else w
        delta = float(positive.mean()) if positive.size else 1.0
        dist, pred = (
            step(ext.indptr, ext.indices, ext.data, n + 1, n, delta, bounds=(0.0, most)),
            None,
        )
    else:
        out = kleene.sssp(M, n, directed=not both, return_predecessors=preds and not quick)
        dist, pred = out if preds and not quick else (out, None)
    if quick:  # positive weights: the compiled parent pass (only n's edges weigh 0)
        pred = parents(ext, True, dist[None, :], [n])
        if pred is None:
            dist, pred = kleene.sssp(M, n, return_predecessors=True)
        else:
            pred = pred[0]
    dist = xp.ascontiguousarray(dist[:n])
    if limit != np.inf:
        dist[dist > limit] = np.inf
    if not preds:
        return dist
    pred = pred[:n].copy()
    pred[(pred == n) | ~xp.isfinite(dist)] = -1
    root = xp.where(pred >= 0, pred, xp.arange(n, dtype=pred.dtype))
    while True:  # pointer doubling: every vertex climbs to the source of its branch
        up = root[root]
        if bool((up == root).all()):
            break
        root = up
    sources = xp.where(xp.isfinite(dist), root, -9999).astype(np.int32)
    return dist, scipy_predecessors(pred, xp), sources


def _with_virtual_source(g: Graph, idx, directed):
    """The (n+1)-vertex graph: ``g`` and vertex n with a zero-weight edge to each of
    ``idx``: (Matrix, its SciPy CSR on the host or None). On the host an undirected
    graph is symmetrised first (the result is searched as directed: ``kleene.sssp``
    would symmetrise the larger graph); on the GPU the search reads the edges both
    ways, the new ones too: a way back into n is harmless, n being the source
    (distance 0, never improved)."""
    xp, n = g.xp, g.n
    S = g.data
    if xp is np:  # the CSR arrays extended by one row, no sort
        if not directed:
            S = symmetrize(Matrix.from_scipy(S, copy=False)).to_scipy()
        nnz = int(S.indptr[-1])
        small = nnz + idx.size < np.iinfo(np.int32).max
        itype = np.int32 if small else np.int64
        indptr = np.append(S.indptr.astype(itype, copy=False), itype(nnz + idx.size))
        indices = np.concatenate([S.indices.astype(itype, copy=False), idx.astype(itype)])
        data = np.concatenate([S.data, np.zeros(idx.size)])
        ext = sp.csr_matrix((data, indices, indptr), shape=(n + 1, n + 1))
        return Matrix.from_scipy(ext, copy=False), ext
    coo = S.tocoo()  # on the device: an edge list
    rows = xp.concatenate([coo.row.astype(np.int64), xp.full(idx.size, n, dtype=np.int64)])
    cols = xp.concatenate([coo.col.astype(np.int64), xp.asarray(idx)])
    vals = xp.concatenate([coo.data.astype(np.float64), xp.zeros(idx.size)])
    return Matrix.from_edges(rows, cols, vals, n + 1), None
