"""Path reconstruction from predecessor arrays."""

from __future__ import annotations

from kleene.backends import array_module, to_host
from kleene.errors import IndexOutOfBound, InvalidValue


def reconstruct_path(predecessors, source: int, target: int) -> list[int]:
    """The vertices of the path from ``source`` to ``target``, both included.

    ``predecessors`` is the (n, n) array of ``apsp(..., return_predecessors=True)``
    or the length-n array of ``sssp``/``bfs`` from ``source``. Returns [] when
    ``target`` is unreachable and [source] when they are equal.

    Example
    -------
    >>> import numpy as np, kleene
    >>> inf = np.inf
    >>> G = np.array([[0, 1, inf], [inf, 0, 1], [inf, inf, 0]])
    >>> d, p = kleene.apsp(G, return_predecessors=True)
    >>> kleene.reconstruct_path(p, 0, 2)
    [0, 1, 2]
    """
    pred = to_host(predecessors)
    row = pred[source] if pred.ndim == 2 else pred
    n = row.shape[0]
    for name, v in (("source", source), ("target", target)):
        if not 0 <= int(v) < n:
            raise IndexOutOfBound(f"reconstruct_path: {name} {v} is out of range for {n} vertices")
    if source == target:
        return [int(source)]
    path = [int(target)]
    while path[-1] != source:
        p = int(row[path[-1]])
        if p < 0:
            return []
        path.append(p)
        if len(path) > n:
            raise InvalidValue("reconstruct_path: the predecessors contain a cycle")
    return path[::-1]


__all__ = ["reconstruct_path"]


def rows_with_cycles(pred):
    """Bool per row of an (k, n) predecessor array: does the row hold a cycle?

    Possible only with zero-weight cycles. Pointer doubling: after ⌈log2 n⌉ + 1
    rounds every chain of a valid tree has reached its root (whose predecessor
    is -1); a vertex still pointing at a non-root lies on or behind a cycle.
    """
    xp = array_module(pred)
    n = pred.shape[-1]
    if n == 0 or pred.shape[0] == 0:
        return xp.zeros(pred.shape[0], dtype=bool)
    q = pred.copy()
    for _ in range(int(n).bit_length() + 1):
        nxt = xp.take_along_axis(q, xp.where(q < 0, 0, q), axis=1)
        q = xp.where((q >= 0) & (nxt >= 0), nxt, q)
    at = xp.take_along_axis(pred, xp.where(q < 0, 0, q), axis=1)
    return ((q >= 0) & (at >= 0)).any(axis=1)
