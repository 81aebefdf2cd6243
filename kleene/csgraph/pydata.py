"""pydata ``sparse`` arrays in and out, as SciPy accepts them (without importing ``sparse``)."""

from __future__ import annotations

import numpy as np


def is_pydata(G) -> bool:
    """A pydata ``sparse`` array (recognised by its module, so ``sparse`` never imports)."""
    return type(G).__module__.split(".")[0] == "sparse" and hasattr(G, "to_scipy_sparse")


def from_pydata(G, *accept):
    """(a SciPy sparse matrix, the pydata class) for a pydata array, else (G, None).

    Its fill value must be one SciPy reads as "no edge": 0, inf, NaN (and ``accept``).
    """
    if not is_pydata(G):
        return G, None
    fills = [0, np.inf, np.nan, *accept]
    try:  # (``accept_fv`` is new in pydata sparse 0.15.4)
        S = G.to_scipy_sparse(accept_fv=fills)
    except TypeError:
        S = G.to_scipy_sparse()
    return (S if S.format in ("csc", "csr") else S.tocsc()), type(G)


def to_pydata(result, cls):
    """``result`` (a SciPy sparse matrix) as ``cls``, or unchanged if ``cls`` is None."""
    if cls is None:
        return result
    return cls.from_scipy_sparse(result)
