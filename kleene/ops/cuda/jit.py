"""Compile generated CUDA sources with CuPy (NVRTC) and cache the results.

Raw modules are cached per (device, specialisation key, cooperative): the key is
built from the algebra objects' ``.key`` (operator names and CUDA expressions), the
dtypes and the flags, so equal user-defined algebra shares compiled code. A spec
marked ``cooperative`` is compiled for, and launched by, cooperative launches
(``RawModule(enable_cooperative_groups=True)``). CuPy's own on-disk cache then makes
a later process skip NVRTC too.
"""

from __future__ import annotations

import threading
from functools import cache

import cupy
import numpy as np

from . import codegen

OPTIONS = ("-std=c++17",)

_lock = threading.Lock()
_modules: dict[tuple, cupy.RawModule] = {}
_functions: dict[tuple, object] = {}
_elementwise: dict[tuple, cupy.ElementwiseKernel] = {}


def device_id() -> int:
    return cupy.cuda.Device().id


def function(spec: codegen.Spec, name: str):
    """The compiled kernel ``name`` (one of ``spec.names``) for the current device."""
    fkey = (device_id(), spec.key, spec.cooperative, name)
    fn = _functions.get(fkey)
    if fn is None:
        fn = _functions[fkey] = _module(spec).get_function(name)
    return fn


def _module(spec: codegen.Spec) -> cupy.RawModule:
    mkey = (device_id(), spec.key, spec.cooperative)
    mod = _modules.get(mkey)
    if mod is None:
        with _lock:  # one RawModule object per key (compiled lazily, outside the lock)
            mod = _modules.get(mkey)
            if mod is None:
                mod = _modules[mkey] = _raw_module(
                    codegen.render(spec), spec.names, spec.cooperative
                )
    return mod


def _raw_module(code: str, names, cooperative: bool) -> cupy.RawModule:
    return cupy.RawModule(
        code=code,
        options=OPTIONS,
        name_expressions=list(names),
        enable_cooperative_groups=cooperative,
    )


def precompile(specs: list[codegen.Spec], processes: int | None = None) -> list[str]:
    """Compile ``specs`` into CuPy's on-disk kernel cache on worker processes.

    Optional: kernels compile on first use anyway. Tests and benchmarks call
    this to compile many specialisations at once on all cores; the RawModules
    built afterwards in this process then load the cached binaries. Returns the
    compile errors (a failing spec fails again, with its log, when used).
    """
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    jobs = [(codegen.render(s), tuple(s.names), s.cooperative) for s in specs if s.bodies]
    if not jobs:
        return []
    n = processes or max(1, min(len(jobs), (os.cpu_count() or 2) - 1))
    ctx = multiprocessing.get_context("spawn")  # no CUDA state crosses a fork
    with ProcessPoolExecutor(n, mp_context=ctx) as pool:
        errors = pool.map(_compile_job, jobs, chunksize=max(1, len(jobs) // (4 * n)))
        return [e for e in errors if e]


def _compile_job(job: tuple[str, tuple[str, ...], bool]) -> str:
    code, names, cooperative = job
    try:  # the same options as _module, so the module built there loads this binary
        _raw_module(code, names, cooperative).compile()
    except Exception as e:  # reported to the caller, not raised in the pool
        return f"{names[0]}: {type(e).__name__}: {str(e)[:2000]}"
    return ""


def elementwise(parts: codegen.Elementwise, key: tuple) -> cupy.ElementwiseKernel:
    """A cached ``cupy.ElementwiseKernel`` built from generated parts."""
    k = _elementwise.get(key)
    if k is None:
        k = cupy.ElementwiseKernel(
            parts.in_params,
            parts.out_params,
            parts.operation,
            name=parts.name,
            preamble=parts.preamble,
        )
        _elementwise[key] = k
    return k


@cache
def sm_count(dev: int) -> int:
    return int(cupy.cuda.Device(dev).attributes["MultiProcessorCount"])


_dummies: dict[int, cupy.ndarray] = {}


def dummy_bool() -> cupy.ndarray:
    """A one-element bool array passed where an optional array is absent."""
    dev = device_id()
    d = _dummies.get(dev)
    if d is None:
        d = _dummies[dev] = cupy.zeros(1, dtype=np.bool_)
    return d


def contiguous(a, dtype=None) -> cupy.ndarray:
    """``a`` as a C-contiguous CuPy array (of ``dtype`` if given); no copy if it is one."""
    if type(a) is cupy.ndarray and a.flags.c_contiguous and (dtype is None or a.dtype == dtype):
        return a  # the common case, without CuPy's conversion machinery
    return cupy.ascontiguousarray(cupy.asarray(a), dtype=dtype)


def zeroed_counters(n: int, counters: int = 2) -> cupy.ndarray:
    """An int32 work array of ``n`` entries whose first ``counters`` are zero.

    Only the counters are cleared (one async memset), not the whole array.
    """
    buf = cupy.empty(max(n, counters), dtype=np.int32)
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memsetAsync(buf.data.ptr, 0, 4 * counters, stream.ptr)
    return buf


def blocks_for(work_items: int, per_block: int, cap: int = 1 << 20) -> int:
    """Blocks to cover ``work_items`` at ``per_block`` each (grid-stride beyond ``cap``)."""
    return max(1, min(cap, -(-work_items // per_block)))
