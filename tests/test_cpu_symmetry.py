"""The CPU symmetry pass and A ∪ Aᵀ merge (kleene.backends.cpu.symmetry, Numba) against
dense references: ``is_symmetric`` (pattern and values; +0.0 and -0.0 alike) and
``symmetrize`` (the lesser value where both directions hold; the pattern only with
``pattern=True``), on matrices with and without their mirror entries.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

numba = pytest.importorskip("numba", reason="the CPU symmetry pass is compiled with numba")

import kleene  # noqa: E402
from kleene.backends.cpu import symmetry as cs  # noqa: E402
from kleene.ops import is_symmetric, symmetrize  # noqa: E402

compiled = pytest.mark.skipif(cs.union_min is None, reason="KLEENE_CPU=numpy: no compiled pass")


@st.composite
def matrices(draw, max_n=20):
    """(scipy CSR, dense weights with inf = no entry): symmetric in pattern and/or values
    or not, integer or float values, explicit zeros and -0.0 included."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 3 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = draw(st.lists(st.sampled_from([-0.0, 0.0, 1.0, 2.0, -3.5]), min_size=m, max_size=m))
    src, dst, w = np.array(src, np.int64), np.array(dst, np.int64), np.array(w)
    mirror = draw(st.sampled_from(["none", "pattern", "values"]))
    if mirror != "none":
        w2 = w if mirror == "values" else w + 1.0
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        w = np.concatenate([w, w2])
    W = np.full((n, n), np.inf)
    np.minimum.at(W, (src, dst), w)
    keep = np.isfinite(W)
    r, c = np.nonzero(keep)
    g = sp.csr_matrix((W[keep], (r, c)), shape=(n, n))
    if draw(st.booleans()):
        g = g.astype(np.int64)
        W = np.where(keep, np.trunc(W), np.inf)
    return g, W


@settings(max_examples=150, deadline=None)
@given(data=matrices())
def test_is_symmetric_and_symmetrize_match_dense(data):
    g, W = data
    P = np.isfinite(W)
    pattern_sym = bool((P == P.T).all())
    value_sym = pattern_sym and bool(((W == W.T) | ~P).all())
    assert is_symmetric(kleene.Matrix.from_scipy(g), values=False) == pattern_sym
    assert is_symmetric(kleene.Matrix.from_scipy(g)) == value_sym
    want = np.minimum(W, W.T)
    np.testing.assert_array_equal(_dense(symmetrize(kleene.Matrix.from_scipy(g))), want)
    Up = symmetrize(kleene.Matrix.from_scipy(g), pattern=True)
    np.testing.assert_array_equal(np.isfinite(_dense(Up)), np.isfinite(want))


def _dense(A):
    """A's entries as float64, inf where none (whatever A's dtype)."""
    r, c, v = A.to_coo()
    out = np.full(A.shape, np.inf)
    out[r, c] = v
    return out


@compiled
def test_symmetry_builds_no_transpose():
    src, dst = kleene.generators.rmat(10, 8, seed=1)
    A = kleene.Matrix.from_edges(np.concatenate([src, dst]), np.concatenate([dst, src]), n=1 << 10)
    assert is_symmetric(A, values=False) and A.known("csr_T") is None
    B = kleene.Matrix.from_edges(src, dst, n=1 << 10)
    assert not is_symmetric(B, values=False) and B.known("csr_T") is None


@compiled
def test_union_of_rows():
    a = (np.array([0, 2, 2, 2]), np.array([1, 3], np.int32), np.array([5.0, 1.0]))
    b = (np.array([0, 1, 2, 3]), np.array([1, 2, 3], np.int32), np.array([2.0, 7.0, 4.0]))
    ptr, idx, val = cs.union_min(a, b, 3)
    assert ptr.tolist() == [0, 2, 3, 4]
    assert idx.tolist() == [1, 3, 2, 3] and val.tolist() == [2.0, 1.0, 7.0, 4.0]
    ptr, idx, val = cs.union_min(a, b, 3, values=False)
    assert idx.tolist() == [1, 3, 2, 3] and val is None
    with pytest.raises(ValueError, match="indptr"):
        cs.union_min(a, b, 4)
    ptr, idx = cs.union_pattern(np.array([0, 1, 1, 2]), np.array([1, 0], np.int32), 3)
    assert ptr.tolist() == [0, 2, 3, 4] and idx.tolist() == [1, 2, 0, 0]  # (0,1) (2,0) + mirrors
    with pytest.raises(TypeError, match="complex"):
        cs.symmetry_sums(
            np.array([0, 1, 1, 2]), np.array([1, 0], np.int32), np.array([1.0, 2.0], complex), 1
        )


