"""SciPy's ``connected_components`` over ``kleene.connected_components``."""

from __future__ import annotations

import kleene

from .validation import InvalidValue, validate


def connected_components(csgraph, directed=True, connection="weak", return_labels=True):
    """The connected components, as ``scipy.sparse.csgraph.connected_components``.

    Dense input: 0, NaN and inf are no edge. ``kleene.connected_components`` labels
    them (union-find or FastSV for weak components, Tarjan's search for strong ones;
    on the GPU Afforest, and trimming and colouring sweeps for strong components),
    numbered as the installed SciPy numbers them: strong components in the order
    the search completes them, each row's successors taken in stored order with
    SciPy >= 1.18 and in reverse stored order (the order of the Pearce search SciPy
    ran until then) with SciPy <= 1.17. A CuPy or cupyx graph's strong components
    are numbered by their smallest vertex, as cupyx.scipy.sparse.csgraph numbers
    them (SciPy's labels too where the pattern is symmetric).

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
    out = kleene.connected_components(
        g.data,
        directed=bool(directed),
        connection=conn if directed else "weak",
        return_labels=return_labels,
    )
    if return_labels:
        return int(out[0]), out[1]
    return int(out)
