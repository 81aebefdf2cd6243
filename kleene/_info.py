"""Version and environment facts: kleene's version, its dependencies, the GPU.

Nothing here imports CuPy at module import time, and nothing raises when CuPy,
the CUDA driver or a GPU is missing: ``python -m kleene info`` must work on any
machine that can import NumPy.
"""

from __future__ import annotations

import functools
import platform
import sys

# The single source of the version (pyproject.toml reads it from here).
__version__ = "0.1.0"


def _version_of(module_name: str) -> str | None:
    """The ``__version__`` of an importable module, else None (never raises)."""
    try:
        module = __import__(module_name)
    except Exception:
        return None
    return str(getattr(module, "__version__", "unknown"))


@functools.lru_cache(maxsize=1)
def gpu_info() -> dict:
    """What CuPy sees: ``{"available": bool, "reason" or "name", ...}``.

    ``available`` is True only when CuPy imports and reports at least one CUDA
    device. Without CuPy (or without a driver or a device) it is False and
    ``reason`` says why. Never raises.
    """
    try:
        import cupy
    except Exception as exc:  # not installed, or a broken install
        return {"available": False, "reason": f"cupy not importable ({type(exc).__name__})"}
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as exc:  # no driver, no device, driver too old
        return {"available": False, "reason": f"no CUDA device visible ({_short(exc)})"}
    if count < 1:
        return {"available": False, "reason": "no CUDA device visible"}
    info: dict = {"available": True, "count": count}
    try:
        dev = cupy.cuda.Device()
        props = cupy.cuda.runtime.getDeviceProperties(dev.id)
        name = props.get("name", b"")
        info["name"] = name.decode() if isinstance(name, bytes) else str(name)
        info["compute_capability"] = str(dev.compute_capability)
        info["memory_gib"] = round(props.get("totalGlobalMem", 0) / 2**30, 1)
        info["cuda_runtime"] = _cuda_version(cupy.cuda.runtime.runtimeGetVersion())
        info["cuda_driver"] = _cuda_version(cupy.cuda.runtime.driverGetVersion())
    except Exception as exc:  # properties are a nicety; availability is what matters
        info.setdefault("name", f"unknown ({_short(exc)})")
    return info


def gpu_available() -> bool:
    """True when CuPy imports and sees a CUDA device (never raises)."""
    return bool(gpu_info()["available"])


def _cuda_version(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def versions() -> dict:
    """Versions of kleene, Python and the array libraries (None = not installed)."""
    return {
        "kleene": __version__,
        "python": platform.python_version(),
        "numpy": _version_of("numpy"),
        "scipy": _version_of("scipy"),
        "numba": _version_of("numba"),
        "cupy": _version_of("cupy"),
    }


def info_lines() -> list[str]:
    """The report ``python -m kleene info`` prints."""
    lines = [f"{k:<8} {v if v is not None else 'not installed'}" for k, v in versions().items()]
    lines.append(f"{'platform':<8} {platform.platform()} ({sys.executable})")
    gpu = gpu_info()
    if gpu["available"]:
        details = ", ".join(
            f"{k}={gpu[k]}"
            for k in ("count", "compute_capability", "memory_gib", "cuda_runtime", "cuda_driver")
            if k in gpu
        )
        lines.append(f"{'gpu':<8} yes: {gpu.get('name', '?')} ({details})")
    else:
        lines.append(f"{'gpu':<8} no: {gpu['reason']}")
    return lines
