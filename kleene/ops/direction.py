"""Beamer's direction-optimizing switch for BFS: the one place its thresholds live.

A level is pushed (scatter from the frontier's out-edges) or pulled (each
unvisited vertex scans its in-edges for a frontier vertex). Following Beamer et
al. (SC 2012) and LAGraph, the search switches to pull once the frontier's
out-edges m_f exceed 1/TO_PULL of the edges still unexplored (m_u), and back to
push once the frontier holds fewer than n/TO_PUSH vertices. The composed loop
(``kleene.ops.frontier``) and the fused CUDA kernels (``cuda/frontier.py``,
``kernels/frontier.cu``, where these become ``KL_TO_PULL``/``KL_TO_PUSH``) use
this rule and these numbers.
"""

from __future__ import annotations

TO_PULL = 14  # Beamer's alpha: pull once m_f * TO_PULL > m_u (edge counts)
TO_PUSH = 24  # Beamer's beta: push once n_f * TO_PUSH < n (vertex counts)


def next_direction(
    pull: bool, frontier_edges: int, unexplored_edges: int, frontier_vertices: int, n: int
) -> bool:
    """Whether the next level pulls, given whether this one did (Beamer's rule)."""
    if not pull and frontier_edges * TO_PULL > unexplored_edges:
        return True
    if pull and frontier_vertices * TO_PUSH < n:
        return False
    return pull
