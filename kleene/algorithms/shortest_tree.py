"""Predecessors from converged distances: a BFS tree over the tight edges."""

from __future__ import annotations

from kleene.core import Matrix, Vector
from kleene.engine import frontier_bfs, shortest_path_tree, tight_edges
from kleene.ops import select
from kleene.semiring import min_plus


def predecessors_from_distances(A: Matrix, d: Vector, source: int, semiring=min_plus):
    """Shortest-path predecessors (-1: source or unreachable) as a dense array.

    The BFS tree of the tight-edge subgraph from ``source``: every parent edge is
    tight, and BFS order keeps the tree acyclic even across zero-weight cycles.
    min_plus: ``kleene.engine.shortest_path_tree`` (compiled on the CPU); other
    semirings (widest, most reliable paths) compose it from ``tight_edges``.
    """
    if semiring is min_plus:
        return shortest_path_tree(A, d, source)
    tight = select(tight_edges(A, d, semiring), "offdiag", 0)
    _, pred = frontier_bfs(tight, source, parents=True, method="push")
    return pred.to_dense(missing=-1)


__all__ = ["predecessors_from_distances", "tight_edges"]
