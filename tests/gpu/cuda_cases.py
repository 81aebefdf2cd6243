"""Shared cases and checks of the CUDA primitive tests (a helper, not a test module).

``gpu_missing()`` says why the GPU tests cannot run (None when they can); call it
and skip before anything else here touches the GPU. ``CASES`` (every built-in
semiring x each of its dtypes), ``values`` (random carrier values), ``g`` (to the
GPU) and ``check`` (GPU result against a CPU one) are used by
test_cuda_primitives.py and test_closure_primitives.py. Importing this module
needs no CuPy: ``g`` and ``check`` import it when first called.
"""

from __future__ import annotations

import numpy as np
import pytest

from kleene.semiring import SEMIRINGS, Monoid, Semiring
from kleene.semiring.dtypes import infinity, neg_infinity


def gpu_missing() -> str | None:
    """Why the GPU tests cannot run here, or None when CuPy sees a CUDA GPU."""
    try:
        import cupy
    except Exception as e:  # ImportError or a broken CUDA install
        return f"cupy is not importable ({type(e).__name__})"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "cupy sees no CUDA GPU"
    except Exception as e:
        return f"cupy sees no CUDA GPU ({type(e).__name__})"
    return None


CASES = [
    pytest.param(sr, np.dtype(d), id=f"{name}-{np.dtype(d).name}")
    for name, sr in SEMIRINGS.items()
    for d in sr.dtypes
]


def _specials(sr: Semiring, d: np.dtype) -> list:
    """Infinities the semiring's carrier admits (none where they would make NaN)."""
    if d == np.bool_ or sr.mul.name == "times" or sr.add.name == "plus":
        return []
    if sr.domain == "no_neg_inf":
        out = [infinity(d)]
    elif sr.domain == "no_pos_inf":
        out = [neg_infinity(d)]
    else:
        out = [infinity(d), neg_infinity(d)]
    if d.kind == "i" and sr.mul.name == "tplus":  # saturating sums near the limits
        info = np.iinfo(d)
        out += [d.type(info.max - 3), d.type(info.min + 3)]
    return out


def values(rng, size, d: np.dtype, sr: Semiring | None = None) -> np.ndarray:
    """Random values of dtype ``d`` on the semiring's carrier, ~10% special."""
    d = np.dtype(d)
    if d == np.bool_:
        return rng.random(size) < 0.5
    lo = 0 if sr is not None and (sr.domain == "nonneg" or sr.add.name == "plus") else -20
    v = rng.integers(lo, 20, size=size).astype(d)
    if d.kind == "f":
        v += rng.random(size).astype(d)
    specials = _specials(sr, d) if sr is not None else []
    if specials and np.size(v):
        pick = rng.random(size) < 0.1
        v[pick] = rng.choice(np.array(specials, dtype=d), size=int(pick.sum()))
    return v


def g(a):
    """To the GPU; None stays None."""
    import cupy

    return None if a is None else cupy.asarray(a)


def check(got, want, d: np.dtype, add: Monoid) -> None:
    """A GPU result equals the CPU's: exactly, except float sums/products of a
    non-idempotent add (rounding depends on the order of terms)."""
    import cupy

    got = cupy.asnumpy(got)
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    if np.dtype(d).kind == "f" and not add.idempotent:  # float sums: order of rounding
        rtol = 1e-4 if np.dtype(d) == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(got, want)
