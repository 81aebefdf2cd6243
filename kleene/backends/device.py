"""Where arrays live: NumPy ("cpu") or CuPy ("gpu"), and which back end runs them."""

from __future__ import annotations

import functools
import time
from types import ModuleType

import numpy as np

from kleene.errors import DeviceUnavailable, InvalidValue


@functools.lru_cache(maxsize=1)
def cupy_module() -> ModuleType | None:
    """CuPy if it imports and sees a GPU, else None (never raises)."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        return cupy
    except Exception:  # no cupy, no driver, no device
        return None


def gpu_available() -> bool:
    return cupy_module() is not None


def bool_tensor_cores() -> bool:
    """Whether the GPU back end runs (or, and) products on bool as int8 tensor-core GEMMs
    (``kleene/backends/cuda/boolean_mma.py``); ``KLEENE_BOOL_TENSOR_CORES=0`` says no.

    >>> import os, kleene
    >>> kleene.backends.bool_tensor_cores() == (os.environ.get("KLEENE_BOOL_TENSOR_CORES") != "0")
    True
    """
    import os

    return os.environ.get("KLEENE_BOOL_TENSOR_CORES", "1") != "0"


def is_cupy_array(a) -> bool:
    return type(a).__module__.startswith("cupy")


def array_module(*arrays) -> ModuleType:
    """numpy or cupy, by where the arrays live (cupy if any of them is a CuPy array)."""
    if any(is_cupy_array(a) for a in arrays):
        import cupy

        return cupy
    return np


def module_for(device: str) -> ModuleType:
    """The array module of ``device`` ("cpu" or "gpu")."""
    if device == "cpu":
        return np
    if device == "gpu":
        cp = cupy_module()
        if cp is None:
            raise DeviceUnavailable("device='gpu' needs CuPy and a CUDA GPU; none is available")
        return cp
    raise InvalidValue(f"device must be 'cpu' or 'gpu', got {device!r}")


def device_of(xp: ModuleType) -> str:
    return "cpu" if xp is np else "gpu"


def backend(xp: ModuleType):
    """The kernel-primitive module for arrays of ``xp`` (see engine/primitives.md)."""
    if xp is np:
        from . import cpu

        return cpu
    from . import cuda

    return cuda


def to_host(a) -> np.ndarray:
    return a.get() if is_cupy_array(a) else np.asarray(a)


# The driver's free-memory reading is a call into the kernel driver, asked twice on the
# host path of a public APSP call before its fill, where host time delays the closure.
# A reading is reused for this long, corrected by what CuPy's pool took or gave back
# since.
GPU_FREE_READING_S = 0.5
_readings: dict[int, tuple[float, int, int]] = {}  # device: (when, driver's free, pool's total)


def gpu_memory_free() -> int:
    """Free bytes on the current GPU (CuPy's pool counted as free).

    The driver is asked at most every ``GPU_FREE_READING_S`` seconds per device; in
    between, its last answer less what CuPy's default pool has since taken from the
    driver (or plus what it gave back). Memory other code takes outside that pool
    shows at the next reading.

    >>> import kleene
    >>> kleene.backends.gpu_memory_free() >= 0
    True
    """
    cp = cupy_module()
    if cp is None:
        return 0
    pool = cp.get_default_memory_pool()
    total = pool.total_bytes()
    dev = cp.cuda.runtime.getDevice()
    now = time.monotonic()
    seen = _readings.get(dev)
    if seen is None or now - seen[0] > GPU_FREE_READING_S:
        seen = _readings[dev] = (now, cp.cuda.runtime.memGetInfo()[0], total)
    driver = max(0, seen[1] - (total - seen[2]))
    return int(driver + pool.free_bytes())


def forget_gpu_memory_reading() -> None:
    """Make the next :func:`gpu_memory_free` ask the driver: memory was taken or given
    back outside CuPy's default pool (a replayed closure's capture, its release)."""
    _readings.clear()


# The share of the free memory (GPU or host) one call may plan to take: the rest is
# left to other code in the process and to the allocator's rounding. Every check that
# refuses a size before allocating (generators, apsp, transitive_closure, the
# out-of-core tiles) uses this one figure.
MEMORY_SHARE = 0.8


def host_memory_free() -> int:
    """Available host memory in bytes (MemAvailable; physical memory as a fallback)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import os

    return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
