"""SciPy's ``connected_components`` over kleene's components primitives."""

from __future__ import annotations

import numpy as np

import kleene
from kleene.engine import has_weak_components, strong_components, weak_components

from .validation import InvalidValue, validate


def connected_components(csgraph, directed=True, connection="weak", return_labels=True):
    """The connected components, as ``scipy.sparse.csgraph.connected_components``.

    Dense input: 0, NaN and inf are no edge; a sparse graph's stored entries are its
    edges whatever their values (an inf or NaN one too), as SciPy reads them. The
    pattern goes to kleene's compiled primitives as it is stored
    (``kleene.engine.weak_components`` / ``strong_components``: union-find or Tarjan's
    search on the CPU; on the GPU Afforest, and trimming and colouring sweeps for
    strong components), or to ``kleene.connected_components`` without them (no
    Numba). The labels are the installed SciPy's: strong components in the order the
    search completes them, each row's successors taken in stored order with SciPy >=
    1.18 and in reverse stored order (the order of the Pearce search SciPy ran until
    then) with SciPy <= 1.17. A CuPy or cupyx graph's strong components are numbered
    by their smallest vertex, as cupyx.scipy.sparse.csgraph numbers them (SciPy's
    labels too where the pattern is symmetric).

    Example
    -------
    >>> from kleene import csgraph
    >>> n, labels = csgraph.connected_components([[0, 1, 0], [0, 0, 0], [0, 0, 0]])
    >>> n, labels.tolist()
    (2, [0, 0, 1])
    """
    conn = str(connection).lower()
    if conn not in ("weak", "strong"):
        raise InvalidValue("connection must be 'weak' or 'strong'")
    g = validate(csgraph, directed, dense=False)
    strong = bool(directed) and conn == "strong"
    A = kleene.Matrix.from_scipy(g.data, copy=False)  # (validate made it a canonical CSR)
    # (strong components on either device fall back to the host search, compiled with
    # the host union-find: Numba)
    compiled = has_weak_components(A.xp) and has_weak_components(np)
    if A.nrows == 0 or not compiled:
        out = kleene.connected_components(
            A.astype(bool), connection="strong" if strong else "weak", return_labels=True
        )
    else:
        out = strong_components(A) if strong else weak_components(A)
    if return_labels:
        return int(out[0]), out[1]
    return int(out[0])
