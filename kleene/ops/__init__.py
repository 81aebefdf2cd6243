"""Containers, masks and the GraphBLAS operations on them."""

from .closure import closure, mxm_accumulate
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
    "apply",
    "assign",
    "closure",
    "ewise_add",
    "ewise_mult",
    "extract",
    "Mask",
    "Matrix",
    "mxm",
    "mxm_accumulate",
    "mxv",
    "reduce",
    "select",
    "transpose",
    "Vector",
    "vxm",
]
