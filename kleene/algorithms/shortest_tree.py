"""Predecessors from converged distances: a BFS tree over the tight edges."""

from __future__ import annotations

from ..ops import Matrix, Vector, ewise_mult, mxm, select
from ..semiring import Semiring, binary, min_plus, monoid

# (any, eq): for a one-term product, "is this entry equal to the diagonal entry".
_any_eq = Semiring(monoid.any, binary.eq, name="any_eq")


def tight_edges(A: Matrix, d: Vector, semiring=min_plus) -> Matrix:
    """Boolean matrix of edges (k, j) with d(k) ⊗ w(k, j) == d(j), k reached (d(k) != zero)."""
    reached = select(d, "valuene", semiring.zero_for(d.dtype))
    through = mxm(Matrix.from_diag(reached), A, semiring)  # d(k) ⊗ w(k, j)
    same = mxm(through, Matrix.from_diag(reached), _any_eq)  # ... == d(j)
    return select(ewise_mult(same, same, "land"), "valueeq", True)


def predecessors_from_distances(A: Matrix, d: Vector, source: int, semiring=min_plus):
    """Shortest-path predecessors (-1: source or unreachable) as a dense array.

    The BFS tree of the tight-edge subgraph from ``source``: every parent edge is
    tight, and BFS order keeps the tree acyclic even across zero-weight cycles.
    """
    from .breadth_first import bfs

    tight = select(tight_edges(A, d, semiring), "offdiag", 0)
    _, pred = bfs(tight, source, method="push", return_predecessors=True)
    return pred


__all__ = ["predecessors_from_distances", "tight_edges"]
