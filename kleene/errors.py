"""kleene's exception types."""


class NegativeCycleError(ValueError):
    """A negative-weight cycle makes shortest paths undefined (as in scipy.sparse.csgraph)."""
