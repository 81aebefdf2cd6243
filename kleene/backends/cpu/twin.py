"""A second compiled variant of one Python function, kept apart in Numba's disk cache.

Numba's cache files a function's machine code under its module, qualified name and
first line, and looks an entry up by its argument types: the compile options
(``parallel=True`` or not) are not part of the key. Two dispatchers of one function,
one serial and one parallel, then share entries: whichever compiles first is loaded
by the other, in that process and in every later one, so the parallel variant can
run on one thread (or the serial one start threads). A twin is the same code under
another qualified name, so each variant has its own cache file.
"""

from __future__ import annotations

import types


def twin(fn: types.FunctionType, suffix: str) -> types.FunctionType:
    """``fn``'s code, globals, defaults and closure under the name ``fn.__name__ +
    suffix`` (and qualified name likewise), for a second ``numba.njit`` of it.

    >>> def f(x):
    ...     return x + 1
    >>> g = twin(f, "_serial")
    >>> g(1), g.__name__, g.__qualname__.endswith("f_serial"), g.__code__ is f.__code__
    (2, 'f_serial', True, True)
    """
    copy = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__, fn.__closure__
    )
    copy.__qualname__ = fn.__qualname__ + suffix
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy
