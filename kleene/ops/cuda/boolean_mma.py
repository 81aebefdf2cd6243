"""Boolean (or, and) products on tensor cores: C = A·B > 0, or C |= A·B > 0, for bool.

A Boolean product is an integer product followed by ``> 0``: bool arrays are bytes
of 0 or 1, so they are int8 operands as they lie, and cuBLAS's int8 GEMM
(``cublasGemmEx`` with ``CUDA_R_8I`` inputs, ``CUDA_R_32I`` output, 32-bit integer
compute, called through ``cublas_int8.py`` so that CUDA graphs can capture it) runs
them on the tensor cores — on an H100 about 2,000 T int8 ops/s
against 14 T steps/s of the CUDA-core semiring kernels. Sums reach at most k, far
below int32's range.

Layout: kleene's arrays are row-major; cuBLAS is column-major, so C = A·B is run as
Cᵀ = Bᵀ·Aᵀ, and the int8 tensor-core kernels want the "TN" form (cuBLASLt's rule
for IMMA): Bᵀ is copied once per product (k·n bytes, small beside m·n·k), A is
read in place. The int32 product goes to a scratch buffer a band of C's rows at a
time (at most ``SCRATCH_BYTES``, and no more than Bᵀ's bytes beyond 4 MB), then
one fused pass writes ``C |= scratch != 0`` into C (any strided view).

In-place products (A or B overlapping C, as in R-Kleene) are exact for (or, and):
a band may read entries earlier bands have set, but every entry read is a true
reachability fact, so the result is C ⊕ A ⊗ B's closure-correct value, as for
the CUDA-core kernels (``dense.reads_in_place``).

Used by ``dense.mxm_dense`` / ``dense.mxm_dense_acc`` for the ``lor_land`` semiring
on bool when :func:`eligible` says so; otherwise those run their own kernels.
"""

from __future__ import annotations

import cupy
import numpy as np

from ..device import bool_tensor_cores
from . import graphs
from .cublas_int8 import gemm_int8

_OP_N, _OP_T = 0, 1  # cublasOperation_t

# int32 scratch for one band of C's rows (the product before thresholding).
SCRATCH_BYTES = 256 << 20
MIN_BAND_BYTES = 4 << 20
# Below this many multiply-adds the CUDA-core kernel's single launch is as fast.
MIN_STEPS = 1 << 24
_ALIGN = 4  # int8 tensor-core GEMMs: 4-byte aligned pointers, leading dims multiples of 4

_or_nonzero = cupy.ElementwiseKernel(
    "int32 t", "bool c", "c = c || (t != 0)", "kleene_bool_or_nonzero"
)
_nonzero = cupy.ElementwiseKernel("int32 t", "bool c", "c = (t != 0)", "kleene_bool_nonzero")


def enabled() -> bool:
    """``KLEENE_BOOL_TENSOR_CORES=0`` turns the tensor-core path off (for comparisons)."""
    return bool_tensor_cores()


def is_or_and(semiring) -> bool:
    """The Boolean (or, and) semiring: lor for ⊕, land for ⊗."""
    return getattr(semiring.add, "name", None) == "lor" and semiring.mul.name == "land"


def eligible(semiring, a, b, c) -> bool:
    """Whether C (⊕)= A ⊗ B may run here: (or, and) on bool, big enough, and A, B, C
    views whose rows are laid out as the int8 GEMM needs (unit column stride,
    4-byte aligned starts and row strides)."""
    if not (enabled() and is_or_and(semiring)):
        return False
    if not (a.dtype == b.dtype == c.dtype == np.bool_):
        return False
    m, k = a.shape
    n = b.shape[1]
    if m * n * k < MIN_STEPS or min(m, n, k) < 16 or n % _ALIGN or k % _ALIGN:
        return False  # (Bᵀ's and the scratch's leading dimensions are k and n)
    return all(_aligned(x) for x in (a, b))


def _aligned(x) -> bool:
    if x.ndim != 2 or x.strides[1] != 1 or x.shape[0] == 0:
        return False
    ld = x.strides[0] if x.shape[0] > 1 else x.shape[1]
    return ld % _ALIGN == 0 and x.data.ptr % _ALIGN == 0


def product(a, b, c, *, accumulate: bool) -> None:
    """C |= A·B > 0 (``accumulate``) or C = A·B > 0, for bool views that passed
    :func:`eligible`; C may be any strided 2-D bool view."""
    m, k = a.shape
    n = b.shape[1]
    a8, lda = _int8_view(a)
    # Bᵀ (n × k, the T of "TN") and the int32 band in one scratch buffer (a replayed
    # graph's arena while one is captured); the band no larger than Bᵀ beyond 4 MB,
    # so the temporaries stay near one block's bytes.
    band_bytes = min(SCRATCH_BYTES, max(MIN_BAND_BYTES, n * k))
    rows = max(1, min(m, band_bytes // (4 * n)))
    bt_bytes = -(-n * k // 256) * 256
    buf = graphs.scratch(bt_bytes + rows * n * 4)
    bt = buf[: n * k].view(cupy.bool_).reshape(n, k)
    bt[...] = b.T
    bt = bt.view(cupy.int8)
    scratch = buf[bt_bytes:].view(cupy.int32).reshape(rows, n)
    fuse = _or_nonzero if accumulate else _nonzero
    for r0 in range(0, m, rows):
        h = min(rows, m - r0)
        band = scratch[:h]
        # column-major: band(n × h) = (Bᵀ stored k × n)ᵀ · (A's rows r0.., k × h)
        gemm_int8(_OP_T, _OP_N, n, h, k, bt.data.ptr, k, a8.data.ptr + r0 * lda, lda,
                  band.data.ptr, n)  # fmt: skip
        fuse(band, c[r0 : r0 + h])


def _int8_view(x) -> tuple[cupy.ndarray, int]:
    """x (unit column stride, checked by ``eligible``) as int8, and its row stride
    (bytes = elements for a 1-byte type)."""
    ld = x.strides[0] if x.shape[0] > 1 else x.shape[1]
    return x.view(cupy.int8), ld
