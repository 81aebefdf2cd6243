"""Argument checks shared by the operations: clear errors before any work."""

from __future__ import annotations

import numpy as np

from kleene.errors import DimensionMismatch, DomainMismatch, InvalidObject, InvalidValue
from kleene.semiring import BinaryOp, Monoid, Semiring, get_binary, get_monoid, get_semiring

from .mask import Mask
from .matrix import Matrix
from .vector import Vector


def same_device(opname: str, **operands):
    """The common array module of the operands; ValueError if they are on different devices."""
    # One pass comparing array modules (one device each); where they differ, or no
    # operand is a container, the full check below gives the error.
    xp = None
    for v in operands.values():
        if isinstance(v, Mask):
            v = v.container
        if isinstance(v, (Matrix, Vector)):
            if xp is None:
                xp = v.xp
            elif v.xp is not xp:
                return _same_device(opname, operands)
    return _same_device(opname, operands) if xp is None else xp


def _same_device(opname: str, operands: dict):
    # A mask counts as its container; non-containers are left to the type checks.
    operands = {k: (v.container if isinstance(v, Mask) else v) for k, v in operands.items()}
    present = {k: v for k, v in operands.items() if isinstance(v, (Matrix, Vector))}
    devices = {k: v.device for k, v in present.items()}
    if len(set(devices.values())) > 1:
        where = ", ".join(f"{k} on {d}" for k, d in devices.items())
        raise InvalidValue(
            f"{opname}: operands live on different devices ({where}); "
            "move them explicitly with .to('cpu') or .to('gpu')"
        )
    return next(iter(present.values())).xp


def as_container(opname: str, name: str, x, kinds=(Matrix, Vector)):
    if not isinstance(x, kinds):
        want = " or ".join(k.__name__ for k in kinds)
        raise InvalidObject(f"{opname}: {name} must be a kleene {want}, got {type(x).__name__}")
    return x


def as_mask(opname: str, mask, shape):
    """Normalise ``mask`` (Mask, or a container meaning its value mask) and check its shape."""
    if mask is None:
        return None
    if isinstance(mask, (Matrix, Vector)):
        mask = mask.V
    if not isinstance(mask, Mask):
        raise InvalidObject(f"{opname}: mask must be M.S, M.V, ~M.S, ~M.V or a container")
    if mask.container.shape != tuple(shape):
        raise DimensionMismatch(
            f"{opname}: mask shape {mask.container.shape} "
            f"does not match output shape {tuple(shape)}"
        )
    return mask


def as_binary(opname: str, op) -> BinaryOp:
    """A BinaryOp from a BinaryOp, Monoid, Semiring (its add) or a name."""
    if isinstance(op, BinaryOp):
        return op
    if isinstance(op, Monoid):
        return op.op
    if isinstance(op, Semiring):
        return op.add.op
    if isinstance(op, str):
        try:
            return get_binary(op)
        except ValueError:
            try:
                return get_semiring(op).add.op
            except ValueError:
                pass
    raise InvalidValue(f"{opname}: {op!r} is not a binary operator, monoid or semiring")


def as_monoid(opname: str, op) -> Monoid:
    if isinstance(op, Monoid):
        return op
    if isinstance(op, Semiring):
        return op.add
    if isinstance(op, BinaryOp):
        for m in vars(__import__("kleene.semiring", fromlist=["monoid"]).monoid).values():
            if m.op is op:
                return m
        raise InvalidValue(f"{opname}: {op!r} has no known identity; pass a Monoid")
    return get_monoid(op)


def reject_nan(opname: str, semiring: Semiring, **operands):
    """ValueError if a floating operand holds NaN and the semiring rejects NaN."""
    if not semiring.rejects_nan:
        return
    for name, c in operands.items():
        if c is not None and c.has_nan():
            raise InvalidValue(
                f"{opname}: {name} holds NaN; semiring {semiring.name} does not accept NaN values"
            )


def output_dtype(opname: str, out, dtype) -> np.dtype:
    """The dtype results are written in: ``out``'s if given (safe casts only)."""
    if out is None:
        return np.dtype(dtype)
    if not np.can_cast(dtype, out.dtype, "safe"):
        raise DomainMismatch(
            f"{opname}: cannot write a {np.dtype(dtype)} result into out of dtype {out.dtype}"
        )
    return out.dtype


def check_out(opname: str, out, shape, kind):
    if out is None:
        return None
    as_container(opname, "out", out, (kind,))
    if out.shape != tuple(shape):
        raise DimensionMismatch(
            f"{opname}: out has shape {out.shape}, the result has shape {tuple(shape)}"
        )
    return out
