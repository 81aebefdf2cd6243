"""Betweenness centrality of vertices and edges: Brandes' algorithm, as NetworkX computes it.

Three routes, one answer (tests/test_betweenness.py runs them against each other and
NetworkX):

- the back end's compiled ``brandes`` (``backend(xp).brandes``): on the CPU
  (Numba) 64 breadth-first searches a pass on shallow graphs, else one breadth-first
  or Dijkstra search per source, sources over the cores;
  on the GPU 64 sources at once, unweighted (a weighted graph's search runs the
  CPU kernel on a host copy);
- the composed twin of an unweighted vertex betweenness, LAGraph's batches (below);
- the composed twin of the weighted and the edge forms, one source at a time: the
  distances from ``kleene.sssp``, the arcs on shortest paths (``d(u) + w = d(v)``,
  ties equal paths), the number σ of shortest paths as the walks of that DAG from
  the source (``vxm`` over ``plus_times`` until no walk is left), and the
  dependencies from ``x = Σ_{k≥1} T^k (1/σ)`` (``mxv``): ``δ(v) = σ(v) x(v)``
  and an arc u → v carries ``σ(u) (1/σ(v) + x(v))``.

The batched composed design is LAGraph's ``LAGr_Betweenness``. A batch of b sources is a b × n
frontier matrix. Forward, each level is one ``plus_times`` product of the frontier
with the adjacency matrix under the complement of the vertices already reached
(with replace), so the frontier's values are the numbers of shortest paths σ to
the vertices first reached at that level; the frontiers are kept, one per level.
Backward, from the deepest level up, the dependencies δ of one level come from the
next: ``W = (1 + δ) / σ`` on level d, then ``δ = (W ⊕.⊗ Aᵀ) ∘ σ`` under the
structure of level d - 1. A vertex's centrality is the sum of its δ over all
sources (its column sum), rescaled as NetworkX rescales.
"""

from __future__ import annotations

import math
import random
from numbers import Integral

import numpy as np

from kleene.backends import array_module, backend, to_host
from kleene.core import Matrix, Vector
from kleene.engine import frontier_bfs_multi
from kleene.errors import InvalidValue
from kleene.ops import apply, ewise_add, ewise_mult, mxm, mxv, stored_min, transpose, vxm
from kleene.semiring import BinaryOp, plus_times

from ..graph_input import as_graph, check_source, on_device
from ..single_source import sssp

# x / y: the dependency coefficient (1 + δ) / σ (σ >= 1 wherever it is computed).
_div = BinaryOp("div", np.true_divide, "(x / y)", scalar={"f": "x / y"})

# Sources per batch: the b × n frontier and the per-level frontiers grow with b;
# larger batches mean fewer products per level.
BATCH = 64


def _random_state(seed):
    """NetworkX's ``py_random_state``: None is the global generator, an int seeds a
    new one, a ``random.Random`` is used as it is."""
    if seed is None:
        return random  # the module's functions draw from its global generator
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, Integral):
        return random.Random(int(seed))
    raise InvalidValue(
        f"betweenness_centrality: seed must be None, an int or a random.Random, got {seed!r}"
    )


def pick_sources(n: int, k, seed, sources) -> np.ndarray | None:
    """The sources Brandes' algorithm starts from: None for all of them, else
    ``sources`` or the k that NetworkX would sample (``seed.sample(list(G), k)``).

    >>> pick_sources(10, 3, 1, None).tolist()
    [2, 1, 4]
    """
    if sources is not None:
        if k is not None:
            raise InvalidValue("betweenness_centrality: pass k or sources, not both")
        picked = check_source(sources, n, "sources")
        if picked.size == 0:  # NetworkX's rescaling would divide by zero
            raise InvalidValue("betweenness_centrality: sources is empty")
        return picked
    if k is None:
        return None
    if not isinstance(k, Integral) or isinstance(k, bool) or k < 1:
        # (k = 0 would make NetworkX's rescaling divide by zero)
        raise InvalidValue(f"betweenness_centrality: k must be a positive int, got {k!r}")
    if k > n:
        raise InvalidValue(f"betweenness_centrality: k={k} is larger than the {n} vertices")
    if k == n:  # NetworkX's shortcut: all vertices, no sampling adjustment
        return None
    return np.asarray(_random_state(seed).sample(range(n), int(k)), dtype=np.int64)


