"""Boolean (or, and) products on tensor cores: C = A·B > 0, or C |= A·B > 0, for bool.

A Boolean product is an integer product followed by ``> 0``: bool arrays are bytes
of 0 or 1, so they are int8 operands as they lie, and cuBLAS's int8 GEMM
(``cublasGemmEx`` with ``CUDA_R_8I`` inputs, ``CUDA_R_32I`` output, 32-bit integer
compute, called through ``cublas_int8.py`` so that CUDA graphs can capture it) runs
them on the tensor cores, whose int8 rate is two orders of magnitude above the
CUDA-core semiring kernels'. Sums reach at most k, far below int32's range.

Layout: kleene's arrays are row-major; cuBLAS is column-major, so C = A·B is run as
Cᵀ = Bᵀ·Aᵀ, and the int8 tensor-core kernels want the "TN" form (cuBLASLt's rule
for IMMA): Bᵀ is copied (a tiled transpose, kernels/transpose_bytes.cu; k·n bytes,
small beside m·n·k), in two chunks of columns beyond 8 MB, and A is read in place.
The int32 product goes to a scratch buffer a band of C's rows at a time (at most
``SCRATCH_BYTES``, and no more than half the chunk's bytes beyond 4 MB), then one
pass (kernels/bool_threshold.cu) writes ``C |= band != 0`` into C (any strided
view). See :func:`_plan` for what this costs in scratch.

In-place products (A or B overlapping C, as in R-Kleene) are exact for (or, and):
a band may read entries earlier bands have set, but every entry read is a true
reachability fact, so the result is C ⊕ A ⊗ B's closure-correct value, as for
the CUDA-core kernels (``dense.reads_in_place``).

Used by ``dense.mxm_dense`` / ``dense.mxm_dense_acc`` for the ``lor_land`` semiring
on bool when :func:`eligible` says so; otherwise those run their own kernels.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cupy
import numpy as np

from kleene.backends.device import bool_tensor_cores

from . import graphs
from .cublas_int8 import gemm_int8

_OP_N, _OP_T = 0, 1  # cublasOperation_t

# int32 scratch for one band of C's rows (the product before thresholding).
SCRATCH_BYTES = 256 << 20
MIN_BAND_BYTES = 4 << 20
# Below this many multiply-adds (128³) the CUDA-core kernel's single launch is as fast:
# the GEMM's transpose, band and threshold launches cost more than the product saves.
MIN_STEPS = 1 << 21
_ALIGN = 4  # int8 tensor-core GEMMs: 4-byte aligned pointers, leading dims multiples of 4


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
    # rows must not overlap (a broadcast or reversed view has a stride below its width)
    return ld >= x.shape[1] and ld % _ALIGN == 0 and x.data.ptr % _ALIGN == 0


def _plan(m: int, n: int, k: int) -> tuple[int, int]:
    """(w, rows): B's columns per Bᵀ chunk and C's rows per int32 band. Beyond 8 MB
    of Bᵀ, two chunks of columns, and a band no larger than half a chunk's Bᵀ: the
    scratch is then 3/4 of B's bytes, so a closure's top products need less than
    one quadrant beside the matrix, while every GEMM keeps a full wave of tiles."""
    w = n if n * k <= 2 * MIN_BAND_BYTES else min(n, -(-(n // 2) // 16) * 16)
    band = min(SCRATCH_BYTES, max(MIN_BAND_BYTES, w * k // 2))
    return w, max(1, min(m, band // (4 * w)))


def scratch_bytes(m: int, n: int, k: int) -> int:
    """Scratch bytes :func:`product` takes for an (m × k)·(k × n) product."""
    w, rows = _plan(m, n, k)
    return _round(w * k) + rows * w * 4


def _round(nbytes: int) -> int:
    return -(-nbytes // 256) * 256


def product(a, b, c, *, accumulate: bool) -> None:
    """C |= A·B > 0 (``accumulate``) or C = A·B > 0, for bool views that passed
    :func:`eligible`; C may be any strided 2-D bool view."""
    m, k = a.shape
    n = b.shape[1]
    a8, lda = _int8_view(a)
    _, ldb = _int8_view(b)
    w, rows = _plan(m, n, k)
    # Bᵀ chunk (w × k, the T of "TN") and the int32 band in one scratch buffer (a
    # replayed graph's arena while one is captured)
    buf = graphs.scratch(scratch_bytes(m, n, k))
    bt = buf[: w * k].view(cupy.int8)
    band = buf[_round(w * k) :].view(cupy.int32)
    ldc, sc = (c.strides[0] if m > 1 else n), c.strides[1]
    kernels = _kernels(cupy.cuda.runtime.getDevice())
    fuse = kernels["acc"] if accumulate else kernels["set"]
    ws = graphs.cublas_workspace()
    for j0 in range(0, n, w):
        wj = min(w, n - j0)
        # Bᵀ's rows j0..: B's columns, through shared-memory tiles (both sides coalesced)
        kernels["transpose"](
            ((wj + 31) // 32, (k + 31) // 32),
            (32, 8),
            (np.uint64(b.data.ptr + j0), np.int64(ldb), bt, np.int64(k), np.int32(k), np.int32(wj)),
        )
        for r0 in range(0, m, rows):
            h = min(rows, m - r0)
            # column-major: band(wj × h) = (Bᵀ chunk stored k × wj)ᵀ · (A's rows r0.., k × h)
            gemm_int8(
                _OP_T,
                _OP_N,
                wj,
                h,
                k,
                bt.data.ptr,
                k,
                a8.data.ptr + r0 * lda,
                lda,
                band.data.ptr,
                wj,
                ws,
            )
            fuse(
                ((wj + 31) // 32, (h + 7) // 8),
                (32, 8),
                (
                    band,
                    np.int64(wj),
                    np.uint64(c.data.ptr + r0 * ldc + j0 * sc),
                    np.int64(ldc),
                    np.int64(sc),
                    np.int32(h),
                    np.int32(wj),
                ),
            )


@cache
def _kernels(device: int) -> dict:
    """The transpose and threshold kernels on ``device`` (kernels/*.cu)."""
    here = Path(__file__).parent / "kernels"
    mod = cupy.RawModule(code=(here / "transpose_bytes.cu").read_text(), options=("-std=c++17",))
    names = ("kl_bool_threshold<true>", "kl_bool_threshold<false>")
    thr = cupy.RawModule(
        code=(here / "bool_threshold.cu").read_text(),
        options=("-std=c++17",),
        name_expressions=names,
    )
    return {
        "transpose": mod.get_function("kl_transpose_bytes"),
        "acc": thr.get_function(names[0]),
        "set": thr.get_function(names[1]),
    }


def _int8_view(x) -> tuple[cupy.ndarray, int]:
    """x (unit column stride, checked by ``eligible``) as int8, and its row stride
    (bytes = elements for a 1-byte type)."""
    ld = x.strides[0] if x.shape[0] > 1 else x.shape[1]
    return x.view(cupy.int8), ld
