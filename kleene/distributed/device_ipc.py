"""Blocks between GPU workers of one host by CUDA IPC instead of Dask's comm.

Dask moves a CuPy block between workers over its comm (TCP without UCX): device →
host, a socket, host → device: far below the GPUs' own links, so much slower that
the blocked closure on two GPUs runs no faster than on one
(``benchmarks/bench_dask_gpu.py`` measures it). Workers on one host can instead share device
memory: the owner copies the block into a buffer of its own (``export``), a reader
maps that buffer with ``cudaIpcOpenMemHandle`` and copies it device to device over
NVLink or PCIe (``fetch``), and once every reader has its copy the owner takes the
buffer back (``drop``). Only 64-byte handles pass through Dask.

No step waits for a device. A worker runs its tasks one at a time, and a task that
waited for its GPU would leave that GPU idle until the host queued the next product,
so the order between the processes is kept by interprocess CUDA events instead: the
owner's copy into the buffer is followed by an event that the reader's stream waits
for before it copies out (``export`` / ``fetch``); the reader records an event after
its copy (``fetched``), and the buffer's next use by its owner waits for those events
on the owner's stream (``drop`` hands them to the buffer). For the same reason
buffers are not freed at ``drop`` (``cudaFree`` waits for the whole device) but kept
by size for the next export, readers keep their mappings of them open, and
``release`` (on every worker once a run's blocks are all dropped) frees both.

Used only when every worker sees a GPU, all are on one host, and a probe exchange
between two of them gives the right bytes; ``KLEENE_DASK_IPC=0`` turns it off.
"""

from __future__ import annotations

import os

import numpy as np

from kleene.backends import is_cupy_array

from .failures import named_task, scheduler_workers

# cudaEventDisableTiming | cudaEventInterprocess: the flags an IPC event needs
_IPC_EVENT = 0x02 | 0x04
_MARKS = 256  # the events a reader records after its copies, reused round-robin

# This worker process's exports, by tag until ``drop``: (buffers, kept arrays, event).
_EXPORTS: dict[str, tuple] = {}
# Buffers back from ``drop``, by size: [device memory, its IPC handle, events to wait
# for before it is written again, its size in bytes].
_FREE: dict[int, list] = {}
_READY_EVENTS: list[int] = []  # owner events not in use by an export
_MARK_EVENTS: list[int] = []  # this reader's ring of events after its copies
_MARK_NEXT = [0]
_MAPPED: dict[bytes, int] = {}  # a peer's buffer handle -> its mapping in this process
_OPENED_EVENTS: dict[bytes, int] = {}  # a peer's event handle -> the event here


def _stream() -> int:
    import cupy

    return cupy.cuda.get_current_stream().ptr


def _new_event() -> int:
    import cupy

    return cupy.cuda.runtime.eventCreateWithFlags(_IPC_EVENT)


def _opened_event(handle: bytes) -> int:
    event = _OPENED_EVENTS.get(handle)
    if event is None:
        import cupy

        event = _OPENED_EVENTS[handle] = cupy.cuda.runtime.ipcOpenEventHandle(handle)
    return event


def _buffer(nbytes: int) -> list:
    """A device buffer of ``nbytes`` of this process's own (a handle names an allocation's
    base), from those dropped earlier where one fits, after the events its readers
    recorded (on this stream: no wait on the host)."""
    import cupy

    rt = cupy.cuda.runtime
    free = _FREE.get(nbytes)
    if free:
        buf = free.pop()
        for event in buf[2]:
            rt.streamWaitEvent(_stream(), event, 0)
        buf[2] = []
        return buf
    mem = cupy.cuda.Memory(max(nbytes, 1))
    return [mem, rt.ipcGetMemHandle(mem.ptr), [], nbytes]


def _export(block, tag: str) -> dict:
    """Copy ``block`` ((d, p) arrays on this worker's GPU) into device buffers kept
    under ``tag``: their IPC handles and an event that follows the copies, for
    :func:`fetch`. (Host arrays are kept as copies with no handle: readable by a fetch
    in this process only.)"""
    if not any(is_cupy_array(a) for a in block):
        kept = [None if a is None else a.copy() for a in block]
        _EXPORTS[tag] = ([], kept, None)
        return {"tag": tag, "pid": os.getpid(), "parts": [None] * len(block), "shapes": None}
    import cupy

    rt = cupy.cuda.runtime
    stream = _stream()
    bufs, kept, parts = [], [], []
    for a in block:
        if a is None:
            kept.append(None)
            parts.append(None)
            continue
        a = cupy.ascontiguousarray(a)
        buf = _buffer(a.nbytes)
        # on this stream, after the task that made the block: no wait for it here
        rt.memcpyAsync(buf[0].ptr, a.data.ptr, a.nbytes, rt.memcpyDeviceToDevice, stream)
        bufs.append(buf)
        kept.append(cupy.ndarray(a.shape, a.dtype, cupy.cuda.MemoryPointer(buf[0], 0)))
        parts.append(buf[1])
    ready = _READY_EVENTS.pop() if _READY_EVENTS else _new_event()
    rt.eventRecord(ready, stream)
    _EXPORTS[tag] = (bufs, kept, ready)
    shapes = [None if a is None else (a.shape, a.dtype.str) for a in kept]
    return {
        "tag": tag,
        "pid": os.getpid(),
        "parts": parts,
        "shapes": shapes,
        "ready": rt.ipcGetEventHandle(ready),
    }


