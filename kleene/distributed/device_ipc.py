"""Blocks between GPU workers of one host by CUDA IPC instead of Dask's comm.

Dask moves a CuPy block between workers over its comm (TCP without UCX): device →
host, a socket, host → device: far below the GPUs' own links, so much slower that
the blocked closure on two GPUs runs no faster than on one
(``benchmarks/bench_dask_gpu.py`` measures it). Workers on one host can instead share device
memory: the owner copies the block into a buffer of its own (``export``), a reader
maps that buffer with ``cudaIpcOpenMemHandle`` and copies it device to device over
NVLink or PCIe (``fetch``), and once every reader has its copy the owner frees the
buffer (``drop``). Only a 64-byte handle passes through Dask.

Used only when every worker sees a GPU, all are on one host, and a probe exchange
between two of them gives the right bytes; ``KLEENE_DASK_IPC=0`` turns it off.
"""

from __future__ import annotations

import os

import numpy as np

from kleene.backends import is_cupy_array

from .failures import named_task

# The exported buffers of this worker process, by tag, until ``drop``.
_EXPORTS: dict[str, list] = {}


@named_task
def export(block, tag: str) -> dict:
    """Copy ``block`` ((d, p) arrays on this worker's GPU) into fresh device buffers
    kept under ``tag``; their IPC handles, for :func:`fetch`. (Host arrays are kept
    as copies with no handle: readable by a fetch in this process only.)"""
    if not any(is_cupy_array(a) for a in block):
        _EXPORTS[tag] = [None if a is None else a.copy() for a in block]
        return {"tag": tag, "pid": os.getpid(), "parts": [None] * len(block), "shapes": None}
    import cupy

    rt = cupy.cuda.runtime
    cupy.cuda.Device().synchronize()  # the block's producer has finished, on any stream
    kept, parts = [], []
    for a in block:
        if a is None:
            kept.append(None)
            parts.append(None)
            continue
        a = cupy.ascontiguousarray(a)
        mem = cupy.cuda.Memory(max(a.nbytes, 1))  # its own allocation: a handle names its base
        rt.memcpy(mem.ptr, a.data.ptr, a.nbytes, rt.memcpyDefault)
        kept.append(cupy.ndarray(a.shape, a.dtype, cupy.cuda.MemoryPointer(mem, 0)))
        parts.append(rt.ipcGetMemHandle(mem.ptr))
    cupy.cuda.Device().synchronize()  # the copies are done before a reader maps them
    _EXPORTS[tag] = kept
    shapes = [None if a is None else (a.shape, a.dtype.str) for a in kept]
    return {"tag": tag, "pid": os.getpid(), "parts": parts, "shapes": shapes}


@named_task
def fetch(info: dict):
    """This worker's own copy of an exported block: (d, p) on its device."""
    if info["pid"] == os.getpid():  # ran where it was exported: copy the kept arrays
        return tuple(None if a is None else a.copy() for a in _EXPORTS[info["tag"]])
    import cupy

    rt = cupy.cuda.runtime
    shapes = info["shapes"]
    out = []
    for handle, kind in zip(info["parts"], shapes, strict=True):
        if handle is None:
            out.append(None)
            continue
        shape, dtype = kind
        dst = cupy.empty(shape, dtype=np.dtype(dtype))  # on this worker's device
        src = rt.ipcOpenMemHandle(handle)
        try:
            rt.memcpy(dst.data.ptr, src, dst.nbytes, rt.memcpyDefault)  # over NVLink / PCIe
            cupy.cuda.Device().synchronize()
        finally:
            rt.ipcCloseMemHandle(src)
        out.append(dst)
    return tuple(out)


def fetched(block) -> bool:
    """A small stand-in for a fetched block (so that ``drop`` waits for the fetch
    without moving the block)."""
    return block is not None


def drop(tag: str, *fetches) -> None:
    """Free the buffers exported under ``tag`` (after ``fetches`` have run)."""
    _EXPORTS.pop(tag, None)


def _probe():
    """A small block with known values, on this worker's GPU."""
    import cupy

    return (cupy.arange(257 * 3, dtype=cupy.float32).reshape(257, 3), None)


def _check(block) -> bool:
    import cupy

    want = cupy.arange(257 * 3, dtype=cupy.float32).reshape(257, 3)
    return bool((block[0] == want).all())


_DECIDED: dict[tuple, bool] = {}


def enabled(client, workers: list[str]) -> bool:
    """Whether blocks may travel by CUDA IPC between ``workers`` (decided once per
    client and set of workers; see the module docstring)."""
    if os.environ.get("KLEENE_DASK_IPC", "1") == "0" or len(workers) < 2:
        return False
    key = (id(client), tuple(workers))
    if key not in _DECIDED:
        _DECIDED[key] = _try(client, workers)
    return _DECIDED[key]


# Why the last decision was what it was (for benchmarks and bug reports).
last_reason = "not decided yet"


def _try(client, workers: list[str]) -> bool:
    global last_reason
    info = client.scheduler_info(n_workers=-1)["workers"]
    if len({info[w].get("host") for w in workers}) != 1:
        last_reason = "workers on more than one host"
        return False
    from kleene.backends import gpu_available

    if not all(client.run(gpu_available, workers=workers).values()):
        last_reason = "not every worker sees a GPU"
        return False
    try:
        a, b = workers[0], workers[1]
        block = client.submit(_probe, workers=[a], allow_other_workers=False, pure=False)
        handle = client.submit(
            export,
            "apsp: IPC probe export",
            block,
            "kleene-ipc-probe",
            workers=[a],
            allow_other_workers=False,
            pure=False,
        )
        copy = client.submit(
            fetch,
            "apsp: IPC probe fetch",
            handle,
            workers=[b],
            allow_other_workers=False,
            pure=False,
        )
        ok = client.submit(_check, copy, workers=[b], allow_other_workers=False, pure=False)
        good = bool(ok.result(timeout=60))
        client.submit(drop, "kleene-ipc-probe", ok, workers=[a], pure=False).result(timeout=60)
        last_reason = "probe exchange " + ("gave the right values" if good else "gave wrong values")
        return good
    except Exception as e:  # no IPC between these processes (e.g. MIG, containers): Dask's comm
        last_reason = f"probe exchange failed: {type(e).__name__}: {e}"
        return False
