"""When a shortest-path tree may take any tight in-edge: the test both back ends share."""

from __future__ import annotations


def strict_sums(least: float, most: float, n: int) -> bool:
    """Whether d + w > d for every weight w in [least, most] and every path sum d over
    ``n`` vertices: every weight > 0 and the least one above the rounding step of the
    largest possible sum, (n - 1)·most (an ulp of x is at most x·2⁻⁵²).

    Then distances grow strictly along tight edges (d(u) + w(u, v) == d(v)), so every
    choice of tight in-neighbour makes an acyclic shortest-path tree, and the
    predecessors need one pass over the edges instead of a BFS over the tight ones.

    Example
    -------
    >>> from kleene.engine.strict_sums import strict_sums
    >>> strict_sums(1.0, 1000.0, 10**6), strict_sums(0.0, 5.0, 10)
    (True, False)
    """
    return least > 0 and max(n - 1, 0) * most * 2.0**-52 < least
