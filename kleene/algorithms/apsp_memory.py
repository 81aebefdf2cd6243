"""How much memory an all-pairs closure needs, where, and what fits: the checks that
``kleene.apsp`` and ``kleene.transitive_closure`` make before anything n×n is
allocated, and the MemoryError messages that say what was asked and what fits."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from kleene.backends import MEMORY_SHARE, gpu_memory_free, host_memory_free
from kleene.core import Matrix
from kleene.errors import OutOfMemory

from . import apsp_dense, apsp_sparse

SPARSE = ("repeated-sssp", "johnson")
OUT_OF_CORE = "blocked out-of-core"
# transitive_closure on the CPU: the whole matrix's closure at once (bytes a pair).
WHOLE = "closure"
WHOLE_BYTES_PER_PAIR = 3

# Host bytes of the out-of-core closure besides its n² arrays: the GPU's pinned
# staging chunks (kleene.backends.cuda.tile_stream: 2 rings of 3 × 64 MiB at most)
# and the graph's COO copy while D is built (per stored edge).
STAGING_BYTES = 6 * (64 << 20)
COO_BYTES_PER_EDGE = 24
SLAB_ENTRIES = 1 << 24  # entries of a dense graph read into host memory at a time


@dataclass(frozen=True)
class MemoryNeed:
    """What an n×n closure needs at its peak, where, and what is free there."""

    what: str  # "apsp" or "transitive_closure"
    n: int
    method: str
    preds: bool
    per_pair: int  # peak bytes per (i, j) pair
    per_vertex: int  # bytes per vertex besides (the sparse methods' batches)
    fixed: int  # bytes that do not grow with n
    free: int
    where: str  # "host memory" or "GPU memory"

    def bytes_for(self, n: int) -> int:
        return self.per_pair * n * n + self.per_vertex * n + self.fixed

    @property
    def bytes(self) -> int:
        return self.bytes_for(self.n)

    def fits(self) -> bool:
        return self.bytes <= MEMORY_SHARE * self.free

    def largest_n(self) -> int:
        """The largest n whose closure by this method fits in the same memory."""
        a, b, c = self.per_pair, self.per_vertex, MEMORY_SHARE * self.free - self.fixed
        if c < 0:
            return 0
        k = int((-b + (b * b + 4 * a * c) ** 0.5) / (2 * a))  # the root of a·n² + b·n = c
        while k > 0 and self.bytes_for(k) > MEMORY_SHARE * self.free:  # float rounding
            k -= 1
        while self.bytes_for(k + 1) <= MEMORY_SHARE * self.free:
            k += 1
        return k

    def describe(self) -> str:
        preds = " with predecessors" if self.preds else ""
        return (
            f"an {self.n}×{self.n} result{preds} by {self.method} needs about "
            f"{gib(self.bytes)} of {self.where} (the result and its working copies), "
            f"of which {gib(self.free)} is free and {MEMORY_SHARE:.0%} "
            f"({gib(MEMORY_SHARE * self.free)}) may be used; up to about n={self.largest_n()} fits"
        )


def gib(nbytes: float) -> str:
    if nbytes >= 2**30 / 10:
        return f"{nbytes / 2**30:,.1f} GiB"
    return f"{nbytes / 2**30:.4f} GiB ({nbytes / 2**20:.1f} MiB)"


def need_for(what: str, n: int, method: str, preds: bool, dtype, xp) -> MemoryNeed:
    """What ``method`` needs for an n×n closure, where it will live: dense methods where
    the graph is (``xp``); the sparse ones on a GPU graph in GPU memory when their
    results fit there, else (and on the CPU) in host memory."""
    gpu = xp is not np and method not in SPARSE
    if method == WHOLE:  # transitive_closure on the CPU
        per, per_vertex, fixed = WHOLE_BYTES_PER_PAIR, 0, apsp_dense.FIXED_BYTES
    elif method in SPARSE:
        per, per_vertex = apsp_sparse.bytes_per_pair(preds), apsp_sparse.BYTES_PER_VERTEX
        fixed = apsp_sparse.FIXED_BYTES
        if xp is not np:
            on_gpu = MemoryNeed(
                what,
                n,
                method,
                preds,
                per,
                apsp_sparse.DEVICE_BYTES_PER_VERTEX,
                fixed,
                gpu_memory_free(),
                "GPU memory",
            )
            if on_gpu.fits():
                return on_gpu
    else:
        per, per_vertex = apsp_dense.bytes_per_pair(dtype, preds, gpu), 0
        fixed = apsp_dense.FIXED_BYTES
    free = gpu_memory_free() if gpu else host_memory_free()
    where = "GPU memory" if gpu else "host memory"
    return MemoryNeed(what, n, method, preds, per, per_vertex, fixed, free, where)


def check_fits(
    n: int,
    dtype,
    preds: bool,
    xp,
    *,
    method: str = "recursive",
    what: str = "apsp",
    sparse_ok: bool = True,
    out_of_core: bool = False,
    out_of_core_extra: int | Callable[[], int] = 0,
) -> MemoryNeed:
    """What an n×n closure by ``method`` needs; an OutOfMemory (a MemoryError) that says
    how much was asked and the largest n that fits, unless it fits where its result
    will live.

    Dense methods work where the graph is (``xp``); the sparse ones keep their
    result in GPU memory when it fits there, else in host memory. ``sparse_ok``:
    the semiring is min_plus, so repeated-sssp is an alternative worth naming.
    ``out_of_core``: apsp's out-of-core closure is one too (named with what it needs
    in host memory, with ``out_of_core_extra`` bytes besides the result: ``out_of_core_extra(A)``,
    or a callable giving them, called only for the message when the check fails: on a
    dense GPU matrix counting its edges is a pass and a sync).

    Example
    -------
    >>> import numpy as np
    >>> check_fits(100, np.float64, False, np).fits()
    True
    """
    need = need_for(what, n, method, preds, dtype, xp)
    if need.fits():
        return need
    hints = []
    if preds and need_for(what, n, method, False, dtype, xp).fits():
        hints.append("it fits without return_predecessors")
    if sparse_ok and need.where == "GPU memory" and method not in SPARSE:
        sparse = need_for(what, n, "repeated-sssp", preds, dtype, xp)
        if sparse.fits():
            hints.append(f"method='repeated-sssp' fits (its float64 result in {sparse.where})")
    if out_of_core:
        extra = out_of_core_extra() if callable(out_of_core_extra) else out_of_core_extra
        host = out_of_core_need(n, dtype, preds, True, extra=extra)
        if host.fits():
            hints.append(
                "method='auto' or memory_limit= computes it out of core, the result "
                f"in host memory ({gib(host.bytes)}), where it fits"
            )
        else:
            hints.append(
                f"host memory is too small even out of core ({gib(host.bytes)} for "
                f"the result and the graph's copy, {gib(host.free)} free): pass "
                "out=numpy.memmap(...) to compute it out of core into a file"
            )
    raise OutOfMemory(f"{what}: {need.describe()}" + "".join(f"; {h}" for h in hints))


def out_of_core_need(
    n: int, dtype, preds: bool, new_dist: bool, new_pred: bool | None = None, extra: int = 0
) -> MemoryNeed:
    """Host memory of the out-of-core closure: the arrays it allocates (the result
    unless out= gives it, predecessors unless given), the predecessor repair's slabs
    (FIXED_BYTES) and ``extra`` (the graph's copy while D is built, staging buffers)."""
    new_pred = preds if new_pred is None else new_pred
    per = new_dist * np.dtype(dtype).itemsize + new_pred * 8
    return MemoryNeed(
        "apsp",
        n,
        OUT_OF_CORE,
        preds,
        per,
        0,
        apsp_dense.FIXED_BYTES + extra,
        host_memory_free(),
        "host memory",
    )


def out_of_core_extra(A: Matrix, gpu: bool | None = None) -> int:
    """Host bytes of the out-of-core closure besides its n² arrays: the graph's COO copy
    while D is built (a dense graph's: one slab of SLAB_ENTRIES at most), and on the GPU
    (``gpu``; None: where A lives) the pinned staging chunks."""
    coo = A.nvals if A.format != "dense" else min(A.nvals, SLAB_ENTRIES)
    gpu = A.xp is not np if gpu is None else gpu
    return COO_BYTES_PER_EDGE * coo + (STAGING_BYTES if gpu else 0)


@contextmanager
def out_of_memory(need: MemoryNeed) -> Iterator[None]:
    """An allocation failing despite the check (memory taken meanwhile, or a peak
    under-estimated) still says what was asked and what fits, not NumPy's words."""
    try:
        yield
    except MemoryError as e:
        raise OutOfMemory(f"{need.what}: ran out of {need.where}: {need.describe()}") from e
