"""What Matrix and Vector share: masks, the device, operations as methods."""

from __future__ import annotations

from kleene.backends.device import device_of

from .mask import Mask

# The operation layer sits above the containers and registers itself here when it is
# imported (kleene.ops does so), so this layer imports nothing above it.
_operations = None


def provide_operations(module) -> None:
    """Called once by ``kleene.ops``: the module whose functions the methods call."""
    global _operations
    _operations = module


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
        return _operations.ewise_add(self, other, op, **kw)

    def ewise_mult(self, other, op, **kw):
        return _operations.ewise_mult(self, other, op, **kw)

    def apply(self, op, **kw):
        return _operations.apply(self, op, **kw)

    def select(self, op, thunk=None, **kw):
        return _operations.select(self, op, thunk, **kw)

    def reduce(self, op, **kw):
        return _operations.reduce(self, op, **kw)

    def extract(self, rows=None, cols=None, **kw):
        return _operations.extract(self, rows, cols, **kw)

    def assign(self, value, rows=None, cols=None, **kw):
        return _operations.assign(self, value, rows, cols, **kw)
