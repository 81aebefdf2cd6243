"""The GraphBLAS operations, gathered (each lives in a file named for its kind)."""

from .elementwise import apply, ewise_add, ewise_mult, select
from .multiply import mxm, mxv, vxm
from .structure import assign, extract, reduce, transpose

__all__ = [
    "apply",
    "assign",
    "ewise_add",
    "ewise_mult",
    "extract",
    "mxm",
    "mxv",
    "reduce",
    "select",
    "transpose",
    "vxm",
]
