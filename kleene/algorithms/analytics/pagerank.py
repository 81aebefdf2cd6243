"""PageRank by power iteration: one plus_times product per step (NetworkX's semantics)."""

from __future__ import annotations

import numpy as np

from kleene.core import Matrix, Vector
from kleene.errors import DimensionMismatch, InvalidValue, KleeneError
from kleene.ops import apply, ewise_add, ewise_mult, mxv, stored_min, vxm

from ..graph_input import as_graph


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
):
    """PageRank of every vertex, as ``networkx.pagerank`` computes it.

    P is the adjacency matrix with each row divided by its sum (a vertex's
    out-weight); each step is

        x ← α (x P + (x · d) w) + (1 − α) p

    with ``x P = (x ∘ s) A`` one element-wise product with the inverse out-weights s
    and one ``plus_times`` product (:func:`kleene.vxm`), d the indicator of
    the dangling vertices (no out-edges, or out-weights summing to zero), w the
    dangling distribution and p the personalization, until the L1 change is below
    ``n * tol``. Every step is kleene operations, so it runs on the CPU and the GPU
    alike.

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
    alpha = float(alpha)
    if not 0.0 <= alpha <= 1.0:
        raise InvalidValue(f"pagerank: alpha must lie in [0, 1], got {alpha}")
    if int(max_iter) < 1:
        raise InvalidValue(f"pagerank: max_iter must be positive, got {max_iter}")
    if not float(tol) >= 0.0:
        raise InvalidValue(f"pagerank: tol must be non-negative, got {tol}")
    A = as_graph(G, directed=True)
    xp, n = A.xp, A.nrows
    if n == 0:
        return xp.zeros(0, dtype=np.float64)
    A, scale, is_dangling = _transition(A, weight)
    uniform = xp.full(n, 1.0 / n)
    x = _distribution(xp, nstart, n, "nstart", uniform, negative_ok=True)
    p = _distribution(xp, personalization, n, "personalization", uniform)
    w = _distribution(xp, dangling, n, "dangling", p)
    x, p, w = (Vector.from_dense(v, missing=None) for v in (x, p, w))
    teleport = apply(p, "times", right=1.0 - alpha)
    # the two sums of a step (x · d and the L1 change) as products with a column:
    # a plus_times vxm, the same compiled product as x P
    ones = xp.ones(n)
    column = Matrix.from_edges(xp.arange(n), xp.zeros(n, dtype=np.int64), ones, n, ncols=1)
    for _ in range(int(max_iter)):
        last = x
        lost = _total(vxm(x, is_dangling, "plus_times"))  # x · d
        xP = vxm(ewise_mult(x, scale, "times"), A, "plus_times")  # x P = (x ∘ s) A
        x = ewise_add(xP, apply(w, "times", right=lost), "plus")
        x = ewise_add(apply(x, "times", right=alpha), teleport, "plus")
        change = apply(ewise_add(x, apply(last, "ainv"), "plus"), "abs")
        if _total(vxm(change, column, "plus_times")) < n * tol:
            return x.to_dense(missing=0.0)
    raise PowerIterationFailedConvergence(int(max_iter))


def _transition(A: Matrix, weight: bool):
    """(A as float64 weights, s: the inverse out-weights (0 at a dangling vertex),
    d: an n × 1 column of ones at the dangling vertices)."""
    xp, n = A.xp, A.nrows
    if not weight or A.dtype == np.bool_:
        A = apply(A, "one").astype(np.float64)
    else:
        A = A.astype(np.float64) if A.dtype != np.float64 else A
        if A.nvals and stored_min(A) < 0:
            raise InvalidValue("pagerank: edge weights must be non-negative")
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
