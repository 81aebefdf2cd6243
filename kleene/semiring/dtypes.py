"""dtype rules shared by the algebra, the containers and both back ends."""

from __future__ import annotations

import numpy as np

from kleene.errors import DomainMismatch

SUPPORTED_DTYPES: tuple[np.dtype, ...] = tuple(
    np.dtype(t) for t in (np.bool_, np.int32, np.int64, np.float32, np.float64)
)

# C type of each supported dtype, as the CUDA templates spell it.
CTYPES: dict[np.dtype, str] = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}


def as_dtype(dtype) -> np.dtype:
    """Normalise ``dtype`` and check kleene supports it (TypeError otherwise)."""
    d = np.dtype(dtype)
    if d not in SUPPORTED_DTYPES:
        names = ", ".join(str(t) for t in SUPPORTED_DTYPES)
        raise DomainMismatch(f"dtype {d} is not supported; kleene supports {names}")
    return d


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def is_int(dtype) -> bool:
    return np.dtype(dtype).kind in "iu"


def infinity(dtype):
    """+inf of ``dtype``: float inf, the integer maximum, or True."""
    d = np.dtype(dtype)
    if d.kind == "f":
        return d.type(np.inf)
    if d.kind in "iu":
        return d.type(np.iinfo(d).max)
    return np.True_


def neg_infinity(dtype):
    """-inf of ``dtype``: float -inf, the integer minimum, or False."""
    d = np.dtype(dtype)
    if d.kind == "f":
        return d.type(-np.inf)
    if d.kind in "iu":
        return d.type(np.iinfo(d).min)
    return np.False_


def resolve_scalar(value, dtype):
    """``value`` as a scalar of ``dtype``; float ±inf map to the dtype's infinities."""
    d = np.dtype(dtype)
    if isinstance(value, (float, np.floating)) and np.isinf(value):
        return infinity(d) if value > 0 else neg_infinity(d)
    if d.kind == "b":
        return np.bool_(bool(value))
    if d.kind in "iu":
        info = np.iinfo(d)
        v = int(value)
        if not info.min <= v <= info.max:
            raise OverflowError(f"{value!r} does not fit in {d}")
        return d.type(v)
    return d.type(value)


def c_literal(value, dtype) -> str:
    """A C literal for ``value`` (already resolved to ``dtype``)."""
    d = np.dtype(dtype)
    v = resolve_scalar(value, d)
    if d.kind == "b":
        return "true" if bool(v) else "false"
    if d.kind in "iu":
        iv = int(v)
        if d == np.int64:
            # LLONG_MIN cannot be written as a literal directly.
            if iv == np.iinfo(np.int64).min:
                return "(-9223372036854775807LL - 1LL)"
            return f"{iv}LL"
        if iv == np.iinfo(np.int32).min:
            return "(-2147483647 - 1)"
        return str(iv)
    fv = float(v)
    if np.isinf(fv):
        # Bit patterns, so no math header is needed under NVRTC.
        if d == np.float32:
            inf = "__int_as_float(0x7f800000)"
        else:
            inf = "__longlong_as_double(0x7ff0000000000000LL)"
        return f"({inf})" if fv > 0 else f"(-{inf})"
    return repr(fv) + ("f" if d == np.float32 else "")
