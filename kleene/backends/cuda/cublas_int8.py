"""cuBLAS's int8 GEMM through its C API, on a cuBLAS handle of kleene's own.

CuPy's cuBLAS wrappers refuse to run while a stream is being captured into a CUDA
graph ("calling cuBLAS API during stream capture is currently unsupported"), and
the replayed dense closures (``graphs.py``) capture the Boolean tensor-core
products. cuBLAS itself supports capture once a handle has a workspace of its own
(no allocation inside the capture), so kleene calls ``cublasGemmEx`` from the
library CuPy already loaded, on a handle per device with a 32 MiB workspace
(NVIDIA's size for Hopper) that lives as long as the process. Its own handle
leaves CuPy's handle, its stream and workspace, untouched.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache

import cupy
import numpy as np

WORKSPACE_BYTES = 32 << 20
_SUCCESS = 0
_p, _i = ctypes.c_void_p, ctypes.c_int

# int32 scalars for alpha = 1, beta = 0 (host pointer mode: read when the call is
# made, so a captured call keeps their values).
_ONE = np.ones(1, dtype=np.int32)
_ZERO = np.zeros(1, dtype=np.int32)


def _library_path() -> str:
    """The libcublas CuPy loaded (the same one, not a second copy found elsewhere)."""
    cupy.cuda.device.get_cublas_handle()  # makes CuPy load it
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            name = path.rsplit("/", 1)[-1]
            if name.startswith("libcublas.so"):
                return path
    found = ctypes.util.find_library("cublas")
    if found is None:
        raise RuntimeError("kleene: cannot find the cuBLAS library CuPy uses")
    return found


@cache
def _lib() -> ctypes.CDLL:
    lib = ctypes.CDLL(_library_path())
    lib.cublasCreate_v2.argtypes = [ctypes.POINTER(_p)]
    lib.cublasSetStream_v2.argtypes = [_p, _p]
    lib.cublasSetWorkspace_v2.argtypes = [_p, _p, ctypes.c_size_t]
    lib.cublasGemmEx.argtypes = [
        _p,
        _i,
        _i,
        _i,
        _i,
        _i,
        _p,
        _p,
        _i,
        _i,
        _p,
        _i,
        _i,
        _p,
        _p,
        _i,
        _i,
        _i,
        _i,
    ]
    for fn in (
        lib.cublasCreate_v2,
        lib.cublasSetStream_v2,
        lib.cublasSetWorkspace_v2,
        lib.cublasGemmEx,
    ):
        fn.restype = _i
    return lib


def _check(status: int, what: str) -> None:
    if status != _SUCCESS:
        raise RuntimeError(f"kleene: {what} failed with cuBLAS status {status}")


@cache
def _handle(device: int) -> tuple[int, object]:
    """kleene's cuBLAS handle on ``device`` and its workspace (kept for the process;
    from CuPy's default pool even while a capture's private allocator is active)."""
    with cupy.cuda.Device(device):
        handle = _p()
        _check(_lib().cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
        workspace = cupy.get_default_memory_pool().malloc(WORKSPACE_BYTES)
        _check(
            _lib().cublasSetWorkspace_v2(handle, workspace.ptr, WORKSPACE_BYTES),
            "cublasSetWorkspace",
        )
        return handle.value, workspace


_first_stream: dict[int, int] = {}  # per device: the stream the handle's workspace serves


@cache
def _side(device: int, stream: int):
    """The workspace of GEMMs on another stream of ``device`` (kept for the process: a
    GEMM issued there may still be running when a later one is issued)."""
    with cupy.cuda.Device(device):
        return cupy.get_default_memory_pool().malloc(WORKSPACE_BYTES)


def prepare() -> None:
    """Make this device's handle now: graphs.py calls it before a capture begins."""
    _handle(cupy.cuda.runtime.getDevice())


def gemm_int8(
    op_a: int,
    op_b: int,
    m: int,
    n: int,
    k: int,
    a_ptr: int,
    lda: int,
    b_ptr: int,
    ldb: int,
    c_ptr: int,
    ldc: int,
    workspace: tuple[int, int] | None = None,
) -> None:
    """C (int32, column-major m × n) = op(A) · op(B) for int8 A, B, on the current
    stream (``cublasGemmEx``, CUDA_R_8I inputs, CUDA_R_32I output, 32-bit compute),
    with ``workspace`` ((device pointer, bytes): a captured graph's own) or the
    handle's."""
    lib = _lib()
    device = cupy.cuda.runtime.getDevice()
    handle, own = _handle(device)
    stream = cupy.cuda.get_current_stream().ptr
    _check(lib.cublasSetStream_v2(handle, stream), "cublasSetStream")
    # cublasSetStream resets the workspace to cuBLAS's default pool: set ours again
    if workspace is None:  # GEMMs on two streams at once (kleene.engine.lanes) must not share one
        own = own if _first_stream.setdefault(device, stream) == stream else _side(device, stream)
    ptr, size = (own.ptr, WORKSPACE_BYTES) if workspace is None else workspace
    _check(lib.cublasSetWorkspace_v2(handle, ptr, size), "cublasSetWorkspace")
    status = lib.cublasGemmEx(
        handle,
        op_a,
        op_b,
        m,
        n,
        k,
        _ONE.ctypes.data,
        a_ptr,
        _CUDA_R_8I,
        lda,
        b_ptr,
        _CUDA_R_8I,
        ldb,
        _ZERO.ctypes.data,
        c_ptr,
        _CUDA_R_32I,
        ldc,
        _COMPUTE_32I,
        _GEMM_DEFAULT,
    )
    _check(status, f"cublasGemmEx int8 ({m}×{n}×{k})")


# cuBLAS enums (cublas_api.h / library_types.h).
_CUDA_R_8I = 3
_CUDA_R_32I = 10
_COMPUTE_32I = 72
_GEMM_DEFAULT = -1
