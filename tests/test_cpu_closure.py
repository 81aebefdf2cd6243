"""The fused CPU closure primitives (kleene.backends.cpu.closure, Numba) against their
composed forms (kleene.backends.generic_closure), and kleene.apsp run on them against scipy.

``mxm_dense_acc`` (C ⊕= A ⊗ B) and ``closure_dense`` (Floyd-Warshall) must give the
composed forms' results bit for bit, predecessors included: on contiguous arrays,
block views of larger ones, column strides and transposes, with the semirings'
specials (±inf, the integers' saturating limits, 0) and NaN. Overlapping operands
are read as they were before the call; where the closure algorithms overlap them
(a closed block times its row or column) that equals the composed form's in-place
rank-1 steps. Semirings and dtypes without a compiled form delegate to the composed
forms. Kernels compile once per (semiring kind, dtype): CASES keeps that list short.
Skipped without Numba.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycle
from scipy.sparse.csgraph import shortest_path

pytest.importorskip("numba", reason="the fused CPU closures are compiled with numba")

from graph_data import (  # noqa: E402
    check_all_paths,
    check_shortest_path_tree,
    edge_weights,
    graphs,
    load_scipy,
)

import kleene  # noqa: E402
import kleene.backends.cpu as cpu_backend  # noqa: E402
from kleene.backends import cpu
from kleene.backends import generic_closure as closure_generic  # noqa: E402
from kleene.backends.cpu import closure as cc  # noqa: E402
from kleene.semiring import SEMIRINGS, BinaryOp, Semiring, monoid  # noqa: E402
from kleene.semiring.dtypes import infinity, neg_infinity  # noqa: E402

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
I32, I64, BOOL = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)
CASES = [
    ("min_plus", F64),
    ("min_plus", F32),
    ("min_plus", I64),
    ("min_plus", I32),
    ("max_plus", I64),
    ("max_min", F64),
    ("min_max", I32),
    ("max_times", F64),
    ("lor_land", BOOL),
]
IDS = [f"{name}-{d.name}" for name, d in CASES]
DENSE = ("floyd-warshall", "blocked", "recursive")


# ---- data ------------------------------------------------------------------------------


def values(rng, shape, sr: Semiring, d, specials=True) -> np.ndarray:
    """Random carrier values, ~15% special: ±inf (the integer limits), values near the
    limits (saturating sums), 0. Floats carry fractions (sums round)."""
    d = np.dtype(d)
    if d == BOOL:
        return rng.random(shape) < 0.4
    lo = 0 if sr.name == "max_times" else -20
    v = rng.integers(lo, 20, size=shape).astype(d)
    if d.kind == "f":
        v += rng.random(shape).astype(d)
    if specials and v.size:
        sp_ = [d.type(0), infinity(d), neg_infinity(d)]
        if sr.name == "max_times":
            sp_ = [d.type(0), d.type(1), infinity(d)]
        if d.kind == "i":
            info = np.iinfo(d)
            sp_ += [d.type(info.max - 3), d.type(info.min + 3)]
        pick = rng.random(shape) < 0.15
        v[pick] = rng.choice(np.array(sp_, dtype=d), size=int(pick.sum()))
    return v


def tie_values(rng, shape, sr, d):
    """Values with many ties (integer-valued floats): the predecessor rule's first k."""
    v = values(rng, shape, sr, d)
    return np.floor(v) if np.dtype(d).kind == "f" else v


def same(got, want) -> None:
    """Equal, bit for bit."""
    got, want = np.asarray(got), np.asarray(want)
    np.testing.assert_array_equal(got, want)
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


def acc_generic(sr, a, b, c, pb=None, pc=None):
    """The composed form on copies: (C, pc) after C ⊕= A ⊗ B."""
    c = c.copy()
    pc = None if pc is None else pc.copy()
    closure_generic.mxm_dense_acc(
        cpu, sr, a.copy(), b.copy(), c, None if pb is None else pb.copy(), pc
    )
    return c, pc


def closure_ref(sr, w, pred=None):
    want = w.copy()
    wp = None if pred is None else pred.copy()
    closure_generic.closure_dense(cpu, sr, want, sr.one_for(w.dtype), wp)
    return want, wp


def embed(rng, x, sr, r0=2, c0=3):
    """(big array, view): ``x`` at (r0, c0) in a larger array of random values."""
    m, n = x.shape
    big = values(rng, (m + r0 + 4, n + c0 + 5), sr, x.dtype)
    big[r0 : r0 + m, c0 : c0 + n] = x
    return big, big[r0 : r0 + m, c0 : c0 + n]