@compiled
@pytest.mark.parametrize("mirrored", [True, False])
def test_sampled_mirrors_answer_a_one_way_graph(mirrored):
    src, dst = kleene.generators.rmat(9, 8, seed=5)
    keep = src < dst
    src, dst = src[keep], dst[keep]
    if mirrored:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    A = kleene.Matrix.from_edges(src, dst, n=1 << 9)
    ptr, idx, _ = A._csr()
    assert cs._first_missing_mirror(ptr, idx, cs.SAMPLES) is (not mirrored)
    assert (cs.symmetry_sums(ptr, idx, None, 7) == (0, 0)) is mirrored


@compiled
def test_the_pass_adds_the_pair_hashes_it_documents(monkeypatch):
    from symmetry_fingerprint import fingerprint

    rng = np.random.default_rng(4)
    n = 300
    src, dst = rng.integers(0, n, (2, 2000))
    src[:400] = 7  # a hub row, so groups of equal entries leave some empty
    G = sp.csr_matrix((rng.integers(1, 5, src.size).astype(np.float64), (src, dst)), shape=(n, n))
    G.sum_duplicates()
    G.data[:5] = [-0.0, np.nan, -2.5, np.inf, 0.0]
    C = G.tocoo()
    up = C.row <= C.col  # the upper triangle mirrored as it is (NaN, explicit zeros)
    r, c, w = C.row[up], C.col[up], C.data[up]
    off = r < c
    w_low = np.where(w[off] == 0, 0.0, w[off])  # a zero's mirror is +0.0, itself -0.0
    w = np.where(w == 0, -0.0, w)
    S = sp.csr_matrix((np.r_[w, w_low], (np.r_[r, c[off]], np.r_[c, r[off]])), shape=(n, n))
    zero = S.data == 0
    assert np.signbit(S.data[zero]).any() and not np.signbit(S.data[zero]).all()
    s = np.uint64(9)
    for M in (G, S):
        ptr, idx = M.indptr.astype(np.int64), M.indices.astype(np.int32)
        want = fingerprint(ptr, idx, 9, M.data)
        assert (want == (0, 0)) is (M is S)
        finite = M.data[~np.isnan(M.data)]
        scan = [np.isnan(M.data).sum(), finite.min(), finite.max(), finite[finite > 0].sum()]
        # one group on one thread, and rows cut into groups (some empty) on the threads
        for groups in (1, 3, 64, 2 * n):
            bounds = cs.row_groups(ptr, groups)
            assert bounds[0] == 0 and bounds[-1] == n and (np.diff(bounds) >= 0).all()
            for pattern_sum, both_sums in (
                (cs._pattern_sum, cs._both_sums),
                (cs._pattern_sum_threads, cs._both_sums_threads),
            ):
                assert pattern_sum(ptr, idx, s, bounds) == want[0]
                got = np.zeros(5)
                sums = both_sums(ptr, idx, M.data, M.data.view(np.uint64), s, bounds, True, got)
                assert sums == want
                assert got[:3].tolist() == scan[:3] and got[4] == (finite > 0).sum()
                assert got[3] == pytest.approx(scan[3], rel=1e-12)  # (its order: the groups')
        # the public pass, past its threshold for threads, and its scan
        monkeypatch.setattr(cs, "PARALLEL_ENTRIES", 0)
        stats, one = {}, {}
        got = cs.symmetry_sums(ptr, idx, M.data, 9, stats=stats)
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:  # the runs do not depend on the threads: the same bits, the float sum too
            assert cs.symmetry_sums(ptr, idx, M.data, 9, stats=one) == got and one == stats
        finally:
            numba.set_num_threads(threads)
        if M is S:
            assert got == (0, 0)
            assert (stats["nans"], stats["least"], stats["greatest"]) == tuple(scan[:3])
            assert stats["positive_count"] == (finite > 0).sum()
        else:  # (its sampled mirrors may answer first: then (1, 1) and no scan)
            assert got in (want, (1, 1))
        ints = M.data.copy()
        ints[np.isnan(ints) | np.isinf(ints)] = 3
        ints = ints.astype(np.int64)
        want_ints = fingerprint(ptr, idx, 9, ints.astype(np.float64))
        assert cs.symmetry_sums(ptr, idx, ints, 9)[1] in (want_ints[1], 1)
        monkeypatch.undo()