def rescale(bc, n: int, *, normalized: bool, directed: bool, endpoints: bool, sampled=None):
    """NetworkX's ``_rescale`` of the summed dependencies ``bc`` (in place; returned).

    ``sampled``: the sources used when not all of them were (a source is then scaled
    apart from the others when endpoints are excluded).
    """
    k = None if sampled is None else len(sampled)
    N = n if endpoints else n - 1
    if N < 2:
        return bc
    K = N if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * correction)
        if scale != 1:
            bc *= scale
        return bc
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else math.nan
        s_other = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * correction) if K > 1 else math.nan
        s_other = N / (K * correction)
    xp = array_module(bc)
    scale = np.full(n, s_other)
    scale[np.asarray(sampled)] = s_src
    bc *= xp.asarray(scale)
    return bc


def _level_patterns(lv, b: int, n: int) -> list:
    """The (b × n) pattern matrix of each BFS level, from the dense levels ``lv``
    (-1: not reached): one stable sort by level, then one slice per level (rows and
    columns come out sorted, a canonical CSR)."""
    xp = array_module(lv)
    flat = lv.ravel()
    reached = xp.flatnonzero(flat >= 0)
    depth = int(flat.max()) + 1 if reached.size else 0
    small = np.int16 if depth < np.iinfo(np.int16).max else np.int64  # radix-sorted
    order = reached[xp.argsort(flat[reached].astype(small), kind="stable")]
    bounds = xp.searchsorted(flat[order], xp.arange(depth + 1)).tolist()
    pats = []
    for d in range(depth):
        keys = order[bounds[d] : bounds[d + 1]]
        rows, cols = keys // n, keys % n
        pats.append(Matrix.from_edges(rows, cols, 1.0, n=b, ncols=n, dup=None))
    return pats


def _batch(A: Matrix, At: Matrix, srcs, directed: bool, endpoints: bool):
    """Σ over the batch's sources of δ per vertex (+ the endpoint terms): a dense array."""
    xp = A.xp
    n = A.nrows
    b = len(srcs)
    lv, _ = frontier_bfs_multi(A, srcs, symmetric=not directed)
    pats = _level_patterns(lv, b, n)
    # forward: σ of level d + 1 from level d, on the vertices first reached there
    sigma = pats[:1]
    for d in range(1, len(pats)):
        sigma.append(mxm(sigma[-1], A, plus_times, mask=pats[d].S, replace=True))
    cols, vals = [], []  # δ's entries, summed per column once at the end
    delta = None  # δ on the level below the one being read
    for d in range(len(sigma) - 1, 1, -1):
        num = pats[d] if delta is None else ewise_add(pats[d], delta, "plus")
        W = ewise_mult(num, sigma[d], _div)
        U = mxm(W, At, plus_times, mask=pats[d - 1].S, replace=True)
        delta = ewise_mult(U, sigma[d - 1], "times")
        _, c, v = delta.to_coo()
        cols.append(c)
        vals.append(v)
    if cols:
        total = xp.bincount(xp.concatenate(cols), xp.concatenate(vals), minlength=n)
    else:
        total = xp.zeros(n, dtype=np.float64)
    if endpoints:
        # every vertex a source reaches (itself excluded) is an endpoint of its paths
        total += (lv > 0).sum(axis=0)
        reached = (lv >= 0).sum(axis=1) - 1.0
        total += xp.bincount(xp.asarray(srcs), reached, minlength=n)
    return total


def _arcs(A: Matrix):
    """(indptr, rows, cols, values) of A's entries in row-major order, the order the
    compiled kernels number the arcs in (an arc's dependency lands at its position),
    cached on A until a write."""

    def build():
        rows, cols, vals = A.to_coo()
        indptr = A.xp.searchsorted(rows, A.xp.arange(A.nrows + 1))
        return indptr, rows, cols, vals

    return A.cached("betweenness arcs", build)


