"""A ← A* for one Boolean (or, and) block of up to 512 rows, bit-packed in shared memory.

The generic one-block closure (``closure.py``) takes a barrier a step on a 128-row
block (one entry per register, 128 sequential steps), and the recursive and blocked
closures run n such steps one after another: for bool, whose products run on the
tensor cores, the diagonal blocks would be most of the time. Packed 32 columns to a word, a step
is one word operation per 32 entries (kernels/bool_closure_bits.cu). Used by
``closure.closure_dense`` for lor_land on bool without predecessors.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cupy
import numpy as np

from kleene.errors import InvalidValue

MAX_N = 512
_THREADS = 1024


@cache
def _kernel(device: int) -> cupy.RawKernel:
    src = (Path(__file__).parent / "kernels" / "bool_closure_bits.cu").read_text()
    return cupy.RawModule(code=src, options=("-std=c++17",)).get_function("kl_bool_closure_bits")


def eligible(semiring, a, pred) -> bool:
    """(or, and) over bool, no predecessors, unit column stride (any n: larger
    closures take the blocked passes with this kernel on their diagonal blocks)."""
    return (
        pred is None
        and a.dtype == np.bool_
        and getattr(semiring.add, "name", None) == "lor"
        and semiring.mul.name == "land"
        and (a.shape[0] <= 1 or a.strides[1] == 1)
    )


def close(a: cupy.ndarray) -> None:
    """A ← A* in place (diagonal set) for a square bool view of n ≤ ``MAX_N`` that
    passed :func:`eligible`."""
    n = a.shape[0]
    if n == 0:
        return
    if n > MAX_N:
        raise InvalidValue(f"bool_closure: one block holds at most {MAX_N} rows, got {n}")
    lda = a.strides[0] if n > 1 else 1
    cells = n * -(-n // 32)  # one thread a word while they fit in one block
    threads = min(_THREADS, -(-cells // 32) * 32)
    kern = _kernel(cupy.cuda.runtime.getDevice())
    kern((1,), (threads,), (a, np.int64(lda), np.int32(n)))
