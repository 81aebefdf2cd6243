"""Compile generated CUDA sources with CuPy (NVRTC) and cache the results.

Kernels are cached per (device, specialisation key, cooperative, name): the key is
built from the algebra objects' ``.key`` (operator names and CUDA expressions), the
dtypes and the flags, so equal user-defined algebra shares compiled code. A kernel is
compiled on first use in a unit of its own (or with the rest of its specialisation's
kernels where ``Spec.together``): a call pays only for the kernels it runs, not for
every instance of a template file (:mod:`kleene.backends.cuda.units`). CuPy's on-disk cache
keeps each unit, so a later process loads it without NVRTC.

A spec marked ``cooperative`` holds kernels with kleene's own grid barrier
(kernels/grid.cuh), which only needs every block resident: they are compiled like any
other (no relocatable device code, no cudadevrt link, which cost seconds) and launched
with ``cuLaunchCooperativeKernel``, which refuses a grid that cannot be resident.
"""

from __future__ import annotations

import threading
from functools import cache

import cupy
import numpy as np

from . import codegen, units

OPTIONS = ("-std=c++17",)

_lock = threading.Lock()
_unit_locks: dict[tuple, threading.Lock] = {}
_units: dict[tuple, dict[str, object]] = {}
_functions: dict[tuple, object] = {}
_elementwise: dict[tuple, cupy.ElementwiseKernel] = {}


def device_id() -> int:
    return cupy.cuda.Device().id


class Cooperative:
    """A compiled kernel launched cooperatively (all blocks resident, or the launch is
    refused with a CUDA driver error). Attributes are the wrapped ``RawKernel``'s."""

    __slots__ = ("raw",)

    def __init__(self, raw) -> None:
        object.__setattr__(self, "raw", raw)

    def __call__(self, grid, block, args, *, shared_mem: int = 0) -> None:
        self.raw.kernel(
            tuple(grid), tuple(block), args, shared_mem=shared_mem, enable_cooperative_groups=True
        )

    def __getattr__(self, name: str):
        return getattr(self.raw, name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self.raw, name, value)


def function(spec: codegen.Spec, name: str):
    """The compiled kernel ``name`` (one of ``spec.names``) for the current device."""
    fkey = (device_id(), spec.key, spec.cooperative, name)
    fn = _functions.get(fkey)
    if fn is None:
        names = units.unit_names(spec.names, name, spec.together)
        kernels = _unit(fkey[0], spec, names)
        fn = kernels[name]
        if spec.cooperative:
            fn = Cooperative(fn)
        _functions[fkey] = fn
    return fn


def _unit(dev: int, spec: codegen.Spec, names: tuple[str, ...]) -> dict[str, object]:
    """The kernels ``names`` of ``spec`` on ``dev``, compiled once (one lock per unit:
    other units compile meanwhile)."""
    ukey = (dev, spec.key, names)
    kernels = _units.get(ukey)
    if kernels is None:
        with _lock:
            lock = _unit_locks.setdefault(ukey, threading.Lock())
        with lock:
            kernels = _units.get(ukey)
            if kernels is None:
                kernels = _units[ukey] = load_unit(codegen.render(spec), names)
    return kernels


def load_unit(code: str, names: tuple[str, ...]) -> dict[str, object]:
    """{name: RawKernel} for the unit ``names`` of ``code`` on the current device,
    compiled by NVRTC or loaded from CuPy's disk cache (which CuPy 14 keys by the source,
    the options and the name expressions: a later process loads the unit in
    milliseconds)."""
    source = units.unit_source(code, names)
    mod = cupy.RawModule(code=source, options=OPTIONS, name_expressions=list(names))
    return {n: mod.get_function(n) for n in names}


def precompile(specs: list[codegen.Spec], processes: int | None = None) -> list[str]:
    """Compile every kernel of ``specs`` into the on-disk caches on worker processes.

    Optional: kernels compile on first use anyway. Tests and benchmarks call this to
    compile many specialisations at once on all cores; kernels used afterwards, in this
    process or a later one, load the cached binaries.
    Returns the compile errors (a failing kernel fails again, with its log, when used).
    """
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    jobs = []
    for s in specs:
        if s.bodies:
            code = codegen.render(s)
            jobs += sorted({(code, units.unit_names(s.names, n, s.together)) for n in s.names})
    if not jobs:
        return []
    n = processes or max(1, min(len(jobs), (os.cpu_count() or 2) - 1))
    ctx = multiprocessing.get_context("spawn")  # no CUDA state crosses a fork
    with ProcessPoolExecutor(n, mp_context=ctx) as pool:
        errors = pool.map(_compile_job, jobs, chunksize=max(1, len(jobs) // (4 * n)))
        return [e for e in errors if e]


def _compile_job(job: tuple[str, tuple[str, ...]]) -> str:
    code, names = job
    try:  # the same path as function(), so the unit lands in CuPy's disk cache
        load_unit(code, names)
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


def zeroed_counters(n: int, counters: int = 2, dtype=np.int32) -> cupy.ndarray:
    """A work array of ``n`` entries (int32, or ``dtype``) whose first ``counters``
    are zero.

    Only the counters are cleared (one async memset), not the whole array.
    """
    buf = cupy.empty(max(n, counters), dtype=dtype)
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memsetAsync(buf.data.ptr, 0, buf.itemsize * counters, stream.ptr)
    return buf


def blocks_for(work_items: int, per_block: int, cap: int = 1 << 20) -> int:
    """Blocks to cover ``work_items`` at ``per_block`` each (grid-stride beyond ``cap``)."""
    return max(1, min(cap, -(-work_items // per_block)))