def col_strided(x):
    """``x`` as every other column of a wider array (rows not contiguous)."""
    return np.repeat(x, 2, axis=1)[:, ::2]


def transposed(x):
    """``x`` as the transpose of a contiguous array (column-major)."""
    return np.ascontiguousarray(x.T).T


def closure_values(rng, n: int, sr: Semiring, d) -> np.ndarray:
    """A graph whose sums and products are exact, with no cycle better than one."""
    d = np.dtype(d)
    present = rng.random((n, n)) < min(1.0, 4.0 / max(n, 1) + 0.02)
    if d == BOOL:
        vals = np.ones((n, n), bool)
    elif sr.name == "min_plus":
        vals = rng.integers(1, 21, (n, n))
    elif sr.name == "max_plus":
        vals = -rng.integers(1, 21, (n, n))
    elif sr.name == "max_times":
        vals = rng.choice([0.25, 0.5, 1.0], (n, n))
    else:
        vals = rng.integers(-20, 21, (n, n))
    return np.where(present, vals.astype(d), sr.zero_for(d)).astype(d)


def initial_preds(w, sr):
    """P(i, j) = i for each edge i -> j (i != j), else -1."""
    n = w.shape[0]
    edge = (w != sr.zero_for(w.dtype)) & ~np.eye(n, dtype=bool)
    return np.where(edge, np.arange(n)[:, None], -1).astype(np.int64)


# ---- mxm_dense_acc -----------------------------------------------------------------------

SHAPES = [
    (1, 1, 1),
    (0, 3, 2),
    (3, 0, 2),
    (2, 3, 0),
    (5, 1, 3),
    (7, 5, 9),
    (33, 7, 33),
    (130, 129, 131),
    (3, 64, 600),
    (64, 64, 64),
]


@pytest.mark.parametrize("name, d", CASES, ids=IDS)
def test_mxm_dense_acc_matches_closure_generic(name, d):
    """Contiguous arrays, block views (the rest of C's array kept), column strides and
    transposes; with and without predecessors (ties: the first k wins)."""
    sr = SEMIRINGS[name]
    assert cc._spec(sr, d) is not None
    rng = np.random.default_rng(1)
    for m, k, n in SHAPES:
        a, b, c = (tie_values(rng, s, sr, d) for s in ((m, k), (k, n), (m, n)))
        pb, pc = rng.integers(0, 1000, (k, n)), rng.integers(-1, 1000, (m, n))
        want, want_p = acc_generic(sr, a, b, c, pb, pc)
        want_c, _ = acc_generic(sr, a, b, c)
        got, got_p = c.copy(), pc.copy()
        cc.mxm_dense_acc(sr, a, b, got, pb, got_p)
        same(got, want)
        same(got_p, want_p)
        got = c.copy()
        cc.mxm_dense_acc(sr, a, b, got)
        same(got, want_c)
        # block views of larger arrays: only the block changes
        cbig, vc = embed(rng, c, sr, 3, 1)
        pbig = rng.integers(0, 9, (m + 6, n + 8))
        vp = pbig[2 : 2 + m, 3 : 3 + n]
        vp[...] = pc
        keep, keep_p = cbig.copy(), pbig.copy()
        cc.mxm_dense_acc(
            sr,
            embed(rng, a, sr)[1],
            embed(rng, b, sr, 1, 4)[1],
            vc,
            embed(rng, pb, SEMIRINGS["min_plus"])[1],
            vp,
        )
        same(vc, want)
        same(vp, want_p)
        keep[3 : 3 + m, 1 : 1 + n] = want
        keep_p[2 : 2 + m, 3 : 3 + n] = want_p
        same(cbig, keep)
        same(pbig, keep_p)
        # rows that are not contiguous: column stride 2 and column-major
        for layout in (col_strided, transposed):
            vc, vp = layout(c), layout(pc)
            cc.mxm_dense_acc(sr, layout(a), layout(b), vc, layout(pb), vp)
            same(vc, want)
            same(vp, want_p)


_CASE = st.sampled_from(range(len(CASES)))
_LAYOUT = st.sampled_from(["plain", "view", "strided", "transposed"])


