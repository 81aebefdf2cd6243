"""Hypothesis strategies for kleene: carrier elements, matrices, vectors, masks, edges.

Values keep arithmetic exact by default: small integers (also for float dtypes),
plus the semiring's zero, its one when given, and the infinities that belong to
its carrier. With exact values a law or a back end can be compared with ``==``.

Example
-------
>>> import numpy as np
>>> from hypothesis import given
>>> from kleene.testing import strategies as kst
>>> @given(kst.elements("min_plus", np.float64))
... def test_zero_is_identity(x):
...     assert min(np.inf, x) == x
>>> test_zero_is_identity()
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from kleene.semiring import Monoid, Semiring, get_semiring
from kleene.semiring.dtypes import as_dtype, infinity, neg_infinity, resolve_scalar

__all__ = [
    "MASK_KINDS",
    "carrier_values",
    "edge_lists",
    "elements",
    "mask_of",
    "masks",
    "matrices",
    "shapes",
    "values",
    "vectors",
]

# How a mask is built from a container (GraphBLAS: structure or value, maybe complemented).
MASK_KINDS = ("S", "V", "~S", "~V", "plain")


def _domain(algebra, domain: str | None) -> str:
    if domain is not None:
        return domain
    if isinstance(algebra, Semiring):
        return algebra.domain
    return "all"


def carrier_values(
    algebra: Semiring | Monoid | str, dtype, *, domain: str | None = None, one=None, small: int = 8
) -> tuple[list, int, int]:
    """The special values and the small-integer range ``elements`` draws from.

    Returns ``(specials, lo, hi)``. Infinities are in the carrier only where the add
    monoid is idempotent (min/max-like: there ±inf is a lattice top or bottom); in
    an arithmetic semiring (plus_times) IEEE ``inf - inf`` is NaN and the integer
    "infinity" is just a large number, so they are left out.
    """
    alg = get_semiring(algebra) if isinstance(algebra, str) else algebra
    d = as_dtype(dtype)
    dom = _domain(alg, domain)
    add = alg.add if isinstance(alg, Semiring) else alg
    if d.kind == "b" or dom == "bool":
        return [np.False_, np.True_], 0, 1
    specials = [add.identity_for(d)]
    if one is not None:
        specials.append(resolve_scalar(one, d))
    if add.idempotent:
        if dom in ("all", "no_neg_inf"):
            specials.append(infinity(d))
        if dom in ("all", "no_pos_inf"):
            specials.append(neg_infinity(d))
    lo = 0 if dom == "nonneg" else -small
    if dom == "nonneg":
        specials = [v for v in specials if 0 <= v < infinity(d)]
    elif dom == "no_neg_inf":
        specials = [v for v in specials if v != neg_infinity(d)]
    elif dom == "no_pos_inf":
        specials = [v for v in specials if v != infinity(d)]
    uniq = []
    for v in specials:
        if not any(v == u for u in uniq):
            uniq.append(d.type(v))
    return uniq, lo, small


def elements(
    algebra: Semiring | Monoid | str, dtype, *, domain: str | None = None, one=None, small: int = 8
) -> st.SearchStrategy:
    """Scalars of ``dtype`` from the carrier of a semiring (or monoid).

    ``domain`` overrides ``semiring.domain`` ("all", "no_neg_inf", "no_pos_inf",
    "nonneg", "bool"); a Monoid defaults to "all". Draws small integers in
    ``[-small, small]`` (``[0, small]`` for "nonneg") and the specials of
    :func:`carrier_values`: the zero, ``one`` if given, and the carrier's
    infinities (integer infinities are the dtype's max / min).

    >>> import numpy as np
    >>> from kleene.testing.strategies import carrier_values
    >>> carrier_values("min_plus", np.int32)[0]
    [np.int32(2147483647)]
    """
    specials, lo, hi = carrier_values(algebra, dtype, domain=domain, one=one, small=small)
    d = as_dtype(dtype)
    if d.kind == "b":
        return st.sampled_from(specials)
    return st.one_of(st.sampled_from(specials), st.integers(lo, hi).map(d.type))


def values(dtype, *, small: int = 8, infinities: bool = True) -> st.SearchStrategy:
    """Container values of ``dtype``, for operations not tied to a semiring's carrier:
    small integers and (unless ``infinities=False``) the dtype's ±inf.

    >>> import numpy as np
    >>> from hypothesis import find
    >>> find(values(np.int32), lambda v: v > 100)
    np.int32(2147483647)
    """
    d = as_dtype(dtype)
    if d.kind == "b":
        return st.booleans().map(np.bool_)
    vals = st.integers(-small, small).map(d.type)
    if not infinities:
        return vals
    return st.one_of(vals, st.sampled_from([infinity(d), neg_infinity(d)]))


def shapes(*, max_side: int = 5, min_side: int = 0) -> st.SearchStrategy:
    """Matrix shapes, biased to include 0-sized, 1×1 and non-square ones."""
    side = st.integers(min_side, max_side)
    return st.one_of(st.sampled_from([(1, 1), (0, 3), (3, 0), (0, 0)]), st.tuples(side, side))


@st.composite
def _entries(draw, n_positions: int, elements, density):
    """Which positions hold an entry (a bool list) and their values."""
    pct = draw(st.sampled_from([0, 15, 40, 75, 100])) if density is None else density * 100
    present = [draw(st.integers(0, 99)) < pct for _ in range(n_positions)]
    values = [draw(elements) for p in present if p]
    return present, values


@st.composite
def matrices(
    draw,
    dtype=np.float64,
    shape=None,
    *,
    elements=None,
    format=None,
    density: float | None = None,
    max_side: int = 5,
    device: str = "cpu",
):
    """``kleene.Matrix`` objects with empty rows/cols, 0-sized and 1×1 shapes.

    ``shape`` fixes the shape (or a strategy of shapes); ``elements`` the values
    (default: small integers and ±inf of ``dtype``); ``format`` "csr"/"dense" (default:
    either); ``density`` the chance of a position holding an entry (default: drawn
    from 0 to 1, so empty and full matrices both occur).
    """
    import kleene

    d = as_dtype(dtype)
    shp = draw(_shape_strategy(shape, max_side))
    m, n = shp
    present, vals = draw(_entries(m * n, elements if elements is not None else values(d), density))
    rows, cols = np.divmod(np.flatnonzero(np.array(present, dtype=bool)), max(n, 1))
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.add.at(indptr, rows + 1, 1)
    A = kleene.Matrix.from_csr(
        np.cumsum(indptr), cols.astype(np.int32), np.array(vals, dtype=d), shp
    )
    fmt = format if format is not None else draw(st.sampled_from(["csr", "dense"]))
    if A.format != fmt:
        A = A.to_format(fmt)
    return A.to(device) if device != "cpu" else A


def _shape_strategy(shape, max_side: int) -> st.SearchStrategy:
    if shape is None:
        return shapes(max_side=max_side)
    if isinstance(shape, st.SearchStrategy):
        return shape
    return st.just(tuple(shape))


@st.composite
def vectors(
    draw,
    dtype=np.float64,
    size=None,
    *,
    elements=None,
    format=None,
    density: float | None = None,
    max_size: int = 6,
    device: str = "cpu",
):
    """``kleene.Vector`` objects (sparse or dense format), sizes from 0."""
    import kleene

    d = as_dtype(dtype)
    if size is None:
        n = draw(st.integers(0, max_size))
    elif isinstance(size, st.SearchStrategy):
        n = draw(size)
    else:
        n = int(size)
    present, vals = draw(_entries(n, elements if elements is not None else values(d), density))
    idx = np.flatnonzero(np.array(present, dtype=bool)).astype(np.int64)
    u = kleene.Vector.from_coo(idx, np.array(vals, dtype=d), n, dtype=d)
    fmt = format if format is not None else draw(st.sampled_from(["sparse", "dense"]))
    if u.format != fmt:
        u = u.to_format(fmt)
    return u.to(device) if device != "cpu" else u


def mask_of(container, kind: str):
    """The mask of ``kind`` ("S", "V", "~S", "~V", "plain" = the container itself)."""
    return {
        "S": lambda c: c.S,
        "V": lambda c: c.V,
        "~S": lambda c: ~c.S,
        "~V": lambda c: ~c.V,
        "plain": lambda c: c,
    }[kind](container)


@st.composite
def masks(draw, shape, *, kinds=MASK_KINDS, device: str = "cpu"):
    """Mask objects of every kind for an output of ``shape`` (a tuple of 1 or 2 ints).

    Draws ``M.S``, ``M.V``, ``~M.S``, ``~M.V`` or the container itself (which an
    operation reads as ``M.V``). The container holds bool or numeric values,
    including falsy ones, so structural and value masks differ.
    :func:`kleene.testing.mask_to_reference` gives the reference's view of it.
    """
    dt = draw(st.sampled_from([np.bool_, np.float64, np.int32]))
    vals = st.sampled_from([0, 1, 2]).map(np.dtype(dt).type)
    if len(shape) == 1:
        c = draw(vectors(dt, shape[0], elements=vals, device=device))
    else:
        c = draw(matrices(dt, tuple(shape), elements=vals, device=device))
    return mask_of(c, draw(st.sampled_from(kinds)))


@st.composite
def edge_lists(
    draw,
    n=None,
    *,
    dtype=np.float64,
    weights: bool = True,
    max_nodes: int = 6,
    max_edges: int = 20,
    elements=None,
):
    """``(src, dst, weights_or_None, n)`` with duplicate edges and self loops.

    ``src``/``dst`` are int64 arrays; weights (of ``dtype``) are finite small
    integers unless ``elements`` says otherwise.
    """
    nn = draw(st.integers(0, max_nodes)) if n is None else int(n)
    if nn == 0:
        e = 0
    else:
        e = draw(st.integers(0, max_edges))
    node = st.integers(0, max(nn - 1, 0))
    src = np.array([draw(node) for _ in range(e)], dtype=np.int64)
    dst = np.array([draw(node) for _ in range(e)], dtype=np.int64)
    if e and draw(st.booleans()):  # force a duplicate and a self loop
        src = np.concatenate([src, src[:1], src[:1]])
        dst = np.concatenate([dst, dst[:1], src[:1]])
    if not weights:
        return src, dst, None, nn
    d = as_dtype(dtype)
    el = elements if elements is not None else values(d, infinities=False)
    w = np.array([draw(el) for _ in range(src.size)], dtype=d)
    return src, dst, w, nn
