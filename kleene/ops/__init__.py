"""The GraphBLAS operations over semirings: products, element-wise, structure.

Each operation computes ``C<M, replace> = accum(C, T)`` for its own ``T`` (the
rule every one ends with lives in ``write.py``) and reaches its back end only
through ``kleene.backends.backend(xp)``. Nothing else is public here: the
containers are ``kleene.core``, the fused path primitives ``kleene.engine``.
"""

from kleene.core import methods as _methods

from . import operations as _operations
from .diagonal import diagonal
from .multiply import cache_transpose
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
from .symmetry import is_symmetric, symmetrize
from .weight_scan import all_finite, first_stored, stored_min, stores

_methods.provide_operations(_operations)

__all__ = [
    "all_finite",
    "apply",
    "assign",
    "cache_transpose",
    "diagonal",
    "ewise_add",
    "ewise_mult",
    "extract",
    "first_stored",
    "is_symmetric",
    "mxm",
    "mxv",
    "reduce",
    "select",
    "stored_min",
    "stores",
    "symmetrize",
    "transpose",
    "vxm",
]
