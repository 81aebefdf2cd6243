"""The CPU back end: NumPy implementations of the kernel primitives.

Both back ends expose the same primitives (see ``kleene/ops/primitives.md``); the
operation layer (``kleene.ops.operations``) composes them in array-module-generic
code, so an operation behaves the same on either back end.
"""

from .primitives import (
    binary,
    index_unary,
    mxm_dense,
    mxv_pull,
    reduce_all,
    segment_reduce,
    unary,
    vxm_push,
)

__all__ = [
    "binary",
    "index_unary",
    "mxm_dense",
    "mxv_pull",
    "reduce_all",
    "segment_reduce",
    "unary",
    "vxm_push",
]
