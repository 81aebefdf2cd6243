"""The GPU side of ingestion: row expansion, symmetry fingerprints, borrowed cupyx
CSRs, float32 Bellman-Ford, and undirected graphs that are already symmetric.
Skipped without CuPy or a GPU."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

pytestmark = pytest.mark.gpu

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

import cupy  # noqa: E402
import cupyx.scipy.sparse as csp  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from scipy.sparse.csgraph import dijkstra  # noqa: E402

import kleene  # noqa: E402
from kleene.backends.cuda import structure  # noqa: E402
from kleene.core import Matrix, layout  # noqa: E402
from kleene.ops import is_symmetric  # noqa: E402


def _csr(n, density, seed, dtype=np.float64):
    g = sp.random(n, n, density=density, random_state=seed, format="csr", dtype=dtype)
    g.data = (g.data * 9 + 1).astype(dtype)
    g.sum_duplicates()
    return g


@pytest.mark.parametrize("counts", [[0], [3, 0, 0, 5], [1] * 1000, [0, 70000, 2, 0, 33]])
def test_expand_rows_matches_repeat(counts):
    c = np.asarray(counts, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(c)])
    got = structure.expand_rows(cupy.asarray(offsets)).get()
    np.testing.assert_array_equal(got, np.repeat(np.arange(c.size), c))
    got = structure.expand_rows(cupy.asarray(offsets), dtype=np.int32).get()
    np.testing.assert_array_equal(got, np.repeat(np.arange(c.size), c))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_])
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(["sym", "pattern", "one-off", "rand"]))
def test_fingerprint_agrees_with_the_cpu(dtype, seed, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    g = sp.random(n, n, density=0.2, random_state=seed, format="csr")
    g.data = rng.integers(1, 4, g.nnz).astype(np.float64)
    if kind != "rand":
        g = (g + g.T).tocsr()
    if kind == "pattern":  # symmetric pattern, one weight changed
        if g.nnz:
            g.data[rng.integers(g.nnz)] += 1
    if kind == "one-off" and n > 1:  # one extra entry without its mirror
        g = g.tolil()
        g[0, n - 1] = 0 if g[n - 1, 0] == 0 else g[0, n - 1]
        g[n - 1, 0] = 0
        g = g.tocsr()
    g.sum_duplicates()
    g = g.astype(dtype)
    host = Matrix.from_scipy(g)
    # cupyx holds only float/bool data: the device matrix from its CSR arrays
    dev = Matrix.from_csr(*(cupy.asarray(a) for a in (g.indptr, g.indices, g.data)), g.shape)
    for values in (True, False):
        assert is_symmetric(dev, values=values) == is_symmetric(host, values=values)
    # the NaN check's pass answers both questions too, on a fresh matrix
    fresh = Matrix.from_csr(*(cupy.asarray(a) for a in (g.indptr, g.indices, g.data)), g.shape)
    assert not fresh.has_nan()
    for values in (True, False):
        assert is_symmetric(fresh, values=values) == is_symmetric(host, values=values)


@pytest.mark.parametrize("kind", ["sym", "one-off"])
def test_fingerprint_over_long_runs_of_empty_rows(kind):
    """Scan chunks that span hundreds of thousands of empty rows (the row search
    gallops over them) and a hub split over many chunks: the same answers as the CPU,
    and a NaN found anywhere."""
    rng = np.random.default_rng(5)
    n = 1 << 20
    rows = np.concatenate([rng.choice(n, 3000, replace=False), np.full(5000, 7)])
    cols = np.concatenate([rng.choice(n, 3000), rng.choice(n, 5000)])
    g = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    g = (g + g.T).tocsr()
    if kind == "one-off":
        g = g.tolil()
        g[n - 1, 3] = 2.0  # the last row, its mirror absent
        g = g.tocsr()
    g.sum_duplicates()
    host, dev = Matrix.from_scipy(g), Matrix.from_scipy(csp.csr_matrix(g))
    for values in (True, False):
        assert is_symmetric(dev, values=values) == is_symmetric(host, values=values)
    g.data[-1] = np.nan
    assert Matrix.from_scipy(csp.csr_matrix(g)).has_nan()


def test_nan_found_by_the_fused_scan():
    h = _csr(5000, 0.001, 8)
    h.data[h.nnz // 2] = np.nan
    A = Matrix.from_scipy(csp.csr_matrix(h))
    assert A.has_nan()
    with pytest.raises(ValueError, match="NaN"):  # a weighted search refuses it
        kleene.sssp(csp.csr_matrix(h), 0)
    # bfs reads the pattern only: a NaN weight is an edge (docs/algorithms.md, as scipy)
    ones = h.copy()
    ones.data[:] = 1.0
    got = kleene.bfs(csp.csr_matrix(h), 0)
    assert (got == kleene.bfs(csp.csr_matrix(ones), 0)).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
@given(seed=st.integers(0, 10**6), sign=st.sampled_from(["mixed", "positive", "zeros"]))
def test_the_fused_scan_gives_the_value_range(dtype, seed, sign):
    # The read that checks NaN and symmetry also gives what the shortest-path loops
    # ask next: least, greatest, positive sum and count, equal to NumPy's.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    g = sp.random(n, n, density=0.15, random_state=seed, format="csr")
    vals = {
        "mixed": rng.normal(0, 50, g.nnz),
        "positive": rng.uniform(0.5, 1e3, g.nnz),
        "zeros": rng.integers(0, 2, g.nnz).astype(np.float64),
    }[sign]
    g.data = vals.astype(dtype)
    w = g.data
    stats = {}
    ptr, idx = cupy.asarray(g.indptr, np.int64), cupy.asarray(g.indices, np.int32)
    structure.symmetry_sums(ptr, idx, cupy.asarray(w), 7, stats=stats)
    if not w.size:
        assert stats == {}
        return
    assert stats["least"] == float(w.min()) and stats["greatest"] == float(w.max())
    positive = w[w > 0].astype(np.float64)
    assert stats["positive_count"] == positive.size
    assert stats["positive_sum"] == pytest.approx(positive.sum(), rel=1e-12, abs=0)
    if dtype in (np.float64, np.float32):  # cached on a graph passed per call
        from kleene.algorithms.graph_input import as_graph

        A = as_graph(csp.csr_matrix(g))
        assert A.cached("min_value", lambda: None) == float(w.min())
        most, total, count = A.cached("value_stats", lambda: None)
        assert (most, count) == (float(w.max()), positive.size)
        assert total == pytest.approx(positive.sum(), rel=1e-12, abs=0)


def _laid_out(v, layout_: str):
    """v's values as the dense kernels may meet them: "view", a block of a larger matrix
    (row strides of the parent); "unaligned", contiguous but off the 16-byte alignment
    of the vector loads; otherwise v itself."""
    m, n = v.shape
    if layout_ == "view":
        big = cupy.zeros((m + 3, n + 5), dtype=v.dtype)
        big[1 : m + 1, 2 : n + 2] = v
        return big[1 : m + 1, 2 : n + 2]
    if layout_ == "unaligned":
        flat = cupy.zeros(m * n + 1, dtype=v.dtype)
        flat[1:] = v.ravel()
        return flat[1:].reshape(m, n)
    return v


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_])
@given(
    seed=st.integers(0, 10**6),
    nan=st.booleans(),
    layout_=st.sampled_from(["full", "masked", "view", "unaligned"]),
)
def test_the_dense_scan_gives_nans_and_the_value_range(dtype, seed, layout_, nan):
    # Matrix.has_nan's one pass over a dense matrix (kl_dense_scan): NaN count, least,
    # greatest, positive sum and count of the stored values, equal to NumPy's, for a
    # full matrix, one with a bitmap, a strided block view of one (the 2-D kernel) and
    # a contiguous one off the 16-byte alignment of the vector loads.
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 70)), int(rng.integers(1, 300))
    vals = rng.normal(0, 50, (m, n))
    if np.dtype(dtype).kind != "f":
        vals = np.rint(vals)
    vals = vals.astype(dtype)
    present = rng.random((m, n)) < 0.7 if layout_ != "full" else None
    if nan and np.dtype(dtype).kind == "f":
        vals[rng.integers(0, m), rng.integers(0, n)] = np.nan
    v, p = cupy.asarray(vals), None if present is None else cupy.asarray(present)
    v = _laid_out(v, layout_)
    stats: dict = {}
    nans = structure.dense_scan(v, p, stats)
    kept = vals if present is None else vals[present]
    isnan = np.isnan(kept) if np.dtype(dtype).kind == "f" else np.zeros(kept.shape, bool)
    assert nans == int(isnan.sum())
    w = kept[~isnan]
    if not w.size:
        assert "least" not in stats
        return
    assert stats["least"] == float(w.min()) and stats["greatest"] == float(w.max())
    positive = w[w > 0].astype(np.float64)
    assert stats["positive_count"] == positive.size
    assert stats["positive_sum"] == pytest.approx(positive.sum(), rel=1e-12, abs=1e-300)
    again: dict = {}  # atomics: the same input gives the same answer
    assert structure.dense_scan(v, p, again) == nans
    assert (again["least"], again["greatest"]) == (stats["least"], stats["greatest"])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_])
@given(
    seed=st.integers(0, 10**6),
    layout_=st.sampled_from(["full", "view", "unaligned"]),
    into=st.booleans(),
)
def test_the_dense_fill_matches_numpy(dtype, seed, layout_, into):
    # A bitmap matrix's dense form (to_dense of a dense Matrix with absent entries) by
    # kl_dense_fill_vec where the arrays are contiguous and aligned, else CuPy's
    # elementwise kernel: present ? value : fill, equal to NumPy's where, tails too.
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 70)), int(rng.integers(1, 300))
    vals = rng.normal(0, 50, (m, n))
    vals = (vals > 0) if dtype is np.bool_ else vals.astype(dtype)
    present = rng.random((m, n)) < 0.6
    fill = dtype(1) if dtype is np.bool_ else dtype(-7)
    v = cupy.asarray(vals)
    v = _laid_out(v, layout_)  # strided rows and unaligned: the elementwise kernel
    out = cupy.full((m, n), fill, dtype=dtype) if into else None
    got = structure.dense_fill(v, cupy.asarray(present), fill, out)
    assert got.dtype == np.dtype(dtype) and (out is None or got is out)
    assert np.array_equal(cupy.asnumpy(got), np.where(present, vals, fill))
    everything = structure.dense_fill(v, None, fill)  # no bitmap: every entry stored
    assert np.array_equal(cupy.asnumpy(everything), vals)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_])
@given(
    seed=st.integers(0, 10**6),
    nan=st.booleans(),
    layout_=st.sampled_from(["full", "view", "unaligned"]),
)
def test_the_fill_scans_in_the_same_pass(dtype, seed, layout_, nan):
    # dense_fill_scan: the fill of test_the_dense_fill_matches_numpy, and from the same
    # read (kl_dense_fill_vec<V, true>) what dense_scan finds among the stored values,
    # read back when asked; None where the fill takes the elementwise kernel.
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 70)), int(rng.integers(1, 300))
    vals = rng.normal(0, 50, (m, n))
    vals = (vals > 0) if dtype is np.bool_ else vals.astype(dtype)
    if nan and np.dtype(dtype).kind == "f":
        vals[rng.integers(0, m), rng.integers(0, n)] = np.nan
    present = rng.random((m, n)) < 0.6
    fill = dtype(1) if dtype is np.bool_ else dtype(-7)
    v, p = cupy.asarray(vals), cupy.asarray(present)
    v = _laid_out(v, layout_)
    got, pending = structure.dense_fill_scan(v, p, fill)
    assert np.array_equal(cupy.asnumpy(got), np.where(present, vals, fill), equal_nan=nan)
    if layout_ != "full":
        assert pending is None
        return
    want: dict = {}
    nans = structure.dense_scan(v, p, want)
    found, stats = pending.result()
    assert found == nans and pending.result() == (found, stats)  # (read back once)
    assert {k: stats.get(k) for k in ("least", "greatest", "positive_count")} == {
        k: want.get(k) for k in ("least", "greatest", "positive_count")
    }
    assert stats["positive_sum"] == pytest.approx(want["positive_sum"], rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@given(
    seed=st.integers(0, 10**6),
    nan=st.booleans(),
    mark=st.sampled_from([np.inf, -np.inf]),
    layout_=st.sampled_from(["full", "view", "unaligned"]),
)
def test_a_marked_fill_and_scan_equal_the_bitmaps(dtype, seed, nan, mark, layout_):
    # A matrix kept with its absent marker (from_dense of an array, "inf = no edge"):
    # kl_dense_fill_vec / kl_dense_scan_vec with KL_KEEP_MARKED take value != mark as
    # stored, with the answers of the bitmap (values != mark) in every fill, NaN or not;
    # strided or unaligned arrays build that bitmap and take the bitmap kernels.
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 70)), int(rng.integers(1, 300))
    vals = rng.normal(0, 50, (m, n)).astype(dtype)
    vals[rng.random((m, n)) < 0.4] = mark
    vals[rng.random((m, n)) < 0.05] = -mark  # the other infinity is an entry
    if nan:
        vals[rng.integers(0, m), rng.integers(0, n)] = np.nan
    present = vals != mark
    v = _laid_out(cupy.asarray(vals), layout_)
    for fill in (dtype(mark), dtype(-7), dtype(np.nan)):
        want = np.where(present, vals, fill)
        got = structure.dense_fill(v, None, fill, mark=mark)
        assert np.array_equal(cupy.asnumpy(got), want, equal_nan=True)
        got, pending = structure.dense_fill_scan(v, None, fill, mark=mark)
        assert np.array_equal(cupy.asnumpy(got), want, equal_nan=True)
        assert (pending is None) == (layout_ != "full")
    want_stats: dict = {}
    nans = structure.dense_scan(v, cupy.asarray(present), want_stats)
    stats: dict = {}
    assert structure.dense_scan(v, None, stats, mark=mark) == nans == int(nan)
    found = [stats] if pending is None else [stats, pending.result()[1]]
    if pending is not None:
        assert pending.result()[0] == nans
    exact = ("least", "greatest", "positive_count")
    for got in found:  # (the positive sum by atomics: its rounding follows their order)
        assert {k: got.get(k) for k in exact} == {k: want_stats.get(k) for k in exact}
        assert got["positive_sum"] == pytest.approx(want_stats["positive_sum"], rel=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_full_matrix_fill_scans_in_the_same_pass(dtype):
    # No bitmap and no marker: the fill is a copy (KL_KEEP_ALL) that scans every value.
    rng = np.random.default_rng(3)
    vals = rng.uniform(-3, 9, (129, 131)).astype(dtype)
    vals[5, 6] = np.inf
    v = cupy.asarray(vals)
    got, pending = structure.dense_fill_scan(v, None, dtype(0))
    assert np.array_equal(cupy.asnumpy(got), vals) and pending is not None
    want: dict = {}
    nans, stats = pending.result()
    assert nans == structure.dense_scan(v, None, want) == 0
    assert stats["least"] == want["least"] == float(vals.min())
    assert stats["greatest"] == want["greatest"] == np.inf
    assert stats["positive_count"] == want["positive_count"] == int((vals > 0).sum())


def test_fill_scans_reuse_their_buffers_once_read():
    # Each pending scan has its own output and page-locked answer until read; a read
    # one's are reused by the next scan (from its start, not from the last answer).
    rng = np.random.default_rng(8)
    shape = (64, 256)
    p = cupy.asarray(rng.random(shape) < 0.7)
    mats = [rng.uniform(-5, 5, shape).astype(np.float32) for _ in range(3)]
    mats[1][3, 4] = np.nan
    pend = [structure.dense_fill_scan(cupy.asarray(a), p, np.float32(0))[1] for a in mats]
    slots = [q._slot for q in pend]
    assert len({id(s) for s in slots}) == 3  # three outstanding: three slots
    present = cupy.asnumpy(p)
    for a, q in reversed(list(zip(mats, pend, strict=True))):  # read in another order
        kept = a[present]
        nans, stats = q.result()
        assert nans == int(np.isnan(kept).sum())
        assert stats["least"] == float(np.nanmin(kept))
    again = structure.dense_fill_scan(cupy.asarray(mats[2]), p, np.float32(0))[1]
    assert again._slot in slots  # a read slot, reset behind the last read, reused
    nans, stats = again.result()
    assert nans == 0 and stats["greatest"] == float(mats[2][present].max())
    with cupy.cuda.Stream(non_blocking=True):  # reset on the other stream: waited for
        x = cupy.asarray(mats[1])
        nans, stats = structure.dense_fill_scan(x, p, np.float32(0))[1].result()
    assert nans == 1 and stats["least"] == float(np.nanmin(mats[1][present]))


def test_to_dense_with_scan_answers_has_nan_without_another_pass(monkeypatch):
    # Matrix.to_dense(scan=True) on a float bitmap matrix: has_nan, the least value and
    # the range come from the fill's pass (dense_scan is never called), NaN or not.
    rng = np.random.default_rng(5)
    a = rng.uniform(-2.0, 9.0, (257, 259)).astype(np.float32)
    a[rng.random(a.shape) < 0.4] = np.inf
    kept = a[np.isfinite(a)]

    def refuse(*args, **kw):
        raise AssertionError("has_nan scanned again")

    monkeypatch.setattr(structure, "dense_scan", refuse)
    A = Matrix.from_dense(cupy.asarray(a))
    d = A.to_dense(missing=np.float32(np.inf), scan=True)
    assert A.known("has_nan") is None  # nothing read back yet
    assert not A.has_nan()
    assert A.known("min_value") == float(kept.min())
    assert A.known("value_stats")[0] == float(kept.max())
    assert np.array_equal(cupy.asnumpy(d), a)
    a[100, 3] = np.nan
    B = Matrix.from_dense(cupy.asarray(a))
    B.to_dense(missing=np.float32(np.inf), scan=True)
    assert B.has_nan() and B.known("min_value") is None


def test_to_dense_of_a_large_bitmap_matrix_takes_the_vector_fill():
    # 4096² float32 with inf absent (the dense APSP input): the vector kernel's main
    # loop (four loads in flight a thread) and the result equal to NumPy's.
    rng = np.random.default_rng(11)
    a = rng.uniform(1.0, 9.0, (4096, 4096)).astype(np.float32)
    a[rng.random(a.shape) < 0.3] = np.inf
    A = Matrix.from_dense(cupy.asarray(a))
    got = A.to_dense(missing=np.float32(-1.0))
    assert np.array_equal(cupy.asnumpy(got), np.where(np.isinf(a), np.float32(-1.0), a))


def test_dense_has_nan_leaves_the_range_for_apsp():
    # The NaN check of a dense GPU matrix caches the least value too: apsp's negative
    # weight test then reads it, not the matrix (one pass over the input, not two).
    rng = np.random.default_rng(3)
    a = rng.uniform(-1.0, 9.0, (300, 300)).astype(np.float32)
    a[rng.random(a.shape) < 0.5] = np.inf
    A = Matrix.from_dense(cupy.asarray(a))
    assert not A.has_nan()
    kept = a[np.isfinite(a)]
    assert A.known("min_value") == float(kept.min())
    assert A.known("value_stats")[0] == float(kept.max())
    block = A.block(slice(10, 200), slice(50, 120))  # a view answers for its own entries
    assert not block.has_nan()
    sub = a[10:200, 50:120]
    assert block.known("min_value") == float(sub[np.isfinite(sub)].min())
    a[5, 7] = np.nan
    B = Matrix.from_dense(cupy.asarray(a))
    assert B.has_nan() and B.known("min_value") is None
    with pytest.raises(ValueError, match="NaN"):
        kleene.apsp(B)


def test_borrowed_cupyx_csr_is_not_copied_or_sorted(monkeypatch):
    g = csp.csr_matrix(_csr(500, 0.02, 1))  # int32 indptr: only it is converted (n + 1)
    A = Matrix.from_scipy(g, copy=False)
    assert A._csr()[1].data.ptr == g.indices.data.ptr
    assert A._csr()[2].data.ptr == g.data.data.ptr

    def refuse(*a, **k):
        raise AssertionError("a canonical CSR was sorted again")

    monkeypatch.setattr(layout, "coo_to_csr", refuse)
    lv = kleene.bfs(g, 0)
    assert int(lv[0]) == 0


def test_symmetric_graph_serves_as_its_own_transpose():
    h = _csr(400, 0.02, 2)
    h = (h + h.T).tocsr()
    A = Matrix.from_scipy(csp.csr_matrix(h))
    from kleene.ops.multiply import transposed_csr

    t = transposed_csr(A)
    assert t[1].data.ptr == A._csr()[1].data.ptr  # no second copy
    for method in ("pull", "direction-optimizing"):
        np.testing.assert_array_equal(
            kleene.bfs(A, 3, method=method).get(), kleene.bfs(h, 3, method=method)
        )


@pytest.mark.parametrize("directed", [True, False])
def test_float32_weights_on_the_gpu(directed):
    h = _csr(3000, 0.002, 3, dtype=np.float32)
    g = csp.csr_matrix(h)
    d = kleene.sssp(g, 0, directed=directed)
    assert d.dtype == np.float64
    np.testing.assert_allclose(
        d.get(), dijkstra(h.astype(np.float64), indices=0, directed=directed)
    )
    d2 = kleene.sssp(g.astype(np.float64), 0, directed=directed)
    np.testing.assert_array_equal(d.get(), d2.get())


def test_undirected_matches_scipy_symmetric_or_not():
    h = _csr(2000, 0.003, 4)
    for graph in (h, (h + h.T).tocsr()):
        g = csp.csr_matrix(graph)
        np.testing.assert_allclose(
            kleene.sssp(g, 0, directed=False).get(), dijkstra(graph, indices=0, directed=False)
        )
        reach = kleene.bfs(g, 0, directed=False).get() >= 0
        assert (reach == np.isfinite(dijkstra(graph, indices=0, directed=False))).all()


def test_out_of_memory_is_named():
    n = 1 << 22
    free, _ = cupy.cuda.runtime.memGetInfo()
    k = int(free // (n * 8)) * 4 + 64  # more (k, n) int64 rows than the device holds
    A = Matrix.from_edges(cupy.arange(n - 1), cupy.arange(1, n), n=n)
    with pytest.raises(MemoryError, match="bfs"):
        kleene.bfs(A, list(range(k)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("seed", [0, 1])
def test_symmetrize_merge_matches_the_composed_union(dtype, seed):
    h = _csr(700, 0.01, 10 + seed).astype(dtype)
    h[5, :] = 3  # a heavy row, and its column in the transpose
    h = h.tocsr()
    h.sum_duplicates()
    A = Matrix.from_csr(*(cupy.asarray(a) for a in (h.indptr, h.indices, h.data)), h.shape)
    S = kleene.ops.symmetrize(A)
    expect = kleene.ewise_add(A, kleene.transpose(A), "min")
    assert S.isequal(expect)
    P = kleene.ops.symmetrize(A, pattern=True)
    assert P.dtype == np.bool_ and P.nvals == expect.nvals
    np.testing.assert_array_equal(P.to_coo()[0].get(), expect.to_coo()[0].get())
    np.testing.assert_array_equal(P.to_coo()[1].get(), expect.to_coo()[1].get())
