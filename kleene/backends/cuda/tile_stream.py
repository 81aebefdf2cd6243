"""TileStream: host-resident tiles streamed through one GPU (out-of-core APSP's device).

``kleene.algorithms.apsp_out_of_core`` runs its schedule against this class: named
slots of device memory (one b × b buffer each, and one of int64 predecessors), tile
copies between host arrays and slots, and the closure primitives on slots
(``closure_dense``, ``mxm_dense_acc``, the kernels of the in-core methods).

Three non-blocking CUDA streams, ordered by events (``_Mark``) per slot:

- ``h2d`` copies a host tile into a slot, after the slot's last product (``used``)
  and last copy out (``drained``): a load never overwrites data still being read;
- ``compute`` runs the products in program order, each after its slots' loads
  (``loaded``), and records ``used`` on every slot it touched;
- ``d2h`` copies a slot back to its host tile after the slot's last product.

The host thread only enqueues, so the next tile's copy in and the previous tile's
copy out run on the copy engines while the current product runs; it waits only to
keep at most ``_IN_FLIGHT`` products queued (progress then tells the truth) and to
reuse a staging buffer.

Host memory comes in two kinds:

- page-locked arrays (the result ``apsp`` allocates when it fits, or a caller's
  ``cupyx.empty_pinned`` array): tiles are copied straight between their rows in
  the big array and the slot (``cudaMemcpy2DAsync``); a load of a host tile also
  waits for the last copy out into that tile (``written``);
- pageable arrays (``numpy.empty``, ``numpy.memmap``): through rings of pinned
  staging chunks. A load copies chunk by chunk into pinned memory on the host and
  queues each chunk's copy to the device; a store is queued as a handle and
  finished by ``finish`` (chunks to pinned memory, then into the host array), which
  the schedule calls after it queued the next product, so the host's copies overlap
  it. The schedule finishes a store before it reloads that slot or that host tile.
"""

from __future__ import annotations

import os
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import cupy
import numpy as np

from kleene.semiring import Semiring

from .closure import closure_dense
from .dense import mxm_dense_acc

_CHUNK_BYTES = 64 << 20  # pinned staging chunk (smaller for small tiles, at least a row)
_RING = 3  # staging chunks per direction: one filling, one copying, one spare
_IN_FLIGHT = 4  # products queued on the device before the host waits for the oldest
_HOST_COPY_SPLIT = 8 << 20  # host copies above this size run on several threads
_MEMORY_TYPE_HOST = 1  # cudaMemoryTypeHost: page-locked (allocated or registered) host memory

_H2D = cupy.cuda.runtime.memcpyHostToDevice
_D2H = cupy.cuda.runtime.memcpyDeviceToHost


def _event() -> cupy.cuda.Event:
    # block=True: a host wait sleeps instead of spinning a core the host copies need
    return cupy.cuda.Event(block=True, disable_timing=True)


class _Mark:
    """An event and whether it was ever recorded (nothing to wait for before that)."""

    __slots__ = ("event", "set")

    def __init__(self):
        self.event = _event()
        self.set = False

    def record(self, stream: cupy.cuda.Stream) -> None:
        self.event.record(stream)
        self.set = True

    def wait(self, stream: cupy.cuda.Stream) -> None:
        if self.set:
            stream.wait_event(self.event)

    def sync(self) -> None:
        if self.set:
            self.event.synchronize()


class _Slot:
    """One tile's device buffers (b² values, b² int64 predecessors) and its marks."""

    __slots__ = ("d", "p", "loaded", "used", "drained", "shape")

    def __init__(self, size: int, dtype: np.dtype, preds: bool):
        self.d = cupy.empty(size, dtype=dtype)
        self.p = cupy.empty(size, dtype=np.int64) if preds else None
        self.loaded, self.used, self.drained = _Mark(), _Mark(), _Mark()
        self.shape = (0, 0)

    def views(self, shape=None):
        """(values, predecessors or None) as contiguous (h, w) arrays."""
        h, w = self.shape if shape is None else shape
        d = self.d[: h * w].reshape(h, w)
        return d, None if self.p is None else self.p[: h * w].reshape(h, w)


