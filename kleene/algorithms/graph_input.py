"""Turn what users pass as a graph into a square kleene Matrix (scipy.csgraph rules)."""

from __future__ import annotations

import numpy as np

from kleene.backends import array_module, is_cupy_array, module_for
from kleene.core import Matrix
from kleene.errors import (
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
)
from kleene.ops import all_finite, first_stored, select, stored_min, stores, symmetrize


def _is_sparse(G) -> bool:
    mod = type(G).__module__
    return hasattr(G, "tocoo") and (mod.startswith("scipy.sparse") or mod.startswith("cupyx"))


def as_graph(
    G,
    *,
    directed: bool = True,
    fmt: str | None = "csr",
    name: str = "G",
    pattern: bool = False,
    check_nan: bool = True,
) -> Matrix:
    """A square Matrix with edge i→j stored at (i, j), in format ``fmt`` (None: as given).

    ``G`` may be a kleene Matrix, a scipy.sparse / cupyx.scipy.sparse matrix (stored
    values are weights, explicit zeros are zero-weight edges, duplicates keep the
    minimum) or a dense NumPy/CuPy array (inf = no edge), of bool, integer or float
    values (anything else, complex included, is a TypeError naming the dtype). A
    stored weight of +inf is no edge there too (:func:`finite_weights`); NaN and -inf
    weights are a ValueError. A canonical CSR, and a
    C-contiguous float or bool array, is borrowed, not copied or sorted (the
    algorithms never write their input).
    ``directed=False`` adds every edge in both directions (the lighter one wins),
    unless the graph is already symmetric (``kleene.ops.is_symmetric``; with
    ``pattern=True``, for callers that read only the edges and not their weights,
    a symmetric pattern is enough).
    ``check_nan=False`` leaves the weight checks (:func:`finite_weights`: NaN, -inf and
    +inf) to the caller when the matrix is returned as given (directed, ``fmt`` None or
    already met): a caller that fills a dense copy can have that pass scan it
    (``Matrix.to_dense(scan=True)``); with ``pattern=True`` the +inf entries still go and
    -inf is still refused (:func:`infinite_edges_dropped`), a NaN weight is an edge.
    """
    if isinstance(G, Matrix):
        A = G
    elif _is_sparse(G):
        check_real(G.dtype, name)
        A = Matrix.from_scipy(G, copy=False)
    elif isinstance(G, np.ndarray) or is_cupy_array(G) or isinstance(G, list):
        xp = array_module(G)
        a = xp.asarray(G)
        check_real(a.dtype, name)
        if a.dtype == np.bool_:
            A = Matrix.from_dense(a, missing=False, copy=False)
        else:  # (no copy: the caller's float array is read as it is, never written)
            a = a.astype(np.float64) if a.dtype.kind not in "f" else a
            A = Matrix.from_dense(a, missing=float("inf"), copy=False)
    else:
        raise InvalidObject(
            f"{name} must be a kleene.Matrix, a scipy/cupyx sparse matrix or a dense array, "
            f"got {type(G).__name__}"
        )
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{name} must be square (an adjacency matrix), got shape {A.shape}")
    as_given = directed and (fmt is None or A.format == fmt)
    if check_nan or not as_given:
        A = finite_weights(A, name)
    elif pattern:
        A = infinite_edges_dropped(A, name)
    if not directed:
        A = symmetrize(A, pattern=pattern)
    if fmt is not None and A.format != fmt:
        A = A.to_format(fmt)
    return A


def check_real(dtype, name: str = "G") -> None:
    """TypeError unless ``dtype`` holds real numbers (bool, integer or float): complex
    weights would lose their imaginary part, objects and strings are no weights.

    >>> import numpy as np
    >>> check_real(np.dtype(np.complex128))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kleene.errors.DomainMismatch: G must hold real edge weights (bool, integer or float), ...
    """
    if np.dtype(dtype).kind not in "biuf":
        raise DomainMismatch(
            f"{name} must hold real edge weights (bool, integer or float), got dtype {dtype}"
        )


