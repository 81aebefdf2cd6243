"""Move between kleene containers and the reference, and compare results.

>>> import numpy as np, kleene
>>> from kleene.testing import to_reference, from_reference, assert_matches
>>> A = kleene.Matrix.from_edges([0, 1], [1, 0], [2.0, 3.0])
>>> R = to_reference(A)
>>> R.data == {(0, 1): 2.0, (1, 0): 3.0}
True
>>> assert_matches(from_reference(R, format="dense"), R)
"""

from __future__ import annotations

import numpy as np

from kleene.errors import InvalidObject

from .reference import RefMask, RefMatrix, RefVector
from .scalars import same_value

__all__ = ["assert_matches", "from_reference", "mask_to_reference", "to_reference"]


def _host(a) -> np.ndarray:
    return a.get() if type(a).__module__.startswith("cupy") else np.asarray(a)


def to_reference(x) -> RefMatrix | RefVector:
    """A reference copy of a kleene Matrix or Vector (on either device), via ``to_coo``."""
    import kleene

    if isinstance(x, kleene.Matrix):
        rows, cols, vals = (_host(a) for a in x.to_coo())
        data = {(int(i), int(j)): v for i, j, v in zip(rows, cols, vals, strict=True)}
        if len(data) != rows.size:
            raise AssertionError(f"to_coo of {x!r} repeats a position")
        return RefMatrix(x.shape, x.dtype, data)
    if isinstance(x, kleene.Vector):
        idx, vals = (_host(a) for a in x.to_coo())
        data = {int(i): v for i, v in zip(idx, vals, strict=True)}
        if len(data) != idx.size:
            raise AssertionError(f"to_coo of {x!r} repeats an index")
        return RefVector(x.size, x.dtype, data)
    raise InvalidObject(f"expected a kleene Matrix or Vector, got {type(x).__name__}")


def from_reference(r: RefMatrix | RefVector, *, format: str | None = None, device: str = "cpu"):
    """A kleene container holding ``r``'s entries (``format`` default: csr / sparse)."""
    import kleene

    if isinstance(r, RefVector):
        keys = sorted(r.data)
        vals = np.array([r.data[k] for k in keys], dtype=r.dtype)
        x = kleene.Vector.from_coo(np.array(keys, dtype=np.int64), vals, r.size, dtype=r.dtype)
    else:
        keys = sorted(r.data)
        m, n = r.shape
        counts = np.bincount(np.array([i for i, _ in keys], dtype=np.int64), minlength=m)
        indptr = np.concatenate([[0], np.cumsum(counts[:m])]).astype(np.int64)
        cols = np.array([j for _, j in keys], dtype=np.int64)
        vals = np.array([r.data[k] for k in keys], dtype=r.dtype)
        x = kleene.Matrix.from_csr(indptr, cols, vals, (m, n))
    if format is not None and x.format != format:
        x = x.to_format(format)
    return x.to(device) if device != "cpu" else x


def mask_to_reference(mask) -> RefMask | None:
    """A RefMask from ``M.S``, ``M.V``, their complements, or a container (= ``M.V``)."""
    import kleene

    if mask is None:
        return None
    if isinstance(mask, (kleene.Matrix, kleene.Vector)):
        return RefMask(to_reference(mask), structural=False, complement=False)
    return RefMask(to_reference(mask.container), mask.structural, mask.complement)


def _describe(key) -> str:
    return f"({key[0]}, {key[1]})" if isinstance(key, tuple) else f"[{key}]"


def assert_matches(actual, expected, *, context: str = "", check_dtype: bool = True) -> None:
    """Assert a kleene container (or scalar) equals a reference result.

    Same shape, same stored positions, equal values (a reference ``OneOf`` accepts
    any of its members), and the same dtype unless ``check_dtype=False``. The
    message lists the first differing positions.
    """
    import kleene

    where = f" ({context})" if context else ""
    if not isinstance(expected, (RefMatrix, RefVector)):
        if isinstance(actual, (kleene.Matrix, kleene.Vector)):
            raise AssertionError(f"expected a scalar, got {actual!r}{where}")
        if not same_value(actual, expected):
            raise AssertionError(f"scalar {actual!r} != reference {expected!r}{where}")
        if check_dtype and np.asarray(actual).dtype != np.asarray(_one(expected)).dtype:
            raise AssertionError(
                f"scalar dtype {np.asarray(actual).dtype} != {np.asarray(_one(expected)).dtype}"
                f"{where}"
            )
        return
    got = to_reference(actual)
    if tuple(got.shape) != tuple(expected.shape):
        raise AssertionError(f"shape {got.shape} != reference {expected.shape}{where}")
    if check_dtype and got.dtype != expected.dtype:
        raise AssertionError(f"dtype {got.dtype} != reference {expected.dtype}{where}")
    problems = []
    for key in sorted(set(got.data) | set(expected.data)):
        if key not in got.data:
            problems.append(f"{_describe(key)}: missing, reference has {expected.data[key]!r}")
        elif key not in expected.data:
            problems.append(f"{_describe(key)}: {got.data[key]!r} should be absent")
        elif not same_value(got.data[key], expected.data[key]):
            problems.append(
                f"{_describe(key)}: {got.data[key]!r} != reference {expected.data[key]!r}"
            )
    if problems:
        shown = "\n  ".join(problems[:10])
        more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise AssertionError(f"result differs from the reference{where}:\n  {shown}{more}")


def _one(x):
    from .scalars import OneOf

    return next(iter(x.values)) if isinstance(x, OneOf) else x
