"""Every operation agrees with the reference semantics, on every back end.

Each test draws inputs, a mask of any kind (or none), an accumulator (or none),
replace and an output container (or none), runs the operation on ``backend`` and
compares with ``kleene.testing.reference``. Tests are parametrised over the
``backend`` fixture, so ``pytest -m gpu`` reruns all of them on the GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import kleene
from kleene.semiring import SEMIRINGS, binary, indexunary, monoid, unary
from kleene.semiring.dtypes import resolve_scalar
from kleene.testing import assert_matches, check_backend, mask_to_reference, to_reference
from kleene.testing import reference as ref
from kleene.testing import strategies as kst
from kleene.testing.devices import check_devices_agree

BOOL = np.dtype(np.bool_)
ALL_DTYPES = [np.dtype(d) for d in (np.bool_, np.int32, np.int64, np.float32, np.float64)]
NUMERIC = ALL_DTYPES[1:]
SIDE = st.integers(0, 4)

# Accumulators by output dtype: names, BinaryOps and Monoids all work.
ACCUM_BOOL = ["lor", "land", binary.first, binary.second, monoid.lor, "any"]
ACCUM_NUM = ["min", "max", "plus", "tplus", binary.first, binary.second, monoid.min, "any"]
# Where a result may hold NaN (inf - inf, 0 * inf), min/max accumulators are left out:
# NaN through min/max is pinned down by test_min_max_propagate_nan alone.
ACCUM_NAN_SAFE = ["plus", "tplus", binary.first, binary.second, "any"]
NAN_OPS = {"plus", "tplus", "minus", "times", "plus_times"}


def _may_nan(name: str, dtype) -> bool:
    return name in NAN_OPS and np.dtype(dtype).kind == "f"


# ---- drawing the write arguments ------------------------------------------------------


@st.composite
def write_args(draw, shape, dtype, backend, *, alias=None, nan=False):
    """(kwargs for kleene, kwargs for the reference): mask, accum, replace, out.

    ``alias``: an input container of the output's shape and dtype that may be
    drawn as ``out`` too (C = op(C, ...), in place). ``nan``: the result may hold
    NaN, so no min/max accumulator.
    """
    d = np.dtype(dtype)
    kw, rkw = {}, {}
    if draw(st.booleans()):
        mask = draw(kst.masks(shape, device=backend))
        kw["mask"], rkw["mask"] = mask, mask_to_reference(mask)
    if draw(st.booleans()):
        accums = ACCUM_BOOL if d == BOOL else (ACCUM_NAN_SAFE if nan else ACCUM_NUM)
        acc = draw(st.sampled_from(accums))
        kw["accum"] = rkw["accum"] = acc
    if draw(st.booleans()):
        kw["replace"] = rkw["replace"] = True
    choice = draw(st.sampled_from(["none", "new", "wider"] + (["alias"] if alias else [])))
    out = None
    if choice == "alias" and alias.shape == tuple(shape) and alias.dtype == d:
        out = alias
    elif choice in ("new", "wider"):
        od = _wider(d) if choice == "wider" else d
        out = draw(_container(shape, od, backend))
    if out is not None:
        kw["out"], rkw["out"] = out, to_reference(out)
    return kw, rkw


def _wider(d: np.dtype) -> np.dtype:
    # A safe cast target: results are written in out's dtype.
    return {np.dtype(np.int32): np.dtype(np.int64), np.dtype(np.float32): np.dtype(np.float64)}.get(
        d, d
    )


def _container(shape, dtype, backend, elements=None):
    if len(shape) == 1:
        return kst.vectors(dtype, shape[0], elements=elements, device=backend)
    return kst.matrices(dtype, tuple(shape), elements=elements, device=backend)


def _check(got, expected, kw, inputs: dict, context: str):
    """Result equals the reference; out is returned; inputs (not out) are unchanged."""
    assert_matches(got, expected, context=context)
    if kw.get("out") is not None:
        assert got is kw["out"], "the result must be written into out and out returned"
    for name, (container, before) in inputs.items():
        if container is kw.get("out"):
            continue
        assert_matches(container, before, context=f"{context}: input {name} was modified")


def _elements(sr, dtype):
    """Carrier elements (min/max-like carriers already hold ±inf). plus_times also
    gets ±inf: only stored entries may be multiplied, so no absent entry may meet an
    inf as a zero (0 * inf = nan), and +/* treat NaN alike on both back ends."""
    el = kst.elements(sr, dtype)
    if sr.name == "plus_times" and np.dtype(dtype).kind == "f":
        el = st.one_of(el, st.sampled_from([np.inf, -np.inf]).map(np.dtype(dtype).type))
    return el


def _snap(**containers):
    """Reference copies of the inputs (to check they are not modified), also noted
    so a failing example shows the entries and formats, not just the shapes."""
    snaps = {}
    for k, v in containers.items():
        snaps[k] = (v, to_reference(v))
        note(f"{k} ({v.format}) = {snaps[k][1]}")
    return snaps


# ---- multiplication -----------------------------------------------------------------

MUL_CASES = [(n, np.dtype(d)) for n, sr in SEMIRINGS.items() for d in sr.dtypes]
MUL_IDS = [f"{n}-{d}" for n, d in MUL_CASES]


@pytest.mark.parametrize("name,dtype", MUL_CASES, ids=MUL_IDS)
@given(data=st.data())
def test_mxm(backend, name, dtype, data):
    sr = SEMIRINGS[name]
    el = _elements(sr, dtype)
    m, k, n = data.draw(st.tuples(SIDE, SIDE, SIDE), label="m, k, n")
    A = data.draw(kst.matrices(dtype, (m, k), elements=el, device=backend), label="A")
    B = data.draw(kst.matrices(dtype, (k, n), elements=el, device=backend), label="B")
    odt = sr.mul.result_dtype(dtype, dtype)
    nan = _may_nan(name, dtype)
    kw, rkw = data.draw(write_args((m, n), odt, backend, alias=A, nan=nan), label="write args")
    expected = ref.mxm(to_reference(A), to_reference(B), sr, **rkw)
    inputs = _snap(A=A, B=B)
    got = kleene.mxm(A, B, data.draw(st.sampled_from([sr, name])), **kw)
    _check(got, expected, kw, inputs, f"mxm {name}")


@pytest.mark.parametrize("name,dtype", MUL_CASES, ids=MUL_IDS)
@pytest.mark.parametrize("which", ["mxv", "vxm"])
@given(data=st.data())
def test_mxv_vxm(backend, which, name, dtype, data):
    sr = SEMIRINGS[name]
    el = _elements(sr, dtype)
    m, n = data.draw(st.tuples(SIDE, SIDE), label="m, n")
    A = data.draw(kst.matrices(dtype, (m, n), elements=el, device=backend), label="A")
    usize, wsize = (n, m) if which == "mxv" else (m, n)
    u = data.draw(kst.vectors(dtype, usize, elements=el, device=backend), label="u")
    odt = sr.mul.result_dtype(dtype, dtype)
    nan = _may_nan(name, dtype)
    kw, rkw = data.draw(write_args((wsize,), odt, backend, alias=u, nan=nan), label="write args")
    method = data.draw(st.sampled_from(["auto", "pull", "push"]), label="method")
    inputs = _snap(A=A, u=u)
    if which == "mxv":
        expected = ref.mxv(to_reference(A), to_reference(u), sr, **rkw)
        got = kleene.mxv(A, u, name, method=method, **kw)
    else:
        expected = ref.vxm(to_reference(u), to_reference(A), sr, **rkw)
        got = kleene.vxm(u, A, name, method=method, **kw)
    _check(got, expected, kw, inputs, f"{which} {name} method={method}")


# BFS parents: a bool pattern matrix times an int64 vector of vertex ids.
MIXED = [("min_first", "vxm"), ("min_second", "mxv"), ("any_first", "vxm"), ("any_second", "mxv")]


@pytest.mark.parametrize("name,which", MIXED)
@given(data=st.data())
def test_first_second_mix_dtypes(backend, name, which, data):
    sr = SEMIRINGS[name]
    n = data.draw(SIDE, label="n")
    A = data.draw(kst.matrices(BOOL, (n, n), device=backend), label="A")
    u = data.draw(kst.vectors(np.int64, n, device=backend), label="u")
    kw, rkw = data.draw(write_args((n,), np.int64, backend), label="write args")
    if which == "vxm":
        expected = ref.vxm(to_reference(u), to_reference(A), sr, **rkw)
        got = kleene.vxm(u, A, sr, **kw)
    else:
        expected = ref.mxv(to_reference(A), to_reference(u), sr, **rkw)
        got = kleene.mxv(A, u, sr, **kw)
    _check(got, expected, kw, {}, f"{which} {name} bool x int64")


# ---- elementwise --------------------------------------------------------------------------

BINARY = sorted(vars(binary))


def _binary_dtypes(name):
    if name in ("lor", "land", "lxor"):
        return [BOOL]
    return ALL_DTYPES


@st.composite
def two_operands(draw, dtype, backend, *, other_dtype=None, result_dtype=None):
    shape = draw(st.one_of(st.tuples(SIDE), st.tuples(SIDE, SIDE)), label="shape")
    od = np.dtype(other_dtype or dtype)
    rd = np.dtype(result_dtype or dtype)

    def vals(d):
        # float inf cast to an integer result is undefined (NumPy and CUDA differ)
        return kst.values(d, infinities=not (d.kind == "f" and rd.kind in "iu"))

    A = draw(_container(shape, dtype, backend, vals(np.dtype(dtype))), label="A")
    B = draw(_container(shape, od, backend, vals(od)), label="B")
    return shape, A, B


@pytest.mark.parametrize("opname", BINARY)
@pytest.mark.parametrize("which", ["ewise_add", "ewise_mult"])
@given(data=st.data())
def test_ewise(backend, which, opname, data):
    op = getattr(binary, opname)
    dtype = data.draw(st.sampled_from(_binary_dtypes(opname)), label="dtype")
    other = dtype
    if op.typing in ("first", "second"):  # the ignored operand's dtype is free
        other = data.draw(st.sampled_from(ALL_DTYPES), label="other dtype")
    odt = op.result_dtype(dtype, other)
    shape, A, B = data.draw(two_operands(dtype, backend, other_dtype=other, result_dtype=odt))
    nan = _may_nan(opname, dtype)
    kw, rkw = data.draw(write_args(shape, odt, backend, alias=A, nan=nan), label="write args")
    inputs = _snap(A=A, B=B)
    oparg = data.draw(st.sampled_from([op, opname]), label="op given as")
    expected = getattr(ref, which)(to_reference(A), to_reference(B), op, **rkw)
    got = getattr(kleene, which)(A, B, oparg, **kw)
    _check(got, expected, kw, inputs, f"{which} {opname}")


@pytest.mark.parametrize("name", ["plus", "min", "max", "times", "lor", "any"])
@given(data=st.data())
def test_ewise_add_with_monoid(backend, name, data):
    m = getattr(monoid, name)
    dtype = BOOL if name == "lor" else data.draw(st.sampled_from(NUMERIC), label="dtype")
    shape, A, B = data.draw(two_operands(dtype, backend))
    expected = ref.ewise_add(to_reference(A), to_reference(B), m)
    _check(kleene.ewise_add(A, B, m), expected, {}, {}, f"ewise_add monoid {name}")


UNARY = sorted(vars(unary))


@pytest.mark.parametrize("opname", UNARY)
@given(data=st.data())
def test_apply_unary(backend, opname, data):
    op = getattr(unary, opname)
    dtypes = NUMERIC if opname == "ainv" else ALL_DTYPES  # no negation of bool
    dtype = data.draw(st.sampled_from(dtypes), label="dtype")
    shape = data.draw(st.one_of(st.tuples(SIDE), st.tuples(SIDE, SIDE)), label="shape")
    A = data.draw(_container(shape, dtype, backend, kst.values(dtype)), label="A")
    kw, rkw = data.draw(write_args(shape, op.result_dtype(dtype), backend, alias=A))
    inputs = _snap(A=A)
    expected = ref.apply(to_reference(A), op, **rkw)
    got = kleene.apply(A, data.draw(st.sampled_from([op, opname])), **kw)
    _check(got, expected, kw, inputs, f"apply {opname}")


@pytest.mark.parametrize("opname", BINARY)
@given(data=st.data())
def test_apply_bound(backend, opname, data):
    op = getattr(binary, opname)
    dtype = data.draw(st.sampled_from(_binary_dtypes(opname)), label="dtype")
    shape = data.draw(st.one_of(st.tuples(SIDE), st.tuples(SIDE, SIDE)), label="shape")
    A = data.draw(_container(shape, dtype, backend, kst.values(dtype)), label="A")
    s = data.draw(kst.values(dtype), label="scalar")
    side = data.draw(st.sampled_from(["left", "right"]), label="side")
    odt = op.result_dtype(dtype, dtype)
    kw, rkw = data.draw(write_args(shape, odt, backend, nan=_may_nan(opname, dtype)))
    expected = ref.apply(to_reference(A), op, **{side: s}, **rkw)
    got = kleene.apply(A, op, **{side: s}, **kw)
    _check(got, expected, kw, {}, f"apply {opname} {side}={s!r}")


SELECT = sorted(vars(indexunary))


@pytest.mark.parametrize("opname", SELECT)
@given(data=st.data())
def test_select(backend, opname, data):
    op = getattr(indexunary, opname)
    dtype = data.draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = data.draw(st.one_of(st.tuples(SIDE), st.tuples(SIDE, SIDE)), label="shape")
    A = data.draw(_container(shape, dtype, backend, kst.values(dtype)), label="A")
    if op.thunk_type == "index":
        thunk = data.draw(st.one_of(st.none(), st.integers(-3, 3)), label="thunk")
    else:
        thunk = data.draw(kst.values(dtype), label="thunk")
    kw, rkw = data.draw(write_args(shape, dtype, backend, alias=A))
    inputs = _snap(A=A)
    expected = ref.select(to_reference(A), op, thunk, **rkw)
    got = kleene.select(A, data.draw(st.sampled_from([op, opname])), thunk, **kw)
    _check(got, expected, kw, inputs, f"select {opname} thunk={thunk!r}")


# ---- reductions and structure ----------------------------------------------------------

MONOIDS = {
    "plus": (NUMERIC, None),
    "times": (NUMERIC, st.sampled_from([-2, -1, 0, 1, 2])),  # products stay exact
    "min": (ALL_DTYPES, None),
    "max": (ALL_DTYPES, None),
    "max_nonneg": ([np.dtype(np.float32), np.dtype(np.float64)], st.integers(0, 8)),
    "lor": ([BOOL], None),
    "land": ([BOOL], None),
    "lxor": ([BOOL], None),
    "any": (ALL_DTYPES, None),
}


@pytest.mark.parametrize("name", sorted(MONOIDS))
@given(data=st.data())
def test_reduce(backend, name, data):
    m = getattr(monoid, name)
    dtypes, ints = MONOIDS[name]
    dtype = data.draw(st.sampled_from(dtypes), label="dtype")
    el = kst.values(dtype) if ints is None else ints.map(dtype.type)
    axis = data.draw(st.sampled_from([None, 0, 1, "rows", "columns"]), label="axis")
    if axis is None and data.draw(st.booleans(), label="vector"):
        A = data.draw(kst.vectors(dtype, elements=el, device=backend), label="u")
    else:
        A = data.draw(kst.matrices(dtype, elements=el, device=backend), label="A")
    oparg = data.draw(st.sampled_from([m, name]), label="monoid given as")
    if axis is None:
        expected = ref.reduce(to_reference(A), m)
        got = kleene.reduce(A, oparg)
        assert_matches(got, expected, context=f"reduce {name} to a scalar")
        return
    size = A.shape[0] if axis in (1, "rows") else A.shape[1]
    kw, rkw = data.draw(write_args((size,), dtype, backend, nan=_may_nan(name, dtype)))
    expected = ref.reduce(to_reference(A), m, axis=axis, **rkw)
    got = kleene.reduce(A, oparg, axis=axis, **kw)
    _check(got, expected, kw, {}, f"reduce {name} axis={axis!r}")


@given(data=st.data())
def test_transpose(backend, data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES), label="dtype")
    A = data.draw(kst.matrices(dtype, device=backend), label="A")
    kw, rkw = data.draw(write_args(A.shape[::-1], dtype, backend, alias=A))
    inputs = _snap(A=A)
    expected = ref.transpose(to_reference(A), **rkw)
    _check(kleene.transpose(A, **kw), expected, kw, inputs, "transpose")
    if not kw:
        assert_matches(A.T, expected, context="A.T")


def _indices(n):
    """An index list into a dimension of size n (repeats allowed), or None = all."""
    return st.one_of(st.none(), st.lists(st.integers(0, n - 1), max_size=5) if n else st.just([]))


@given(data=st.data())
def test_extract(backend, data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES), label="dtype")
    if data.draw(st.booleans(), label="vector"):
        A = data.draw(kst.vectors(dtype, device=backend), label="u")
        rows, cols = data.draw(_indices(A.size), label="indices"), None
        shape = (A.size if rows is None else len(rows),)
    else:
        A = data.draw(kst.matrices(dtype, device=backend), label="A")
        rows = data.draw(_indices(A.nrows), label="rows")
        cols = data.draw(_indices(A.ncols), label="cols")
        shape = (
            A.nrows if rows is None else len(rows),
            A.ncols if cols is None else len(cols),
        )
    kw, rkw = data.draw(write_args(shape, dtype, backend))
    inputs = _snap(A=A)
    expected = ref.extract(to_reference(A), rows, cols, **rkw)
    args = (rows,) if isinstance(A, kleene.Vector) else (rows, cols)
    got = kleene.extract(A, *args, **kw)
    _check(got, expected, kw, inputs, f"extract rows={rows} cols={cols}")


def _unique_indices(n):
    if n == 0:
        return st.one_of(st.none(), st.just([]))
    return st.one_of(st.none(), st.lists(st.integers(0, n - 1), unique=True, max_size=n))


@given(data=st.data())
def test_assign(backend, data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES), label="dtype")
    is_vec = data.draw(st.booleans(), label="vector")
    if is_vec:
        C = data.draw(kst.vectors(dtype, device=backend), label="C")
        rows, cols = data.draw(_unique_indices(C.size), label="indices"), None
        region = (C.size if rows is None else len(rows),)
    else:
        C = data.draw(kst.matrices(dtype, device=backend), label="C")
        rows = data.draw(_unique_indices(C.nrows), label="rows")
        cols = data.draw(_unique_indices(C.ncols), label="cols")
        region = (
            C.nrows if rows is None else len(rows),
            C.ncols if cols is None else len(cols),
        )
    if data.draw(st.booleans(), label="scalar value"):
        value = rvalue = data.draw(kst.values(dtype), label="value")
    else:
        value = data.draw(_container(region, dtype, backend), label="value")
        rvalue = to_reference(value)
    kw, rkw = data.draw(write_args(C.shape, dtype, backend))
    kw.pop("out", None)  # assign writes into C itself
    rkw.pop("out", None)
    expected = ref.assign(to_reference(C), rvalue, rows, cols, **rkw)
    args = (rows,) if is_vec else (rows, cols)
    got = kleene.assign(C, value, *args, **kw)
    assert got is C
    assert_matches(C, expected, context=f"assign rows={rows} cols={cols} value={value!r}")


# ---- dense shortcuts must keep GraphBLAS semantics -----------------------------------------


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_mxm_plus_times_never_multiplies_absent_entries(backend, fmt):
    # Only stored entries are multiplied: an absent A(0,1) must not meet B(1,0) = inf
    # (0 * inf = nan if absent entries are filled with the zero).
    A = kleene.Matrix.from_csr([0, 1], [0], [1.0], (1, 2)).to_format(fmt)
    B = kleene.Matrix.from_csr([0, 1, 2], [0, 0], [5.0, np.inf], (2, 1)).to_format(fmt)
    A, B = A.to(backend), B.to(backend)
    expected = ref.mxm(to_reference(A), to_reference(B), "plus_times")
    assert_matches(kleene.mxm(A, B, "plus_times"), expected, context=f"{fmt} plus_times")


# ---- user-defined algebra runs on every back end ------------------------------------------

_mymax = kleene.BinaryOp("mymax", np.maximum, "(x < y ? y : x)")
_absdiff = kleene.BinaryOp("absdiff", lambda x, y: np.abs(x - y), "(x < y ? y - x : x - y)")
USER_SEMIRINGS = {
    # built-in parts, a new name: the generated kernels must not depend on names
    "widest": (kleene.Semiring(monoid.max, binary.min, name="widest"), np.float32, None),
    # a user monoid: no atomic kind given, so the GPU uses a compare-and-swap loop
    "mymax_min": (
        kleene.Semiring(kleene.Monoid(_mymax, float("-inf"), idempotent=True), binary.min),
        np.int64,
        None,
    ),
    # a user multiply with its own CUDA expression (small values: no overflow)
    "min_absdiff": (
        kleene.Semiring(monoid.min, _absdiff, name="min_absdiff"),
        np.int32,
        st.integers(-8, 8).map(np.int32),
    ),
}


@pytest.mark.parametrize("name", sorted(USER_SEMIRINGS))
def test_user_semiring_agrees_with_reference(backend, name):
    sr, dtype, elements = USER_SEMIRINGS[name]
    check_backend(sr, dtype, device=backend, elements=elements, max_examples=40)


# ---- closure and in-place accumulating products (full dense blocks) ------------------------

_NONNEG = st.one_of(st.integers(0, 8), st.just(float("inf")))
CLOSURE_CASES = {
    # carriers where A* exists: no cycle keeps improving a path
    "min_plus-float64": ("min_plus", np.float64, _NONNEG),
    "min_plus-int32": ("min_plus", np.int32, _NONNEG),
    "max_plus-int64": ("max_plus", np.int64, st.one_of(st.integers(-8, 0), st.just(-np.inf))),
    "max_min-float32": ("max_min", np.float32, None),
    "min_max-int64": ("min_max", np.int64, None),
    "lor_land-bool": ("lor_land", np.bool_, None),
    "max_times-float64": ("max_times", np.float64, st.sampled_from([0.0, 0.25, 0.5, 1.0])),
}


@st.composite
def full_dense(draw, shape, dtype, elements, backend):
    """A full dense Matrix (every entry present), as closure and mxm_accumulate need."""
    d = np.dtype(dtype)
    vals = [draw(elements) for _ in range(shape[0] * shape[1])]
    a = np.array([resolve_scalar(v, d) for v in vals], dtype=d).reshape(shape)
    return kleene.Matrix.from_dense(a, missing=None).to(backend)


needs_closure = pytest.mark.skipif(
    not hasattr(kleene, "closure"), reason="kleene.closure not in this version"
)


@needs_closure
@pytest.mark.parametrize("case", sorted(CLOSURE_CASES))
@given(data=st.data())
def test_closure(backend, case, data):
    name, dtype, ints = CLOSURE_CASES[case]
    el = ints if ints is not None else kst.elements(name, dtype)
    n = data.draw(st.integers(0, 5), label="n")
    A = data.draw(full_dense((n, n), dtype, el, backend), label="A")
    inputs = _snap(A=A)
    expected = ref.closure(to_reference(A), name)
    _check(kleene.closure(A, name), expected, {}, inputs, f"closure {case}")
    B = A.dup()
    got = kleene.closure(B, name, out=B)  # in place
    assert got is B
    assert_matches(B, expected, context=f"closure {case} in place")


@needs_closure
@pytest.mark.parametrize("case", sorted(CLOSURE_CASES))
@given(data=st.data())
def test_mxm_accumulate(backend, case, data):
    name, dtype, ints = CLOSURE_CASES[case]
    el = ints if ints is not None else kst.elements(name, dtype)
    m, k, n = data.draw(st.tuples(SIDE, SIDE, SIDE), label="m, k, n")
    A = data.draw(full_dense((m, k), dtype, el, backend), label="A")
    B = data.draw(full_dense((k, n), dtype, el, backend), label="B")
    C = data.draw(full_dense((m, n), dtype, el, backend), label="C")
    inputs = _snap(A=A, B=B)
    expected = ref.mxm_accumulate(to_reference(A), to_reference(B), to_reference(C), name)
    got = kleene.mxm_accumulate(A, B, C, name)
    assert got is C
    _check(C, expected, {}, inputs, f"mxm_accumulate {case}")


@pytest.mark.parametrize("opname", ["min", "max"])
def test_min_max_propagate_nan(backend, opname):
    # The operator's NumPy func (np.minimum / np.maximum) propagates NaN; every back end
    # must agree with it whichever side the NaN is on, e.g. as an accumulator.
    u = kleene.Vector.from_dense(np.array([0.0, np.nan, np.nan]), missing=None).to(backend)
    v = kleene.Vector.from_dense(np.array([np.nan, 0.0, np.nan]), missing=None).to(backend)
    expected = ref.ewise_add(to_reference(u), to_reference(v), opname)
    assert_matches(kleene.ewise_add(u, v, opname), expected, context=f"ewise_add {opname}")
    assert_matches(kleene.ewise_mult(u, v, opname), expected, context=f"ewise_mult {opname}")


# ---- large inputs: the GPU agrees with the CPU ----------------------------------------------


@pytest.mark.parametrize("name,dtype", MUL_CASES, ids=MUL_IDS)
def test_large_inputs_gpu_agrees_with_cpu(backend, name, dtype):
    # Sizes straddling warp/block/tile boundaries and uneven rows, where GPU kernels
    # change strategy; the CPU (checked against the reference above) is the oracle.
    if backend == "cpu":
        pytest.skip("compares the GPU with the CPU")
    seed = MUL_CASES.index((name, dtype))
    check_devices_agree(SEMIRINGS[name], dtype, seed=seed, cases=4)
