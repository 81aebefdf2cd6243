"""Monoid: a commutative, associative BinaryOp with an identity."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kleene.errors import InvalidObject, InvalidValue

from .dtypes import as_dtype, resolve_scalar
from .operators import BinaryOp

# The GPU atomic update a monoid maps to; anything else uses a CAS loop.
ATOMIC_KINDS = ("min", "max", "plus", "lor", "land", "any", "cas")


@dataclass(frozen=True, eq=False)
class Monoid:
    """A commutative monoid (op, identity).

    Parameters
    ----------
    op : BinaryOp
        Commutative and associative.
    identity : scalar
        ``op(identity, x) == x``. ``float('inf')`` / ``-inf`` mean the dtype's
        infinity (the integer max / min for integer dtypes).
    idempotent : bool
        ``op(x, x) == x`` (min, max, lor, ...). In-place algorithms rely on it.
    terminal : scalar, optional
        An absorbing value: once reached, a reduction may stop early.
    atomic : str, optional
        The GPU atomic update: one of min, max, plus, lor, land, any, cas.
        Built-in monoids set it; user monoids default to "cas" (a compare-and-swap
        loop that applies ``op``), which is always correct.

    Example
    -------
    >>> import numpy as np, kleene
    >>> gcd = kleene.BinaryOp("gcd", np.gcd, "kl_gcd(x, y)")
    >>> m = kleene.Monoid(gcd, 0)
    >>> int(m.identity_for(np.int64))
    0
    """

    op: BinaryOp
    identity: object
    idempotent: bool = False
    terminal: object = None
    atomic: str = field(default="cas", kw_only=True)

    def __post_init__(self):
        if not isinstance(self.op, BinaryOp):
            raise InvalidObject(f"Monoid op must be a BinaryOp, got {type(self.op).__name__}")
        if self.op.typing not in ("same",):
            raise InvalidValue(f"monoid operator {self.op.name!r} must keep its operands' dtype")
        if self.atomic not in ATOMIC_KINDS:
            raise InvalidValue(f"atomic must be one of {ATOMIC_KINDS}, got {self.atomic!r}")

    @property
    def name(self) -> str:
        return self.op.name

    def identity_for(self, dtype):
        """The identity as a scalar of ``dtype``."""
        return resolve_scalar(self.identity, as_dtype(dtype))

    def terminal_for(self, dtype):
        """The terminal value as a scalar of ``dtype``, or None."""
        if self.terminal is None or self.stops_at_first:
            return None
        return resolve_scalar(self.terminal, as_dtype(dtype))

    def reduce(self, values: np.ndarray, dtype=None):
        """Reduce a 1-D NumPy array with ``op`` (identity if empty), CPU only."""
        d = as_dtype(dtype or values.dtype)
        acc = self.identity_for(d)
        vals = np.asarray(values, dtype=d)
        while vals.size > 1:  # pairwise tree: log2(n) vectorised calls
            half = vals.size // 2
            head = np.asarray(self.op(vals[:half], vals[half : 2 * half]), dtype=d)
            vals = np.concatenate([head, vals[2 * half :]])
        if vals.size:
            acc = np.asarray(self.op(np.asarray([acc], d), vals), dtype=d)[0]
        return d.type(acc)

    @property
    def stops_at_first(self) -> bool:
        """True for ``any``: every value is terminal, a reduction keeps the first seen."""
        return isinstance(self.terminal, str) and self.terminal == "any"

    @property
    def key(self) -> tuple:
        return ("monoid", self.op.key, repr(self.identity), self.atomic)

    def __repr__(self) -> str:
        return f"Monoid({self.op.name!r}, identity={self.identity!r})"
