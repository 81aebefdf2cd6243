"""``NegativeCycleError``: kleene's and SciPy's at once, so either ``except`` catches it."""

from __future__ import annotations

import functools

from kleene import errors

try:  # SciPy's class, where SciPy is installed (kleene depends on it; guard all the same)
    from scipy.sparse.csgraph import NegativeCycleError as _ScipyNegativeCycleError
except ImportError:  # pragma: no cover - SciPy is a dependency of kleene

    class _ScipyNegativeCycleError(Exception):
        """Stand-in for SciPy's class where SciPy is missing."""


class NegativeCycleError(errors.NegativeCycleError, _ScipyNegativeCycleError):
    """A negative cycle: catchable as ``scipy.sparse.csgraph.NegativeCycleError`` and as
    ``kleene.errors.NegativeCycleError`` (a ``ValueError``).

    Example
    -------
    >>> import numpy as np, scipy.sparse.csgraph as scipy_csgraph
    >>> from kleene import csgraph
    >>> G = np.array([[0, 1.0], [-2.0, 0]])
    >>> try:
    ...     csgraph.bellman_ford(G)
    ... except scipy_csgraph.NegativeCycleError as err:
    ...     print("negative cycle:", isinstance(err, ValueError))
    negative cycle: True
    """

    def __init__(self, message: str = ""):
        Exception.__init__(self, message)


def scipy_cycles(func):
    """Re-raise kleene's NegativeCycleError from ``func`` as this module's class."""

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except NegativeCycleError:
            raise
        except errors.NegativeCycleError as err:
            raise NegativeCycleError(str(err)) from err

    return wrapped
