"""The GPU masked product by dot products (``mxm_masked``, kernels/spgemm.cu) against the
unmasked product masked afterwards (the path with the primitive left out) and the CPU;
repeated runs give the same bits; the expansion product refuses what cannot fit."""

from __future__ import annotations

import sys
from pathlib import Path

import networkx as nx
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
from kleene.errors import OutOfMemory  # noqa: E402
from kleene.ops import multiply  # noqa: E402
from kleene.semiring import binary, monoid  # noqa: E402

_min_text = kleene.BinaryOp("mymin", np.fmin, "(x < y ? x : y)", scalar="y if y < x else x")
_one = kleene.BinaryOp(
    "one", lambda x, y: np.ones_like(x), "x * 0 + 1", typing="first", scalar="x * 0 + 1"
)
PLUS_PAIR = kleene.Semiring(monoid.plus, _one, name="plus_pair_int")
USER_TEXT = kleene.Semiring(
    kleene.Monoid(_min_text, float("inf"), idempotent=True), binary.plus, name="mymin_plus"
)

CASES = [
    ("plus_times", np.float64),
    ("plus_times", np.float32),
    ("plus_times", np.int64),
    ("min_plus", np.float64),
    ("min_plus", np.int32),
    ("max_min", np.bool_),
    ("lor_land", np.bool_),
    ("any_pair", np.int64),
    ("min_first", np.float64),
    (PLUS_PAIR, np.int64),
    (USER_TEXT, np.float64),
]
IDS = [f"{getattr(s, 'name', s)}-{np.dtype(d).name}" for s, d in CASES]


def _exact(sr, dtype) -> bool:
    sr = kleene.semiring.get_semiring(sr)
    return np.dtype(dtype).kind != "f" or sr.add.idempotent or sr.add.stops_at_first


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


def _mask(rng, m, n, density):
    a = sp.random(m, n, density=density, format="csr", random_state=rng)
    a.sort_indices()
    vals = rng.integers(0, 2, a.data.size).astype(bool)
    return kleene.Matrix.from_csr(a.indptr, a.indices, vals, (m, n))


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


@pytest.fixture
def calls(monkeypatch):
    seen = []
    real = cuda.mxm_masked

    def spy(*args):
        seen.append(1)
        return real(*args)

    monkeypatch.setattr(cuda, "mxm_masked", spy)
    return seen


@pytest.fixture
def old_path(monkeypatch):
    def run(f):
        with monkeypatch.context() as m:
            m.setattr(cuda, "mxm_masked", None)
            return f()

    return run


@pytest.mark.parametrize(("sr", "dtype"), CASES, ids=IDS)
@pytest.mark.parametrize("kind", ["S", "V", "~S"])
def test_masked_gpu_equals_old_path_and_cpu(calls, old_path, sr, dtype, kind):
    rng = np.random.default_rng(7)
    m, k, n = 67, 45, 53
    A = _random(rng, m, k, 0.2, dtype, empty_rows=(0, 9))
    B = _random(rng, k, n, 0.2, dtype, empty_rows=(4,))
    M = _mask(rng, m, n, 0.1)
    masks = {"S": lambda X: X.S, "V": lambda X: X.V, "~S": lambda X: ~X.S}
    Ag, Bg, Mg = A.to("gpu"), B.to("gpu"), M.to("gpu")
    before = len(calls)
    got = kleene.mxm(Ag, Bg, sr, mask=masks[kind](Mg))
    assert isinstance(got.to_coo()[2], cupy.ndarray)
    want = old_path(lambda: kleene.mxm(Ag, Bg, sr, mask=masks[kind](Mg)))
    _equal(got, want, exact=_exact(sr, dtype))
    cpu = kleene.mxm(A, B, sr, mask=masks[kind](M))
    _equal(got, cpu, exact=_exact(sr, dtype))
    assert len(calls) == before + (0 if kind.startswith("~") else 1)


@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("accum", [None, "plus", "min"])
def test_accum_replace_gpu(old_path, replace, accum):
    rng = np.random.default_rng(11)
    A = _random(rng, 40, 50, 0.2, np.int64)
    B = _random(rng, 50, 40, 0.2, np.int64)
    M = _mask(rng, 40, 40, 0.2).to("gpu")
    C0 = _random(rng, 40, 40, 0.3, np.int64).to("gpu")
    acc = None if accum is None else getattr(binary, accum)
    Ag, Bg = A.to("gpu"), B.to("gpu")
    for mask in (M.S, M.V):

        def run(mask=mask):
            return kleene.mxm(
                Ag, Bg, "plus_times", mask=mask, accum=acc, replace=replace, out=C0.dup()
            )

        _equal(run(), old_path(run))


def test_repeat_runs_bit_identical():
    rng = np.random.default_rng(3)
    A = _random(rng, 500, 500, 0.03, np.float64).to("gpu")
    M = _mask(rng, 500, 500, 0.02).to("gpu")
    first = kleene.mxm(A, A, "plus_times", mask=M.S).to("cpu").to_coo()
    for _ in range(3):
        again = kleene.mxm(A, A, "plus_times", mask=M.S).to("cpu").to_coo()
        for x, y in zip(first, again, strict=True):
            assert np.array_equal(x, y)


def test_long_rows_gallop(calls, old_path):
    rng = np.random.default_rng(4)
    n = 1500
    A = _random(rng, n, n, 0.2, np.int64).to("gpu")
    B = _random(rng, n, n, 0.003, np.int64).to("gpu")
    M = _mask(rng, n, n, 0.001).to("gpu")
    got = kleene.mxm(A, B, "plus_times", mask=M.S)
    _equal(got, old_path(lambda: kleene.mxm(A, B, "plus_times", mask=M.S)))
    assert calls


@pytest.mark.parametrize("seed", range(5))
def test_triangle_count_gpu(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 800))
    G = nx.gnp_random_graph(n, float(rng.uniform(0.01, 0.1)), seed=seed)
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=np.int64)
    L = kleene.Matrix.from_scipy(sp.tril(A, -1).tocsr()).to("gpu")
    C = kleene.mxm(L, L, PLUS_PAIR, mask=L.S)
    got = int(kleene.reduce(C, "plus")) if C.nvals else 0
    assert got == sum(nx.triangles(G).values()) // 3


def test_rmat_triangles_against_cupyx():
    import cupyx.scipy.sparse as csp

    src, dst = kleene.generators.rmat(12, 16, seed=1, undirected=True)
    a = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(4096, 4096)).tocsr()
    a = ((a + a.T) > 0).astype(np.float64)
    a.setdiag(0)
    a.eliminate_zeros()
    low = sp.tril(a, -1).tocsr()
    lg = csp.csr_matrix(low)
    want = int(round(float((lg @ lg).multiply(lg).sum())))
    L = kleene.Matrix.from_scipy(low).to("gpu")
    C = kleene.mxm(L, L, "plus_times", mask=L.S)
    assert int(kleene.reduce(C, "plus")) == want


def test_expansion_refused_before_allocation(monkeypatch):
    rng = np.random.default_rng(2)
    A = _random(rng, 200, 200, 0.1, np.float64).to("gpu")
    monkeypatch.setattr(cuda, "mxm_sparse", None)  # the expansion product, not the hash one
    monkeypatch.setattr(multiply, "gpu_memory_free", lambda: 1000)
    with pytest.raises(OutOfMemory, match="bytes"):
        kleene.mxm(A, A, "plus_times")
    with pytest.raises(MemoryError):
        kleene.mxm(A, A, "plus_times")