def _fetch(info: dict):
    """This worker's own copy of an exported block: (d, p) on its device, copied on
    this worker's stream once the owner's copy into the buffer is done."""
    if info["pid"] == os.getpid():  # ran where it was exported: copy the kept arrays
        return tuple(None if a is None else a.copy() for a in _EXPORTS[info["tag"]][1])
    import cupy

    rt = cupy.cuda.runtime
    stream = _stream()
    rt.streamWaitEvent(stream, _opened_event(info["ready"]), 0)
    out = []
    for handle, kind in zip(info["parts"], info["shapes"], strict=True):
        if handle is None:
            out.append(None)
            continue
        shape, dtype = kind
        dst = cupy.empty(shape, dtype=np.dtype(dtype))  # on this worker's device
        src = _MAPPED.get(handle)
        if src is None:
            src = _MAPPED[handle] = rt.ipcOpenMemHandle(handle)
        rt.memcpyAsync(dst.data.ptr, src, dst.nbytes, rt.memcpyDeviceToDevice, stream)
        out.append(dst)
    return tuple(out)


export = named_task(_export)
fetch = named_task(_fetch)


@named_task
def export_chunk(chunk, tag: str) -> dict:
    """:func:`export` of one array (a chunk of a dask.array input, held by a worker that
    does not own its block); a host chunk comes back itself, for Dask to move."""
    if not is_cupy_array(chunk):
        return {"host": chunk}
    return _export((chunk,), tag)


@named_task
def fetch_chunk(info: dict):
    """The chunk :func:`export_chunk` shared, on this worker's device."""
    return info["host"] if "host" in info else _fetch(info)[0]


def fetched_chunk(chunk):
    """:func:`fetched` of one array."""
    return fetched((chunk,))


def fetched(block):
    """A small stand-in for a fetched block, for ``drop`` to wait for the fetch without
    moving the block: (this process's id, the IPC handle of an event recorded after
    the copy on this worker's stream), or (id, None) for host blocks."""
    if not any(is_cupy_array(a) for a in block):
        return (os.getpid(), None)
    import cupy

    rt = cupy.cuda.runtime
    if len(_MARK_EVENTS) < _MARKS:
        _MARK_EVENTS.append(_new_event())
    event = _MARK_EVENTS[_MARK_NEXT[0] % len(_MARK_EVENTS)]
    _MARK_NEXT[0] += 1
    rt.eventRecord(event, _stream())
    return (os.getpid(), rt.ipcGetEventHandle(event))


def drop(tag: str, *fetches) -> None:
    """Take back the buffers exported under ``tag`` once ``fetches`` (the readers'
    :func:`fetched` marks) have run: they go to the free list with the readers' events,
    which their next export waits for on the device."""
    exported = _EXPORTS.pop(tag, None)
    if exported is None:
        return
    bufs, _, ready = exported
    me = os.getpid()
    # (a fetch in this process copied on the same device queue: nothing to wait for)
    waits = [_opened_event(m[1]) for m in fetches if isinstance(m, tuple) and m[0] != me and m[1]]
    for buf in bufs:
        buf[2] = list(waits)
        _FREE.setdefault(buf[3], []).append(buf)
    if ready is not None:
        _READY_EVENTS.append(ready)


def close_mappings() -> int:
    """Close this process's mappings of other workers' buffers (after a run, before
    :func:`release` frees the buffers); the number closed."""
    if not _MAPPED:
        return 0
    import cupy

    cupy.cuda.runtime.deviceSynchronize()  # (the copies out of them have finished)
    closed = len(_MAPPED)
    for ptr in _MAPPED.values():
        cupy.cuda.runtime.ipcCloseMemHandle(ptr)
    _MAPPED.clear()
    return closed


def release() -> int:
    """Free the buffers kept for reuse (every reader's mappings closed first: see
    :func:`release_all`); the bytes freed."""
    freed = sum(buf[3] for bufs in _FREE.values() for buf in bufs)
    _FREE.clear()
    return freed


def release_all(client, workers: list[str]) -> None:
    """After a run whose blocks are all dropped: every worker closes its mappings,
    then every worker frees its kept buffers (the memory goes back to the device)."""
    from .failures import settle

    for step in (close_mappings, release):
        futures = [
            client.submit(step, workers=[w], allow_other_workers=False, pure=False) for w in workers
        ]
        settle(futures, "apsp on dask (releasing the shared buffers)", watch=(client, workers))


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
    info = scheduler_workers(client)
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
        release_all(client, [a, b])
        last_reason = "probe exchange " + ("gave the right values" if good else "gave wrong values")
        return good
    except Exception as e:  # no IPC between these processes (e.g. MIG, containers): Dask's comm
        last_reason = f"probe exchange failed: {type(e).__name__}: {e}"
        return False
