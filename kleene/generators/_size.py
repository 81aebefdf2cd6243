"""Refuse graphs too large to build before drawing them, saying what would fit.

Peak bytes measured with tracemalloc on the CPU (from_spec at 10⁵–10⁶ edges):
about 90 bytes per generated edge (the drawn arrays, their sort, the CSR) and
13 per pair for the dense Erdős–Rényi matrix; rmat() alone, 31 per edge.
"""

from __future__ import annotations

from kleene.backends import MEMORY_SHARE, gpu_memory_free, host_memory_free
from kleene.errors import InvalidValue, OutOfMemory

MAX_VERTICES = 2**31 - 1  # kleene indexes vertices with int32
BYTES_PER_EDGE = 96
BYTES_PER_VERTEX = 32
BYTES_PER_PAIR = 16
RMAT_BYTES_PER_EDGE = 32  # rmat() alone: the int64 pairs and one bit's draws


def budget(device: str) -> tuple[int, str]:
    """(bytes a graph may take on ``device``, that memory's name)."""
    if device == "gpu":
        return int(MEMORY_SHARE * gpu_memory_free()), "GPU memory"
    return int(MEMORY_SHARE * host_memory_free()), "host memory"


def sparse_bytes(n: int, edges: int) -> int:
    return BYTES_PER_EDGE * edges + BYTES_PER_VERTEX * n


def dense_bytes(n: int) -> int:
    return BYTES_PER_PAIR * n * n


def check(what: str, n: int, need: int, device: str, fits, max_vertices: int = MAX_VERTICES):
    """ValueError naming ``what`` when n overflows the vertex ids, MemoryError when
    ``need`` bytes do not fit on ``device``; ``fits(budget)`` says what would."""
    room, where = budget(device)
    if n > max_vertices:
        raise InvalidValue(
            f"{what} is too large: {n} vertices, but kleene numbers vertices with int32 "
            f"(at most {MAX_VERTICES}); {fits(room)} fits in this machine's {where}"
        )
    if need > room:
        raise OutOfMemory(
            f"{what} is too large: it needs about {_gib(need)} of {where} to build, "
            f"{_gib(room / MEMORY_SHARE)} is free; {fits(room)} fits"
        )


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:,.1f} GiB"


def largest(ok, lo: int = 1, hi: int = MAX_VERTICES) -> int:
    """The largest x in [lo, hi] with ok(x) (ok monotone), or lo - 1 if none."""
    if not ok(lo):
        return lo - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo
