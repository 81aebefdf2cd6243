"""The CUDA primitives agree with the CPU primitives (kleene.backends.cpu).

Every built-in semiring x each of its dtypes, on seeded random inputs with
infinities/identities, empty rows and vectors, k = 0 and odd sizes; a
user-defined semiring; vxm_push determinism. Skipped without CuPy or a GPU.
The closure primitives (APSP's) are in test_closure_primitives.py.
Where the CPU reference itself is known to differ from the primitive contract,
the test says so and uses a direct reference. Shared cases and checks:
cuda_cases.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import CASES, check, g, gpu_missing, values  # noqa: E402

pytestmark = pytest.mark.gpu


_WHY = gpu_missing()
if _WHY is not None:
    pytest.skip(_WHY, allow_module_level=True)

import cupy  # noqa: E402

from kleene.backends import cpu, cuda  # noqa: E402
from kleene.backends.cuda import codegen, jit  # noqa: E402
from kleene.semiring import (  # noqa: E402
    SEMIRINGS,
    SUPPORTED_DTYPES,
    BinaryOp,
    Monoid,
    Semiring,
    binary,
    indexunary,
    monoid,
    unary,
)
from kleene.semiring.dtypes import infinity, neg_infinity  # noqa: E402

MONOIDS = [
    pytest.param(m, np.dtype(d), id=f"{name}-{np.dtype(d).name}")
    for name, m in vars(monoid).items()
    for d in SUPPORTED_DTYPES
    if name != "lxor" or d == np.bool_
]


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    """Compile the built-in specialisations up front on all cores (else: on first use)."""
    try:
        errors = jit.precompile(codegen.builtin_specs())
    except Exception as e:  # e.g. no process pool here: compile lazily instead
        errors = [f"precompile skipped: {type(e).__name__}: {e}"]
    for e in errors:
        print(e)


# ---- inputs ------------------------------------------------------------------------


def csr(rng, nrows, ncols, d, sr=None, mean=3.0, long_rows=(), empty_frac=0.2):
    """Random CSR (sorted, unique columns); ``long_rows`` adds rows of these lengths."""
    deg = rng.poisson(mean, nrows)
    deg[rng.random(nrows) < empty_frac] = 0
    for r, length in zip(rng.choice(nrows, len(long_rows), replace=False), long_rows, strict=True):
        deg[r] = length
    deg = np.minimum(deg, ncols)
    cols = [np.sort(rng.choice(ncols, k, replace=False)) for k in deg]
    indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    indices = (np.concatenate(cols) if nrows else np.zeros(0)).astype(np.int32)
    return indptr, indices, values(rng, indices.size, d, sr)


# ---- mxm_dense ------------------------------------------------------------------------

SHAPES = [
    (1, 1, 1),
    (7, 5, 9),
    (129, 33, 130),
    (5, 0, 3),
    (0, 4, 2),
    (64, 64, 128),
    (130, 129, 131),
    (200, 17, 256),
]


def mxm_ref(sr, a, b, c_dtype):
    # For the any monoid both back ends keep the first term, A(i,0) ⊗ B(0,j).
    return cpu.mxm_dense(sr, a, b, c_dtype)


@pytest.mark.parametrize("sr, d", CASES)
def test_mxm_dense_matches_cpu(sr, d):
    rng = np.random.default_rng(1)
    c_dtype = sr.mul.result_dtype(d, d)
    for m, k, n in SHAPES:
        a, b = values(rng, (m, k), d, sr), values(rng, (k, n), d, sr)
        got = cuda.mxm_dense(sr, g(a), g(b), c_dtype)
        check(got, mxm_ref(sr, a, b, c_dtype), c_dtype, sr.add)


@pytest.mark.parametrize("name", ["min_plus", "max_plus"])
def test_mxm_dense_int32_fast_path_and_fallback_match_cpu(name):
    """Large int32 tropical products take the clamped fast path when the range allows."""
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(2)
    d = np.dtype(np.int32)
    inf = infinity(d) if name == "min_plus" else neg_infinity(d)
    m, k, n = 264, 260, 272  # m*n*k over the fast path's size threshold
    for big in (False, True):
        a = rng.integers(-(1 << 27), 1 << 27, (m, k)).astype(d)
        b = rng.integers(-(1 << 27), 1 << 27, (k, n)).astype(d)
        a[rng.random(a.shape) < 0.3] = inf
        b[rng.random(b.shape) < 0.3] = inf
        a[:, 0] = inf  # whole rows/columns of infinities stay infinite
        if big:  # out of the fast path's range: the saturating kernel runs
            a[0, 1] = np.iinfo(d).max - 7
        got = cuda.mxm_dense(sr, g(a), g(b), d)
        check(got, cpu.mxm_dense(sr, a, b, d), d, sr.add)


def test_mxm_dense_non_contiguous_and_mixed_dtypes_match_cpu():
    rng = np.random.default_rng(3)
    sr = SEMIRINGS["min_first"]
    a = values(rng, (40, 30), np.float64, sr)
    b = values(rng, (30, 50), np.int32, sr)
    got = cuda.mxm_dense(sr, g(a).T.copy().T, g(b)[:, ::1], np.float64)
    check(got, cpu.mxm_dense(sr, a, b, np.float64), np.float64, sr.add)
    sr = SEMIRINGS["min_plus"]
    a = values(rng, (60, 80), np.float32, sr)
    b = values(rng, (80, 70), np.float32, sr)
    got = cuda.mxm_dense(sr, g(a.T).T, g(b)[:, :], np.float32)  # a transposed view
    check(got, cpu.mxm_dense(sr, a, b, np.float32), np.float32, sr.add)


# ---- mxv_pull / vxm_push -------------------------------------------------------------

MATRICES = [  # (nrows, ncols, mean degree, long rows): every tier of the kernels
    (1, 1, 1.0, ()),
    (7, 9, 2.0, ()),
    (129, 300, 3.0, (260,)),
    (400, 6000, 20.0, (300, 700, 3000)),
    (50, 3000, 200.0, (2500,)),
    (0, 5, 0.0, ()),
]


def _pull_inputs(rng, d, sr, shape):
    nrows, ncols, mean, long_rows = shape
    indptr, indices, avals = csr(rng, nrows, ncols, d, sr, mean, long_rows)
    u = values(rng, ncols, d, sr)
    u_present = None if rng.random() < 0.3 else rng.random(ncols) < 0.7
    allowed = None if rng.random() < 0.3 else rng.random(nrows) < 0.6
    return indptr, indices, avals, u, u_present, allowed


@pytest.mark.parametrize("sr, d", CASES)
def test_mxv_pull_matches_cpu(sr, d):
    rng = np.random.default_rng(4)
    c_dtype = sr.mul.result_dtype(d, d)
    for shape in MATRICES:
        for flip in (False, True):
            indptr, indices, avals, u, up, al = _pull_inputs(rng, d, sr, shape)
            want = cpu.mxv_pull(sr, indptr, indices, avals, u, up, al, c_dtype, flip)
            got = cuda.mxv_pull(
                sr, g(indptr), g(indices), g(avals), g(u), g(up), g(al), c_dtype, flip
            )
            check(got[1], want[1], np.bool_, monoid.lor)
            check(got[0], want[0], c_dtype, sr.add)


def _push_inputs(rng, d, sr, shape, dup=False):
    nrows, ncols, mean, long_rows = shape
    indptr, indices, avals = csr(rng, nrows, ncols, d, sr, mean, long_rows)
    nu = int(rng.integers(0, nrows + 1))
    u_idx = rng.choice(nrows, nu, replace=dup).astype(np.int64)  # unsorted: order matters
    if len(long_rows) and nrows:  # make sure a long row is pushed
        u_idx = np.concatenate([u_idx, [int(np.argmax(np.diff(indptr)))]])
    u_vals = values(rng, u_idx.size, d, sr)
    allowed = None if rng.random() < 0.3 else rng.random(ncols) < 0.6
    return indptr, indices, avals, u_idx, u_vals, allowed, ncols


@pytest.mark.parametrize("sr, d", CASES)
def test_vxm_push_matches_cpu(sr, d):
    rng = np.random.default_rng(5)
    c_dtype = sr.mul.result_dtype(d, d)
    for shape in MATRICES:
        for flip, dup in ((False, False), (True, True)):
            indptr, indices, avals, ui, uv, al, ncols = _push_inputs(rng, d, sr, shape, dup)
            want = cpu.vxm_push(sr, indptr, indices, avals, ui, uv, al, ncols, c_dtype, flip)
            got = cuda.vxm_push(
                sr, g(indptr), g(indices), g(avals), g(ui), g(uv), g(al), ncols, c_dtype, flip
            )
            check(got[1], want[1], np.bool_, monoid.lor)
            check(got[0], want[0], c_dtype, sr.add)


def test_empty_vector_and_matrix_give_empty_products():
    sr = SEMIRINGS["min_plus"]
    indptr = np.array([0, 2, 2, 3], np.int64)
    indices = np.array([0, 2, 1], np.int32)
    avals = np.array([1.0, 2.0, 3.0], np.float32)
    empty_i, empty_v = np.zeros(0, np.int64), np.zeros(0, np.float32)
    w, wp = cuda.vxm_push(
        sr, g(indptr), g(indices), g(avals), g(empty_i), g(empty_v), None, 3, np.float32
    )
    assert not cupy.asnumpy(wp).any() and np.isinf(cupy.asnumpy(w)).all()
    w, wp = cuda.mxv_pull(
        sr,
        g(indptr),
        g(indices),
        g(avals),
        g(np.zeros(3, np.float32)),
        g(np.zeros(3, bool)),
        None,
        np.float32,
    )
    assert not cupy.asnumpy(wp).any() and np.isinf(cupy.asnumpy(w)).all()


@pytest.mark.parametrize(
    "name, d",
    [
        ("plus_times", np.float32),
        ("plus_times", np.float64),
        ("min_plus", np.float32),
        ("any_first", np.float32),
        ("max_times", np.float64),
    ],
)
def test_vxm_push_repeats_bit_identical(name, d):
    """Same input, bit-identical output, 20 times (atomics or the sorted path)."""
    sr = SEMIRINGS[name]
    rng = np.random.default_rng(6)
    d = np.dtype(d)
    shape = (3000, 4000, 40.0, (2500, 900))  # many terms per column: contention
    indptr, indices, avals, ui, uv, al, ncols = _push_inputs(rng, d, sr, shape, dup=True)
    args = (g(indptr), g(indices), g(avals), g(ui), g(uv), None, ncols, d)
    first = [cupy.asnumpy(x).tobytes() for x in cuda.vxm_push(sr, *args)]
    for _ in range(19):
        assert [cupy.asnumpy(x).tobytes() for x in cuda.vxm_push(sr, *args)] == first


# ---- reductions ----------------------------------------------------------------------


def monoid_values(rng, n, m: Monoid, d: np.dtype) -> np.ndarray:
    """Values whose float sums/products stay well conditioned (no cancellation, no inf*0)."""
    v = values(rng, n, d)
    if d.kind == "f" and m.name == "plus":
        v = np.abs(v)
    if d.kind == "f" and m.name == "times":
        v = (1 + v / 1000).astype(d)
    return v


@pytest.mark.parametrize("m, d", MONOIDS)
def test_segment_reduce_matches_cpu(m, d):
    rng = np.random.default_rng(7)
    for nseg, mean in ((1, 0.0), (9, 1.0), (300, 5.0), (40, 400.0), (3, 5000.0)):
        lengths = rng.poisson(mean, nseg)
        lengths[rng.random(nseg) < 0.2] = 0
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        vals = monoid_values(rng, int(offsets[-1]), m, d)
        if d.kind != "b" and vals.size:
            vals[rng.random(vals.size) < 0.05] = m.identity_for(d)
        got = cuda.segment_reduce(m, g(vals), g(offsets), d)
        check(got, cpu.segment_reduce(m, vals, offsets, d), d, m)


@pytest.mark.parametrize("m, d", MONOIDS)
def test_reduce_all_matches_cpu(m, d):
    rng = np.random.default_rng(8)
    for n in (0, 1, 7, 8193, 100_000):
        vals = monoid_values(rng, n, m, d)
        got = cuda.reduce_all(m, g(vals), d)
        assert got.shape == ()
        check(got, cpu.reduce_all(m, vals, d), d, m)


# ---- elementwise ---------------------------------------------------------------------

DTYPES = [np.dtype(t) for t in SUPPORTED_DTYPES]


@pytest.mark.parametrize("op", list(vars(binary).values()), ids=lambda o: o.name)
def test_binary_matches_cpu(op):
    rng = np.random.default_rng(9)
    for d in DTYPES:
        if op.name == "lxor" and d != np.bool_:
            continue  # its cuda_expr "(x != y)" is logical xor on bools only (reported)
        x, y = values(rng, (3, 7), d), values(rng, (3, 7), d)
        if d.kind != "b":
            x[0, :2] = [infinity(d), neg_infinity(d)]
        out = op.result_dtype(d, d)
        check(cuda.binary(op, g(x), g(y), out), cpu.binary(op, x, y, out), out, monoid.min)
        # broadcasting and a scalar operand
        check(cuda.binary(op, g(x), g(y[:1]), out), cpu.binary(op, x, y[:1], out), out, monoid.min)
        s = d.type(y[0, 0])
        check(cuda.binary(op, s, g(x), out), cpu.binary(op, s, x, out), out, monoid.min)


def test_binary_mixed_dtypes_match_cpu_numpy_promotion():
    rng = np.random.default_rng(10)
    x, y = values(rng, 11, np.int32), values(rng, 11, np.float64)
    for op in (binary.plus, binary.min, binary.lt, binary.first):
        out = np.result_type(x, y) if op.typing != "first" else np.dtype(np.int32)
        out = np.dtype(bool) if op.typing == "bool" else out
        check(cuda.binary(op, g(x), g(y), out), cpu.binary(op, x, y, out), out, monoid.min)


@pytest.mark.parametrize("op", list(vars(unary).values()), ids=lambda o: o.name)
def test_unary_matches_cpu(op):
    rng = np.random.default_rng(11)
    for d in DTYPES:
        if d == np.bool_ and op.name == "ainv":
            continue  # NumPy refuses to negate bools
        x = values(rng, (4, 5), d)[:, ::2]  # non-contiguous
        out = op.result_dtype(d)
        check(cuda.unary(op, g(x), out), cpu.unary(op, x, out), out, monoid.min)


@pytest.mark.parametrize("op", list(vars(indexunary).values()), ids=lambda o: o.name)
def test_index_unary_matches_cpu(op):
    rng = np.random.default_rng(12)
    for d in DTYPES:
        x = values(rng, (6, 5), d)
        i, j = np.indices(x.shape, dtype=np.int64)
        for thunk in (0, 1, -2) if op.thunk_type == "index" else (x[1, 1], x[2, 3]):
            want = cpu.index_unary(op, x, i, j, thunk)
            got = cuda.index_unary(op, g(x), g(i), g(j), thunk)
            check(got, want, np.bool_, monoid.lor)


# ---- a user-defined semiring -----------------------------------------------------------


def _user_semirings():
    bor = Monoid(BinaryOp("bor", np.bitwise_or, "(x | y)"), 0, idempotent=True)
    band = BinaryOp("band", np.bitwise_and, "(x & y)")
    gcd = Monoid(BinaryOp("gcd", np.gcd, "kl_gcd(x, y)"), 0)
    times = BinaryOp("mytimes", np.multiply, "x * y")
    fmax = Monoid(BinaryOp("fmax", np.fmax, "fmax(x, y)"), float("-inf"), idempotent=True)
    plus = BinaryOp("myplus", np.add, "x + y")
    return [
        (Semiring(bor, band, name="bor_band"), np.dtype(np.int32)),  # CAS, idempotent
        (Semiring(gcd, times, name="gcd_times"), np.dtype(np.int64)),  # sorted push
        (Semiring(fmax, plus, name="fmax_plus"), np.dtype(np.float64)),  # CAS on doubles
    ]


@pytest.mark.parametrize("sr, d", _user_semirings(), ids=lambda v: getattr(v, "name", str(v)))
def test_user_semiring_matches_cpu(sr, d):
    rng = np.random.default_rng(13)
    a, b = values(rng, (33, 20), d), values(rng, (20, 35), d)
    check(cuda.mxm_dense(sr, g(a), g(b), d), cpu.mxm_dense(sr, a, b, d), d, sr.add)
    shape = (129, 300, 3.0, (260,))
    indptr, indices, avals, u, up, al = _pull_inputs(rng, d, sr, shape)
    want = cpu.mxv_pull(sr, indptr, indices, avals, u, up, al, d)
    got = cuda.mxv_pull(sr, g(indptr), g(indices), g(avals), g(u), g(up), g(al), d)
    check(got[0], want[0], d, sr.add)
    indptr, indices, avals, ui, uv, al, ncols = _push_inputs(rng, d, sr, shape, dup=True)
    want = cpu.vxm_push(sr, indptr, indices, avals, ui, uv, al, ncols, d)
    got = cuda.vxm_push(sr, g(indptr), g(indices), g(avals), g(ui), g(uv), g(al), ncols, d)
    check(got[1], want[1], np.bool_, monoid.lor)
    check(got[0], want[0], d, sr.add)
    offsets = np.array([0, 0, 3, 10, 10, 40], np.int64)
    vals = values(rng, 40, d)
    check(
        cuda.segment_reduce(sr.add, g(vals), g(offsets), d),
        cpu.segment_reduce(sr.add, vals, offsets, d),
        d,
        sr.add,
    )


def test_gpu_memory_free_follows_the_pool_between_driver_readings(monkeypatch):
    """gpu_memory_free asks the driver at most every GPU_FREE_READING_S; in between, what
    CuPy's pool takes from or gives back to the driver moves the answer by as much, and
    a fresh reading agrees with the estimate."""
    from kleene.backends import device

    def truth() -> int:
        return real()[0] + pool.free_bytes()

    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    asked = []
    real = cupy.cuda.runtime.memGetInfo
    monkeypatch.setattr(cupy.cuda.runtime, "memGetInfo", lambda: asked.append(1) or real())
    monkeypatch.setattr(device, "GPU_FREE_READING_S", 3600.0)
    device._readings.clear()
    r0 = device.gpu_memory_free()
    x = cupy.empty(1 << 30, dtype=cupy.uint8)  # the pool takes 1 GiB from the driver
    r1 = device.gpu_memory_free()
    del x  # back in the pool: free again
    r2 = device.gpu_memory_free()
    pool.free_all_blocks()  # back to the driver
    r3 = device.gpu_memory_free()
    assert len(asked) == 1  # one reading
    assert r0 - r1 == 1 << 30 and r2 == r0 and r3 == r0
    assert abs(r3 - truth()) < 64 << 20
    monkeypatch.setattr(device, "GPU_FREE_READING_S", -1.0)  # every reading is stale
    assert abs(device.gpu_memory_free() - truth()) < 64 << 20 and len(asked) == 2
    # a replayed closure's capture takes memory outside the pool: the next call asks again
    monkeypatch.setattr(device, "GPU_FREE_READING_S", 3600.0)
    import kleene

    kleene.engine.release_replays()
    device.gpu_memory_free()
    before = len(asked)
    kleene.apsp(
        kleene.Matrix.from_dense(cupy.ones((300, 300), dtype=cupy.float32)),
        method="recursive",
        block_size=64,
    )
    device.gpu_memory_free()
    assert len(asked) > before
    kleene.engine.release_replays()
