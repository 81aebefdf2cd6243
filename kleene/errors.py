"""kleene's exception types, and the rule that GPU out-of-memory errors name their call.

One family, as in python-graphblas: every error kleene raises on purpose is a
``KleeneError`` and also the builtin a caller would catch without knowing kleene.
The CLI reports these as one line; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import functools


class KleeneError(Exception):
    """Base of every error kleene raises on purpose: catch it to catch them all.

    Each subclass also derives from the builtin a caller caught before kleene had
    types of its own (``DimensionMismatch`` is a ``ValueError``), so ``except
    ValueError`` keeps working.

    Example
    -------
    >>> import kleene
    >>> from kleene.errors import DimensionMismatch
    >>> A = kleene.Matrix.from_edges([0], [1], n=2)
    >>> try:
    ...     kleene.mxv(A, kleene.Vector.from_coo([0], [1.0], 3), "min_plus")
    ... except DimensionMismatch as e:
    ...     print(type(e).__name__, isinstance(e, ValueError))
    DimensionMismatch True
    """


class DimensionMismatch(KleeneError, ValueError):
    """Shapes that an operation cannot combine (an n×n matrix and a length-m vector)."""


class DomainMismatch(KleeneError, TypeError):
    """A type an operation cannot take: a dtype outside the semiring's domain, a
    container where a scalar belongs, an operator of the wrong kind."""


class InvalidValue(KleeneError, ValueError):
    """An argument of the right type with a value kleene refuses: an unknown method,
    a negative size, NaN where a weight belongs, a vertex out of range."""


class InvalidObject(KleeneError, TypeError):
    """An argument that is not the kind of object asked for (not a Matrix, not a
    graph kleene can read)."""


class IndexOutOfBound(KleeneError, IndexError):
    """An index beyond a container's shape."""


class NegativeCycleError(KleeneError, ValueError):
    """A negative-weight cycle makes shortest paths undefined (as in scipy.sparse.csgraph)."""


class OutOfMemory(KleeneError, MemoryError):
    """What was asked cannot fit in the memory there is; the message names the bytes
    asked for and what is free."""


class DeviceUnavailable(KleeneError, RuntimeError):
    """The GPU was asked for and there is none (no CuPy, no driver, no device)."""


def names_gpu_memory(what: str):
    """Decorator: CuPy's OutOfMemoryError inside the call becomes a MemoryError that
    names the call, what was asked and what the GPU has free (the pool's cached
    blocks released first, so the figure is what a retry could get).

    Example
    -------
    >>> @names_gpu_memory("demo")
    ... def f():
    ...     return 1
    >>> f()
    1
    """

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except MemoryError as e:
                if not type(e).__module__.startswith("cupy"):
                    raise  # kleene's own MemoryErrors already say what fits
                raise OutOfMemory(f"{what}: out of GPU memory ({e}); {_gpu_free()}") from e

        return call

    return wrap


def _gpu_free() -> str:
    try:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
        free, total = cupy.cuda.runtime.memGetInfo()
    except Exception:  # no device to ask
        return "free GPU memory unknown"
    gib = 1 << 30
    return (
        f"{free / gib:.2f} GiB of {total / gib:.2f} GiB are free now; a smaller "
        "input, fewer sources at once, or the CPU (a NumPy/SciPy input) may fit"
    )
