"""kleene's exception types, and the rule that GPU out-of-memory errors name their call."""

from __future__ import annotations

import functools


class NegativeCycleError(ValueError):
    """A negative-weight cycle makes shortest paths undefined (as in scipy.sparse.csgraph)."""


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
                raise MemoryError(f"{what}: out of GPU memory ({e}); {_gpu_free()}") from e

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
    return (f"{free / gib:.2f} GiB of {total / gib:.2f} GiB are free now; a smaller "
            "input, fewer sources at once, or the CPU (a NumPy/SciPy input) may fit")  # fmt: skip
