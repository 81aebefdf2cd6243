"""Containers: construction, conversions and round trips keep every entry exactly."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import find, given, settings
from hypothesis import strategies as st

import kleene
from kleene.testing import assert_matches, from_reference, to_reference
from kleene.testing import strategies as kst

DTYPES = [np.dtype(d) for d in (np.bool_, np.int32, np.int64, np.float32, np.float64)]
I32 = np.iinfo(np.int32)


def _dtypes():
    return st.sampled_from(DTYPES)


# ---- round trips (property) ------------------------------------------------------------


@given(data=st.data())
def test_matrix_formats_devices_and_dup_round_trip(backend, data):
    dtype = data.draw(_dtypes(), label="dtype")
    A = data.draw(kst.matrices(dtype), label="A")
    R = to_reference(A)
    assert A.nvals == R.nvals and A.shape == R.shape and A.dtype == dtype
    G = A.to(backend)
    assert G.device == backend
    for fmt in ("dense", "csr"):
        B = G.to_format(fmt)
        assert B.format == fmt and B.device == backend
        assert_matches(B, R, context=f"to_format({fmt})")
        assert B.isequal(G) and G.isequal(B)
    D = G.dup()
    assert D is not G and D.isequal(G)
    assert_matches(G.to("cpu"), R, context="to(backend).to(cpu)")
    assert_matches(from_reference(R, format=A.format), R, context="from_reference")


@given(data=st.data())
def test_vector_formats_devices_round_trip(backend, data):
    dtype = data.draw(_dtypes(), label="dtype")
    u = data.draw(kst.vectors(dtype), label="u")
    R = to_reference(u)
    assert u.nvals == R.nvals and u.shape == (u.size,)
    g = u.to(backend)
    for fmt in ("dense", "sparse"):
        v = g.to_format(fmt)
        assert v.format == fmt
        assert_matches(v, R, context=f"to_format({fmt})")
        assert v.isequal(g)
    assert_matches(g.to("cpu").dup(), R)


def _sentinel(dtype, values):
    """A missing marker that is not among ``values`` (None if every candidate is)."""
    d = np.dtype(dtype)
    cands = [False, True] if d.kind == "b" else [99, -99, 12345]
    for c in cands:
        if not any(v == c for v in values):
            return c
    return None


@given(data=st.data())
def test_dense_round_trip_with_explicit_missing(data):
    dtype = data.draw(_dtypes(), label="dtype")
    A = data.draw(kst.matrices(dtype), label="A")
    R = to_reference(A)
    miss = _sentinel(dtype, list(R.data.values()))
    if miss is None:
        return
    a = A.to_dense(missing=miss)
    assert a.shape == A.shape and a.dtype == dtype
    assert_matches(kleene.Matrix.from_dense(a, missing=miss), R, context=f"missing={miss}")
    # missing=None keeps every position
    assert kleene.Matrix.from_dense(a, missing=None).nvals == a.size
    # into a caller's buffer (a replay's): the same array, written in place
    buf = np.full(A.shape, miss if dtype != np.bool_ else not miss, dtype=dtype)
    assert A.to_dense(missing=miss, out=buf) is buf
    np.testing.assert_array_equal(buf, a)


def test_to_dense_out_must_fit():
    A = kleene.Matrix.from_edges([0], [1], [2.0], n=3)
    for bad in (
        np.empty((3, 2)),
        np.empty((3, 3), np.float32),
        np.empty((3, 6))[:, ::2],
        [[0.0] * 3] * 3,
    ):
        with pytest.raises(ValueError, match="out must be"):
            A.to_dense(out=bad)
    keep = np.zeros((3, 3))
    assert A.to_dense(missing=0.0, out=keep)[0, 1] == 2.0


@given(data=st.data())
def test_vector_dense_round_trip(data):
    dtype = data.draw(_dtypes(), label="dtype")
    u = data.draw(kst.vectors(dtype), label="u")
    R = to_reference(u)
    miss = _sentinel(dtype, list(R.data.values()))
    if miss is None:
        return
    assert_matches(kleene.Vector.from_dense(u.to_dense(missing=miss), missing=miss), R)


@given(data=st.data())
def test_scipy_round_trip(data):
    dtype = data.draw(_dtypes(), label="dtype")
    A = data.draw(kst.matrices(dtype), label="A")
    s = A.to_scipy()
    assert sp.issparse(s) and s.shape == A.shape and s.nnz == A.nvals and s.dtype == dtype
    assert_matches(kleene.Matrix.from_scipy(s), to_reference(A), context="from_scipy(to_scipy)")


@given(data=st.data())
def test_to_coo_is_sorted_row_major(data):
    A = data.draw(kst.matrices(np.float64), label="A")
    rows, cols, vals = A.to_coo()
    assert rows.dtype == np.int64 and cols.dtype == np.int64
    keys = rows * max(A.ncols, 1) + cols
    assert np.all(np.diff(keys) > 0)
    u = data.draw(kst.vectors(np.int32), label="u")
    idx, _ = u.to_coo()
    assert idx.dtype == np.int64 and np.all(np.diff(idx) > 0)


# ---- edge lists -------------------------------------------------------------------------


@pytest.mark.parametrize("dup", ["min", "max", "plus"])
@given(edges=kst.edge_lists(dtype=np.int64))
def test_from_edges_combines_duplicates(dup, edges):
    src, dst, w, n = edges
    A = kleene.Matrix.from_edges(src, dst, w, n=n, dup=dup)
    combine = {"min": min, "max": max, "plus": lambda a, b: a + b}[dup]
    expected: dict = {}
    for i, j, x in zip(src.tolist(), dst.tolist(), w.tolist(), strict=True):
        expected[(i, j)] = combine(expected[(i, j)], x) if (i, j) in expected else x
    R = to_reference(A)
    assert A.shape == (n, n) and A.dtype == np.int64
    assert {k: int(v) for k, v in R.data.items()} == expected


@given(edges=kst.edge_lists(weights=False))
def test_from_edges_pattern_is_bool(edges):
    src, dst, _, n = edges
    A = kleene.Matrix.from_edges(src, dst, n=n)
    assert A.dtype == np.bool_
    assert set(to_reference(A).data) == set(zip(src.tolist(), dst.tolist(), strict=True))
    assert all(bool(v) for v in to_reference(A).data.values())


def test_from_edges_shape_defaults_and_ncols():
    A = kleene.Matrix.from_edges([0, 2], [1, 1], [1.0, 2.0])
    assert A.shape == (3, 3)
    B = kleene.Matrix.from_edges([0], [4], [1.0], n=2, ncols=5)
    assert B.shape == (2, 5) and B.nvals == 1
    E = kleene.Matrix.from_edges([], [], [], n=0)
    assert E.shape == (0, 0) and E.nvals == 0


def test_from_edges_scalar_weight_and_dtype():
    A = kleene.Matrix.from_edges([0, 1], [1, 0], 3.0)
    assert A.nvals == 2 and set(A.to_coo()[2].tolist()) == {3.0}
    B = kleene.Matrix.from_edges([0], [1], [2], dtype=np.float32)
    assert B.dtype == np.float32


# ---- missing values and integer infinity -------------------------------------------------


def test_default_missing_is_inf_and_int_max():
    a = np.array([[0.0, np.inf], [np.inf, 2.0]])
    A = kleene.Matrix.from_dense(a)
    assert A.nvals == 2 and A.format == "dense"
    np.testing.assert_array_equal(A.to_dense(), a)
    ai = np.array([[0, I32.max], [5, I32.max]], dtype=np.int32)
    Ai = kleene.Matrix.from_dense(ai)
    assert Ai.nvals == 2  # the integer infinity is the dtype's max
    np.testing.assert_array_equal(Ai.to_dense(), ai)
    np.testing.assert_array_equal(Ai.to_dense(missing=-1), [[0, -1], [5, -1]])
    ab = np.array([[True, False]])
    assert kleene.Matrix.from_dense(ab).nvals == 1
    assert kleene.Matrix.from_dense(ab).to_dense().tolist() == [[True, False]]


def test_int_infinity_survives_tropical_products():
    big = I32.max
    A = kleene.Matrix.from_dense(np.array([[5, big]], dtype=np.int32), missing=None)
    B = kleene.Matrix.from_dense(np.array([[big], [1]], dtype=np.int32), missing=None)
    got = kleene.mxm(A, B, "min_plus").to_dense(missing=0)
    assert got[0, 0] == big  # 5 + inf = inf and inf + 1 = inf: no wrap-around


def test_explicit_missing_and_zero_are_entries():
    a = np.array([[0.0, 1.0]])
    assert kleene.Matrix.from_dense(a, missing=1.0).nvals == 1
    assert kleene.Matrix.from_dense(a).nvals == 2  # zero is an entry (a zero-weight edge)
    s = sp.csr_matrix((np.array([0.0]), np.array([1]), np.array([0, 1])), shape=(1, 2))
    assert kleene.Matrix.from_scipy(s).nvals == 1  # explicit zero kept


def test_missing_that_does_not_fit_the_dtype_drops_nothing():
    # Entries equal to missing are absent; 0 is not 0.5, so no entry is dropped.
    a = np.array([[0, 1]], dtype=np.int64)
    assert kleene.Matrix.from_dense(a, missing=0.5).nvals == 2


def test_nan_missing():
    a = np.array([1.0, np.nan, 3.0])
    u = kleene.Vector.from_dense(a, missing=np.nan)
    assert u.nvals == 2
    assert np.isnan(u.to_dense(missing=np.nan)[1])


def test_from_scipy_duplicates_and_dtype():
    s = sp.coo_matrix((np.array([5.0, 2.0, 1.0]), (np.array([0, 0, 1]), np.array([1, 1, 0]))))
    A = kleene.Matrix.from_scipy(s)
    assert A.nvals == 2 and A.to_dense()[0, 1] == 2.0
    assert kleene.Matrix.from_scipy(s, dup="plus").to_dense()[0, 1] == 7.0
    assert kleene.Matrix.from_scipy(s, dtype=np.int32).dtype == np.int32


def test_from_csr_sorts_columns_within_rows():
    A = kleene.Matrix.from_csr([0, 2, 3], [2, 0, 1], [1.0, 2.0, 3.0], (2, 3))
    rows, cols, vals = A.to_coo()
    assert rows.tolist() == [0, 0, 1] and cols.tolist() == [0, 2, 1]
    assert vals.tolist() == [2.0, 1.0, 3.0]


def test_vector_from_coo_duplicates():
    u = kleene.Vector.from_coo([3, 1, 3], [5, 2, 4], 5)
    assert u.to_coo()[0].tolist() == [1, 3] and u.to_coo()[1].tolist() == [2, 4]
    v = kleene.Vector.from_coo([3, 3], [5, 4], 5, dup="plus", dtype=np.float32)
    assert v.dtype == np.float32 and v.to_coo()[1].tolist() == [9.0]


# ---- empty, shapes, properties, copies -------------------------------------------------


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (1, 1), (2, 5)])
@pytest.mark.parametrize("fmt", ["csr", "dense"])
def test_empty(backend, shape, fmt):
    A = kleene.Matrix.empty(shape, np.int32, format=fmt, device=backend)
    assert (A.shape, A.nrows, A.ncols, A.nvals, A.format, A.device) == (
        shape,
        shape[0],
        shape[1],
        0,
        fmt,
        backend,
    )
    assert A.dtype == np.int32
    assert to_reference(A).data == {}
    d = A.to("cpu").to_dense(missing=7)
    assert d.shape == shape and np.all(d == 7)


@pytest.mark.parametrize("fmt", ["sparse", "dense"])
def test_empty_vector(backend, fmt):
    u = kleene.Vector.empty(4, np.bool_, format=fmt, device=backend)
    assert (u.size, u.shape, u.nvals, u.format, u.device) == (4, (4,), 0, fmt, backend)


def test_dup_is_independent(backend):
    A = kleene.Matrix.from_edges([0], [1], [1.0], n=2).to(backend)
    B = A.dup()
    kleene.assign(B, 9.0, [1], [0])
    assert A.nvals == 1 and B.nvals == 2
    u = kleene.Vector.from_coo([0], [1.0], 3).to(backend)
    v = u.dup()
    kleene.assign(v, 2.0, [2])
    assert u.nvals == 1 and v.nvals == 2


def test_to_same_device_returns_self():
    A = kleene.Matrix.empty((2, 2))
    assert A.to("cpu") is A


def test_isequal_distinguishes():
    A = kleene.Matrix.from_edges([0], [1], [1.0], n=2)
    assert A.isequal(A.dup()) and A.isequal(A.to_format("dense"))
    assert not A.isequal(kleene.Matrix.from_edges([0], [1], [2.0], n=2))
    assert not A.isequal(kleene.Matrix.from_edges([1], [0], [1.0], n=2))
    assert not A.isequal(kleene.Matrix.from_edges([0], [1], [1.0], n=3))
    assert not A.isequal(kleene.Matrix.from_edges([0], [1], [1], n=2))  # dtype
    u = kleene.Vector.from_coo([1], [np.nan], 2)
    assert u.isequal(u.dup())  # NaN equals NaN here


def test_transpose_property_and_masks_are_views():
    A = kleene.Matrix.from_edges([0, 1], [2, 0], [1.0, 0.0], n=3)
    assert_matches(A.T, to_reference(kleene.transpose(A)))
    assert A.S.structural and not A.V.structural
    assert (~A.S).complement and not (~~A.S).complement
    assert A.S.container is A


# ---- the strategies reach the corner cases they promise -------------------------------


@pytest.mark.parametrize(
    "what",
    ["0-sized", "1x1", "empty row", "empty column", "full", "dense format", "csr format"],
)
def test_matrix_strategy_reaches(what):
    def has(A):
        r = to_reference(A)
        rows = {i for i, _ in r.data}
        cols = {j for _, j in r.data}
        m, n = A.shape
        return {
            "0-sized": m * n == 0,
            "1x1": A.shape == (1, 1),
            "empty row": m > 1 and n > 0 and r.nvals > 0 and len(rows) < m,
            "empty column": n > 1 and m > 0 and r.nvals > 0 and len(cols) < n,
            "full": m * n > 1 and r.nvals == m * n,
            "dense format": A.format == "dense",
            "csr format": A.format == "csr",
        }[what]

    find(kst.matrices(np.float64), has, settings=settings(database=None, max_examples=500))


@pytest.mark.parametrize("kind", kst.MASK_KINDS)
def test_mask_strategy_draws_every_kind(kind):
    def is_kind(mask):
        if isinstance(mask, kleene.Matrix):
            return kind == "plain"
        name = ("~" if mask.complement else "") + ("S" if mask.structural else "V")
        return name == kind

    find(kst.masks((2, 2)), is_kind, settings=settings(database=None, max_examples=500))


def test_edge_list_strategy_has_duplicates_and_self_loops():
    def dup_and_loop(e):
        src, dst, _, _ = e
        keys = list(zip(src.tolist(), dst.tolist(), strict=True))
        return len(set(keys)) < len(keys) and any(i == j for i, j in keys)

    find(kst.edge_lists(), dup_and_loop, settings=settings(database=None, max_examples=500))


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_carrier_elements_reach_infinity(dtype):
    inf = kleene.semiring.infinity(dtype)
    find(kst.elements("min_plus", dtype), lambda x: x == inf, settings=settings(database=None))
