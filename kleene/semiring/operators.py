"""Operator objects: BinaryOp, UnaryOp, IndexUnaryOp.

Each carries a NumPy callable (the CPU back end) and a CUDA C expression (the GPU
back end), so a user-defined operator runs on both with no extra code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from kleene.errors import DomainMismatch, InvalidObject, InvalidValue

from .dtypes import as_dtype

_TYPINGS = ("same", "first", "second", "bool", "pair")


@dataclass(frozen=True, eq=False)
class BinaryOp:
    """A binary operator z = f(x, y).

    Parameters
    ----------
    name : str
        Short name, used in semiring names and error messages.
    func : callable
        NumPy implementation ``func(x, y)`` on arrays (broadcasting).
    cuda_expr : str
        C expression in ``x`` and ``y`` computing the result on the GPU.
    typing : {"same", "first", "second", "bool"}
        Result dtype rule: "same" needs equal operand dtypes and keeps it;
        "first"/"second" take x's/y's dtype (the other operand's values are
        ignored, so its dtype is free); "bool" gives bool (a comparison of two
        operands of one dtype); "pair" gives bool and ignores both operands' values.
    scalar : str, mapping or callable, optional (keyword)
        The operator on two scalars, for the compiled CPU kernels (Numba). A
        Python expression in ``x`` and ``y`` (``"y if y < x else x"``), which may
        use ``HI`` and ``LO`` (the operand dtype's +inf and -inf as kleene defines
        them: the integer max / min, True / False for bool); or a mapping from a
        dtype kind (``"b"``, ``"i"``, ``"f"``) to such an expression where the form
        differs by kind (a kind left out runs the NumPy path); or a function
        ``f(x, y)`` that ``numba.njit`` can compile. It must compute what ``func``
        computes elementwise (the result is cast to the operation's dtype).
        Without one, operations using the operator run the NumPy path.

    Example
    -------
    >>> import numpy as np, kleene
    >>> hypot = kleene.BinaryOp("hypot", np.hypot, "hypot(x, y)")
    >>> float(hypot(np.float64(3), np.float64(4)))
    5.0
    """

    name: str
    func: Callable
    cuda_expr: str
    typing: str = "same"
    scalar: str | Mapping | Callable | None = field(default=None, kw_only=True, repr=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise InvalidValue("BinaryOp name must be a non-empty string")
        _check_scalar(self.name, self.scalar)
        if not callable(self.func):
            raise InvalidObject(f"BinaryOp {self.name!r}: func must be callable")
        if not isinstance(self.cuda_expr, str) or not self.cuda_expr.strip():
            raise InvalidValue(f"BinaryOp {self.name!r}: cuda_expr must be a C expression")
        if self.typing not in _TYPINGS:
            raise InvalidValue(f"BinaryOp {self.name!r}: typing must be one of {_TYPINGS}")

    def __call__(self, x, y):
        return self.func(x, y)

    def scalar_for(self, dtype):
        """The scalar form for operands of ``dtype``: an expression string, a
        callable, or None (no compiled form for that dtype)."""
        s = self.scalar
        if isinstance(s, Mapping):
            return s.get(as_dtype(dtype).kind)
        return s

    def result_dtype(self, xdtype, ydtype) -> np.dtype:
        """dtype of f(x, y); TypeError naming both dtypes if they must match and do not."""
        xd, yd = as_dtype(xdtype), as_dtype(ydtype)
        if self.typing == "first":
            return xd
        if self.typing == "second":
            return yd
        if self.typing == "pair":
            return np.dtype(np.bool_)
        if xd != yd:
            raise DomainMismatch(
                f"operator {self.name!r} needs operands of one dtype, got {xd} and {yd}"
            )
        return np.dtype(np.bool_) if self.typing == "bool" else xd

    @property
    def key(self) -> tuple:
        """What a compiled kernel depends on (cache key part)."""
        return ("binary", self.name, self.cuda_expr, self.typing)

    def __repr__(self) -> str:
        return f"BinaryOp({self.name!r})"


def _check_scalar(name, scalar) -> None:
    forms = scalar.values() if isinstance(scalar, Mapping) else (scalar,)
    for f in forms:
        if f is None or callable(f) or (isinstance(f, str) and f.strip()):
            continue
        raise InvalidObject(
            f"BinaryOp {name!r}: scalar must be an expression string in x and y, a "
            f"mapping from dtype kind to one, or a callable; got {f!r}"
        )
    if isinstance(scalar, Mapping) and not set(scalar) <= {"b", "i", "f"}:
        raise InvalidValue(
            f"BinaryOp {name!r}: scalar kinds are 'b', 'i', 'f'; got {sorted(scalar)}"
        )


@dataclass(frozen=True, eq=False)
class UnaryOp:
    """A unary operator z = f(x), for ``apply``.

    ``typing`` is "same" (result has x's dtype) or "bool".

    Example
    -------
    >>> import numpy as np, kleene
    >>> neg = kleene.UnaryOp("neg", np.negative, "-x")
    >>> int(neg(np.int32(3)))
    -3
    """

    name: str
    func: Callable
    cuda_expr: str
    typing: str = "same"

    def __post_init__(self):
        if self.typing not in ("same", "bool"):
            raise InvalidValue(f"UnaryOp {self.name!r}: typing must be 'same' or 'bool'")

    def __call__(self, x):
        return self.func(x)

    def result_dtype(self, xdtype) -> np.dtype:
        return np.dtype(np.bool_) if self.typing == "bool" else as_dtype(xdtype)

    @property
    def key(self) -> tuple:
        return ("unary", self.name, self.cuda_expr, self.typing)

    def __repr__(self) -> str:
        return f"UnaryOp({self.name!r})"


@dataclass(frozen=True, eq=False)
class IndexUnaryOp:
    """A predicate on an entry, its position and a scalar, for ``select``.

    ``func(x, i, j, thunk)`` returns a bool array (i: row, j: column; for a vector
    i is the index and j is 0); ``cuda_expr`` is a C expression in x, i, j, thunk.
    ``thunk_type`` is "value" (thunk has the entries' dtype) or "index" (int64).

    Example
    -------
    >>> import numpy as np, kleene
    >>> band = kleene.IndexUnaryOp("band", lambda x, i, j, k: abs(j - i) <= k,
    ...                            "(j > i ? j - i : i - j) <= thunk")
    >>> bool(band(np.float64(1), 3, 5, 2))
    True
    """

    name: str
    func: Callable
    cuda_expr: str
    thunk_type: str = "value"

    def __post_init__(self):
        if self.thunk_type not in ("value", "index"):
            raise InvalidValue(f"IndexUnaryOp {self.name!r}: thunk_type is 'value' or 'index'")

    def __call__(self, x, i, j, thunk):
        return self.func(x, i, j, thunk)

    @property
    def key(self) -> tuple:
        return ("indexunary", self.name, self.cuda_expr, self.thunk_type)

    def __repr__(self) -> str:
        return f"IndexUnaryOp({self.name!r})"
