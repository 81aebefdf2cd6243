"""The CPU's dense pull (mxv with a full u): one or two terms a loop turn, on one
thread or split over threads, every row summed in its stored order; masks and
accumulators through the public mxv."""

import numpy as np
import pytest
import scipy.sparse as sp

import kleene
from kleene.backends.cpu import compiled
from kleene.semiring import SEMIRINGS, plus_times

pytestmark = pytest.mark.skipif(not compiled.HAVE_NUMBA, reason="needs numba")


def _csr(rng, nrows, ncols, mean):
    """Rows of irregular length (a tenth empty) around ``mean`` entries, sorted."""
    lengths = np.minimum(rng.geometric(1 / mean, nrows), ncols)
    lengths[rng.random(nrows) < 0.1] = 0
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    idx = np.concatenate([np.sort(rng.choice(ncols, n, replace=False)) for n in lengths])
    val = rng.standard_normal(idx.size) * 1e3
    return ptr, idx.astype(np.int32), val


@pytest.mark.parametrize("name", ["plus_times", "min_plus", "max_times"])
@pytest.mark.parametrize("mean", [3, 12, 2 * compiled._LONG_ROW_ENTRIES])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_dense_pull_bits(monkeypatch, name, mean, threads):
    # one term a loop turn where rows are short on average, two where they are long
    # (odd and even lengths): either way, on one thread or on several, the bits of
    # pull_full's row by row sums in stored order (float plus too); empty rows absent
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(mean)
    nrows, ncols = 900, 400
    ptr, idx, val = _csr(rng, nrows, ncols, mean)
    u = rng.standard_normal(ncols)
    odt = np.dtype(np.float64)
    spec, mod = compiled._specialised(sr, val.dtype, u.dtype, odt, False)
    want = np.empty(nrows, odt), np.empty(nrows, bool)
    mod.pull_full(ptr, idx, val, u, 0, nrows, *want)
    assert np.array_equal(want[1], np.diff(ptr) > 0)
    monkeypatch.setattr(compiled, "_MIN_THREADED", 0)
    monkeypatch.setattr(compiled, "_threads", lambda: threads)
    calls = []
    real = mod.pull_full_par
    monkeypatch.setattr(mod, "pull_full_par", lambda *a: calls.append(a[-1]) or real(*a))
    got = compiled.mxv_pull(sr, ptr, idx, val, u, None, None, odt)
    assert calls == ([] if threads == 1 else [mean >= compiled._LONG_ROW_ENTRIES])
    assert np.array_equal(got[1], want[1])
    assert np.array_equal(got[0][got[1]].view(np.int64), want[0][want[1]].view(np.int64))


@pytest.mark.parametrize("threaded", [False, True])
def test_mxv_dense_u_mask_and_accum(monkeypatch, threaded):
    # the full product, a mask (the masked pull sums the same terms in the same order:
    # the same bits on the rows it computes) and an accumulator into ``out``
    if threaded:
        monkeypatch.setattr(compiled, "_MIN_THREADED", 0)
    rng = np.random.default_rng(5)
    S = sp.random(600, 500, density=0.03, format="csr", random_state=3)
    S.data = rng.integers(1, 101, S.nnz).astype(np.float64)
    S.sort_indices()
    A = kleene.Matrix.from_scipy(S)
    u = rng.random(500)
    U = kleene.Vector.from_dense(u)
    full = kleene.mxv(A, U, plus_times)
    nonempty = np.diff(S.indptr) > 0
    assert full.nvals == int(nonempty.sum())
    np.testing.assert_allclose(full.to_dense(missing=0.0), S @ u, rtol=1e-12)
    fv = full.to_dense(missing=0.0)

    rows = np.flatnonzero(rng.random(600) < 0.3)
    M = kleene.Vector.from_coo(rows, np.ones(rows.size, bool), 600)
    masked = kleene.mxv(A, U, plus_times, mask=M.S)
    keep = np.zeros(600, bool)
    keep[rows] = True
    assert masked.nvals == int((keep & nonempty).sum())
    mv = masked.to_dense(missing=0.0)
    assert np.array_equal(mv[keep].view(np.int64), fv[keep].view(np.int64))
    assert not mv[~keep].any()

    w0 = rng.random(600)
    out = kleene.Vector.from_dense(w0.copy())
    got = kleene.mxv(A, U, plus_times, mask=M.S, accum="plus", out=out)
    assert got is out
    want = w0.copy()
    want[keep & nonempty] += fv[keep & nonempty]
    assert np.array_equal(out.to_dense(missing=0.0), want)
