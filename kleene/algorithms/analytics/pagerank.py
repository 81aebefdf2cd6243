"""PageRank by power iteration (NetworkX's semantics): the back end's fused iteration,
or one plus_times product per step composed of kleene operations."""

from __future__ import annotations

import numpy as np

from kleene.backends import backend
from kleene.core import Matrix, Vector
from kleene.engine import has_power_iteration, power_iteration
from kleene.errors import DimensionMismatch, InvalidValue, KleeneError
from kleene.ops import (
    apply,
    ewise_add,
    ewise_mult,
    mxv,
    reduce,
    stored_min,
    vxm,
)

from ..graph_input import as_graph, on_device


class PowerIterationFailedConvergence(KleeneError, RuntimeError):
    """The power iteration did not converge within ``max_iter`` steps (NetworkX's
    error of the same name); ``num_iterations`` says how many ran."""

    def __init__(self, num_iterations: int):
        self.num_iterations = num_iterations
        super().__init__(
            f"pagerank: power iteration failed to converge within {num_iterations} iterations"
        )


def pagerank(
    G,
    *,
    alpha: float = 0.85,
    personalization=None,
    max_iter: int = 100,
    tol: float = 1e-6,
    nstart=None,
    dangling=None,
    weight: bool = True,
    fused: bool | None = None,
    device: str | None = None,
):
    """PageRank of every vertex, as ``networkx.pagerank`` computes it.

    P is the adjacency matrix with each row divided by its sum (a vertex's
    out-weight); each step is

        x ← α (x P + (x · d) w) + (1 − α) p

    with ``x P = (x ∘ s) A`` one element-wise product with the inverse out-weights s
    and one ``plus_times`` product (:func:`kleene.vxm`), d the indicator of
    the dangling vertices (no out-edges, or out-weights summing to zero), w the
    dangling distribution and p the personalization, until the L1 change is below
    ``n * tol``; the answer is the vector of the first step below it.

    The back ends run the whole iteration as one fused primitive, ``pagerank``
    (``kleene.backends.cpu.pagerank``: Numba, scattering from A's rows on one thread
    or pulling over Aᵀ's rows on all of them for large graphs;
    ``kleene.backends.cuda.analytics.pagerank``: one pull over Aᵀ's rows, A's own
    when A is symmetric, fused with the update and the L1 change, the convergence
    read back once every few steps while the steps past the converged one do
    nothing). ``fused=False`` runs the composed form, every step kleene operations.
    A SciPy CSR matrix in canonical form with finite weights is read as it is.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Edge i→j stored at (i, j); an undirected graph is a symmetric matrix.
        Duplicate entries of a SciPy matrix keep the least weight (kleene's rule);
        call its ``sum_duplicates()`` first for a multigraph's summed weights.
    alpha : float in [0, 1]
        The damping factor.
    personalization : array of n non-negative numbers, optional
        The teleport distribution (normalised to sum 1); default uniform.
    max_iter : int
    tol : float
        Convergence when the L1 change of a step is below ``n * tol``.
    nstart : array of n numbers, optional
        The starting vector (normalised to sum 1); default uniform.
    dangling : array of n non-negative numbers, optional
        Where the rank of dangling vertices goes (normalised to sum 1); default the
        personalization.
    weight : bool
        True uses the stored values as edge weights (non-negative), False counts
        every edge as 1.
    fused : bool or None
        None runs the back end's fused iteration where there is one, False the
        composed form (the same answer to rounding), True requires the fused one.

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Returns
    -------
    float64 array of length n summing to 1, on the input's device.

    Raises
    ------
    InvalidValue
        ``alpha`` outside [0, 1], a negative weight, a personalization or dangling
        vector that is negative or sums to zero, a non-positive ``max_iter``.
    DimensionMismatch
        A vector whose length is not n, or a non-square matrix.
    PowerIterationFailedConvergence
        No convergence in ``max_iter`` steps (a RuntimeError).

    Example
    -------
    >>> import numpy as np, scipy.sparse as sp, kleene
    >>> G = sp.csr_matrix(([1, 1, 1], ([0, 1, 2], [1, 2, 0])), shape=(3, 3))
    >>> np.round(kleene.pagerank(G), 4).tolist()
    [0.3333, 0.3333, 0.3333]
    >>> x = kleene.pagerank(G, personalization=np.array([1.0, 0.0, 0.0]))
    >>> np.round(x, 4).tolist(), round(float(x.sum()), 12)
    ([0.3887, 0.3304, 0.2809], 1.0)
    """
    G = on_device(G, device)
    alpha = float(alpha)
    if not 0.0 <= alpha <= 1.0:
        raise InvalidValue(f"pagerank: alpha must lie in [0, 1], got {alpha}")
    if int(max_iter) < 1:
        raise InvalidValue(f"pagerank: max_iter must be positive, got {max_iter}")
    if not float(tol) >= 0.0:
        raise InvalidValue(f"pagerank: tol must be non-negative, got {tol}")
    if fused not in (None, True, False):
        raise InvalidValue(f"fused must be None, True or False, got {fused!r}")
    max_iter, tol = int(max_iter), float(tol)
    quick = _host_graph(G, weight) if fused is not False else None
    if quick is not None and backend(np).pagerank is not None:
        indptr, indices, values, n = quick
        x, p, w = _vectors(np, n, nstart, personalization, dangling)
        x, k = backend(np).pagerank(indptr, indices, values, n, x, p, w, alpha, tol, max_iter)
        return _converged(x, k, max_iter)
    # weight=False reads the pattern only: +inf is still no edge, a NaN weight an edge
    A = as_graph(G, directed=True, pattern=not weight, check_nan=bool(weight))
    xp, n = A.xp, A.nrows
    if n == 0:
        return xp.zeros(0, dtype=np.float64)
    pattern = not weight or A.dtype == np.bool_
    if not pattern and A.nvals:
        least = stored_min(A)
        if least < 0:
            raise InvalidValue("pagerank: edge weights must be non-negative")
        # one positive weight on every edge divides out: P is the pattern over the degrees
        pattern = bool(least > 0 and reduce(A, "max") == least)
    x, p, w = _vectors(xp, n, nstart, personalization, dangling)
    fast = has_power_iteration(xp)
    if fused is True and not fast:
        raise InvalidValue("pagerank: this back end has no compiled pagerank")
    if fast and fused is not False:
        x, k = power_iteration(A, x, p, w, alpha, tol, max_iter, pattern=pattern)
        return _converged(x, k, max_iter)
    return _composed(A, pattern, x, p, w, alpha, tol, max_iter)