@settings(max_examples=60)
@given(
    case=_CASE,
    m=st.integers(1, 11),
    k=st.integers(0, 11),
    n=st.integers(1, 11),
    seed=st.integers(0, 2**16),
    layouts=st.tuples(_LAYOUT, _LAYOUT, _LAYOUT),
    preds=st.booleans(),
    specials=st.booleans(),
)
def test_mxm_dense_acc_random_shapes_and_layouts(case, m, k, n, seed, layouts, preds, specials):
    name, d = CASES[case]
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(seed)
    a, b, c = (values(rng, s, sr, d, specials) for s in ((m, k), (k, n), (m, n)))
    pb, pc = (rng.integers(0, 99, (k, n)), rng.integers(-1, 99, (m, n))) if preds else (None, None)
    want, want_p = acc_generic(sr, a, b, c, pb, pc)

    def lay(x, how):
        if x is None or how == "plain":
            return None if x is None else x.copy()
        if how == "view":
            big = np.zeros((x.shape[0] + 3, x.shape[1] + 2), x.dtype)
            big[1 : 1 + x.shape[0], 2:] = x
            return big[1 : 1 + x.shape[0], 2:]
        return col_strided(x) if how == "strided" else transposed(x)

    vc, vp = lay(c, layouts[2]), lay(pc, layouts[2])
    cc.mxm_dense_acc(sr, lay(a, layouts[0]), lay(b, layouts[1]), vc, lay(pb, layouts[1]), vp)
    same(vc, want)
    if preds:
        same(vp, want_p)


@pytest.mark.parametrize("name, d", CASES, ids=IDS)
def test_overlapping_operands_are_read_before_the_call(name, d):
    """A, B and C blocks of one matrix, overlapping anyhow (values unrelated): C ⊕=
    A₀ ⊗ B₀ on the values before the call; the rest of the matrix is kept."""
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(2)
    for trial in range(12):
        big = values(rng, (40, 40), sr, d)
        pbig = rng.integers(-1, 40, (40, 40))
        m, k, n = rng.integers(1, 20, 3)
        ra, ca, rb, cb, rc, cc_ = rng.integers(0, 20, 6)
        sa, sb = (slice(ra, ra + m), slice(ca, ca + k)), (slice(rb, rb + k), slice(cb, cb + n))
        sc = (slice(rc, rc + m), slice(cc_, cc_ + n))
        if trial % 3 == 0:  # C = B exactly, and C = A exactly
            sb = sc = (slice(rc, rc + k), slice(cc_, cc_ + n))
            sa = (slice(ra, ra + k), slice(ca, ca + k))
        want_big, want_p = big.copy(), pbig.copy()
        want_big[sc], want_p[sc] = acc_generic(sr, big[sa], big[sb], big[sc], pbig[sb], pbig[sc])
        cc.mxm_dense_acc(sr, big[sa], big[sb], big[sc], pbig[sb], pbig[sc])
        same(big, want_big)
        same(pbig, want_p)


def _rkleene_operands(rng, sr, d, h=40, wd=37, panels=False):
    """[A11* A12; A21 A22] with A11 closed (a graph's closure), the rest random; with
    ``panels`` A12 and A21 closed through A11 too (blocked Floyd-Warshall's pass 2)."""
    a11, _ = closure_ref(sr, closure_values(rng, h, sr, d))
    D = closure_values(rng, h + wd, sr, d)
    D[:h, :h] = a11
    if panels:
        one, two = slice(0, h), slice(h, None)
        D[one, two], _ = acc_generic(sr, a11, D[one, two], D[one, two])
        D[two, one], _ = acc_generic(sr, D[two, one], a11, D[two, one])
    return D


@pytest.mark.parametrize("name, d", CASES, ids=IDS)
def test_in_place_closure_products_match_the_composed_rank1_steps(name, d):
    """Where the closure algorithms overlap operands (A12 ← A12 ⊕ A11* A12, A21 ← A21 ⊕
    A21 A11*, blocked Floyd-Warshall's pass 3 over all of D) the result equals the
    composed form's in-place rank-1 steps exactly, predecessors included."""
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(3)
    h = 40
    one, two, al = slice(0, h), slice(h, None), slice(None)
    for x, y, z in [
        ((one, one), (one, two), (one, two)),
        ((two, one), (one, one), (two, one)),
        ((al, one), (one, al), (al, al)),
    ]:
        D = _rkleene_operands(rng, sr, d, panels=z == (al, al))
        P = initial_preds(D, sr)
        want, want_p = D.copy(), P.copy()
        closure_generic.mxm_dense_acc(cpu, sr, want[x], want[y], want[z], want_p[y], want_p[z])
        got, got_p = D.copy(), P.copy()
        cc.mxm_dense_acc(sr, got[x], got[y], got[z], got_p[y], got_p[z])
        same(got, want)
        same(got_p, want_p)
        want = D.copy()
        closure_generic.mxm_dense_acc(cpu, sr, want[x], want[y], want[z])
        got = D.copy()
        cc.mxm_dense_acc(sr, got[x], got[y], got[z])
        same(got, want)