def _per_source(W: Matrix, srcs, endpoints: bool, edges: bool):
    """The composed twin of the weighted and the edge forms: (bc, arc dependencies
    aligned with ``_arcs(W)`` or None), one source at a time (see the module)."""
    xp = W.xp
    n = W.nrows
    _, rows, cols, vals = _arcs(W)
    w = vals.astype(np.float64)
    bc = xp.zeros(n, dtype=np.float64)
    e = xp.zeros(rows.size, dtype=np.float64) if edges else None
    for s in np.asarray(srcs).tolist():
        d = xp.asarray(sssp(W, s), dtype=np.float64)
        du = d[rows]
        tight = xp.flatnonzero((rows != cols) & xp.isfinite(du) & (du + w == d[cols]))
        T = Matrix.from_edges(
            rows[tight], cols[tight], xp.ones(tight.size, dtype=np.float64), n=n, ncols=n
        )
        sigma = xp.zeros(n, dtype=np.float64)
        sigma[s] = 1.0
        walk = Vector.from_coo(xp.asarray([s]), xp.ones(1, dtype=np.float64), n)
        _walks(T, walk, sigma, forward=True)
        reached = xp.flatnonzero(sigma)
        x = xp.zeros(n, dtype=np.float64)  # Σ_t (paths v → t in T) / σ(t)
        _walks(T, Vector.from_coo(reached, 1.0 / sigma[reached], n), x, forward=False)
        delta = sigma * x
        delta[s] = 0.0
        bc += delta
        if endpoints:
            bc[reached] += 1.0
            bc[s] += reached.size - 2.0
        if edges:
            u, v = rows[tight], cols[tight]
            e[tight] += sigma[u] * (1.0 / sigma[v] + x[v])
    return bc, e


def _walks(T: Matrix, x: Vector, total, *, forward: bool) -> None:
    """Adds ``x T + x T² + ...`` (forward) or ``T x + T² x + ...`` into the dense
    ``total`` until no entry is left: the walks of a DAG, at most n - 1 arcs long."""
    for _ in range(T.nrows):
        x = vxm(x, T, plus_times) if forward else mxv(T, x, plus_times)
        if x.nvals == 0:
            return
        i, v = x.to_coo()
        total[i] += v
    raise InvalidValue(
        "betweenness_centrality: the composed form found a cycle of zero-weight edges "
        "(infinitely many shortest paths); the compiled kernel breaks such ties by the "
        "order its search settles vertices"
    )


def _graph(G, weight, directed: bool, name: str):
    """(A, weighted): the adjacency matrix to search and whether its values are lengths."""
    if weight is None or weight is False:
        return as_graph(G, directed=directed, pattern=True, check_nan=False), False
    if not (weight is True or isinstance(weight, str)):
        raise InvalidValue(
            f"{name}: weight must be None, True or an attribute name (a matrix holds one "
            f"weight per edge: its stored values), got {weight!r}"
        )
    A = as_graph(G, directed=directed, name="G")  # NaN and -inf refused, +inf dropped
    if A.dtype == np.bool_:
        return A, False  # no lengths: every edge counts one
    if A.nvals and float(stored_min(A)) < 0:
        raise InvalidValue(
            f"{name}: edge weights must be non-negative (Dijkstra's shortest paths), "
            f"got {float(stored_min(A))}"
        )
    return A, True