def _converged(x, k: int, max_iter: int):
    """``x``, the vector of step k; PowerIterationFailedConvergence when k is 0."""
    if k == 0:
        raise PowerIterationFailedConvergence(max_iter)
    return x


def _vectors(xp, n: int, nstart, personalization, dangling):
    """(x, p, w): the start, personalization and dangling distributions as float64."""
    uniform = xp.full(n, 1.0 / n)
    x = _distribution(xp, nstart, n, "nstart", uniform, negative_ok=True)
    p = _distribution(xp, personalization, n, "personalization", uniform)
    w = _distribution(xp, dangling, n, "dangling", p)
    return x, p, w


def _host_graph(G, weight: bool):
    """(indptr, indices, values or None, n) of a square SciPy CSR matrix in canonical
    form (sorted, no duplicates) whose values are finite and non-negative, else None
    (as_graph reads the rest: duplicates keep the least weight, +inf is no edge, and
    the errors). ``values`` None: every edge weighs 1 (``weight=False``, bool values,
    or one positive weight on every edge, which divides out); with ``weight=False``
    only an infinite value sends the matrix to as_graph (+inf is no edge there too)."""
    if getattr(G, "format", None) != "csr" or not type(G).__module__.startswith("scipy.sparse"):
        return None
    n, ncols = G.shape
    data = G.data
    if n != ncols or n == 0 or data.dtype.kind not in "biuf" or not G.has_canonical_format:
        return None
    if data.dtype.kind == "b" or not data.size:
        return G.indptr, G.indices, None, n
    if not weight:  # the pattern, unless an infinite entry (+inf: no edge) is stored
        if data.dtype.kind == "f" and not (data.min() > -np.inf and data.max() < np.inf):
            return None  # (NaN too: as_graph keeps it as an edge)
        return G.indptr, G.indices, None, n
    least, greatest = data.min(), data.max()
    if not (least >= 0 and greatest < np.inf):  # (NaN fails both)
        return None
    if least == greatest and least > 0:  # one weight: P is the pattern over the degrees
        return G.indptr, G.indices, None, n
    return G.indptr, G.indices, data, n


