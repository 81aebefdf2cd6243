"""Write masks: ``M.S`` (structure), ``M.V`` (values), and their complements ``~``."""

from __future__ import annotations


class Mask:
    """Which output positions an operation may write (GraphBLAS masks).

    ``M.S`` allows positions where M has an entry; ``M.V`` where the entry is also
    true (nonzero); ``~M.S`` / ``~M.V`` allow the rest.

    Example
    -------
    >>> import numpy as np, kleene
    >>> M = kleene.Vector.from_dense(np.array([True, False, True]), missing=False)
    >>> (~M.S).complement
    True
    """

    __slots__ = ("container", "structural", "complement")

    def __init__(self, container, *, structural: bool, complement: bool = False):
        self.container = container
        self.structural = structural
        self.complement = complement

    def __invert__(self) -> Mask:
        return Mask(self.container, structural=self.structural, complement=not self.complement)

    def allowed(self, xp):
        """Dense bool array of the positions this mask lets through."""
        values, present = self.container._bitmap()
        if self.structural:
            ok = xp.ones(values.shape, dtype=bool) if present is None else present
        else:
            truthy = values.astype(bool) if values.dtype != bool else values
            ok = truthy if present is None else (present & truthy)
        return ~ok if self.complement else ok

    def allowed_keys(self, xp, keys):
        """Bool array: is each flat position in ``keys`` allowed? (row-major keys)

        Sparse masks are searched by key, so a large sparse mask is never densified.
        """
        c = self.container
        if c.format == "dense":
            return self.allowed(xp).ravel()[keys]
        mkeys, vals = c._keys()
        if not self.structural:
            mkeys = mkeys[vals.astype(bool)]
        pos = xp.searchsorted(mkeys, keys)
        hit = pos < mkeys.size
        hit[hit] = mkeys[pos[hit]] == keys[hit]
        return ~hit if self.complement else hit

    def __repr__(self) -> str:
        kind = "S" if self.structural else "V"
        return f"{'~' if self.complement else ''}Mask.{kind}({self.container!r})"
