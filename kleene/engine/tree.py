"""Shortest-path trees from converged distances: predecessors as the BFS tree of the
tight edges, the edges on shortest paths."""

from __future__ import annotations

import numpy as np

from kleene.backends.strict_sums import strict_sums
from kleene.core import access
from kleene.core.checks import as_container
from kleene.core.matrix import Matrix
from kleene.core.vector import Vector
from kleene.errors import DimensionMismatch, InvalidValue
from kleene.ops.elementwise import ewise_mult, select
from kleene.ops.multiply import mxm, transpose_at_hand, vxm
from kleene.semiring import Semiring, binary, min_first, min_plus, monoid

from .frontier import _fused_loop, _square_and_source, _weight_summary, frontier_bfs, least_value

# (any, eq): for a one-term product, "is this entry equal to the diagonal entry".
_any_eq = Semiring(monoid.any, binary.eq, name="any_eq")


def tight_edges(A: Matrix, d: Vector, semiring=min_plus) -> Matrix:
    """Boolean matrix of edges (k, j) with d(k) ⊗ w(k, j) == d(j), k reached (d(k) != zero).

    Example
    -------
    >>> import numpy as np, kleene
    >>> A = kleene.Matrix.from_edges([0, 0, 1], [1, 2, 2], [1.0, 5.0, 1.0], n=3)
    >>> d = kleene.Vector.from_dense(np.array([0.0, 1.0, 2.0]), missing=None)
    >>> sorted(zip(*[x.tolist() for x in tight_edges(A, d).to_coo()[:2]]))
    [(0, 1), (1, 2)]
    """
    reached = select(d, "valuene", semiring.zero_for(d.dtype))
    through = mxm(Matrix.from_diag(reached), A, semiring)  # d(k) ⊗ w(k, j)
    same = mxm(through, Matrix.from_diag(reached), _any_eq)  # ... == d(j)
    return select(ewise_mult(same, same, "land"), "valueeq", True)


def shortest_path_tree(A: Matrix, d: Vector, source: int, *, fused: bool | None = None):
    """Predecessors (a dense int64 array, -1 for the source and unreached vertices) of
    shortest paths from ``source``, given its converged min_plus distances ``d``.

    Where every weight grows every sum (``kleene.engine.strict_sums``: all weights > 0,
    none lost to rounding) distances rise strictly along tight edges (d(u) + w(u, v)
    == d(v), self loops left out), so each vertex's parent is simply its
    smallest-numbered tight in-neighbour: one pass over the edges. Composed form:
    ``vxm(ids, tight_edges(A, d), min_first)`` with ids[u] = u; fused on both back
    ends (``tight_parents``; on the GPU ``kleene.sssp`` queues the pass right behind
    the search, no host wait). Otherwise (zero weights) the BFS tree of the tight edges from
    ``source``: each vertex's parent is its smallest-numbered tight in-neighbour one
    BFS level up, so the tree is acyclic even across zero-weight cycles. Composed form:
    ``frontier_bfs(tight_edges(A, d), source, parents=True, method="push")``; the
    CPU back end runs it as one compiled BFS reading the tight edges off A's CSR.
    ``fused`` as in ``frontier_bfs``; the fused forms need A and d float64 (their sums
    are float64; other dtypes run the composed form, whose sums are in their own dtype).

    Example
    -------
    >>> import numpy as np, kleene
    >>> A = kleene.Matrix.from_edges([0, 0, 1], [1, 2, 2], [1.0, 2.0, 1.0], n=3)
    >>> d = kleene.Vector.from_dense(np.array([0.0, 1.0, 2.0]), missing=None)
    >>> kleene.engine.shortest_path_tree(A, d, 0).tolist()  # 2 has two tight in-edges
    [-1, 0, 0]
    """
    s = _square_and_source("shortest_path_tree", A, source)
    as_container("shortest_path_tree", "d", d, (Vector,))
    if d.size != A.nrows:
        raise DimensionMismatch(
            f"shortest_path_tree: d has {d.size} entries for {A.nrows} vertices"
        )
    # The fused forms compare float64 sums: only float64 weights and distances give
    # the composed form's tight edges (float32 sums round differently).
    exact = A.dtype == np.float64 and d.dtype == np.float64
    if fused and not exact:
        raise InvalidValue(
            "shortest_path_tree: the fused tree compares float64 sums; A and d must be "
            f"float64 (got {A.dtype} and {d.dtype}), or use fused=None"
        )
    if A.nvals and strict_sums(least_value(A), _weight_summary(A)[0], A.nrows):
        return _tight_parents(A, d, fused if exact else False)
    loop = _fused_loop("shortest_path_tree", A, "tight_tree", fused if exact else False)
    if loop is None:
        tight = select(tight_edges(A, d), "offdiag", 0)
        _, parents = frontier_bfs(tight, s, parents=True, method="push", fused=fused)
        return parents.to_dense(missing=-1)
    ptr, idx, w = access.csr(A)
    dist = d.to_dense(missing=np.inf)
    # Unreached vertices as NaN: no sum equals it, so no edge into or out of one is
    # tight (the composed form leaves them out; inf + w == inf would not).
    dist = A.xp.where(A.xp.isinf(dist) & (dist > 0), np.nan, dist)
    return loop(ptr, idx, w, dist, s)


def _tight_parents(A: Matrix, d: Vector, fused: bool | None) -> np.ndarray:
    """Where sums grow strictly: each vertex's smallest tight in-neighbour, one pass.
    Composed: ``vxm(ids, tight, min_first)`` over the tight edges (ids[u] = u)."""
    loop = _fused_loop("shortest_path_tree", A, "tight_parents", fused)
    if loop is None:
        tight = select(tight_edges(A, d), "offdiag", 0)
        ids = Vector.from_dense(A.xp.arange(A.nrows, dtype=np.int64), missing=None)
        return vxm(ids, tight, min_first).to_dense(missing=-1)
    ptr, idx, w = access.csr(A)
    return loop(ptr, idx, w, d.to_dense(missing=np.inf), in_edges=transpose_at_hand(A))


__all__ = ["shortest_path_tree", "tight_edges"]