def _composed(A: Matrix, pattern: bool, x, p, w, alpha: float, tol: float, max_iter: int):
    """The iteration as kleene operations (the twin of the back ends' kernels)."""
    xp, n = A.xp, A.nrows
    A, scale, is_dangling = _transition(A, pattern)
    x, p, w = (Vector.from_dense(v, missing=None) for v in (x, p, w))
    teleport = apply(p, "times", right=1.0 - alpha)
    # the two sums of a step (x · d and the L1 change) as products with a column:
    # a plus_times vxm, the same compiled product as x P
    ones = xp.ones(n)
    column = Matrix.from_edges(xp.arange(n), xp.zeros(n, dtype=np.int64), ones, n, ncols=1)
    for _ in range(max_iter):
        last = x
        lost = _total(vxm(x, is_dangling, "plus_times"))  # x · d
        xP = vxm(ewise_mult(x, scale, "times"), A, "plus_times")  # x P = (x ∘ s) A
        x = ewise_add(xP, apply(w, "times", right=lost), "plus")
        x = ewise_add(apply(x, "times", right=alpha), teleport, "plus")
        change = apply(ewise_add(x, apply(last, "ainv"), "plus"), "abs")
        if _total(vxm(change, column, "plus_times")) < n * tol:
            return x.to_dense(missing=0.0)
    raise PowerIterationFailedConvergence(max_iter)


def _transition(A: Matrix, pattern: bool):
    """(A as float64 weights, s: the inverse out-weights (0 at a dangling vertex),
    d: an n × 1 column of ones at the dangling vertices)."""
    xp, n = A.xp, A.nrows
    if pattern:
        A = apply(A, "one").astype(np.float64)
    else:
        A = A.astype(np.float64) if A.dtype != np.float64 else A
    ones = Vector.from_dense(xp.ones(n), missing=None)
    out = mxv(A, ones, "plus_times", method="pull").to_dense(missing=0.0)  # out-weights
    has_out = out != 0
    scale = xp.where(has_out, 1.0 / xp.where(has_out, out, 1.0), 0.0)
    ids = xp.flatnonzero(~has_out)
    zeros = xp.zeros(ids.size, dtype=np.int64)
    d = Matrix.from_edges(ids, zeros, xp.ones(ids.size), n, ncols=1)
    return A, Vector.from_dense(scale, missing=None), d


def _total(v: Vector) -> float:
    """The one entry of a size-1 Vector (0 when absent)."""
    return float(v.to_dense(missing=0.0)[0])


def _distribution(xp, v, n: int, name: str, default, *, negative_ok: bool = False):
    """``v`` as a float64 array on ``xp`` normalised to sum 1 (``default`` if None)."""
    if v is None:
        return default
    a = xp.asarray(v, dtype=np.float64)
    if a.ndim != 1 or a.size != n:
        raise DimensionMismatch(
            f"pagerank: {name} must be a 1-D array of length {n}, got shape {a.shape}"
        )
    if not bool(xp.isfinite(a).all()):
        raise InvalidValue(f"pagerank: {name} must be finite")
    if not negative_ok and bool((a < 0).any()):
        raise InvalidValue(f"pagerank: {name} must be non-negative")
    total = float(a.sum())
    if total == 0:
        raise InvalidValue(f"pagerank: {name} sums to zero; it must have a positive entry")
    return a / total
