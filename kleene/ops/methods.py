"""Operations as methods of Matrix and Vector (each delegates to the function)."""

from __future__ import annotations


class OperationMethods:
    """``A.ewise_add(B, op)`` and friends: the same as ``kleene.ewise_add(A, B, op)``."""

    __slots__ = ()

    def ewise_add(self, other, op, **kw):
        from .operations import ewise_add

        return ewise_add(self, other, op, **kw)

    def ewise_mult(self, other, op, **kw):
        from .operations import ewise_mult

        return ewise_mult(self, other, op, **kw)

    def apply(self, op, **kw):
        from .operations import apply

        return apply(self, op, **kw)

    def select(self, op, thunk=None, **kw):
        from .operations import select

        return select(self, op, thunk, **kw)

    def reduce(self, op, **kw):
        from .operations import reduce

        return reduce(self, op, **kw)

    def extract(self, rows=None, cols=None, **kw):
        from .operations import extract

        return extract(self, rows, cols, **kw)

    def assign(self, value, rows=None, cols=None, **kw):
        from .operations import assign

        return assign(self, value, rows, cols, **kw)
