"""Beamer's direction-optimizing switch for BFS: the one place its rule and thresholds live.

A level is pushed (scatter from the frontier's out-edges) or pulled (each
unvisited vertex scans its in-edges for a frontier vertex). The rule is that of
Beamer et al. (SC 2012) as their GAP benchmark suite runs it (gapbs ``bfs.cc``):

- push → pull once the frontier's out-edges m_f exceed 1/TO_PULL of the edges
  still to check, m_u: the stored edges less the m_f of every frontier pushed so
  far (pulled levels do not count: a pull checks in-edges, not the frontier's
  out-edges, so after a pull phase m_u stays large and the tail of the search,
  a few small frontiers, is pushed instead of paying a pass over every vertex
  per level);
- pull → push once the frontier holds fewer than n/TO_PUSH vertices *and* is
  shrinking (smaller than the level before).

The composed loop (``kleene.engine.frontier``), the CPU kernel (``cpu/frontier.py``)
and the CUDA kernels (``cuda/frontier.py``, ``kernels/frontier.cu``, where the
thresholds become ``KL_TO_PULL``/``KL_TO_PUSH``; ``cuda/multi_frontier.py``) use
this rule on the same counts.
"""

from __future__ import annotations

TO_PULL = 14  # Beamer's alpha: pull once m_f * TO_PULL > m_u (edge counts)
TO_PUSH = 24  # Beamer's beta: push once n_f * TO_PUSH < n and n_f shrinks (vertex counts)
# Alpha for batched searches (MS-BFS, 64 per bit-packed word): a pulled vertex stops only
# once it has every search's bit, which a level whose searches' frontiers are still small
# never gives, so the pull reads nearly all of m_u while the push reads m_f. A level whose
# m_f is a few per cent of m_u is therefore cheaper pushed, one with m_f near m_u pulled;
# alpha 4 puts the switch between them.
TO_PULL_MULTI = 4


def next_direction(
    pull: bool,
    frontier_edges: int,
    unexplored_edges: int,
    frontier_vertices: int,
    previous_vertices: int,
    n: int,
    to_pull: int = TO_PULL,
) -> bool:
    """Whether the next level pulls, given whether this one did (Beamer's rule).

    ``unexplored_edges`` is m_u (see the module docstring), ``previous_vertices``
    the size of the frontier before this one, ``to_pull`` the rule's alpha
    (``TO_PULL_MULTI`` for batched searches).

    Example
    -------
    >>> next_direction(False, 100, 1000, 10, 1, 10**6)  # m_f * 14 > m_u: pull
    True
    >>> next_direction(True, 5, 1000, 10, 20, 10**6)  # small and shrinking: push
    False
    """
    if not pull:
        return frontier_edges * to_pull > unexplored_edges
    return not (frontier_vertices * TO_PUSH < n and frontier_vertices < previous_vertices)


class Switch:
    """The rule's state over one search: m_u and the previous frontier's size.

    Example
    -------
    >>> s = Switch(nnz=1000, n=10**6)
    >>> s.next(frontier_edges=10, frontier_vertices=1)  # push; m_u becomes 990
    False
    >>> s.unexplored
    990
    """

    def __init__(self, nnz: int, n: int, to_pull: int = TO_PULL):
        self.pull, self.unexplored, self.previous, self.n = False, int(nnz), 0, int(n)
        self.to_pull = to_pull

    def next(self, frontier_edges: int, frontier_vertices: int) -> bool:
        """Whether the level that expands this frontier pulls (and account for it)."""
        self.pull = next_direction(
            self.pull,
            frontier_edges,
            self.unexplored,
            frontier_vertices,
            self.previous,
            self.n,
            self.to_pull,
        )
        if not self.pull:
            self.unexplored -= frontier_edges
        self.previous = frontier_vertices
        return self.pull
