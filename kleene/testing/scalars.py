"""Scalar semantics shared by the reference and the law checks.

Everything here works on one value at a time: an operator's NumPy ``func`` is applied
to 0-d arrays of the operands' dtypes and the result is cast to the operator's result
dtype. That is the definition the back ends must reproduce elementwise.

The ``any`` monoid may return any of its operands, so a reduction with it has a set
of correct answers; :class:`OneOf` holds such a set and propagates through later
scalar operations.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from kleene.semiring import BinaryOp, IndexUnaryOp, Monoid, UnaryOp, get_binary, get_monoid
from kleene.semiring.dtypes import as_dtype, resolve_scalar

__all__ = [
    "OneOf",
    "as_binary",
    "as_monoid",
    "binary_scalar",
    "cast",
    "fold",
    "index_unary_scalar",
    "same_value",
    "unary_scalar",
    "values_of",
]


@dataclass(frozen=True)
class OneOf:
    """A value known only up to a choice: any member of ``values`` is correct.

    >>> OneOf.of([1, 2, 2]).values == frozenset({1, 2})
    True
    >>> OneOf.of([3, 3])   # one candidate collapses to the value itself
    3
    """

    values: frozenset

    @staticmethod
    def of(candidates: Iterable):
        vals = frozenset(values_of_all(candidates))
        if len(vals) == 1:
            return next(iter(vals))
        return OneOf(vals)

    def __repr__(self) -> str:
        return "OneOf(" + ", ".join(sorted(repr(v) for v in self.values)) + ")"


def values_of(x) -> frozenset:
    """The candidates of ``x``: its OneOf set, or ``{x}``."""
    return x.values if isinstance(x, OneOf) else frozenset([x])


def values_of_all(xs: Iterable) -> list:
    out = []
    for x in xs:
        out.extend(values_of(x))
    return out


def cast(x, dtype):
    """``x`` as a NumPy scalar of ``dtype`` (elementwise over a OneOf)."""
    d = np.dtype(dtype)
    if isinstance(x, OneOf):
        return OneOf.of(cast(v, d) for v in x.values)
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(d).reshape(())[()]


def scalar(value, dtype):
    """A Python or NumPy value as a scalar of ``dtype`` (float ±inf → the dtype's ±inf)."""
    return resolve_scalar(value, as_dtype(dtype))


def as_binary(op) -> BinaryOp:
    """A BinaryOp from a BinaryOp, a Monoid (its op) or a built-in name."""
    if isinstance(op, Monoid):
        return op.op
    return get_binary(op)


def as_monoid(op) -> Monoid:
    return get_monoid(op)


def _dtype_of(x) -> np.dtype:
    if isinstance(x, OneOf):
        return np.asarray(next(iter(x.values))).dtype
    return np.asarray(x).dtype


def binary_scalar(op: BinaryOp, x, y, out_dtype=None):
    """``op(x, y)`` on two scalars, cast to ``out_dtype`` (default: op's result dtype).

    >>> import numpy as np
    >>> from kleene.semiring import binary
    >>> binary_scalar(binary.tplus, np.int32(5), np.int32(2**31 - 1))  # saturates
    np.int32(2147483647)
    """
    if isinstance(x, OneOf) or isinstance(y, OneOf):
        return OneOf.of(
            binary_scalar(op, a, b, out_dtype) for a in values_of(x) for b in values_of(y)
        )
    if out_dtype is None:
        out_dtype = op.result_dtype(_dtype_of(x), _dtype_of(y))
    with np.errstate(all="ignore"):
        z = op.func(np.asarray(x), np.asarray(y))
    return cast(z, out_dtype)


def unary_scalar(op: UnaryOp, x, out_dtype=None):
    if isinstance(x, OneOf):
        return OneOf.of(unary_scalar(op, v, out_dtype) for v in x.values)
    if out_dtype is None:
        out_dtype = op.result_dtype(_dtype_of(x))
    with np.errstate(all="ignore"):
        z = op.func(np.asarray(x))
    return cast(z, out_dtype)


def index_unary_scalar(op: IndexUnaryOp, x, i: int, j: int, thunk) -> bool:
    with np.errstate(all="ignore"):
        keep = op.func(np.asarray(x), np.int64(i), np.int64(j), thunk)
    return bool(np.asarray(keep).reshape(())[()])


def fold(monoid: Monoid, values: list, dtype):
    """Reduce ``values`` with ``monoid`` left to right; identity if empty.

    A ``stops_at_first`` monoid (``any``) returns ``OneOf`` the values: any present
    value is a correct answer.
    """
    d = np.dtype(dtype)
    if not values:
        return monoid.identity_for(d)
    if monoid.stops_at_first:
        return OneOf.of(cast(v, d) for v in values)
    acc = cast(values[0], d)
    for v in values[1:]:
        acc = binary_scalar(monoid.op, acc, cast(v, d), d)
    return acc


def same_value(actual, expected) -> bool:
    """``actual == expected`` for scalars; ``actual`` in the set when expected is OneOf.

    NaN equals NaN here (a NaN the reference also produces is not a back-end bug).
    """
    for e in values_of(expected):
        a, b = np.asarray(actual), np.asarray(e)
        if a.dtype.kind == "f" and b.dtype.kind == "f" and np.isnan(a) and np.isnan(b):
            return True
        if bool(a == b):
            return True
    return False