class _Stage:
    """A pinned host chunk and the mark of its last copy (freed with the object, not
    kept in CuPy's pinned pool: free it only once its copies are done)."""

    __slots__ = ("mem", "nbytes", "mark")

    def __init__(self, nbytes: int):
        self.mem = cupy.cuda.PinnedMemoryPointer(cupy.cuda.PinnedMemory(nbytes), 0)
        self.nbytes = nbytes
        self.mark = _Mark()

    def array(self, dtype, shape) -> np.ndarray:
        return np.ndarray(shape, dtype=dtype, buffer=self.mem)


def is_pinned(a: np.ndarray) -> bool:
    """Is the whole of host array ``a`` page-locked (so a copy engine can read it)?"""
    if a is None or a.size == 0:
        return False
    rt = cupy.cuda.runtime
    try:
        first = rt.pointerGetAttributes(a.ctypes.data)
        last = rt.pointerGetAttributes(a.ctypes.data + a.nbytes - 1)
    except Exception:  # unregistered memory on older CUDA raises; any doubt: pageable
        return False
    kinds = [getattr(x, "type", getattr(x, "memoryType", -1)) for x in (first, last)]
    return kinds == [_MEMORY_TYPE_HOST, _MEMORY_TYPE_HOST]


def pinned_empty(shape, dtype) -> np.ndarray | None:
    """A page-locked NumPy array (an ordinary array that owns its memory, registered
    with CUDA until it is freed), or None when pinning fails.

    ``cudaHostAlloc`` zeroes and maps its pages on one thread, which for a result of
    gigabytes is most of an out-of-core APSP's overhead. Here the pages are first
    touched by several threads and then registered in one call (``cudaHostRegister``);
    copies from it run as fast as from ``cudaHostAlloc`` memory. The registration ends
    when the array is freed (a finalizer runs before NumPy releases the memory)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes == 0:
        return None
    try:
        a = np.empty(shape, dtype=dtype)
    except MemoryError:
        return None
    _touch(a.reshape(-1).view(np.uint8))
    rt = cupy.cuda.runtime
    try:
        rt.hostRegister(a.ctypes.data, nbytes, 0)
    except (rt.CUDARuntimeError, MemoryError):
        return None
    weakref.finalize(a, _unregister, a.ctypes.data)
    return a


def _touch(flat: np.ndarray) -> None:
    """Fault every page of ``flat`` in (zeros), split over threads: the kernel's page
    zeroing is the cost, and it runs in parallel."""
    threads = max(1, min(16, os.cpu_count() or 1))
    if flat.nbytes < _HOST_COPY_SPLIT or threads < 2:
        flat.fill(0)
        return
    cuts = np.linspace(0, flat.size, threads + 1).astype(np.int64)
    with ThreadPoolExecutor(threads, thread_name_prefix="kleene-touch") as pool:
        list(pool.map(lambda i: flat[cuts[i] : cuts[i + 1]].fill(0), range(threads)))


def _unregister(ptr: int) -> None:
    try:
        cupy.cuda.runtime.hostUnregister(ptr)
    except Exception:  # noqa: BLE001 - at interpreter exit CUDA may be gone first
        pass


_POOL: ThreadPoolExecutor | None = None


def _host_copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src, split by rows over a few threads when large (NumPy releases the GIL)."""
    global _POOL
    threads = max(1, min(8, os.cpu_count() or 1))
    rows = dst.shape[0]
    if dst.nbytes < _HOST_COPY_SPLIT or threads < 2 or rows < 2:
        np.copyto(dst, src)
        return
    if _POOL is None:
        _POOL = ThreadPoolExecutor(threads, thread_name_prefix="kleene-stage")
    cuts = np.linspace(0, rows, min(threads, rows) + 1).astype(int)
    parts = [slice(a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    list(_POOL.map(lambda s: np.copyto(dst[s], src[s]), parts))


class TileStream:
    """The GPU device of the out-of-core schedule (see the module docstring).

    ``host`` are the host arrays tiles come from and go to (D, and P or None): all
    page-locked → direct copies; otherwise staged copies.
    """

    def __init__(self, semiring: Semiring, dtype, tile: int, preds: bool, host):
        self.sr = semiring
        self.dtype = np.dtype(dtype)
        self.one = semiring.one_for(self.dtype)
        self.size = tile * tile
        self.preds = bool(preds)
        self.direct = all(is_pinned(a) for a in host if a is not None)
        self.h2d = cupy.cuda.Stream(non_blocking=True)
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.d2h = cupy.cuda.Stream(non_blocking=True)
        self.slots: dict = {}
        self.written: dict = {}  # host tile -> mark of its last copy out (direct mode)
        self.queue = [_event() for _ in range(_IN_FLIGHT)]
        self.products = 0
        # at least one tile row of int64, at most a tile or _CHUNK_BYTES
        chunk = max(tile * 8, min(_CHUNK_BYTES, self.size * 8))
        ring = 0 if self.direct else _RING
        self.stage_in = [_Stage(chunk) for _ in range(ring)]
        self.stage_out = [_Stage(chunk) for _ in range(ring)]
        self.next_in = 0

    # ---- slots --------------------------------------------------------------------
    def _slot(self, name) -> _Slot:
        s = self.slots.get(name)
        if s is None:
            with self.compute:  # the pool then reuses the block on this stream only
                s = self.slots[name] = _Slot(self.size, self.dtype, self.preds)
            # The block may be a temporary just freed by a product queued on compute (the
            # pool hands it back at once, unsynchronised): the slot's first copy in, on
            # h2d, must wait for everything queued on compute so far.
            s.used.record(self.compute)
        return s

    # ---- copies ---------------------------------------------------------------------
    def load(self, name, key, dv: np.ndarray, pv: np.ndarray | None) -> None:
        """Queue host tile ``dv`` (``pv``) into slot ``name``."""
        s = self._slot(name)
        s.shape = dv.shape
        s.used.wait(self.h2d)
        s.drained.wait(self.h2d)
        mark = self.written.get(key)
        if mark is not None:
            mark.wait(self.h2d)
        d, p = s.views()
        self._in(d, dv)
        if pv is not None:
            self._in(p, pv)
        s.loaded.record(self.h2d)

    def store(self, name, key, dv: np.ndarray, pv: np.ndarray | None):
        """Queue slot ``name`` back to host tile ``dv``: done here when direct; else a
        handle for :meth:`finish`."""
        s = self.slots[name]
        if not self.direct:
            return s, dv, pv
        s.used.wait(self.d2h)
        d, p = s.views(dv.shape)
        _copy_2d(dv, d, _D2H, self.d2h)
        if pv is not None:
            _copy_2d(pv, p, _D2H, self.d2h)
        s.drained.record(self.d2h)
        mark = self.written.get(key)
        if mark is None:  # one event per host tile, made once
            mark = self.written[key] = _Mark()
        mark.record(self.d2h)
        return None

    def finish(self, handle) -> None:
        """The host side of a staged store: chunks to pinned memory, then to the host tile."""
        if handle is None:
            return
        s, dv, pv = handle
        s.used.wait(self.d2h)
        d, p = s.views(dv.shape)
        self._out(dv, d)
        if pv is not None:
            self._out(pv, p)
        s.drained.record(self.d2h)

    def _in(self, dst: cupy.ndarray, src: np.ndarray) -> None:
        if self.direct:
            _copy_2d(dst, src, _H2D, self.h2d)
            return
        h, w = src.shape
        row = w * src.itemsize
        per = max(1, self.stage_in[0].nbytes // max(row, 1))
        for r0 in range(0, h, per):
            r1 = min(h, r0 + per)
            st = self.stage_in[self.next_in]
            self.next_in = (self.next_in + 1) % len(self.stage_in)
            st.mark.sync()  # its last chunk has reached the device
            buf = st.array(src.dtype, (r1 - r0, w))
            _host_copy(buf, src[r0:r1])
            cupy.cuda.runtime.memcpyAsync(
                dst.data.ptr + r0 * row, buf.ctypes.data, (r1 - r0) * row, _H2D, self.h2d.ptr
            )
            st.mark.record(self.h2d)

    def _out(self, dst: np.ndarray, src: cupy.ndarray) -> None:
        h, w = dst.shape
        row = w * dst.itemsize
        per = max(1, self.stage_out[0].nbytes // max(row, 1))
        flying: deque = deque()
        for i, r0 in enumerate(range(0, h, per)):
            if len(flying) == len(self.stage_out):
                _land(dst, *flying.popleft())
            st = self.stage_out[i % len(self.stage_out)]
            r1 = min(h, r0 + per)
            cupy.cuda.runtime.memcpyAsync(
                st.mem.ptr, src.data.ptr + r0 * row, (r1 - r0) * row, _D2H, self.d2h.ptr
            )
            st.mark.record(self.d2h)
            flying.append((st, r0, r1))
        while flying:
            _land(dst, *flying.popleft())

    # ---- products -------------------------------------------------------------------
    def star(self, name) -> None:
        """Slot ← its closure (and its predecessors)."""
        s = self.slots[name]
        with self.compute:
            s.loaded.wait(self.compute)
            d, p = s.views()
            closure_dense(self.sr, d, self.one, p)
            s.used.record(self.compute)
        self._throttle()

    def acc(self, a, b, c) -> None:
        """Slot c ⊕= slot a ⊗ slot b (predecessors from b's into c's)."""
        sa, sb, sc = self.slots[a], self.slots[b], self.slots[c]
        with self.compute:
            for s in (sa, sb, sc):
                s.loaded.wait(self.compute)
            da, _ = sa.views()
            db, pb = sb.views()
            dc, pc = sc.views()
            mxm_dense_acc(self.sr, da, db, dc, pb, pc)
            for s in (sa, sb, sc):
                s.used.record(self.compute)
        self._throttle()

    def _throttle(self) -> None:
        ev = self.queue[self.products % len(self.queue)]
        if self.products >= len(self.queue):
            ev.synchronize()  # the product _IN_FLIGHT back is done
        ev.record(self.compute)
        self.products += 1

    def diagonal(self, name):
        """A getter of the slot's diagonal as it is now (host array); cheap to call later."""
        s = self.slots[name]
        with self.compute:
            diag = cupy.diagonal(s.views()[0]).copy()
            done = _event()
            done.record(self.compute)

        def get() -> np.ndarray:
            done.synchronize()
            return cupy.asnumpy(diag)  # ready: our streams do not block the null stream

        return get

    def close(self) -> None:
        """Wait for everything queued (no copy into host memory after this), free the slots."""
        errors = []
        for stream in (self.h2d, self.compute, self.d2h):
            try:
                stream.synchronize()
            except Exception as e:  # keep syncing the others; report the first
                errors.append(e)
        self.slots.clear()
        self.written.clear()
        self.stage_in = self.stage_out = []
        if errors:
            raise errors[0]


def _copy_2d(dst, src, kind: int, stream: cupy.cuda.Stream) -> None:
    """One cudaMemcpy2DAsync between a host view (rows strided in a larger row-major
    array) and a contiguous device tile, in either direction."""
    h, w = src.shape
    if h == 0 or w == 0:
        return
    width = w * src.itemsize

    def ptr(a):
        return a.data.ptr if isinstance(a, cupy.ndarray) else a.ctypes.data

    cupy.cuda.runtime.memcpy2DAsync(
        ptr(dst), dst.strides[0], ptr(src), src.strides[0], width, h, kind, stream.ptr
    )


def _land(dst: np.ndarray, st: _Stage, r0: int, r1: int) -> None:
    st.mark.sync()
    _host_copy(dst[r0:r1], st.array(dst.dtype, (r1 - r0, dst.shape[1])))
