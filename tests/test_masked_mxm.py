"""Masked mxm by dot products (the optional ``mxm_masked`` primitive, "dot3") against
the unmasked product masked afterwards (the path with the primitive left out)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
import kleene.backends.cpu as cpu
from kleene.semiring import binary, monoid

pytestmark = pytest.mark.skipif(cpu.mxm_masked is None, reason="no compiled CPU kernels")

_min_text = kleene.BinaryOp("mymin", np.fmin, "(x < y ? x : y)", scalar="y if y < x else x")
_absdiff = kleene.BinaryOp(
    "absdiff",
    lambda x, y: np.abs(x - y),
    "(x < y ? y - x : x - y)",
    scalar=lambda x, y: y - x if x < y else x - y,
)
# plus_pair with an integer result: each product is one (triangle counting)
_one = kleene.BinaryOp(
    "one", lambda x, y: np.ones_like(x), "x * 0 + 1", typing="first", scalar="x * 0 + 1"
)
PLUS_PAIR = kleene.Semiring(monoid.plus, _one, name="plus_pair_int")
USER_TEXT = kleene.Semiring(
    kleene.Monoid(_min_text, float("inf"), idempotent=True), binary.plus, name="mymin_plus"
)
USER_FN = kleene.Semiring(monoid.min, _absdiff, name="min_absdiff")

# (semiring, dtype) pairs the semiring accepts
CASES = [
    ("plus_times", np.float64),
    ("plus_times", np.float32),
    ("plus_times", np.int64),
    ("plus_times", np.int32),
    ("min_plus", np.float64),
    ("min_plus", np.int64),
    ("max_min", np.bool_),
    ("max_min", np.float64),
    ("lor_land", np.bool_),
    ("any_pair", np.int64),
    ("min_first", np.float64),
    ("any_second", np.float32),
    (PLUS_PAIR, np.int64),
    (USER_TEXT, np.float64),
    (USER_FN, np.int64),
]
IDS = [f"{getattr(s, 'name', s)}-{np.dtype(d).name}" for s, d in CASES]


def _random(rng, m, n, density, dtype, empty_rows=()):
    a = sp.random(m, n, density=density, format="csr", random_state=rng, dtype=np.float64)
    a.data = rng.integers(1, 9, a.data.size).astype(np.float64)
    if np.dtype(dtype).kind == "f":
        a.data = rng.uniform(0.5, 4.0, a.data.size)
    for r in empty_rows:
        if r < m:
            a.data[a.indptr[r] : a.indptr[r + 1]] = 0
    a.eliminate_zeros()
    a = a.astype(dtype).tocsr()
    a.sort_indices()
    return kleene.Matrix.from_scipy(a)


def _mask(rng, m, n, density, dtype=np.bool_):
    """A mask matrix whose values are a mix of true and false (value masks differ)."""
    a = sp.random(m, n, density=density, format="csr", random_state=rng)
    a.sort_indices()
    vals = rng.integers(0, 2, a.data.size)
    return kleene.Matrix.from_csr(a.indptr, a.indices, vals.astype(dtype), (m, n))


def _equal(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    gr, gc, gv = got.to_coo()
    wr, wc, wv = want.to_coo()
    assert np.array_equal(gr, wr) and np.array_equal(gc, wc)
    assert np.array_equal(gv, wv, equal_nan=np.dtype(gv.dtype).kind == "f")


@pytest.fixture
def calls(monkeypatch):
    """Counts the calls that reach the compiled mxm_masked."""
    seen = []
    real = cpu.mxm_masked

    def spy(*args):
        seen.append(1)
        return real(*args)

    monkeypatch.setattr(cpu, "mxm_masked", spy)
    return seen


@pytest.fixture
def old_path(monkeypatch):
    """Runs ``f()`` with mxm_masked left out: the unmasked product, masked after."""

    def run(f):
        with monkeypatch.context() as m:
            m.setattr(cpu, "mxm_masked", None)
            return f()

    return run


def _masks(M):
    return {"S": M.S, "V": M.V, "~S": ~M.S, "~V": ~M.V}


@pytest.mark.parametrize(("sr", "dtype"), CASES, ids=IDS)
@pytest.mark.parametrize("kind", ["S", "V", "~S", "~V"])
def test_masked_equals_unmasked_then_masked(calls, old_path, sr, dtype, kind):
    rng = np.random.default_rng(7)
    m, k, n = 37, 29, 23  # non-square, with empty rows in A and in the mask
    A = _random(rng, m, k, 0.25, dtype, empty_rows=(0, 5, 6))
    B = _random(rng, k, n, 0.25, dtype, empty_rows=(3,))
    M = _mask(rng, m, n, 0.15)
    mask = _masks(M)[kind]
    before = len(calls)
    got = kleene.mxm(A, B, sr, mask=mask)
    want = old_path(lambda: kleene.mxm(A, B, sr, mask=mask))
    _equal(got, want)
    if kind.startswith("~"):
        assert len(calls) == before  # a complemented mask takes the unmasked product
    else:
        assert len(calls) == before + 1


@pytest.mark.parametrize(("sr", "dtype"), CASES[:6] + CASES[-3:], ids=IDS[:6] + IDS[-3:])
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("accum", [None, "plus", "min"])
def test_accum_replace_out(calls, old_path, sr, dtype, replace, accum):
    rng = np.random.default_rng(11)
    m, k, n = 31, 40, 31
    A = _random(rng, m, k, 0.2, dtype)
    B = _random(rng, k, n, 0.2, dtype)
    M = _mask(rng, m, n, 0.2, dtype=np.int64)
    C0 = _random(rng, m, n, 0.3, dtype)
    acc = None if accum is None else getattr(binary, accum)
    for mask in (M.S, M.V):

        def run(mask=mask):
            out = C0.dup()
            return kleene.mxm(A, B, sr, mask=mask, accum=acc, replace=replace, out=out)

        got = run()
        _equal(got, old_path(run))
    assert len(calls) == 2


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    m=st.integers(0, 12),
    k=st.integers(0, 12),
    n=st.integers(0, 12),
    da=st.floats(0.0, 0.9),
    dm=st.floats(0.0, 1.0),
    case=st.sampled_from(range(len(CASES))),
    structural=st.booleans(),
)
def test_hypothesis_masked(seed, m, k, n, da, dm, case, structural):
    sr, dtype = CASES[case]
    rng = np.random.default_rng(seed)
    A = _random(rng, m, k, da, dtype)
    B = _random(rng, k, n, da, dtype)
    M = _mask(rng, m, n, dm)
    mask = M.S if structural else M.V
    got = kleene.mxm(A, B, sr, mask=mask)
    saved = cpu.mxm_masked
    try:
        cpu.mxm_masked = None
        want = kleene.mxm(A, B, sr, mask=mask)
    finally:
        cpu.mxm_masked = saved
    _equal(got, want)


def test_primitive_direct():
    """The primitive returns only the allowed positions with a non-empty intersection,
    keys sorted, values summed in k order."""
    a = sp.csr_array(np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 3.0, 4.0]]))
    b = sp.csr_array(np.array([[1.0, 0.0], [1.0, 5.0], [0.0, 2.0]]))
    bt = b.T.tocsr()
    bt.sort_indices()
    m = sp.csr_array(np.ones((3, 2)))
    sr = kleene.semiring.plus_times
    i64 = np.int64
    a_csr = (a.indptr.astype(i64), a.indices, a.data)
    bt_csr = (bt.indptr.astype(i64), bt.indices, bt.data)
    m_csr = (m.indptr.astype(i64), m.indices)
    keys, vals = cpu.mxm_masked(sr, *a_csr, *bt_csr, *m_csr, 2, np.float64)
    assert keys.tolist() == [0, 1, 4, 5]
    assert vals.tolist() == [3.0, 10.0, 3.0, 23.0]


def test_long_rows_gallop(calls, old_path):
    """Lists of very different lengths: looked up by position, or found by galloping."""
    rng = np.random.default_rng(3)
    n = 600
    A = _random(rng, n, n, 0.3, np.float64)
    B = _random(rng, n, n, 0.004, np.float64)
    M = _mask(rng, n, n, 0.002)
    for X, Y in ((A, B), (B, A)):  # Bt's rows the shorter lists, then A's rows
        got = kleene.mxm(X, Y, "plus_times", mask=M.S)
        _equal(got, old_path(lambda X=X, Y=Y: kleene.mxm(X, Y, "plus_times", mask=M.S)))
    assert len(calls) == 2


def test_dense_mask_takes_unmasked_product(calls):
    """A mask that keeps most positions costs more as dot products: the rule says no."""
    rng = np.random.default_rng(5)
    A = _random(rng, 50, 50, 0.02, np.float64)
    M = kleene.Matrix.from_dense(np.ones((50, 50), bool))
    C = kleene.mxm(A, A, "plus_times", mask=M.S)
    a = A.to_scipy()
    want = kleene.Matrix.from_scipy((a @ a).tocsr())
    assert C.nvals == want.nvals
    assert not calls


@pytest.mark.parametrize("seed", range(6))
def test_triangle_count(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    G = nx.gnp_random_graph(n, float(rng.uniform(0.01, 0.2)), seed=seed)
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=np.int64)
    L = kleene.Matrix.from_scipy(sp.tril(A, -1).tocsr())
    C = kleene.mxm(L, L, PLUS_PAIR, mask=L.S)
    got = kleene.reduce(C, "plus") if C.nvals else 0
    assert int(got) == sum(nx.triangles(G).values()) // 3