def _dependencies(A: Matrix, srcs, weighted, endpoints, edges, directed, fused, name):
    """(bc, arc dependencies aligned with ``_arcs(A)`` or None), summed over srcs."""
    if fused not in (None, True, False):
        raise InvalidValue(f"{name}: fused must be None, True or False, got {fused!r}")
    xp = A.xp
    n = A.nrows
    on_host = weighted and xp is not np  # the GPU kernel counts edges: a host copy
    kernel = getattr(backend(np if on_host else xp), "brandes", None)
    if fused is True and kernel is None:
        raise InvalidValue(f"{name}: this back end has no compiled Brandes kernel")
    if n == 0:
        return xp.zeros(0, dtype=np.float64), (xp.zeros(0, dtype=np.float64) if edges else None)
    if kernel is not None and fused is not False:
        indptr, _, cols, vals = _arcs(A)
        lengths = vals.astype(np.float64) if weighted else None
        extra = {}
        if xp is not np and directed and not weighted:  # the forward pass pulls σ along in-arcs
            t_indptr, _, t_cols, _ = A.cached("betweenness in-arcs", lambda: _arcs(transpose(A)))
            extra = {"in_indptr": t_indptr, "in_indices": t_cols}
        if on_host:
            indptr, cols, lengths = to_host(indptr), to_host(cols), to_host(lengths)
        bc, e = kernel(indptr, cols, lengths, srcs, n, endpoints=endpoints, edges=edges, **extra)
        if on_host:
            bc, e = xp.asarray(bc), (None if e is None else xp.asarray(e))
        return bc, e
    P = apply(A, "one").astype(np.float64) if A.dtype != np.float64 else apply(A, "one")
    if weighted or edges:
        return _per_source(A.astype(np.float64) if weighted else P, srcs, endpoints, edges)
    Pt = P if not directed else transpose(P)
    bc = xp.zeros(n, dtype=np.float64)
    for start in range(0, len(srcs), BATCH):
        bc += _batch(P, Pt, srcs[start : start + BATCH], directed, endpoints)
    return bc, None


def betweenness_centrality(
    G,
    *,
    k: int | None = None,
    normalized: bool = True,
    weight=None,
    endpoints: bool = False,
    seed=None,
    directed: bool = True,
    sources=None,
    fused: bool | None = None,
    device: str | None = None,
):
    """Shortest-path betweenness centrality of every vertex, as NetworkX computes it.

    Brandes' algorithm: from each source a search counting the shortest paths σ to
    every vertex, then the dependencies δ accumulated from the farthest vertices
    back; a vertex's centrality is its δ summed over the sources, rescaled by
    NetworkX's rule for ``normalized``, ``endpoints``, directed or undirected graphs
    and sampled sources. ``weight=None`` counts edges (breadth-first searches; on
    the GPU 64 sources at once in one fused kernel pair); a weight takes the stored
    values as lengths (Dijkstra's searches; on the GPU the compiled CPU kernel runs
    on a host copy of the graph).

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Unweighted, only the pattern is read; self-loops change nothing.
    k : int, optional
        Use k sources sampled as NetworkX samples them: ``seed.sample(range(n), k)``,
        so vertex i is NetworkX's node i (a graph with nodes 0..n-1 in order).
        ``k == n`` uses every vertex; k < 1 (or an empty ``sources``) is an
        InvalidValue, where NetworkX's rescaling divides by zero.
    normalized : bool
        Divide by the number of (s, t) pairs (NetworkX's rule).
    weight : None, True or str
        None (or False): shortest paths by edge count. True, or any attribute name
        (a matrix holds one weight per edge): by total weight, the stored values
        being non-negative lengths, paths of equal length counted as equal (as
        NetworkX's Dijkstra compares the float sums). A negative or NaN weight is
        an InvalidValue (a ValueError); a stored +inf is no edge. A Boolean matrix
        has no lengths: every edge counts one. With zero-weight edges the order in
        which the search settles vertices breaks ties between equal paths.
    endpoints : bool
        Count the path's end vertices as on the path.
    seed : None, int or random.Random
        The generator of the sample (None: Python's global one, as NetworkX).
    directed : bool
        False follows edges both ways (an undirected graph, NetworkX's ``Graph``).
    sources : sequence of int, optional
        The sources to start from instead of a sample; rescaled as k = len(sources)
        sampled ones.
    fused : None, True or False
        None: the back end's compiled kernel where it has one; True: that kernel
        (InvalidValue where there is none, as under ``KLEENE_CPU=numpy``); False:
        the composed form of kleene operations (the reference).

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Returns
    -------
    float64 array of length n, on the input's device. The sums of the compiled
    kernels come in a fixed order: the same call gives the same bits on every run.

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> path = sp.csr_matrix(([1, 1, 1], ([0, 1, 2], [1, 2, 3])), shape=(4, 4))
    >>> kleene.betweenness_centrality(path, directed=False).tolist()
    [0.0, 0.6666666666666666, 0.6666666666666666, 0.0]
    >>> kleene.betweenness_centrality(path, normalized=False).tolist()
    [0.0, 2.0, 2.0, 0.0]

    Weighted: the square 0-1-2-3-0 with a heavy edge 3-0 sends the paths between 0
    and 3 around through 1 and 2.

    >>> sq = sp.csr_matrix(([1.0, 1.0, 1.0, 5.0], ([0, 1, 2, 3], [1, 2, 3, 0])), shape=(4, 4))
    >>> kleene.betweenness_centrality(sq, directed=False, weight=True, normalized=False).tolist()
    [0.0, 2.0, 2.0, 0.0]
    """
    G = on_device(G, device)
    A, weighted = _graph(G, weight, directed, "betweenness_centrality")
    n = A.nrows
    srcs = pick_sources(n, k, seed, sources)
    everyone = srcs if srcs is not None else np.arange(n, dtype=np.int64)
    bc, _ = _dependencies(
        A, everyone, weighted, endpoints, False, directed, fused, "betweenness_centrality"
    )
    return rescale(
        bc, n, normalized=normalized, directed=directed, endpoints=endpoints, sampled=srcs
    )