@pytest.mark.parametrize("name", ["min_plus", "max_min"])
def test_nan_operands_give_the_composed_results(name):
    """fmin replaces a NaN of C by the candidate (and the predecessor changes): those
    rows run the composed form. NaN in A or B: a min-plus candidate that never wins;
    a max-min candidate fmin makes the other operand."""
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(4)
    for m, k, n in ((9, 5, 7), (300, 40, 300)):
        a, b, c = (values(rng, s, sr, F64) for s in ((m, k), (k, n), (m, n)))
        a[rng.random(a.shape) < 0.05] = np.nan
        b[rng.random(b.shape) < 0.05] = np.nan
        c[rng.integers(0, m, 3), rng.integers(0, n, 3)] = np.nan
        pb, pc = rng.integers(0, 9, (k, n)), rng.integers(-1, 9, (m, n))
        want, want_p = acc_generic(sr, a, b, c, pb, pc)
        got, got_p = c.copy(), pc.copy()
        cc.mxm_dense_acc(sr, a, b, got, pb, got_p)
        same(got, want)
        same(got_p, want_p)
    w = values(rng, (20, 20), sr, F64)
    w[3, 4] = np.nan
    p0 = rng.integers(-1, 20, (20, 20))
    want, want_p = closure_ref(sr, w, p0)
    got, got_p = w.copy(), p0.copy()
    cc.closure_dense(sr, got, sr.one_for(F64), got_p)
    same(got, want)
    same(got_p, want_p)


def test_read_only_operands():
    sr = SEMIRINGS["min_plus"]
    rng = np.random.default_rng(13)
    a, b, c = (values(rng, s, sr, F64) for s in ((8, 6), (6, 9), (8, 9)))
    pb = rng.integers(0, 9, (6, 9))
    for x in (a, b, pb):
        x.flags.writeable = False
    want, want_p = acc_generic(sr, a, b, c, pb, np.zeros((8, 9), np.int64))
    got, got_p = c.copy(), np.zeros((8, 9), np.int64)
    cc.mxm_dense_acc(sr, a, b, got, pb, got_p)
    same(got, want)
    same(got_p, want_p)


def test_results_do_not_depend_on_threads(monkeypatch):
    """One thread or several row ranges: bit-identical (each C row is one thread's)."""
    sr = SEMIRINGS["min_plus"]
    rng = np.random.default_rng(5)
    a, b, c = (values(rng, s, sr, F32) for s in ((301, 77), (77, 259), (301, 259)))
    pb, pc = rng.integers(0, 9, (77, 259)), rng.integers(-1, 9, (301, 259))
    runs = []
    for threaded in (True, False, True):
        monkeypatch.setattr(cc, "_MIN_THREADED", 0 if threaded else 1 << 62)
        got, got_p = c.copy(), pc.copy()
        cc.mxm_dense_acc(sr, a, b, got, pb, got_p)
        runs.append((got.tobytes(), got_p.tobytes()))
    if cc._threads() > 1:  # the threaded runs did split C's rows
        assert len(cc._row_ranges(301, 301 * 77 * 259)) > 1
    assert runs[0] == runs[1] == runs[2]


# ---- closure_dense ---------------------------------------------------------------------


@pytest.mark.parametrize("name, d", CASES, ids=IDS)
def test_closure_dense_matches_closure_generic(name, d):
    """Floyd-Warshall up to FW_LIMIT rows: the composed form's values and predecessors
    exactly, on any values (cycles better than one included); on a block view (the rest
    kept) and a view with column stride 2."""
    sr = SEMIRINGS[name]
    one = sr.one_for(d)
    rng = np.random.default_rng(6)
    for n in (0, 1, 2, 7, 33, 100):
        w = tie_values(rng, (n, n), sr, d)
        p0 = rng.integers(-1, n + 1, (n, n))
        want, want_p = closure_ref(sr, w, p0)
        got, got_p = w.copy(), p0.copy()
        cc.closure_dense(sr, got, one, got_p)
        same(got, want)
        same(got_p, want_p)
        got = w.copy()
        cc.closure_dense(sr, got, one)
        same(got, closure_ref(sr, w)[0])
        big, view = embed(rng, w, sr, 5, 2)
        keep = big.copy()
        cc.closure_dense(sr, view, one)
        keep[5 : 5 + n, 2 : 2 + n] = want
        same(big, keep)
        view = col_strided(w)
        cc.closure_dense(sr, view, one)
        same(view, want)


