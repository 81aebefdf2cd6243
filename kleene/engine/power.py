"""PageRank's power iteration as one fused primitive over a Matrix's own CSR arrays."""

from __future__ import annotations

import numpy as np

from kleene.backends import backend
from kleene.core import access
from kleene.core.matrix import Matrix
from kleene.errors import InvalidValue
from kleene.ops import is_symmetric, transpose


def has_power_iteration(xp) -> bool:
    """Whether the back end of ``xp`` has a compiled PageRank iteration."""
    return getattr(backend(xp), "pagerank", None) is not None


def power_iteration(A: Matrix, x, p, w, alpha: float, tol: float, max_iter: int, *, pattern):
    """``(x, k)``: NetworkX's PageRank step ``x ← α (x P + (x · d) w) + (1 − α) p``
    iterated from ``x`` on the back end's fused kernel (``backends.cpu.pagerank``),
    P the rows of A over their sums (``pattern``: over their lengths, values unread).

    ``k`` is the first step whose L1 change is below ``n * tol`` (its vector is ``x``)
    or 0 when ``max_iter`` steps ran without one. The kernel reads A's CSR arrays as
    stored, with no copy; on the GPU it pulls over Aᵀ's rows: A's own when A equals its
    transpose (``is_symmetric``, cached on A), else Aᵀ, cached on A until its next
    write. InvalidValue when the back end has none (``has_power_iteration``).

    Example
    -------
    >>> import numpy as np, kleene
    >>> A = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], [1.0, 1.0, 1.0])
    >>> u = np.full(3, 1 / 3)
    >>> x, k = power_iteration(A, u, u, u, 0.85, 1e-10, 100, pattern=True)
    >>> np.round(x, 4).tolist(), k
    ([0.3333, 0.3333, 0.3333], 1)
    """
    kernel = getattr(backend(A.xp), "pagerank", None)
    if kernel is None:
        raise InvalidValue("pagerank: this back end has no compiled power iteration")
    if A.format != "csr":
        A = A.to_format("csr")
    ptr, idx, val = access.csr(A)
    n = A.nrows
    values = None if pattern else val
    if A.xp is np:
        return kernel(ptr, idx, values, n, x, p, w, alpha, tol, max_iter)
    if is_symmetric(A, values=not pattern):
        transposed = (ptr, idx, values)
    else:
        AT = A.cached("pagerank_transpose", lambda: transpose(A).to_format("csr"))
        tptr, tidx, tval = access.csr(AT)
        transposed = (tptr, tidx, None if pattern else tval)
    return kernel(ptr, idx, values, n, x, p, w, alpha, tol, max_iter, transposed=transposed)


__all__ = ["has_power_iteration", "power_iteration"]
