"""Semiring: an add monoid and a multiply operator."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from kleene.errors import DomainMismatch, InvalidObject, InvalidValue

from .dtypes import SUPPORTED_DTYPES, as_dtype
from .monoid import Monoid
from .operators import BinaryOp

# Carriers the testing strategies draw from (see kleene.testing).
DOMAINS = ("all", "no_neg_inf", "no_pos_inf", "nonneg", "bool")


@dataclass(frozen=True, eq=False)
class Semiring:
    """A semiring (add, mul): ``C(i,j) = add_k mul(A(i,k), B(k,j))``.

    Its zero is the add identity. In GraphBLAS semantics only stored entries are
    multiplied, so zero need not annihilate; dense kernels use the shortcut of
    filling missing entries with zero only when it does (:meth:`annihilates`).

    Parameters
    ----------
    add : Monoid
    mul : BinaryOp
    name : str, optional
        Defaults to ``"<add>_<mul>"``.
    dtypes : tuple of dtypes, optional
        The dtypes the semiring makes sense for (default: all supported ones).
    domain : str
        The carrier the law checks draw from: "all", "no_neg_inf" (min_plus),
        "no_pos_inf" (max_plus), "nonneg" (max_times), "bool".
    rejects_nan : bool
        NaN in a floating operand raises ValueError (tropical semirings).
    one : scalar, optional (keyword)
        The multiplicative identity (0 for min_plus, +inf for max_min, True for
        lor_land); closures (``kleene.closure``, APSP) need it. ``float('inf')``
        means the dtype's infinity.

    Example
    -------
    >>> import numpy as np, kleene
    >>> from kleene.semiring import monoid, binary
    >>> widest = kleene.Semiring(monoid.max, binary.min, name="widest")
    >>> widest.zero_for(np.float32)
    np.float32(-inf)
    """

    add: Monoid
    mul: BinaryOp
    name: str | None = None
    dtypes: tuple | None = None
    domain: str = "all"
    rejects_nan: bool = False
    _annihilates: bool | None = field(default=None, repr=False)
    one: object = field(default=None, kw_only=True)

    def __post_init__(self):
        if not isinstance(self.add, Monoid):
            raise InvalidObject(f"Semiring add must be a Monoid, got {type(self.add).__name__}")
        if not isinstance(self.mul, BinaryOp):
            raise InvalidObject(f"Semiring mul must be a BinaryOp, got {type(self.mul).__name__}")
        if self.name is None:
            object.__setattr__(self, "name", f"{self.add.name}_{self.mul.name}")
        dts = SUPPORTED_DTYPES if self.dtypes is None else self.dtypes
        object.__setattr__(self, "dtypes", tuple(as_dtype(d) for d in dts))
        if self.domain not in DOMAINS:
            raise InvalidValue(f"domain must be one of {DOMAINS}, got {self.domain!r}")

    @property
    def idempotent(self) -> bool:
        return self.add.idempotent

    def zero_for(self, dtype):
        """The zero (add identity) as a scalar of ``dtype``."""
        return self.add.identity_for(dtype)

    def one_for(self, dtype):
        """The multiplicative identity as a scalar of ``dtype`` (ValueError if unknown)."""
        if self.one is None:
            raise InvalidValue(f"semiring {self.name} declares no multiplicative identity (one=)")
        from .dtypes import resolve_scalar

        return resolve_scalar(self.one, as_dtype(dtype))

    def check_dtype(self, dtype) -> None:
        d = as_dtype(dtype)
        if d not in self.dtypes:
            names = ", ".join(str(t) for t in self.dtypes)
            raise DomainMismatch(
                f"semiring {self.name} is not defined for {d}; it supports {names}"
            )

    def annihilates(self, dtype) -> bool:
        """True if zero ⊗ x == zero == x ⊗ zero on ``dtype`` (declared or sampled)."""
        if self._annihilates is not None:
            return self._annihilates
        return _sampled_annihilation(self, as_dtype(dtype))

    @property
    def key(self) -> tuple:
        return ("semiring", self.add.key, self.mul.key)

    def __repr__(self) -> str:
        return f"Semiring({self.name!r})"


@lru_cache(maxsize=256)
def _sampled_annihilation(sr: Semiring, d: np.dtype) -> bool:
    if sr.mul.typing != "same":
        return False
    zero = sr.zero_for(d)
    if d.kind == "b":
        samples = np.array([False, True])
    else:
        base = [0, 1, -1, 2, -3, 7, zero]  # finite values: off-carrier infinities mislead
        samples = np.array(base, dtype=d)
    z = np.full(samples.shape, zero, dtype=d)
    with np.errstate(all="ignore"):
        left = np.asarray(sr.mul(z, samples), dtype=d)
        right = np.asarray(sr.mul(samples, z), dtype=d)
    return bool(np.all(left == zero) and np.all(right == zero))
