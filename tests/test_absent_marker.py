"""A dense array taken with an infinite ``missing`` keeps that marker instead of a bitmap
(``Storage.absent``): every answer equals the bitmap matrix's, and the passes that need
no bitmap (the dense form, the NaN scan, a dense APSP) never build it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.core import Matrix

INF = np.inf


def _array(seed: int, dtype, mark: float, nan: bool, shape=None) -> np.ndarray:
    """Random weights with ~40% of the entries at the marker, some at the other
    infinity (stored: only the marker is absent) and, if asked, a NaN."""
    rng = np.random.default_rng(seed)
    m, n = shape or (int(rng.integers(1, 40)), int(rng.integers(1, 40)))
    a = rng.uniform(-5, 20, (m, n)).astype(dtype)
    a[rng.random((m, n)) < 0.4] = mark
    a[rng.random((m, n)) < 0.05] = -mark
    if nan:
        a[rng.integers(0, m), rng.integers(0, n)] = np.nan
    return a


def _both(a: np.ndarray, mark: float, device: str):
    """(marked, bitmap): the matrix as from_dense keeps it, and the same entries as an
    explicit bitmap matrix (the reference)."""
    xp = np if device == "cpu" else pytest.importorskip("cupy")
    marked = Matrix.from_dense(xp.asarray(a), missing=mark)
    ref = Matrix._from_bitmap(xp, xp.asarray(a.copy()), xp.asarray(a != mark))
    return marked, ref


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def test_from_dense_keeps_the_marker_not_a_bitmap():
    a = np.array([[0.0, INF], [2.0, 0.0]])
    A = Matrix.from_dense(a)
    assert A._store.absent == INF and A._store._present is None
    assert A.to_dense().tolist() == a.tolist()
    assert A._store.absent == INF  # the dense form took the values as they are
    assert A.nvals == 3  # counted past the marker: still no bitmap
    assert A._store.absent == INF and A._store._present is None
    assert A._present.tolist() == [[True, False], [True, True]]  # asking for it builds it
    assert A._store.absent is None and A.nvals == 3
    full = Matrix.from_dense(np.array([[0.0, 1.0], [2.0, 0.0]]))
    assert full.nvals == 4 and full._store.absent is None  # all present: the marker goes
    assert full._store._present is None


@pytest.mark.parametrize(
    "a, missing",
    [
        (np.array([[1.0, INF]]), 0.0),  # a finite marker: the bitmap now
        (np.array([[1.0, INF]]), None),  # every entry stored
        (np.array([[1, 2]], dtype=np.int64), INF),  # integers: the dtype's maximum
        (np.array([[True, False]]), False),
    ],
)
def test_other_markers_build_the_bitmap_at_once(a, missing):
    A = Matrix.from_dense(a, missing=missing)
    assert A._store.absent is None


def test_a_conversion_builds_the_bitmap_at_once():
    # float64 1e300 becomes inf in float32 but was an edge: the bitmap of the given array
    a = np.array([[1e300, INF]])
    A = Matrix.from_dense(a, dtype=np.float32)
    assert A._store.absent is None and A.nvals == 1


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    mark=st.sampled_from([INF, -INF]),
    dtype=st.sampled_from([np.float32, np.float64]),
    nan=st.booleans(),
)
def test_a_marked_matrix_answers_as_its_bitmap(backend, seed, mark, dtype, nan):
    a = _array(seed, dtype, mark, nan)
    for fill in (mark, -mark, 0.0, np.nan, 3.5):
        marked, ref = _both(a, mark, backend)
        got, want = _host(marked.to_dense(fill)), _host(ref.to_dense(fill))
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), fill
    marked, ref = _both(a, mark, backend)
    assert marked.has_nan() == ref.has_nan() == nan
    assert marked._store.absent == mark  # the scan took the marker: no bitmap
    if not nan:
        assert marked.known("min_value") == ref.known("min_value")
        got, want = marked.known("value_stats"), ref.known("value_stats")
        assert (got is None) == (want is None)
        if got is not None:  # (greatest, positive sum by atomics on the GPU, count)
            assert (got[0], got[2]) == (want[0], want[2])
            assert got[1] == pytest.approx(want[1], rel=1e-12)
    assert marked.nvals == ref.nvals
    assert marked.isequal(ref)
    m, n = a.shape
    view = marked.block(slice(0, max(1, m // 2)), slice(0, n))
    want = ref.block(slice(0, max(1, m // 2)), slice(0, n))
    assert np.array_equal(_host(view.to_dense(0.0)), _host(want.to_dense(0.0)), equal_nan=True)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), dtype=st.sampled_from([np.float32, np.float64]))
def test_to_dense_with_scan_on_a_marked_matrix(backend, seed, dtype):
    # D's fill in APSP: to_dense(scan=True) into a given buffer, the NaN scan from the
    # same pass; the marker survives (no bitmap) and the answers are the bitmap's.
    a = _array(seed, dtype, INF, False)
    marked, ref = _both(a, INF, backend)
    xp = np if backend == "cpu" else pytest.importorskip("cupy")
    buf = xp.empty(a.shape, dtype=dtype)
    assert marked.to_dense(INF, out=buf, scan=True) is buf
    assert np.array_equal(_host(buf), _host(ref.to_dense(INF)))
    assert marked.has_nan() is False and marked._store.absent == INF
    ref.has_nan()
    assert marked.known("min_value") == ref.known("min_value")


def test_writes_into_a_marked_matrix_keep_its_entries(backend):
    # A result written over a marked matrix that has block views (copied into its buffer)
    # and one written into a view: the presence follows what was written.
    xp = np if backend == "cpu" else pytest.importorskip("cupy")
    a = np.array([[0.0, INF, 1.0], [INF, 0.0, 2.0], [4.0, INF, 0.0]])
    A = Matrix.from_dense(xp.asarray(a))
    top = A.block(slice(0, 1), slice(0, 3))
    full = Matrix.from_dense(xp.asarray(np.arange(9.0).reshape(3, 3)), missing=None)
    A._assign_from(full)
    assert A.nvals == 9 and _host(top.to_dense()).tolist() == [[0.0, 1.0, 2.0]]
    B = Matrix.from_dense(xp.asarray(a))
    row = B.block(slice(1, 2), slice(0, 3))
    row._assign_from(Matrix.from_dense(xp.asarray(np.array([[7.0, 8.0, 9.0]])), missing=None))
    assert B.nvals == 7
    assert _host(B.to_dense(0.0)).tolist() == [[0.0, 0.0, 1.0], [7.0, 8.0, 9.0], [4.0, 0.0, 0.0]]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 48))
def test_apsp_of_an_array_equals_that_of_its_bitmap_matrix(backend, seed, n):
    a = _array(seed, np.float32, INF, False, shape=(n, n))
    a = np.abs(a)  # no negative cycles
    a[0, n - 1] = 1.0  # an edge: the NaN scan then knows the least weight (no reduce)
    marked, ref = _both(a, INF, backend)
    got = _host(kleene.apsp(marked))
    assert np.array_equal(got, _host(kleene.apsp(ref)))
    if backend == "gpu":  # (the CPU's cycle check reduces the stored entries)
        assert marked._store.absent == INF  # the closure never needed the bitmap
    xp = np if backend == "cpu" else pytest.importorskip("cupy")
    assert np.array_equal(_host(kleene.apsp(xp.asarray(a))), got)  # the array as given
    widest, ref = _both(a, INF, backend)  # another zero (-inf): the marker's entries absent
    want = _host(kleene.apsp(ref, semiring="max_min"))
    assert np.array_equal(_host(kleene.apsp(widest, semiring="max_min")), want)


def test_a_nan_in_an_array_graph_is_an_error_on_every_route(backend):
    xp = np if backend == "cpu" else pytest.importorskip("cupy")
    a = np.full((6, 6), INF, dtype=np.float32)
    a[0, 1], a[1, 2], a[2, 3] = 1.0, np.nan, 2.0
    for method in ("auto", "recursive", "blocked", "floyd-warshall"):
        with pytest.raises(ValueError, match="NaN"):
            kleene.apsp(xp.asarray(a), method=method)
