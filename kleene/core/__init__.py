"""The containers: Matrix, Vector and Mask, their storage and layout, and the checks
every operation makes of its arguments.

A container holds its arrays on one device (NumPy or CuPy) in one format (sparse
CSR/COO or full dense) and caches what is derived from it (its transpose, value
scans) until it is written. Operations as methods (``A.ewise_add(B, op)``) are
provided by ``kleene.ops``, which registers itself here: this layer imports nothing
above it.
"""

from . import interop  # the conversions kleene.io re-exports
from .mask import Mask
from .matrix import Matrix
from .vector import Vector

__all__ = ["Mask", "Matrix", "Vector", "interop"]
