"""pydata ``sparse`` arrays in and out, as SciPy accepts them (without importing ``sparse``)."""

from __future__ import annotations

import numpy as np

from kleene.errors import InvalidValue


def is_pydata(G) -> bool:
    """A pydata ``sparse`` array (recognised by its module, so ``sparse`` never imports)."""
    return type(G).__module__.split(".")[0] == "sparse" and hasattr(G, "to_scipy_sparse")


def from_pydata(G, *accept):
    """(a SciPy sparse matrix, the pydata class) for a pydata array, else (G, None).

    Its fill value must be one SciPy reads as "no edge" (``accept``, plus 0, inf, NaN).
    """
    if not is_pydata(G):
        return G, None
    fill = G.fill_value
    ok = [0, np.inf, np.nan, *accept]
    if not any(fill == v or (np.isnan(v) and np.isnan(fill)) for v in ok):
        raise InvalidValue(f"pydata sparse fill_value {fill!r} is not a no-edge value")
    return G.to_scipy_sparse().asformat("csc"), type(G)


def to_pydata(result, cls):
    """``result`` (a SciPy sparse matrix) as ``cls``, or unchanged if ``cls`` is None."""
    if cls is None:
        return result
    return cls.from_scipy_sparse(result)
