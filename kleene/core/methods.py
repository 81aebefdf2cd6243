"""What Matrix and Vector share: masks, the device, operations as methods."""

from __future__ import annotations

from kleene.backends.device import device_of

from .mask import Mask


class OperationMethods:
    """Masks (``A.S``, ``A.V``), the device, and operations as methods (``A.ewise_add(B, op)``)."""

    __slots__ = ()

    @property
    def S(self) -> Mask:
        """Structural mask: positions with a stored entry."""
        return Mask(self, structural=True)

    @property
    def V(self) -> Mask:
        """Value mask: positions with a stored entry that is true (nonzero)."""
        return Mask(self, structural=False)

    @property
    def device(self) -> str:
        """ "cpu" or "gpu": where the arrays live."""
        return device_of(self._xp)

    def ewise_add(self, other, op, **kw):
        from kleene.ops.operations import ewise_add

        return ewise_add(self, other, op, **kw)

    def ewise_mult(self, other, op, **kw):
        from kleene.ops.operations import ewise_mult

        return ewise_mult(self, other, op, **kw)

    def apply(self, op, **kw):
        from kleene.ops.operations import apply

        return apply(self, op, **kw)

    def select(self, op, thunk=None, **kw):
        from kleene.ops.operations import select

        return select(self, op, thunk, **kw)

    def reduce(self, op, **kw):
        from kleene.ops.operations import reduce

        return reduce(self, op, **kw)

    def extract(self, rows=None, cols=None, **kw):
        from kleene.ops.operations import extract

        return extract(self, rows, cols, **kw)

    def assign(self, value, rows=None, cols=None, **kw):
        from kleene.ops.operations import assign

        return assign(self, value, rows, cols, **kw)