def finite_weights(A: Matrix, name: str = "G") -> Matrix:
    """``A`` without its stored +inf weights (no edge, as inf is in a dense array), or
    ``A`` itself when it has none; ValueError on a NaN or -inf weight (naming its edge:
    no path length can be built from it).

    One sum of the stored values decides the common case (``kleene.ops.all_finite``);
    otherwise the least value (cached on ``A``, where the shortest-path checks read it
    too) and one more pass say which. The matrix without the infinite entries is cached
    on ``A`` as well.

    >>> import numpy as np
    >>> A = Matrix.from_edges([0, 1], [1, 2], [1.0, np.inf])
    >>> finite_weights(A).nvals
    1
    >>> finite_weights(Matrix.from_edges([0, 1], [1, 2], [1.0, -np.inf]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kleene.errors.InvalidValue: G has a -inf edge weight, at edge (1, 2): path lengths need ...
    """
    if A.dtype.kind != "f" or A.known("finite weights"):
        return A
    if A.known("has_nan") is None and all_finite(A):
        return A
    check_no_nan(A, name)  # (cached, as the least value is)
    if stored_min(A) == -np.inf:
        _refuse_negative_infinity(A, name)
    part = A.known("finite part")  # a later call on the same matrix: no pass
    if part is not None:
        return part
    if stores(A, np.inf):
        return A.cached("finite part", lambda: select(A, "valuene", np.inf))
    A.cached("finite weights", lambda: True)
    return A


def infinite_edges_dropped(A: Matrix, name: str = "G") -> Matrix:
    """What a search that reads only the pattern needs of :func:`finite_weights`: ``A``
    without its +inf entries (no edge) and a ValueError on -inf, NaN left alone (an
    edge). One sum of the stored values clears the common case.

    >>> import numpy as np
    >>> infinite_edges_dropped(Matrix.from_edges([0, 1], [1, 2], [np.nan, np.inf])).nvals
    1
    """
    if A.dtype.kind != "f" or A.known("finite weights") or A.known("finite pattern"):
        return A
    part = A.known("finite part")  # cached only once -inf was ruled out
    if part is not None:
        return part
    # (the pattern is all the caller reads: no fingerprint of the values is needed)
    if A.known("has_nan") is None and all_finite(A, fingerprint=False):
        return A
    if stores(A, -np.inf):
        _refuse_negative_infinity(A, name)
    if stores(A, np.inf):
        return A.cached("finite part", lambda: select(A, "valuene", np.inf))
    A.cached("finite pattern", lambda: True)
    return A


def _refuse_negative_infinity(A: Matrix, name: str) -> None:
    i, j = first_stored(A, -np.inf)
    raise InvalidValue(
        f"{name} has a -inf edge weight, at edge ({i}, {j}): path lengths need finite weights"
    )


def check_no_nan(A: Matrix, name: str = "G") -> None:
    """ValueError if a stored weight of ``A`` is NaN (the answer is cached on ``A``).

    >>> import numpy as np
    >>> check_no_nan(Matrix.from_edges([0], [1], [np.nan]))
    Traceback (most recent call last):
    ...
    kleene.errors.InvalidValue: G has NaN edge weights
    """
    if A.has_nan():
        raise InvalidValue(f"{name} has NaN edge weights")


def loaded_client(G, client):
    """``client``, or the client of a ``kleene.distributed.LoadedGraph`` passed as ``G``
    (recognised without importing Dask)."""
    if client is None and type(G).__name__ == "LoadedGraph" and hasattr(G, "parts"):
        return G.client
    return client


def check_source(source, n: int, name: str = "source") -> np.ndarray:
    """``source`` (a vertex id or a sequence of them) as a flat int64 NumPy array.

    IndexError names a source that is not an integer id or is out of range.

    >>> check_source(2, 5).tolist(), check_source([0, 4], 5).tolist()
    ([2], [0, 4])
    """
    arr = np.asarray(source)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.mod(arr, 1) == 0):
            arr = arr.astype(np.int64)
        else:
            raise IndexOutOfBound(f"{name} must be an integer vertex id, got {source!r}")
    flat = arr.astype(np.int64).ravel()
    bad = flat[(flat < 0) | (flat >= n)]
    if bad.size:
        raise IndexOutOfBound(f"{name} {int(bad[0])} is out of range for a graph of {n} vertices")
    return flat


def on_device(G, device: str | None, name: str = "G"):
    """``G`` where an algorithm's ``device=`` asks to compute: as given when ``device``
    is None or G is already there (the algorithms' own fast paths for SciPy input stay
    open), else a kleene Matrix copy of it on ``device`` ("cpu" or "gpu"; InvalidValue
    for another name, DeviceUnavailable without a GPU). The algorithm then reads the
    copy by its own rules, so weights are checked as they would be where G lives.

    >>> import numpy as np
    >>> on_device(np.zeros((2, 2)), None).shape
    (2, 2)
    >>> on_device(np.zeros((2, 2)), "cpu").shape
    (2, 2)
    """
    if device is None:
        return G
    xp = module_for(device)
    if isinstance(G, Matrix):
        here = G.xp
    elif _is_sparse(G):
        here = array_module(G.data)
    else:
        here = array_module(G)
    if here is xp:
        return G
    return as_graph(G, directed=True, fmt=None, check_nan=False, name=name).to(device)
