"""The (k, n) results of a k-source search: refused up front when they cannot fit.

A multi-source BFS or shortest-path run writes one row of n entries per source
(levels or distances, and predecessors when asked). Those rows are allocated
before the first search starts, so a request that could never fit is refused
there, naming the bytes, instead of failing (or swapping) after minutes of work.
"""

from __future__ import annotations

from kleene.backends.device import host_memory_free
from kleene.errors import OutOfMemory


def check_rows_fit(
    opname: str, k: int, n: int, what: str, bytes_per_entry: int, free: int | None = None
) -> int:
    """The bytes of k rows of n entries of ``bytes_per_entry`` each; MemoryError naming
    them when they exceed the available host memory (``free``: that figure, read from
    the system when None).

    Example
    -------
    >>> check_rows_fit("bfs", 64, 1000, "int64 levels", 8)
    512000
    >>> try:
    ...     check_rows_fit("bfs", 10**5, 3 * 10**5, "int64 levels", 8, free=2**34)
    ... except MemoryError as e:
    ...     print(str(e)[:78])
    bfs: 100,000 sources × 300,000 vertices need 240,000,000,000 bytes (223.5 GiB)
    """
    need = int(k) * int(n) * int(bytes_per_entry)
    free = host_memory_free() if free is None else int(free)
    if need > free:
        raise OutOfMemory(
            f"{opname}: {k:,} sources × {n:,} vertices need {need:,} bytes "
            f"({need / 2**30:.1f} GiB) of {what}, but {free:,} bytes ({free / 2**30:.1f} GiB) "
            "of host memory are available; run fewer sources at a time"
        )
    return need
