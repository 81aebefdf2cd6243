"""The back ends: compiled kernels and their launchers, one folder per device.

``cpu/`` (NumPy, SciPy and Numba) and ``cuda/`` (CuPy, with CUDA templates
specialised per semiring and compiled through ``RawModule``) export the same
primitives with the same signatures (``kleene/engine/primitives.md``). Layers above
reach them only through ``backend(xp)``; importing this package loads neither, so
``import kleene`` needs no CuPy and compiles nothing. The rules both back ends share
(Beamer's direction switch, when path sums grow strictly, array overlap) live here
beside them.
"""

from .device import (
    MEMORY_SHARE,
    array_module,
    backend,
    bool_tensor_cores,
    cupy_module,
    gpu_available,
    gpu_memory_free,
    host_memory_free,
    is_cupy_array,
    module_for,
    to_host,
)

__all__ = [
    "MEMORY_SHARE",
    "array_module",
    "backend",
    "bool_tensor_cores",
    "cupy_module",
    "gpu_available",
    "gpu_memory_free",
    "host_memory_free",
    "is_cupy_array",
    "module_for",
    "to_host",
]
