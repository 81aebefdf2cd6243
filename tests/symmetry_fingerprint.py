"""The symmetry pass's sums (``kernels/structure.cu``'s ``kl_symmetry_sums``,
``kleene/backends/cpu/symmetry.py``) computed in NumPy, for tests that check the
compiled passes add exactly what they say: over the entries (i, j) off the diagonal,
+h{i, j} where i < j and -h{i, j} where i > j, mod 2**64."""

from __future__ import annotations

import numpy as np

_K1, _K2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def mix(z):
    """SplitMix64's finaliser on uint64 words (wrapping), as ``kl_mix``."""
    z = (z ^ (z >> np.uint64(30))) * _K1
    z = (z ^ (z >> np.uint64(27))) * _K2
    return z ^ (z >> np.uint64(31))


def fingerprint(indptr, indices, salt: int, values=None) -> tuple[int, int]:
    """(pattern sum, value sum) of a CSR; the value sum 0 without ``values``."""
    n = len(indptr) - 1
    rows = np.repeat(np.arange(n, dtype=np.uint64), np.diff(indptr))
    cols = np.asarray(indices).astype(np.uint64)
    lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
    sign = np.where(rows < cols, np.uint64(1), np.where(rows > cols, ~np.uint64(0), np.uint64(0)))
    s = np.uint64(salt)
    with np.errstate(over="ignore"):
        h = mix(s ^ ((lo << np.uint64(32)) | hi))
        pattern = int((h * sign).sum(dtype=np.uint64))
        if values is None:
            return pattern, 0
        bits = (np.asarray(values).astype(np.float64) + 0.0).view(np.uint64)
        return pattern, int((mix(h ^ mix(bits + s)) * sign).sum(dtype=np.uint64))