@pytest.mark.parametrize("name, d", [("min_plus", F64), ("min_plus", I32)])
def test_closure_dense_at_the_one_loop_limit(name, d):
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(7)
    n = cc.FW_LIMIT
    w = closure_values(rng, n, sr, d)
    p0 = initial_preds(w, sr)
    want, want_p = closure_ref(sr, w, p0)
    got, got_p = w.copy(), p0.copy()
    cc.closure_dense(sr, got, sr.one_for(d), got_p)
    same(got, want)
    same(got_p, want_p)


def check_min_plus_preds(w, dist, pred):
    """Every reachable pair's predecessor p closes a best path: d(i,p) + w(p,j) = d(i,j)."""
    n = dist.shape[0]
    inf = infinity(dist.dtype)
    i, j = np.nonzero((dist != inf) & ~np.eye(n, dtype=bool))
    p = pred[i, j]
    assert (p >= 0).all()
    total = dist[i, p].astype(np.float64) + w[p, j].astype(np.float64)
    np.testing.assert_array_equal(total, dist[i, j].astype(np.float64))


@pytest.mark.parametrize("name, d", CASES, ids=IDS)
def test_blocked_closure_dense_gives_the_same_closure(name, d, monkeypatch):
    """Past FW_LIMIT (made small here) Katz & Kider's passes: the same closure; min-plus
    predecessors name best paths."""
    monkeypatch.setattr(cc, "FW_LIMIT", 24)
    monkeypatch.setattr(cc, "FW_BLOCK", 8)
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(8)
    for n in (25, 50, 77):
        w = closure_values(rng, n, sr, d)
        want, _ = closure_ref(sr, w)
        got, got_p = w.copy(), initial_preds(w, sr)
        cc.closure_dense(sr, got, sr.one_for(d), got_p)
        same(got, want)
        if name == "min_plus":
            check_min_plus_preds(w, got, got_p)
        got = col_strided(w)
        cc.closure_dense(sr, got, sr.one_for(d))
        same(got, want)


# ---- what is not compiled ------------------------------------------------------------


def test_other_semirings_and_dtypes_delegate_to_the_composed_forms(monkeypatch):
    """A user-defined operator, a non-idempotent add, mixed dtypes: closure_generic runs."""
    calls = []
    for fname in ("mxm_dense_acc", "closure_dense"):
        real = getattr(closure_generic, fname)

        def spy(*args, _real=real, _name=fname):
            calls.append(_name)
            return _real(*args)

        monkeypatch.setattr(closure_generic, fname, spy)
    hyp = Semiring(monoid.min, BinaryOp("hyp", np.hypot, "hypot(x, y)"), name="min_hyp")
    rng = np.random.default_rng(9)
    a, b, c = rng.random((6, 4)), rng.random((4, 5)), rng.random((6, 5))
    for sr, x, y in (
        (hyp, a, b),
        (SEMIRINGS["plus_times"], a, b),
        (SEMIRINGS["min_plus"], a.astype(F32), b),
    ):
        assert cc._spec(sr, c.dtype) is None or x.dtype != c.dtype
        want = c.copy()
        calls.clear()
        cc.mxm_dense_acc(sr, x, y, want)
        assert calls == ["mxm_dense_acc"]
        ref = c.copy()
        closure_generic.mxm_dense_acc(cpu, sr, x.copy(), y.copy(), ref)
        same(want, ref)
    w = rng.random((7, 7))
    calls.clear()
    got = w.copy()
    cc.closure_dense(hyp, got, 0.0)
    ref = w.copy()
    closure_generic.closure_dense(cpu, hyp, ref, 0.0)
    assert calls[0] == "closure_dense"
    same(got, ref)


def test_docstring_examples():
    import doctest

    assert doctest.testmod(cc).failed == 0


def test_bad_arguments_raise():
    sr = SEMIRINGS["min_plus"]
    a = np.zeros((3, 3))
    p = np.zeros((3, 3), np.int64)
    with pytest.raises(ValueError, match="both"):
        cc.mxm_dense_acc(sr, a, a, a.copy(), p)
    with pytest.raises(ValueError):
        cc.mxm_dense_acc(sr, a, a[:2], a.copy())
    with pytest.raises(ValueError, match="square"):
        cc.closure_dense(sr, np.zeros((2, 3)), 0.0)


