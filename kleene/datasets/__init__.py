"""Small real graphs that ship with kleene: the demo's, and for trying things out.

Each loader reads a file inside the package (through ``kleene.io``), so it works
offline and on a fresh install.
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from kleene.core import Matrix
from kleene.errors import InvalidValue

__all__ = ["karate_club"]


def karate_club(*, weights: str = "length", device: str = "cpu") -> Matrix:
    """Zachary's karate club: 34 members, 78 ties, stored in both directions.

    Zachary (1977) recorded the ties between the members of a university karate
    club outside the club, each with a strength: the number of contexts (1–7) in
    which the two met. Vertex 0 is the instructor and vertex 33 the club's
    administrator; the club split between the two.

    Parameters
    ----------
    weights : "length", "strength" or "none"
        "length" (default): 1 / strength, so strong ties are short (float64) and
        shortest paths follow close friendships; "strength": the recorded strengths
        (int64, for widest paths); "none": the Boolean pattern.
    device : "cpu" or "gpu"

    Example
    -------
    >>> import kleene
    >>> from kleene.datasets import karate_club
    >>> A = karate_club()
    >>> A.shape, A.nvals
    ((34, 34), 156)
    >>> int(kleene.bfs(A, 0).max())  # everyone is within 3 ties of the instructor
    3
    """
    from kleene import io

    if weights not in ("length", "strength", "none"):
        raise InvalidValue(f"weights must be 'length', 'strength' or 'none', got {weights!r}")
    with resources.as_file(resources.files(__name__) / "karate.mtx") as path:
        strength = io.read(path)
    r, c, s = strength.to_coo()
    if weights == "strength":
        A = strength
    elif weights == "none":
        A = Matrix.from_edges(r, c, n=strength.nrows)
    else:
        A = Matrix.from_edges(r, c, 1.0 / s.astype(np.float64), n=strength.nrows)
    return A.to(device)
