"""The CUDA back end: CuPy implementations of the kernel primitives.

Same names, signatures and semantics as :mod:`kleene.ops.cpu` (see
``kleene/ops/primitives.md``), on CuPy arrays. Kernels are specialised per
algebra and dtypes from the templates in ``kernels/`` (source generation in
:mod:`kleene.ops.cuda.codegen`, importable without CuPy) and compiled by NVRTC
on first use, then cached; a user-defined semiring needs no extra code.
"""

from .dense import mxm_dense
from .elementwise import binary, index_unary, unary
from .reduce import reduce_all, segment_reduce
from .sparse import mxv_pull, vxm_push

__all__ = [
    "binary", "index_unary", "mxm_dense", "mxv_pull", "reduce_all", "segment_reduce",
    "unary", "vxm_push",
]  # fmt: skip
