"""Seeded random numbers on the CPU (NumPy) or the GPU (CuPy), one interface."""

from __future__ import annotations

import numpy as np

from kleene.backends import module_for


def rng_for(seed, device: str):
    """(array module, generator) for ``device``; the same seed gives the same graph per device."""
    xp = module_for(device)
    return xp, xp.random.default_rng(seed)


def integers(xp, rng, low: int, high: int, size) -> object:
    """Uniform integers in [low, high) (via uniform floats: CuPy's generator has no integers)."""
    u = rng.random(size)
    return xp.minimum(xp.floor(u * (high - low)).astype(np.int64) + low, high - 1)


def uniform(rng, low: float, high: float, size, dtype=np.float64):
    return (low + (high - low) * rng.random(size)).astype(dtype)
