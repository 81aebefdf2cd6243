"""kleene: semiring linear algebra for path problems, on NumPy/SciPy and CUDA GPUs.

Example
-------
>>> import numpy as np, kleene
>>> A = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 2.0], n=3)
>>> d = kleene.Vector.from_coo([0], [0.0], 3)
>>> for _ in range(2):
...     d = kleene.ewise_add(d, kleene.vxm(d, A, "min_plus"), "min")
>>> d.to_dense().tolist()
[0.0, 1.0, 3.0]
"""

from . import semiring
from .algorithms import bfs, sssp
from .errors import NegativeCycleError
from .ops import (
    Mask,
    Matrix,
    Vector,
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
from .ops.device import gpu_available
from .semiring import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Semiring,
    UnaryOp,
    binary,
    indexunary,
    monoid,
    unary,
)

__version__ = "0.1.0"

__all__ = [
    "BinaryOp", "IndexUnaryOp", "bfs", "Mask", "Matrix", "Monoid", "NegativeCycleError", "Semiring",
    "UnaryOp", "Vector", "__version__", "apply", "assign", "binary", "ewise_add",
    "ewise_mult", "extract", "gpu_available", "indexunary", "monoid", "mxm", "mxv",
    "reduce", "select", "semiring", "sssp", "transpose", "unary", "vxm",
]  # fmt: skip
