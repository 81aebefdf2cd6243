"""The GPU unmasked sparse product (``mxm_sparse``, kernels/spgemm_hash.cu) against the
CPU product: light rows (shared hash tables), heavy rows cut into column ranges, heavy
rows on global tables, the counting (two-pass) path and the refusal; repeated runs and
every path give the same bits."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

pytestmark = pytest.mark.gpu

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

cupy = pytest.importorskip("cupy")

import kleene  # noqa: E402
import kleene.backends.cuda as cuda  # noqa: E402
from kleene.backends.cuda import spgemm  # noqa: E402
from kleene.errors import OutOfMemory  # noqa: E402
from kleene.semiring import binary, monoid  # noqa: E402

_min_text = kleene.BinaryOp("mymin", np.fmin, "(x < y ? x : y)", scalar="y if y < x else x")
_plus_text = kleene.BinaryOp("myplus", np.add, "x + y", scalar="x + y")
_one = kleene.BinaryOp(
    "one", lambda x, y: np.ones_like(x), "x * 0 + 1", typing="first", scalar="x * 0 + 1"
)
PLUS_PAIR = kleene.Semiring(monoid.plus, _one, name="plus_pair_int")
USER_MIN = kleene.Semiring(
    kleene.Monoid(_min_text, float("inf"), idempotent=True), binary.plus, name="mymin_plus"
)
USER_PLUS = kleene.Semiring(kleene.Monoid(_plus_text, 0.0), binary.times, name="myplus_times")

CASES = [
    ("plus_times", np.float64),
    ("plus_times", np.float32),
    ("plus_times", np.int64),
    ("plus_times", np.int32),
    ("min_plus", np.float64),
    ("min_plus", np.int32),
    ("max_min", np.float32),
    ("max_min", np.bool_),
    ("lor_land", np.bool_),
    ("any_pair", np.int64),
    ("min_first", np.float64),
    (PLUS_PAIR, np.int64),
    (USER_MIN, np.float64),
    (USER_PLUS, np.float64),
    (USER_PLUS, np.float32),
]
IDS = [f"{getattr(s, 'name', s)}-{np.dtype(d).name}" for s, d in CASES]


@pytest.fixture(scope="module", autouse=True)
def _precompile():
    """Compile this module's specialisations on all cores first (CuPy's disk cache keeps
    them; a test then loads its kernels)."""
    from kleene.backends.cuda import jit
    from kleene.backends.cuda.codegen.spgemm import hash_spec

    specs = []
    for sr, d in CASES:
        sr = kleene.semiring.get_semiring(sr)
        specs.append(hash_spec(sr, d, d, sr.mul.result_dtype(np.dtype(d), np.dtype(d))))
    try:
        for error in jit.precompile(specs):
            print(error)
    except Exception as e:  # no process pool: kernels compile on first use instead
        print(f"precompile skipped: {type(e).__name__}: {e}")


def _exact(sr, dtype) -> bool:
    sr = kleene.semiring.get_semiring(sr)
    return np.dtype(dtype).kind != "f" or sr.add.idempotent or sr.add.stops_at_first


def _csr(rng, m, n, density, dtype, empty_rows=(), dense_rows=()):
    a = sp.random(m, n, density=density, format="lil", random_state=rng, dtype=np.float64)
    for r in dense_rows:  # a heavy row: many entries of A
        cols = rng.choice(n, size=min(n, 300), replace=False)
        a[r, cols] = 1.0
    a = a.tocsr()
    if np.dtype(dtype).kind == "f":
        a.data = rng.uniform(0.5, 4.0, a.data.size)
    else:
        a.data = rng.integers(1, 9, a.data.size).astype(np.float64)
    for r in empty_rows:
        if r < m:
            a.data[a.indptr[r] : a.indptr[r + 1]] = 0
    a.eliminate_zeros()
    a = a.astype(dtype).tocsr()
    a.sort_indices()
    return kleene.Matrix.from_scipy(a)


# (m, k, n, density of A, density of B, A's heavy rows): light rows with empty ones;
# a row of > 4096 terms over 5000 columns; a heavy row over 100000 columns
SHAPES = {
    "small": (67, 45, 53, 0.2, 0.2, ()),
    "heavy": (40, 300, 5000, 0.02, 0.01, (3,)),
    "wide": (30, 200, 100_000, 0.02, 0.0005, (0, 7)),
}


def _pair(shape, dtype, seed=7):
    m, k, n, da, db, heavy = SHAPES[shape]
    rng = np.random.default_rng(seed)
    A = _csr(rng, m, k, da, dtype, empty_rows=(1, 9), dense_rows=heavy)
    B = _csr(rng, k, n, db, dtype, empty_rows=(4,))
    return A, B


def _equal(got, want, exact=True):
    got, want = got.to("cpu"), want.to("cpu")
    assert got.shape == want.shape and got.dtype == want.dtype
    gr, gc, gv = got.to_coo()
    wr, wc, wv = want.to_coo()
    assert np.array_equal(gr, wr) and np.array_equal(gc, wc)
    if exact:
        assert np.array_equal(gv, wv, equal_nan=np.dtype(gv.dtype).kind == "f")
    else:
        np.testing.assert_allclose(gv, wv, rtol=1e-5)


def _bits(C):
    r, c, v = C.to("cpu").to_coo()
    return r, c, v.view(np.uint8)


@pytest.fixture
def calls(monkeypatch):
    seen = []
    real = cuda.mxm_sparse

    def spy(*args):
        seen.append(1)
        return real(*args)

    monkeypatch.setattr(cuda, "mxm_sparse", spy)
    return seen


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize(("sr", "dtype"), CASES, ids=IDS)
def test_gpu_equals_cpu(calls, sr, dtype, shape):
    A, B = _pair(shape, dtype)
    got = kleene.mxm(A.to("gpu"), B.to("gpu"), sr)
    assert isinstance(got.to_coo()[2], cupy.ndarray)
    assert calls
    want = kleene.mxm(A, B, sr)
    assert want.nvals > 0
    _equal(got, want, exact=_exact(sr, dtype))


# every path: the default plan; heavy rows on global tables only; heavy rows in
# column ranges only; tables of 32 slots (most rows heavy, ranges of 32 columns)
PATHS = {
    "default": {},
    "global": {"RANGE_WORK": 0.0},
    "ranges": {"RANGE_WORK": 1e12},
    "tiny_tables": {"WARP_SMEM": 700},
    "tiny_global": {"WARP_SMEM": 700, "RANGE_WORK": 0.0},
}
PATH_CASES = [("plus_times", np.float64), ("min_plus", np.int32), (USER_PLUS, np.float32)]


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize(("sr", "dtype"), PATH_CASES, ids=["plus_times", "min_plus", "user"])
def test_every_path_same_bits(monkeypatch, sr, dtype, shape, path):
    A, B = _pair(shape, dtype, seed=5)
    Ag, Bg = A.to("gpu"), B.to("gpu")
    base = _bits(kleene.mxm(Ag, Bg, sr))
    for name, value in PATHS[path].items():
        monkeypatch.setattr(spgemm, name, value)
    got = kleene.mxm(Ag, Bg, sr)
    for x, y in zip(base, _bits(got), strict=True):
        assert np.array_equal(x, y)
    _equal(got, kleene.mxm(A, B, sr), exact=_exact(sr, dtype))


def test_plan_reaches_every_table(monkeypatch):
    """The shapes above put rows in shared tables, column ranges and global tables."""
    seen = []
    real = spgemm._Product._launch

    def spy(self, count, *args):
        seen.extend(kind for kind, *_ in self.bins)
        return real(self, count, *args)

    monkeypatch.setattr(spgemm._Product, "_launch", spy)
    for shape in SHAPES:
        A, B = _pair(shape, np.float64)
        kleene.mxm(A.to("gpu"), B.to("gpu"), "plus_times")
    monkeypatch.setattr(spgemm, "RANGE_WORK", 0.0)
    A, B = _pair("wide", np.float64)
    kleene.mxm(A.to("gpu"), B.to("gpu"), "plus_times")
    assert {"rows", "ranges", "heavy"} <= set(seen)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_repeat_runs_bit_identical(shape):
    A, B = _pair(shape, np.float64, seed=3)
    Ag, Bg = A.to("gpu"), B.to("gpu")
    first = _bits(kleene.mxm(Ag, Bg, "plus_times"))
    for _ in range(3):
        again = _bits(kleene.mxm(Ag, Bg, "plus_times"))
        for x, y in zip(first, again, strict=True):
            assert np.array_equal(x, y)


def _entries_bytes(C) -> int:
    return C.nvals * (8 + C.dtype.itemsize)


def _spy_passes(monkeypatch):
    passes = []
    real = spgemm._Product._launch

    def spy(self, count, *args):
        passes.append(count)
        return real(self, count, *args)

    monkeypatch.setattr(spgemm._Product, "_launch", spy)
    return passes


@pytest.mark.parametrize("path", ["default", "global", "tiny_global"])
@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize(("sr", "dtype"), PATH_CASES, ids=["plus_times", "min_plus", "user"])
def test_counting_pass_same_bits(monkeypatch, sr, dtype, shape, path):
    """The counting pass, then the entries written in place: the same bits."""
    A, B = _pair(shape, dtype, seed=11)
    Ag, Bg = A.to("gpu"), B.to("gpu")
    base = kleene.mxm(Ag, Bg, sr)
    for name, value in PATHS[path].items():
        monkeypatch.setattr(spgemm, name, value)
    passes = _spy_passes(monkeypatch)
    monkeypatch.setattr(spgemm, "ONE_PASS", False)
    got = kleene.mxm(Ag, Bg, sr)
    assert passes == [True, False]
    for x, y in zip(_bits(base), _bits(got), strict=True):
        assert np.array_equal(x, y)


def test_short_memory_counts_first(monkeypatch):
    """A budget that holds the result (and the caller's build of its CSR) but not the
    one-pass bound picks the counting pass; one that holds the bound does not."""
    A, B = _pair("small", np.float64, seed=11)
    Ag, Bg = A.to("gpu"), B.to("gpu")
    base = kleene.mxm(Ag, Bg, "plus_times")
    a, b = A.to_scipy(), B.to_scipy()
    cum = np.concatenate([[0], np.cumsum(np.diff(b.indptr)[a.indices])])
    terms = cum[a.indptr[1:]] - cum[a.indptr[:-1]]  # products per row
    bound = int(np.minimum(terms, b.shape[1]).sum())  # the one-pass scratch's entries
    per = 16 + spgemm.BUILD_BYTES
    two_pass = base.nvals * per + 64 * a.shape[0]  # with the item arrays
    one_pass = max(2 * bound * 16, bound * per)
    assert two_pass < one_pass  # several products per entry: the two differ
    passes = _spy_passes(monkeypatch)
    monkeypatch.setattr(spgemm, "MEMORY_BUDGET", two_pass)
    got = kleene.mxm(Ag, Bg, "plus_times")
    assert passes == [True, False]
    for x, y in zip(_bits(base), _bits(got), strict=True):
        assert np.array_equal(x, y)
    passes.clear()
    monkeypatch.setattr(spgemm, "MEMORY_BUDGET", one_pass + (1 << 20))
    kleene.mxm(Ag, Bg, "plus_times")
    assert passes == [False]


def test_refused_naming_the_bytes(monkeypatch):
    A, B = _pair("heavy", np.float64)
    Ag, Bg = A.to("gpu"), B.to("gpu")
    need = _entries_bytes(kleene.mxm(A, B, "plus_times"))
    monkeypatch.setattr(spgemm, "MEMORY_BUDGET", need - 1)
    with pytest.raises(OutOfMemory, match=f"{need:,} bytes"):
        kleene.mxm(Ag, Bg, "plus_times")
    with pytest.raises(MemoryError):
        kleene.mxm(Ag, Bg, "plus_times")


def test_empty_operands_and_rows():
    rng = np.random.default_rng(1)
    A = _csr(rng, 20, 30, 0.2, np.float64)
    Z = kleene.Matrix.from_scipy(sp.csr_matrix((30, 40)))
    E = kleene.Matrix.from_scipy(sp.csr_matrix((20, 30)))
    assert kleene.mxm(A.to("gpu"), Z.to("gpu"), "plus_times").nvals == 0
    assert kleene.mxm(E.to("gpu"), Z.to("gpu"), "min_plus").nvals == 0
    # B's rows that A reaches are all empty
    b = sp.random(30, 40, density=0.3, format="csr", random_state=2)
    b = sp.vstack([sp.csr_matrix((15, 40)), b[15:]]).tocsr()
    a = sp.random(20, 30, density=0.3, format="csr", random_state=3).tolil()
    a[:, 15:] = 0
    a = a.tocsr()
    a.eliminate_zeros()
    a.sort_indices()
    b.sort_indices()
    got = kleene.mxm(
        kleene.Matrix.from_scipy(a).to("gpu"), kleene.Matrix.from_scipy(b).to("gpu"), "plus_times"
    )
    assert got.nvals == 0


def test_rmat_against_cupyx():
    import cupyx.scipy.sparse as csp

    src, dst = kleene.generators.rmat(12, 16, seed=1, undirected=True)
    a = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(4096, 4096)).tocsr()
    a = ((a + a.T) > 0).astype(np.float64).tocsr()
    a.setdiag(0)
    a.eliminate_zeros()
    a.sort_indices()
    ref = (csp.csr_matrix(a) @ csp.csr_matrix(a)).get().tocsr()
    ref.sort_indices()
    A = kleene.Matrix.from_scipy(a).to("gpu")
    C = kleene.mxm(A, A, "plus_times").to("cpu").to_scipy().tocsr()
    C.sort_indices()
    assert C.nnz == ref.nnz
    assert np.array_equal(C.indptr, ref.indptr) and np.array_equal(C.indices, ref.indices)
    np.testing.assert_allclose(C.data, ref.data, rtol=1e-12)
