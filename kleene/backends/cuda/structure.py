"""Structure kernels on the GPU (kernels/structure.cu): CSR row ids and symmetry sums.

``expand_rows`` replaces a binary search per entry (``searchsorted`` over the row
pointers) by one coalesced write per entry; ``count_ids`` is ``bincount`` without its
range check (a CuPy reduction compiled with CUB's headers on first use).
``symmetry_sums`` is the one pass behind :func:`kleene.ops.is_symmetric`;
``dense_scan`` the one behind a dense matrix's ``has_nan``; ``dense_fill`` its dense
form (``Matrix.to_dense``), and ``dense_fill_scan`` both in one pass
(``Matrix.to_dense(scan=True)``).
"""

from __future__ import annotations

import struct

import cupy
import numpy as np

from kleene.errors import DomainMismatch

from . import codegen, jit

_THREADS = 256
_SCAN_CHUNK = 1024  # kernels/structure.cu: KL_SCAN_CHUNK
_VALUE_TYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}


def _blocks(rows: int) -> int:
    """One warp per row, grid-stride beyond a few waves of the device."""
    return jit.blocks_for(rows * 32, _THREADS, cap=jit.sm_count(jit.device_id()) * 16)


def expand_rows(offsets, total: int | None = None, dtype=np.int64):
    """For each position in [0, offsets[-1]), the segment (row) holding it, as ``dtype``
    (int64, or int32 where the row ids fit: half the memory)."""
    offsets = jit.contiguous(offsets, np.int64)
    n = offsets.size - 1
    total = int(offsets[-1]) if total is None else int(total)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise DomainMismatch(f"expand_rows: rows are int32 or int64, not {dtype}")
    rows = cupy.empty(total, dtype=dtype)
    if total and n > 0:
        name = "kl_expand_rows<int>" if dtype == np.int32 else "kl_expand_rows<long long>"
        fn = jit.function(codegen.structure_spec(), name)
        fn((_blocks(n),), (_THREADS,), (offsets, np.int64(n), rows))
    return rows


def count_ids(ids, n: int):
    """int64 counts of each id in [0, n) among ``ids`` (int32 or int64, every one in
    range: the caller checks), as ``bincount(ids, minlength=n)`` gives them."""
    ids = jit.contiguous(ids)
    if ids.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        ids = ids.astype(np.int64)
    counts = cupy.zeros(n, dtype=np.uint64)
    if ids.size and n:
        name = "kl_count_ids<int>" if ids.dtype == np.int32 else "kl_count_ids<long long>"
        fn = jit.function(codegen.structure_spec(), name)
        grid = jit.blocks_for(int(ids.size), _THREADS, cap=jit.sm_count(jit.device_id()) * 16)
        fn((grid,), (_THREADS,), (ids, np.int64(ids.size), counts))
    return counts.view(np.int64)


def symmetry_sums(
    indptr, indices, values, salt: int, stats: dict | None = None, *, fingerprint: bool = True
):
    """(pattern sum, value sum, NaN count) as Python ints, in one pass over the CSR:
    both sums are 0 when it equals its transpose (see kernels/structure.cu).

    ``values`` None: the pattern only (the value sum and NaN count are 0). ``stats``, a
    dict, also gets from the same read (and host copy) the values' "least" and
    "greatest" (NaN aside; absent when every value is NaN), "positive_sum" and
    "positive_count" (floats; the sum in float64, its rounding depends on the order).
    ``fingerprint=False`` (float values): the values are scanned but not hashed, and
    the value sum is None (unknown), for a caller that reads the pattern only: two of
    the three hashes an entry costs are left out.
    """
    ptr, idx = jit.contiguous(indptr, np.int64), jit.contiguous(indices, np.int32)
    if ptr.size <= 1 or idx.size == 0:
        return 0, 0, 0
    fingerprint = fingerprint or (values is not None and values.dtype.kind != "f")
    host = launch_symmetry_sums(ptr, idx, values, salt, fingerprint=fingerprint).get()
    if stats is not None and values is not None:
        _value_stats(host[2:], stats)
    return int(host[0]), int(host[1]) if fingerprint else None, int(host[2])


