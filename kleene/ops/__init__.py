"""Containers, masks and the GraphBLAS operations on them."""

from .mask import Mask
from .matrix import Matrix
from .operations import (
    apply,
    assign,
    ewise_add,
    ewise_mult,
    extract,
    mxm,
    mxv,
    reduce,
    select,
    transpose,
    vxm,
)
from .vector import Vector

__all__ = [
    "Mask", "Matrix", "Vector", "apply", "assign", "ewise_add", "ewise_mult", "extract",
    "mxm", "mxv", "reduce", "select", "transpose", "vxm",
]  # fmt: skip