# ---- kleene.apsp on the fused primitives --------------------------------------------


@pytest.fixture
def fused(monkeypatch):
    """kleene.backends.cpu exports the fused closures (as the back end will): the op layer
    looks them up by name at call time. Counts their calls."""
    calls = {"mxm_dense_acc": 0, "closure_dense": 0}
    for fname in calls:
        fn = getattr(cc, fname)

        def counted(*args, _fn=fn, _name=fname):
            calls[_name] += 1
            return _fn(*args)

        monkeypatch.setattr(cpu_backend, fname, counted, raising=False)
    return calls


@settings(max_examples=30)
@given(data=graphs(max_n=14), method=st.sampled_from(DENSE), block=st.integers(1, 5))
def test_apsp_on_fused_closures_matches_scipy(fused, data, method, block):
    ref_g, raw, n = data
    dist, pred = kleene.apsp(
        kleene.Matrix.from_scipy(raw), method=method, return_predecessors=True, block_size=block
    )
    np.testing.assert_array_equal(dist, shortest_path(ref_g))
    check_all_paths(edge_weights(ref_g), dist, pred)
    assert fused["mxm_dense_acc"] + fused["closure_dense"] > 0 or n == 0


@settings(max_examples=20)
@given(data=graphs(negative=True, max_n=12), method=st.sampled_from(DENSE))
def test_apsp_on_fused_closures_negative_weights_match_scipy(fused, data, method):
    ref_g, raw, n = data
    try:
        ref = shortest_path(ref_g, method="BF")
    except ScipyNegativeCycle:
        ref = None
    A = kleene.Matrix.from_scipy(raw)
    if ref is None:
        with pytest.raises(kleene.NegativeCycleError):
            kleene.apsp(A, method=method, block_size=3)
        return
    dist, pred = kleene.apsp(A, method=method, return_predecessors=True, block_size=3)
    np.testing.assert_array_equal(dist, ref)
    check_all_paths(edge_weights(ref_g), dist, pred)


def test_apsp_on_fused_closures_matches_scipy_on_a_rome99_sized_graph(fused):
    """1,000 vertices of rome99 (integer weights: exact sums) and a random dense-ish graph,
    every dense method and auto: scipy's distances exactly, the predecessors of sampled
    rows shortest-path trees."""
    rng = np.random.default_rng(10)
    road = load_scipy("rome99.gr")[:1000, :1000]
    dense = sp.random(600, 600, density=0.05, random_state=11, format="csr")
    dense.data = rng.integers(1, 101, dense.nnz).astype(float)
    for g in (road, dense):
        want = shortest_path(g)
        rows = rng.choice(g.shape[0], 40, replace=False)
        for method in (*DENSE, "auto"):
            dist, pred = kleene.apsp(g, method=method, return_predecessors=True)
            np.testing.assert_array_equal(dist, want)
            for i in rows:
                check_shortest_path_tree(g, dist[i], pred[i], int(i))
        np.testing.assert_array_equal(kleene.apsp(g), want)
    assert fused["mxm_dense_acc"] > 0 and fused["closure_dense"] > 0


@pytest.mark.parametrize("method", DENSE)
def test_apsp_other_semirings_on_fused_closures_equal_the_composed(fused, monkeypatch, method):
    """Widest paths, most reliable paths and reachability: the same closures as with the
    composed primitives."""
    rng = np.random.default_rng(12)
    n = 70
    cap = rng.integers(1, 9, (n, n)).astype(float)
    cap[rng.random((n, n)) < 0.9] = -np.inf
    prob = np.where(cap > 0, cap / 8.0, 0.0)
    adj = rng.random((n, n)) < 0.03
    runs = []
    for on in (True, False):
        if not on:
            monkeypatch.delattr(cpu_backend, "mxm_dense_acc")
            monkeypatch.delattr(cpu_backend, "closure_dense")
        W = kleene.apsp(
            kleene.Matrix.from_dense(cap, missing=-np.inf),
            semiring="max_min",
            method=method,
            block_size=16,
            return_predecessors=True,
        )
        R = kleene.apsp(
            kleene.Matrix.from_dense(prob, missing=0.0),
            semiring="max_times",
            method=method,
            block_size=16,
        )
        T = kleene.transitive_closure(adj, method=method)
        runs.append((*W, R, T))
    for got, want in zip(runs[0], runs[1], strict=True):
        same(got, want)