def launch_symmetry_sums(indptr, indices, values, salt: int, *, fingerprint: bool = True):
    """:func:`symmetry_sums`' pass, launched and not waited for: the uint64 device array
    it fills (out[0] the pattern sum, out[1] the value sum, out[2:7] the value scan),
    for a caller that reads it together with other results (one wait for both).
    ``indptr`` int64, ``indices`` int32 (as ``symmetry_sums`` makes them), nonempty."""
    ptr, idx = jit.contiguous(indptr, np.int64), jit.contiguous(indices, np.int32)
    if values is None:
        name, vals = "kl_symmetry_sums<bool, 0>", jit.dummy_bool()
    else:
        vals = jit.contiguous(values)
        ctype = _VALUE_TYPES.get(vals.dtype)
        if ctype is None:
            raise DomainMismatch(f"symmetry_sums: no kernel for {vals.dtype} values")
        fingerprint = fingerprint or vals.dtype.kind != "f"  # (mode 1: floats only)
        name = f"kl_symmetry_sums<{ctype}, {2 if fingerprint else 1}>"
    dev = jit.device_id()
    stream = cupy.cuda.get_current_stream().ptr
    out = cupy.empty(7, dtype=np.uint64)  # the two sums at 0, then the scan's start
    cupy.cuda.runtime.memsetAsync(out.data.ptr, 0, 16, stream)
    rt, start = cupy.cuda.runtime, _scan_start(dev)
    rt.memcpyAsync(out.data.ptr + 16, start.data.ptr, start.nbytes, rt.memcpyDeviceToDevice, stream)
    fn = jit.function(codegen.structure_spec(), name)
    chunks = -(-int(idx.size) // _SCAN_CHUNK)
    grid = jit.blocks_for(chunks * 32, _THREADS, cap=jit.sm_count(dev) * 16)
    fn((grid,), (_THREADS,), (ptr, idx, vals, np.int64(ptr.size - 1), np.uint64(salt), out))
    return out


_scan_starts: dict[int, cupy.ndarray] = {}


def _scan_start(dev: int | None = None) -> cupy.ndarray:
    """kl_value_scan's start (kernels/structure.cu): no NaN, the least key at the top,
    the rest 0; kept on each device, so that a scan's output starts by one copy."""
    dev = jit.device_id() if dev is None else dev
    start = _scan_starts.get(dev)
    if start is None:
        start = _scan_starts[dev] = cupy.asarray(np.array([0, 2**64 - 1, 0, 0, 0], np.uint64))
    return start


def _scan_out() -> cupy.ndarray:
    """A fresh kl_value_scan output holding its start."""
    out = cupy.empty(5, dtype=np.uint64)
    _start_into(out, jit.device_id(), cupy.cuda.get_current_stream().ptr)
    return out


def _start_into(out: cupy.ndarray, dev: int, stream: int) -> None:
    """Reset a kl_value_scan output to its start on ``stream`` (one raw device copy:
    CuPy's ``copy`` spends far more host time than the 40 bytes need)."""
    start = _scan_start(dev)
    rt = cupy.cuda.runtime
    rt.memcpyAsync(out.data.ptr, start.data.ptr, start.nbytes, rt.memcpyDeviceToDevice, stream)


def _value_stats(host: np.ndarray, stats: dict) -> None:
    """Decode a kl_value_scan's out[0:5] (kernels/structure.cu) into ``stats``.
    (Python ints and struct, not NumPy: this is on the host path of every APSP call.)"""
    _, lo, hi, total, count = (int(x) for x in host[:5])
    if lo <= hi:  # some value is not NaN
        stats["least"], stats["greatest"] = _key_value(lo), _key_value(hi)
    stats["positive_sum"] = _F64.unpack(_U64.pack(total))[0]
    stats["positive_count"] = float(count)


_U64, _F64 = struct.Struct("<Q"), struct.Struct("<d")
_TOP = 1 << 63


def _key_value(key: int) -> float:
    """The float64 a kl_value_scan order key stands for (kernels/structure.cu)."""
    bits = key ^ _TOP if key >= _TOP else ~key & (2 * _TOP - 1)
    return _F64.unpack(_U64.pack(bits))[0]


def dense_scan(values, present, stats: dict | None = None, mark=None) -> int:
    """The number of NaNs among a dense matrix's ``values`` where ``present`` (a bool
    array of the same shape, or None: everywhere) says stored, in one pass and one host
    read; ``stats`` (a dict) also gets "least", "greatest" (NaN aside; absent when no
    value is stored but NaN), "positive_sum" and "positive_count", as
    :func:`symmetry_sums` gives them. ``mark`` (with ``present`` None): the entries equal
    to it are absent (a matrix kept with its absent marker, ``Storage.absent``). 1- or
    2-D arrays; 2-D views with unit column stride are read in place. TypeError for a
    value type without a kernel."""
    ctype = _VALUE_TYPES.get(np.dtype(values.dtype))
    if ctype is None:
        raise DomainMismatch(f"dense_scan: no kernel for {values.dtype} values")
    keep = _keep(values, present, mark)
    if keep is None:  # no marked kernel for this type or layout: the bitmap first
        present, keep = values != mark, _KEEP_BITMAP
    out = _scan_out()
    sms = jit.sm_count(jit.device_id())
    if _vector_ok(values, present):  # 16-byte loads
        n = values.size
        fn = jit.function(codegen.structure_spec(), f"kl_dense_scan_vec<{ctype}, {keep}>")
        grid = jit.blocks_for(n // (16 // values.itemsize) + 1, _THREADS, cap=sms * 8)
        p = jit.dummy_bool() if present is None else present
        fn((grid,), (_THREADS,), (values, p, _mark_arg(values, mark), np.int64(n), out))
    elif values.size:
        mask = "false" if present is None else "true"
        (v, ldv), (p, ldp) = _rows_of(values, present)
        rows, cols = v.shape
        gx = jit.blocks_for(cols, _THREADS, cap=sms * 8)
        gy = max(1, min(rows, (sms * 8) // gx, 65535))
        fn = jit.function(codegen.structure_spec(), f"kl_dense_scan<{ctype}, {mask}>")
        fn(
            (gx, gy),
            (_THREADS,),
            (v, np.int64(ldv), p, np.int64(ldp), np.int64(rows), np.int64(cols), out),
        )
    host = out.get()
    if stats is not None:
        _value_stats(host, stats)
    return int(host[0])


# kl_keep (kernels/structure.cu): which entries a dense pass takes as stored.
_KEEP_ALL, _KEEP_BITMAP, _KEEP_MARKED = 0, 1, 2


def _keep(values, present, mark) -> int | None:
    """The kl_keep of a pass over ``values``; None for a marker the 16-byte kernels do
    not take (a value type without a marked kernel, or an unaligned array)."""
    if present is not None:
        return _KEEP_BITMAP
    if mark is None:
        return _KEEP_ALL
    marked = _VALUE_TYPES[np.dtype(values.dtype)] in codegen.MARKED_VALUE_TYPES
    return _KEEP_MARKED if marked and _vector_ok(values, None) else None


def _mark_arg(values, mark):
    """The marker as a kernel argument of the values' type (0 where there is none)."""
    return values.dtype.type(0 if mark is None else mark)


_DENSE_FILL = cupy.ElementwiseKernel("T v, bool p, T f", "T y", "y = p ? v : f", "kl_dense_fill")


def dense_fill(values, present, fill, out=None, mark=None) -> cupy.ndarray:
    """``present ? values : fill`` elementwise into ``out`` (a new array if None; of
    values' shape and dtype; ``present`` None: every entry stored, or with ``mark`` every
    entry that differs from it): a dense matrix's dense form in one pass, by 16-byte
    loads and stores where the arrays are contiguous and aligned (kl_dense_fill_vec)."""
    return _fill(values, present, fill, out, False, mark)[0]


def dense_fill_scan(values, present, fill, out=None, mark=None):
    """(out, pending): :func:`dense_fill`, and from the same read the stored values'
    scan, read back only when asked: ``pending.result()`` is (NaN count, stats) as
    :func:`dense_scan` gives them. ``pending`` is None where the fill takes another
    path than the 16-byte kernel (unaligned or strided arrays, a value type without
    one): scan apart."""
    return _fill(values, present, fill, out, True, mark)


def _fill(values, present, fill, out, scan: bool, mark=None):
    if out is None:
        out = cupy.empty(values.shape, dtype=values.dtype)
    fill = values.dtype.type(fill)
    ctype = _VALUE_TYPES.get(np.dtype(values.dtype))
    keep = None if ctype is None else _keep(values, present, mark)
    aligned = out.flags.c_contiguous and out.data.ptr % 16 == 0
    fused = keep is not None and aligned and _vector_ok(values, present)
    copy = present is None and mark is None
    if copy and not (scan and fused and ctype in codegen.MARKED_VALUE_TYPES):
        out[...] = values  # a copy by assignment into a new array: CuPy's .copy() of a
        return out, None  # large matrix runs a slower elementwise kernel
    if not fused:
        if present is None:  # a marker the 16-byte kernel does not take here
            present = values != mark
        _DENSE_FILL(values, present, fill, out)
        return out, None
    n = values.size
    dev = jit.device_id()
    name = f"kl_dense_fill_vec<{ctype}, {str(scan).lower()}, {keep}>"
    fn = jit.function(codegen.structure_spec(), name)
    grid = jit.blocks_for(n // (16 // values.itemsize) + 1, _THREADS, cap=jit.sm_count(dev) * 8)
    p = jit.dummy_bool() if present is None else present
    args = (values, p, _mark_arg(values, mark), fill, np.int64(n), out)
    if not scan:
        fn((grid,), (_THREADS,), (*args, np.uint64(0)))
        return out, None
    stream = cupy.cuda.get_current_stream()
    slot = _ScanSlot.take(dev, stream)
    fn((grid,), (_THREADS,), (*args, slot.found))
    return out, PendingScan(slot, stream)


class _ScanSlot:
    """A kl_value_scan output on the device, page-locked memory for its answer and an
    event, reused (per device) once a scan's answer is read: making them is host work on
    the path of every public APSP call before its fill. The output is reset to the
    scan's start when its answer is read, behind the work queued by then (APSP's closure
    and result copy), not right before the fill, where it would be the first GPU work
    after the caller's sync."""

    __slots__ = ("found", "host", "event", "dev", "reset_on")
    _free: dict[int, list] = {}  # device -> slots whose last answer has been read

    def __init__(self, dev: int, stream: int):
        self.found = cupy.empty(5, dtype=np.uint64)
        self.host = cupy.cuda.alloc_pinned_memory(self.found.nbytes)
        self.event = cupy.cuda.Event(disable_timing=True)
        self.dev = dev
        self._reset(stream)

    def _reset(self, stream: int) -> None:
        _start_into(self.found, self.dev, stream)
        self.reset_on = stream

    @classmethod
    def take(cls, dev: int, stream: cupy.cuda.Stream) -> _ScanSlot:
        """A slot of device ``dev`` holding the scan's start for work on ``stream``."""
        free = cls._free.get(dev)
        if not free:
            return cls(dev, stream.ptr)
        slot = free.pop()  # (atomic under threads)
        if slot.reset_on != stream.ptr:  # reset on another stream: wait for it
            stream.wait_event(slot.event)
        return slot

    def give_back(self, stream: cupy.cuda.Stream) -> None:
        """Read: reset it behind the work on ``stream`` and make it free (not when another
        device is current: left to the garbage collector)."""
        if cupy.cuda.runtime.getDevice() != self.dev:
            return
        self._reset(stream.ptr)
        self.event.record(stream)
        self._free.setdefault(self.dev, []).append(self)


class PendingScan:
    """A kl_value_scan's answer on its way to the host: copied into page-locked memory
    behind the kernel that gathered it, an event recorded after the copy, so the
    host goes on launching work and waits (:meth:`result`) only when it needs it."""

    __slots__ = ("_slot", "_answer")

    def __init__(self, slot: _ScanSlot, stream: cupy.cuda.Stream):
        rt = cupy.cuda.runtime
        found = slot.found
        rt.memcpyAsync(
            slot.host.ptr, found.data.ptr, found.nbytes, rt.memcpyDeviceToHost, stream.ptr
        )
        slot.event.record(stream)
        self._slot = slot
        self._answer = None

    def result(self) -> tuple[int, dict]:
        """(NaN count, stats), waiting for the scan if it is still running."""
        if self._answer is None:
            slot = self._slot
            slot.event.synchronize()
            host = np.frombuffer(slot.host, np.uint64, 5).tolist()
            stats: dict = {}
            _value_stats(host, stats)
            self._answer = (host[0], stats)
            self._slot = None
            slot.give_back(cupy.cuda.get_current_stream())  # the next scan may reuse it
        return self._answer


def _vector_ok(values, present) -> bool:
    """Whether kl_dense_scan_vec can read these: contiguous, values 16-byte aligned
    and the bitmap aligned to the bytes beside each 16 of values."""
    if not values.size or not values.flags.c_contiguous or values.data.ptr % 16:
        return False
    if present is None:
        return True
    return present.flags.c_contiguous and present.data.ptr % (16 // values.itemsize) == 0


def _rows_of(values, present):
    """((values, row stride), (present or a dummy, row stride)) as rows x cols arrays
    of one shape: both contiguous as one row, else 2-D views with unit column stride
    (others copied)."""
    from .dense import as_view

    if values.flags.c_contiguous and (present is None or present.flags.c_contiguous):
        flat = values.reshape(1, -1), max(values.size, 1)
        return flat, (jit.dummy_bool(), 0) if present is None else (present.reshape(1, -1), flat[1])
    if values.ndim == 1:  # (1-D and not contiguous: strided)
        values = values.reshape(1, -1)
        present = None if present is None else present.reshape(1, -1)
    return as_view(values), (jit.dummy_bool(), 0) if present is None else as_view(present)


def union_min(a, b, n: int, values: bool = True):
    """CSR (indptr, indices, values or None) of the row-wise union of CSRs ``a`` and ``b``
    (each (indptr, indices, values) with sorted rows): the lesser value where both
    hold an entry; ``values=False`` merges the patterns only. Two passes, no sort."""
    a_ptr, b_ptr = jit.contiguous(a[0], np.int64), jit.contiguous(b[0], np.int64)
    a_idx, b_idx = jit.contiguous(a[1], np.int32), jit.contiguous(b[1], np.int32)
    if values:
        a_val = jit.contiguous(a[2])
        b_val = jit.contiguous(b[2], a_val.dtype)
        ctype = _VALUE_TYPES.get(a_val.dtype)
        if ctype is None:
            raise DomainMismatch(f"union_min: no kernel for {a_val.dtype} values")
        name = f"kl_union_min<{ctype}, true>"
    else:
        a_val = b_val = jit.dummy_bool()
        name = "kl_union_min<bool, false>"
    fn = jit.function(codegen.structure_spec(), name)
    grid = (jit.blocks_for(max(n, 1), _THREADS, cap=jit.sm_count(jit.device_id()) * 16),)
    counts = cupy.empty(max(n, 0), dtype=np.int64)
    null = np.uint64(0)  # the count pass: no output arrays yet
    fn(
        grid,
        (_THREADS,),
        (a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, np.int64(n), counts, null, null, null),
    )
    c_ptr = cupy.zeros(n + 1, dtype=np.int64)
    cupy.cumsum(counts, out=c_ptr[1:])
    del counts
    nnz = int(c_ptr[-1])
    c_idx = cupy.empty(nnz, dtype=np.int32)
    c_val = cupy.empty(nnz, dtype=a_val.dtype) if values else jit.dummy_bool()
    fn(
        grid,
        (_THREADS,),
        (a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, np.int64(n), c_ptr, c_ptr, c_idx, c_val),
    )
    return c_ptr, c_idx, (c_val if values else None)