def edge_betweenness_centrality(
    G,
    *,
    k: int | None = None,
    normalized: bool = True,
    weight=None,
    seed=None,
    directed: bool = True,
    sources=None,
    fused: bool | None = None,
    device: str | None = None,
) -> Matrix:
    """Shortest-path betweenness centrality of every edge, as NetworkX computes it.

    The same searches as :func:`betweenness_centrality` (the same sources for the
    same ``k`` and ``seed``); the backward pass gives each arc u → v on a shortest
    path from s its share ``σ(u) (1 + δ(v)) / σ(v)``. An undirected graph's edge
    {u, v} sums its two arcs (NetworkX's one key per edge). Rescaled as NetworkX's
    ``edge_betweenness_centrality`` (its ``_rescale`` with endpoints counted).

    Parameters are :func:`betweenness_centrality`'s (no ``endpoints``).

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Returns
    -------
    kleene.Matrix of float64 with the pattern of the graph searched (``directed=False``:
    both ways, the two entries of an edge equal): entry (u, v) is NetworkX's value of
    edge (u, v); a self-loop's is 0. On the input's device.

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> path = sp.csr_matrix(([1, 1, 1], ([0, 1, 2], [1, 2, 3])), shape=(4, 4))
    >>> E = kleene.edge_betweenness_centrality(path, directed=False, normalized=False)
    >>> E.to_dense(missing=0.0)[[0, 1, 2], [1, 2, 3]].tolist()
    [3.0, 4.0, 3.0]
    >>> W = kleene.edge_betweenness_centrality(path, directed=False)  # / (n (n - 1))
    >>> round(float(W.to_dense(missing=0.0)[1, 2]), 6)
    0.666667
    """
    G = on_device(G, device)
    A, weighted = _graph(G, weight, directed, "edge_betweenness_centrality")
    n = A.nrows
    srcs = pick_sources(n, k, seed, sources)
    everyone = srcs if srcs is not None else np.arange(n, dtype=np.int64)
    _, e = _dependencies(
        A, everyone, weighted, False, True, directed, fused, "edge_betweenness_centrality"
    )
    # NetworkX's rescaling with the end vertices counted (linear: before the sum of the
    # two arcs of an undirected edge)
    rescale(e, n, normalized=normalized, directed=directed, endpoints=True, sampled=srcs)
    indptr, _, cols, _ = _arcs(A)
    E = Matrix.from_csr(indptr, cols, e, (n, n))
    return E if directed else ewise_add(E, transpose(E), "plus")
