"""The compiled CPU kernels (kleene/backends/cpu/compiled.py) against the NumPy path.

Every built-in semiring on every dtype it supports and a few user semirings (scalar
forms as text, as a function, none at all, one Numba cannot compile): masked
mxv / vxm (structural, complemented, valued masks, replace, accumulators, empty
inputs) through the public operations, the primitives directly (pull and push,
flipped, on one thread and on several), and SpGEMM against the composed NumPy
product and against SciPy. Exact for integers, bool and idempotent adds; a float
plus-sum may round differently (NumPy's reductions sum pairwise), so allclose there.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.backends import cpu
from kleene.backends.cpu import compiled, primitives
from kleene.backends.cpu.scalar_ops import literal, spec_for
from kleene.semiring import SEMIRINGS, binary, monoid
from kleene.testing import strategies as kst

pytestmark = pytest.mark.skipif(not compiled.HAVE_NUMBA, reason="needs numba")

CASES = [(n, np.dtype(d)) for n, sr in SEMIRINGS.items() for d in sr.dtypes]
IDS = [f"{n}-{d}" for n, d in CASES]
SIDE = st.integers(0, 7)


def _exact(sr, dtype) -> bool:
    return np.dtype(dtype).kind != "f" or sr.add.idempotent or sr.add.stops_at_first


def _same(got, want, exact, context=""):
    (w, wp), (rw, rp) = got, want
    assert np.array_equal(wp, rp), context
    if exact:
        assert np.array_equal(w[wp], rw[rp], equal_nan=True), context
    else:
        np.testing.assert_allclose(w[wp], rw[rp], rtol=1e-5, equal_nan=True, err_msg=context)


@pytest.fixture
def numpy_path(monkeypatch):
    """A function running ``f()`` on the NumPy primitives (the reference path)."""

    def run(f):
        with monkeypatch.context() as m:
            m.setattr(cpu, "mxv_pull", primitives.mxv_pull)
            m.setattr(cpu, "vxm_push", primitives.vxm_push)
            m.setattr(cpu, "mxm_sparse", None)
            return f()

    return run


def _elements(sr, dtype):
    return kst.elements(sr, dtype)


def _container_equal(got, want, exact):
    assert got.shape == want.shape and got.dtype == want.dtype
    gv, gp = got._bitmap()
    wv, wp = want._bitmap()
    gp = np.ones(gv.shape, bool) if gp is None else gp
    wp = np.ones(wv.shape, bool) if wp is None else wp
    assert np.array_equal(gp, wp)
    if exact:
        assert np.array_equal(gv[gp], wv[wp], equal_nan=True)
    else:
        np.testing.assert_allclose(gv[gp], wv[wp], rtol=1e-5, equal_nan=True)


# ---- every built-in semiring and dtype, through the public operations ------------------


@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
@settings(max_examples=12)
@given(data=st.data())
def test_mxv_vxm_masked(numpy_path, name, dtype, data):
    sr = SEMIRINGS[name]
    el = _elements(sr, dtype)
    which = data.draw(st.sampled_from(["mxv", "vxm"]), label="which")
    m, n = data.draw(st.tuples(SIDE, SIDE), label="m, n")
    A = data.draw(kst.matrices(dtype, (m, n), elements=el, max_side=7), label="A")
    usize, wsize = (n, m) if which == "mxv" else (m, n)
    u = data.draw(kst.vectors(dtype, usize, elements=el), label="u")
    kw = {}
    if data.draw(st.booleans(), label="masked"):
        kw["mask"] = data.draw(kst.masks((wsize,)), label="mask")
        kw["replace"] = data.draw(st.booleans(), label="replace")
    odt = sr.mul.result_dtype(dtype, dtype)
    if data.draw(st.booleans(), label="accum"):
        kw["accum"] = "lor" if odt == np.bool_ else "min"
        kw["out"] = data.draw(kst.vectors(odt, wsize, elements=kst.values(odt)), label="out")
    method = data.draw(st.sampled_from(["auto", "pull", "push"]), label="method")
    op = kleene.mxv if which == "mxv" else kleene.vxm
    args = (A, u) if which == "mxv" else (u, A)

    def run():
        kw2 = dict(kw)
        if "out" in kw2:
            kw2["out"] = kw2["out"].dup()
        return op(*args, name, method=method, **kw2)

    _container_equal(run(), numpy_path(run), _exact(sr, dtype))


@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
@settings(max_examples=10)
@given(data=st.data())
def test_spgemm(numpy_path, name, dtype, data):
    sr = SEMIRINGS[name]
    el = _elements(sr, dtype)
    m, k, n = data.draw(st.tuples(SIDE, SIDE, SIDE), label="m, k, n")
    A = data.draw(kst.matrices(dtype, (m, k), elements=el, format="csr"), label="A")
    B = data.draw(kst.matrices(dtype, (k, n), elements=el, format="csr"), label="B")
    kw = {}
    if data.draw(st.booleans(), label="masked"):
        kw["mask"] = data.draw(kst.masks((m, n)), label="mask")

    def run():
        return kleene.mxm(A, B, sr, **kw)

    _container_equal(run(), numpy_path(run), _exact(sr, dtype))


# ---- the primitives directly: pull and push, flipped, threaded -------------------------


def _random_csr(rng, m, n, density, dtype, lo=-3, hi=6):
    A = sp.random(m, n, density=density, random_state=rng, format="csr")
    A.sort_indices()
    d = np.dtype(dtype)
    if d == np.bool_:
        vals = rng.random(A.nnz) < 0.7
    else:
        vals = rng.integers(lo, hi, A.nnz).astype(d)
    return A.indptr.astype(np.int64), A.indices.astype(np.int32), vals


def _vals(rng, size, dtype, lo=-3, hi=6):
    d = np.dtype(dtype)
    return rng.random(size) < 0.6 if d == np.bool_ else rng.integers(lo, hi, size).astype(d)


@pytest.mark.parametrize("threaded", [False, True], ids=["one-thread", "threads"])
@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
def test_primitives(monkeypatch, name, dtype, threaded):
    if threaded:
        monkeypatch.setattr(compiled, "_MIN_THREADED", 0)
        monkeypatch.setattr(compiled, "_threads", lambda: 3)
    sr = SEMIRINGS[name]
    lo = 0 if sr.domain == "nonneg" else -3
    rng = np.random.default_rng(7)
    exact = _exact(sr, dtype)
    odt = sr.mul.result_dtype(dtype, dtype)
    for m, n, dens in [(0, 0, 0.0), (5, 0, 0.0), (0, 4, 0.0), (40, 30, 0.15), (300, 200, 0.05)]:
        ptr, idx, val = _random_csr(rng, m, n, dens, dtype, lo=lo)
        for flip in (False, True):
            # pull: w(i) over A's rows, u dense with a presence array or all present
            u = _vals(rng, n, dtype, lo=lo)
            for up in (None, rng.random(n) < 0.5):
                for allowed in (None, rng.random(m) < 0.5, np.zeros(m, bool)):
                    args = (sr, ptr, idx, val, u, up, allowed, odt, flip)
                    _same(
                        compiled.mxv_pull(*args),
                        primitives.mxv_pull(*args),
                        exact,
                        f"pull {m}x{n} flip={flip}",
                    )
            # push: w(j) over A's columns from u's entries (sorted, or any order)
            for ui in (np.arange(0), np.flatnonzero(rng.random(m) < 0.4), rng.permutation(m)):
                uv = _vals(rng, ui.size, dtype, lo=lo)
                for allowed in (None, rng.random(n) < 0.5):
                    args = (sr, ptr, idx, val, ui, uv, allowed, n, odt, flip)
                    _same(
                        compiled.vxm_push(*args),
                        primitives.vxm_push(*args),
                        exact,
                        f"push {m}x{n} flip={flip} nu={ui.size}",
                    )


def _spgemm_numpy(sr, a, b):
    """The composed product of multiply._spgemm (the cpu back end without mxm_sparse)."""
    from kleene.ops import multiply

    class NoFused:
        def __getattr__(self, name):
            if name == "mxm_sparse":
                raise AttributeError(name)
            return getattr(cpu, name)

    orig = multiply.backend
    multiply.backend = lambda xp: NoFused()
    try:
        dtype = sr.mul.result_dtype(a.dtype, b.dtype)
        return multiply._spgemm(np, a, b, sr, dtype)
    finally:
        multiply.backend = orig


@pytest.mark.parametrize("threaded", [False, True], ids=["one-thread", "threads"])
@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
def test_spgemm_primitive(monkeypatch, name, dtype, threaded):
    if threaded:
        monkeypatch.setattr(compiled, "_MIN_THREADED", 0)
        monkeypatch.setattr(compiled, "_threads", lambda: 3)
    sr = SEMIRINGS[name]
    lo = 0 if sr.domain == "nonneg" else -3
    rng = np.random.default_rng(3)
    for m, k, n, dens in [(0, 3, 2, 0.0), (4, 0, 3, 0.0), (30, 20, 25, 0.2), (60, 50, 8, 0.3)]:
        A = kleene.Matrix.from_csr(*_random_csr(rng, m, k, dens, dtype, lo=lo), (m, k))
        B = kleene.Matrix.from_csr(*_random_csr(rng, k, n, dens, dtype, lo=lo), (k, n))
        odt = sr.mul.result_dtype(dtype, dtype)
        keys, vals = compiled.mxm_sparse(sr, *A._csr(), *B._csr(), n, odt)
        want = _spgemm_numpy(sr, A, B)
        assert np.array_equal(keys, want.keys)
        assert vals.dtype == odt
        _same(
            (vals, np.ones(vals.size, bool)),
            (want.values, np.ones(vals.size, bool)),
            _exact(sr, dtype),
            f"spgemm {m}x{k}x{n}",
        )


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_spgemm_plus_times_matches_scipy(dtype):
    rng = np.random.default_rng(11)
    a = sp.random(120, 90, density=0.08, random_state=rng, format="csr", dtype=np.float64)
    b = sp.random(90, 70, density=0.08, random_state=rng, format="csr", dtype=np.float64)
    a.data = rng.integers(1, 9, a.nnz).astype(np.float64)
    b.data = rng.integers(1, 9, b.nnz).astype(np.float64)
    A = kleene.Matrix.from_scipy(a.astype(dtype))
    B = kleene.Matrix.from_scipy(b.astype(dtype))
    C = kleene.mxm(A, B, "plus_times")
    want = (a @ b).tocsr()  # positive values: scipy drops no cancelled entries
    pattern = (a != 0).astype(np.int64) @ (b != 0).astype(np.int64)
    assert C.nvals == pattern.nnz == want.nnz
    np.testing.assert_allclose(C.to_dense(missing=0), want.toarray(), rtol=1e-6)


def test_spgemm_rows_dense_and_sparse():
    # A row meeting more than 1/16 of the columns is collected by a scan of the marks.
    rng = np.random.default_rng(5)
    a = sp.random(50, 40, density=0.5, random_state=rng, format="csr")
    b = sp.random(40, 300, density=0.02, random_state=rng, format="csr")
    a.data[:] = 1.0
    b.data[:] = 2.0
    C = kleene.mxm(kleene.Matrix.from_scipy(a), kleene.Matrix.from_scipy(b), "plus_times")
    np.testing.assert_allclose(C.to_dense(missing=0), (a @ b).toarray())


@pytest.mark.parametrize("threaded", [False, True], ids=["one-thread", "threads"])
@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair", "max_min"])
def test_spgemm_csr_is_canonical(monkeypatch, name, threaded):
    # Rows whose columns span many bit words with few entries are sorted; rows dense
    # in their span are collected by a scan of the words; ncols not a multiple of 64.
    if threaded:
        monkeypatch.setattr(compiled, "_MIN_THREADED", 0)
        monkeypatch.setattr(compiled, "_threads", lambda: 3)
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(8)
    for m, k, n, dens in [(40, 30, 1000, 0.05), (30, 20, 130, 0.4), (25, 6, 70, 0.02)]:
        A = kleene.Matrix.from_csr(*_random_csr(rng, m, k, 0.3, np.float64, lo=1), (m, k))
        B = kleene.Matrix.from_csr(*_random_csr(rng, k, n, dens, np.float64, lo=1), (k, n))
        ptr, idx, val = compiled.mxm_sparse_csr(sr, *A._csr(), *B._csr(), n, np.float64)
        keys, vals = compiled.mxm_sparse(sr, *A._csr(), *B._csr(), n, np.float64)
        want = _spgemm_numpy(sr, A, B)
        assert ptr.dtype == np.int64 and idx.dtype == np.int32 and ptr.size == m + 1
        rows = np.repeat(np.arange(m), np.diff(ptr))
        assert np.array_equal(rows * n + idx, want.keys)  # sorted within rows, no duplicates
        assert np.array_equal(keys, want.keys)
        _same((val, np.ones(val.size, bool)), (want.values, np.ones(val.size, bool)), False)
        assert np.array_equal(val, vals)


def _gustavson_reference(a, b, ncols):
    """C = A (+.*) B row by row in Python: each C(i,j) folded left to right in A's
    row order, then B's row order (the compiled kernel's contract)."""
    (ap, ai, av), (bp, bi, bv) = a, b
    ptr, idx, val = [0], [], []
    for i in range(ap.size - 1):
        acc: dict = {}
        for p in range(ap[i], ap[i + 1]):
            k = ai[p]
            for q in range(bp[k], bp[k + 1]):
                t = av[p] * bv[q]
                acc[bi[q]] = acc[bi[q]] + t if bi[q] in acc else t
        for j in sorted(acc):
            idx.append(j)
            val.append(acc[j])
        ptr.append(len(idx))
    return np.array(ptr), np.array(idx, dtype=np.int64), np.array(val, dtype=np.float64)


@pytest.mark.parametrize("threaded", [False, True], ids=["one-thread", "threads"])
def test_spgemm_fold_order_bits(monkeypatch, threaded):
    # float plus_times: every entry the same bits as the left-to-right fold, on rows
    # placed by rank (many columns in their span) and rows sorted (a few columns
    # spread over a wide C), ncols not a multiple of 64
    if threaded:
        monkeypatch.setattr(compiled, "_MIN_THREADED", 0)
        monkeypatch.setattr(compiled, "_threads", lambda: 3)
    sr = SEMIRINGS["plus_times"]
    rng = np.random.default_rng(12)
    for m, k, n, da, db in [(30, 40, 20011, 0.05, 0.0005), (30, 40, 301, 0.3, 0.3)]:
        a = sp.random(m, k, density=da, random_state=rng, format="csr")
        b = sp.random(k, n, density=db, random_state=rng, format="csr")
        a.data = rng.standard_normal(a.nnz) * 1e3
        b.data = rng.standard_normal(b.nnz) * 1e-3
        a.data[: a.nnz // 4] = 1e16  # large terms: a different order rounds differently
        a_csr = (a.indptr.astype(np.int64), a.indices.astype(np.int32), a.data)
        b_csr = (b.indptr.astype(np.int64), b.indices.astype(np.int32), b.data)
        ptr, idx, val = compiled.mxm_sparse_csr(sr, *a_csr, *b_csr, n, np.float64)
        wp, wi, wv = _gustavson_reference(a_csr, b_csr, n)
        assert np.array_equal(ptr, wp) and np.array_equal(idx, wi)
        assert np.array_equal(val.view(np.int64), wv.view(np.int64))


def test_spgemm_csr_no_products():
    sr = SEMIRINGS["plus_times"]
    a = (np.array([0, 1, 1]), np.array([1], np.int32), np.array([2.0]))
    b = (np.array([0, 1, 1]), np.array([0], np.int32), np.array([3.0]))
    ptr, idx, val = compiled.mxm_sparse_csr(sr, *a, *b, 2, np.float64)
    assert ptr.tolist() == [0, 0, 0] and idx.size == 0 and val.size == 0
    C = kleene.mxm(kleene.Matrix.from_csr(*a, (2, 2)), kleene.Matrix.from_csr(*b, (2, 2)), sr)
    assert C.nvals == 0 and C.shape == (2, 2)


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair", "max_times"])
def test_mxv_full_u_pulls(monkeypatch, name):
    # auto on the CPU pulls a full u through A's rows (no flags per entry; empty rows
    # stay absent) and gives push's entries; vxm pulls only where Aᵀ is at hand.
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(4)
    ptr, idx, val = _random_csr(rng, 50, 40, 0.1, np.float64, lo=1)
    A = kleene.Matrix.from_csr(ptr, idx, val, (50, 40))
    u = kleene.Vector.from_dense(rng.integers(1, 5, 40).astype(np.float64))
    calls = []
    real = cpu.mxv_pull
    monkeypatch.setattr(cpu, "mxv_pull", lambda *a, **k: calls.append(1) or real(*a, **k))
    got = kleene.mxv(A, u, sr)
    assert calls, "a full u pulls"
    want = kleene.mxv(A, u, sr, method="push")
    _container_equal(got, want, _exact(sr, np.float64))
    assert got.nvals == int((np.diff(ptr) > 0).sum())
    calls.clear()
    w = kleene.Vector.from_dense(rng.integers(1, 5, 50).astype(np.float64))
    kleene.vxm(w, A, sr)
    assert not calls, "vxm without Aᵀ at hand scatters"


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "any_pair", "max_times"])
@pytest.mark.parametrize("threads", [2, 3])
def test_full_pull_same_bits_on_threads(monkeypatch, name, threads):
    # the dense pull (rows split over Numba's threads by stored entries) sums each row
    # in its stored order on one thread: the same bits as one row after the other on
    # the calling thread (float plus too); rows of 0 to 60 entries, of unequal lengths
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(9)
    lengths = rng.integers(0, 61, 700)
    lengths[::7] = 0
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    idx = np.concatenate([np.sort(rng.choice(500, n, replace=False)) for n in lengths])
    idx = idx.astype(np.int32)
    val = rng.standard_normal(idx.size) * 1e3
    u = rng.standard_normal(500)
    odt = np.dtype(np.float64)
    one = compiled.mxv_pull(sr, ptr, idx, val, u, None, None, odt)
    spec, mod = compiled._specialised(sr, val.dtype, u.dtype, odt, False)
    row_by_row = np.empty(700, odt), np.empty(700, bool)
    mod.pull_full(ptr, idx, val, u, 0, 700, *row_by_row)  # one row, then the next
    assert np.array_equal(one[1], row_by_row[1])
    assert np.array_equal(one[0][one[1]].view(np.int64), row_by_row[0][one[1]].view(np.int64))
    monkeypatch.setattr(compiled, "_MIN_THREADED", 0)
    monkeypatch.setattr(compiled, "_threads", lambda: threads)
    calls = []
    real = mod.pull_full_par
    monkeypatch.setattr(mod, "pull_full_par", lambda *a: calls.append(a[4]) or real(*a))
    split = compiled.mxv_pull(sr, ptr, idx, val, u, None, None, odt)
    assert len(calls) == 1 and calls[0].size == threads + 1, "split over the threads"
    assert np.array_equal(one[1], split[1])
    assert np.array_equal(one[0][one[1]].view(np.int64), split[0][split[1]].view(np.int64))


@pytest.mark.parametrize("name", ["any_pair", "min_plus", "plus_times", "lor_land"])
def test_masked_vxm_pulls_few_allowed_outputs(monkeypatch, name):
    # A large frontier and a complemented mask leaving few outputs (a middle BFS
    # level): auto pulls over Aᵀ, built and cached on A, with push's entries; a
    # small frontier scatters.
    sr = SEMIRINGS[name]
    dtype = np.dtype(bool) if name == "lor_land" else np.dtype(np.float64)
    rng = np.random.default_rng(12)
    n = 400
    ptr, idx, val = _random_csr(rng, n, n, 0.05, dtype, lo=1)
    A = kleene.Matrix.from_csr(ptr, idx, val, (n, n))
    front = np.sort(rng.choice(n, 250, replace=False))
    q = kleene.Vector.from_coo(front, _vals(rng, front.size, dtype, lo=1), n)
    seen = kleene.Vector.from_coo(np.arange(n - 30), np.ones(n - 30, bool), n)
    calls = []
    real = cpu.mxv_pull
    monkeypatch.setattr(cpu, "mxv_pull", lambda *a, **k: calls.append(1) or real(*a, **k))
    got = kleene.vxm(q, A, sr, mask=~seen.S)
    assert calls and A.known("csr_T") is not None
    want = kleene.vxm(q, A, sr, mask=~seen.S, method="push")
    _container_equal(got, want, _exact(sr, dtype))
    assert got.nvals > 0 and not got.to_dense(missing=0)[: n - 30].any()
    calls.clear()
    small = kleene.Vector.from_coo([3], _vals(rng, 1, dtype, lo=1), n)
    kleene.vxm(small, A, sr, mask=~seen.S)
    assert not calls


# ---- user-defined semirings ------------------------------------------------------------

_min_text = kleene.BinaryOp("mymin", np.fmin, "(x < y ? x : y)", scalar="y if y < x else x")
_absdiff_fn = kleene.BinaryOp(
    "absdiff",
    lambda x, y: np.abs(x - y),
    "(x < y ? y - x : x - y)",
    scalar=lambda x, y: y - x if x < y else x - y,
)
_hyp_none = kleene.BinaryOp("hyp", np.hypot, "hypot(x, y)")  # no scalar form: NumPy path
_bad_fn = kleene.BinaryOp("bad", np.add, "x + y", scalar=lambda x, y: {x: y}[x] + object())

USER = {
    "text": kleene.Semiring(
        kleene.Monoid(_min_text, float("inf"), idempotent=True), binary.plus, name="mymin_plus"
    ),
    "function": kleene.Semiring(monoid.min, _absdiff_fn, name="min_absdiff"),
    "none": kleene.Semiring(monoid.min, _hyp_none, name="min_hyp"),
    "uncompilable": kleene.Semiring(monoid.plus, _bad_fn, name="plus_bad"),
}


@pytest.mark.parametrize("case", list(USER))
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_user_semirings(numpy_path, case, dtype):
    sr = USER[case]
    rng = np.random.default_rng(2)
    m, n = 40, 30
    A = kleene.Matrix.from_csr(*_random_csr(rng, m, n, 0.2, dtype, lo=0), (m, n))
    B = kleene.Matrix.from_csr(*_random_csr(rng, n, m, 0.2, dtype, lo=0), (n, m))
    u = kleene.Vector.from_coo(np.arange(0, n, 2), _vals(rng, n // 2, dtype, lo=0), n)
    M = kleene.Vector.from_coo(np.arange(0, m, 3), np.ones(len(range(0, m, 3)), bool), m)
    runs = [
        lambda: kleene.mxv(A, u, sr, mask=~M.S, method="pull"),
        lambda: kleene.mxv(A, u, sr, mask=M.V, method="push"),
        lambda: kleene.vxm(u, B, sr, mask=~M.S),
        lambda: kleene.mxm(A, B, sr),
    ]
    for run in runs:
        _container_equal(run(), numpy_path(run), exact=True)
    if case == "none":
        assert spec_for(sr, dtype, dtype, dtype) is None
    if case == "uncompilable":  # Numba refuses the function: remembered, NumPy path
        assert spec_for(sr, dtype, dtype, dtype) in compiled._FAILED


def test_scalar_form_validation():
    with pytest.raises(TypeError, match="scalar"):
        kleene.BinaryOp("x", np.add, "x + y", scalar=3)
    with pytest.raises(ValueError, match="kinds"):
        kleene.BinaryOp("x", np.add, "x + y", scalar={"u": "x + y"})
    op = kleene.BinaryOp("x", np.add, "x + y", scalar={"f": "x + y"})
    assert op.scalar_for(np.float32) == "x + y" and op.scalar_for(np.int32) is None


def test_builtin_scalar_forms_match_numpy():
    """Each built-in operator's scalar form, compiled, equals its NumPy form on a grid
    of values including the dtype's infinities (saturating tplus, NaN-ignoring min)."""
    import numba

    from kleene.semiring import infinity, neg_infinity

    for op in vars(binary).values():
        for d in map(np.dtype, (np.bool_, np.int32, np.int64, np.float32, np.float64)):
            form = op.scalar_for(d)
            if form is None:
                continue
            grid = [infinity(d), neg_infinity(d)]
            grid += [True, False] if d.kind == "b" else [0, 1, -1, 7, -5]
            if d.kind == "f":
                grid.append(np.nan)
            if d.kind == "i":
                grid += [np.iinfo(d).max - 3, np.iinfo(d).min + 3]
            vals = np.array(grid, dtype=d)
            x, y = np.meshgrid(vals, vals)
            x, y = x.ravel(), y.ravel()
            out = op.result_dtype(d, d)
            want = primitives.binary(op, x, y, out)
            ns = {"np": np}
            src = (
                f"def f(x, y):\n    HI = {literal(infinity(d), d)}\n"
                f"    LO = {literal(neg_infinity(d), d)}\n"
                f"    return np.dtype('{out.name}').type({form})\n"
            )
            exec(src, ns)
            f = numba.njit(ns["f"])
            got = np.array([f(a, b) for a, b in zip(x, y, strict=True)], dtype=out)
            assert np.array_equal(got, want, equal_nan=True), (op.name, d)
