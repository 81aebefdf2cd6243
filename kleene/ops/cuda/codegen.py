"""CUDA source generation for the kernel primitives (importable without CuPy).

A *specialisation* is a kernel template (``kernels/*.cu``) with a generated
prelude in front: typedefs for the value types, inline functions built from the
algebra's ``cuda_expr`` strings (``kl_add``, ``kl_mult``, ``kl_identity``, ...)
and ``#define`` switches (terminal value, atomic kind, tile shape). The same text
is compiled by NVRTC at run time (:mod:`kleene.ops.cuda`) and by ``nvcc`` in CI
(``tests/test_cuda_compile.py``), so a broken template fails without a GPU.

Every generated macro is ``#undef``'d at the end of a specialisation and every
other name can be wrapped in a namespace, so many specialisations can share one
translation unit (CI compiles them in batches).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType

import numpy as np

from ...semiring import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp
from ...semiring.builtins import binary as _builtin_binary
from ...semiring.dtypes import CTYPES, as_dtype, c_literal

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"

# Sub-warp group sizes the sparse kernels are instantiated for (chosen by degree).
GROUP_SIZES = (1, 2, 4, 8, 16, 32)
# Threads per block of the sparse and reduction kernels.
BLOCK = 256
# Loads in flight per lane in the sparse kernels (independent gathers).
UNROLL = 4
# Threads per block and loads in flight per lane for queued long rows.
LONG_NT = 512
LONG_UNROLL = 8

# vxm_push update strategies (see push_kind).
PUSH_KINDS = ("min", "max", "plus", "lor", "land", "cas", "any", "sort")
_PUSH_CODE = {k: i for i, k in enumerate(PUSH_KINDS)}

# Fast paths of the dense kernel for int32 tropical products over clamped inputs.
MXM_FAST = ("imin", "imax")
# int32 fast path: finite inputs must satisfy |v| < 2**28 and infinities are
# clamped to 2**30 - 1, so no sum overflows and finite/infinite sums stay apart.
MXM_FAST_LIMIT = 1 << 28
MXM_FAST_INF = (1 << 30) - 1
MXM_FAST_SPLIT = 1 << 29
# Dense kernel variants: C = A⊕.⊗B, C ⊕= A⊕.⊗B in place, and the latter with predecessors.
MXM_MODES = ("plain", "acc", "pred")
MXM_TILES = ("large", "small")
# The one-block closure kernel: 32 × CLOSURE_ROWS threads, blocks of up to CLOSURE_MAX
# rows (CLOSURE_MAX / 32 columns and CLOSURE_MAX / CLOSURE_ROWS rows per thread, in registers).
CLOSURE_ROWS = 16
CLOSURE_MAX = 128
CLOSURE_VARIANTS = (("false", "true"), ("false", "false"), ("true", "false"))


def closure_variant(dtype, pred: bool) -> str:
    """The closure kernel for ``dtype``: the unrolled one where it fits in registers
    (values of at most 4 bytes, no predecessors), else the select-chain one."""
    unroll = not pred and np.dtype(dtype).itemsize <= 4
    return f"kl_closure_dense<{'true' if pred else 'false'}, {'true' if unroll else 'false'}>"


@dataclass(frozen=True)
class Spec:
    """One kernel specialisation: generated prelude + template files + instances.

    ``names`` are the C++ name expressions to instantiate (``kl_x<8>``);
    ``key`` identifies the specialisation for caching.
    """

    kind: str
    key: tuple
    prelude: str
    bodies: tuple[str, ...]
    macros: tuple[str, ...]
    names: tuple[str, ...]


@dataclass(frozen=True)
class Elementwise:
    """Parts of a ``cupy.ElementwiseKernel`` generated from an operator.

    Parameter names avoid CuPy's reserved loop names (``i``, ``n``, ``_ind``).
    ``check`` is a stand-alone specialisation calling the same preamble function,
    for compiling without CuPy.
    """

    name: str
    in_params: str
    out_params: str
    operation: str
    preamble: str
    check: Spec


# ---- small helpers -----------------------------------------------------------


def ctype(dtype) -> str:
    """The C type of a supported dtype (``float32`` -> ``float``)."""
    return CTYPES[as_dtype(dtype)]


def _dtname(dtype) -> str:
    return np.dtype(dtype).name


@cache
def _read(name: str) -> str:
    return (KERNEL_DIR / name).read_text()


def common_header() -> str:
    """The text of ``kernels/common.cuh`` (helpers used by built-in cuda_exprs)."""
    return _read("common.cuh")


def _func(ret: str, name: str, params: str, expr: str) -> str:
    return f"__device__ __forceinline__ {ret} {name}({params}) {{ return ({ret})({expr}); }}\n"


def _ident(text: str) -> str:
    """A C identifier fragment from an arbitrary operator name."""
    return re.sub(r"[^0-9A-Za-z_]", "_", text)


class _Prelude:
    """Accumulates generated code and remembers the macros to #undef."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.macros: list[str] = []

    def define(self, name: str, value) -> None:
        self.macros.append(name)
        self.lines.append(f"#define {name} {value}\n")

    def typedef(self, ctype_: str, name: str) -> None:
        self.lines.append(f"typedef {ctype_} {name};\n")

    def add(self, text: str) -> None:
        self.lines.append(text)

    def text(self) -> str:
        return "".join(self.lines)


def _monoid_prelude(p: _Prelude, monoid: Monoid, dtype) -> None:
    """kl_add / kl_identity / terminal switches for ``monoid`` on ``kl_c_t``."""
    d = as_dtype(dtype)
    p.add(_func("kl_c_t", "kl_add", "kl_c_t x, kl_c_t y", monoid.op.cuda_expr))
    p.add(_func("kl_c_t", "kl_identity", "", c_literal(monoid.identity_for(d), d)))
    term = monoid.terminal_for(d)
    p.define("KL_HAS_TERMINAL", int(term is not None))
    p.define("KL_STOPS_AT_FIRST", int(monoid.stops_at_first))
    if term is not None:
        p.add(_func("kl_c_t", "kl_terminal", "", c_literal(term, d)))


def render(spec: Spec, namespace: str | None = None, common: bool = True) -> str:
    """Full CUDA source of ``spec``: common header, prelude, templates, #undefs.

    With ``namespace`` the specialisation is wrapped in it (batching in CI); the
    name expressions then need the ``namespace::`` prefix.
    """
    parts = [common_header()] if common else []
    if namespace:
        parts.append(f"namespace {namespace} {{\n")
    parts.append(f"// ---- specialisation {spec.kind}\n")
    parts.append(spec.prelude)
    parts.extend(_read(b) for b in spec.bodies)
    parts.extend(f"#undef {m}\n" for m in spec.macros)
    if namespace:
        parts.append(f"}}  // namespace {namespace}\n")
    return "".join(parts)


# ---- dense mxm ------------------------------------------------------------------


def mxm_fast_kind(semiring: Semiring, dtype) -> str | None:
    """'imin'/'imax' when the int32 clamped tropical fast path applies, else None.

    Applies to the built-in tropical multiply (tplus) under min or max on int32;
    the caller must still check the input range (see ``MXM_FAST_LIMIT``).
    """
    if as_dtype(dtype) != np.int32 or semiring.mul.key != _builtin_binary.tplus.key:
        return None
    op = semiring.add.op.key
    if op == _builtin_binary.min.key and semiring.add.identity == float("inf"):
        return "imin"
    if op == _builtin_binary.max.key and semiring.add.identity == float("-inf"):
        return "imax"
    return None


def mxm_config(a_dtype, b_dtype, c_dtype, tile: str = "large", **override) -> Mapping:
    """Tile shape of the dense kernel for these value types (``override``: tuning).

    ``tile="small"`` (64×64 blocks, 4×4 per thread) is for products too small to
    fill the GPU with 128×128 blocks and for the predecessor variant (two
    registers per accumulator); 8-byte types always use it. Read-only (cached).
    """
    key = (np.dtype(a_dtype), np.dtype(b_dtype), np.dtype(c_dtype), tile)
    return _mxm_config(*key, tuple(sorted(override.items())))


@lru_cache(maxsize=256)
def _mxm_config(a_dtype, b_dtype, c_dtype, tile: str, override: tuple) -> Mapping:
    if tile not in MXM_TILES:
        raise ValueError(f"unknown dense tile {tile!r}; one of {MXM_TILES}")
    size = max(np.dtype(t).itemsize for t in (a_dtype, b_dtype, c_dtype))
    four = {np.dtype(np.int32), np.dtype(np.float32)}
    vec = np.dtype(a_dtype) in four and np.dtype(b_dtype) in four
    if size <= 4 and tile == "large":  # deeper slabs (fewer barriers) with 16-byte loads
        cfg = dict(BM=128, BN=128, BK=16 if vec else 8, TM=8, TN=8, PAD_A=4, MIN_BLOCKS=2)
    elif size <= 4:  # PAD_A=2: 66-word rows keep the transposed A stores conflict-free
        cfg = dict(BM=64, BN=64, BK=16 if vec else 8, TM=4, TN=4, PAD_A=2, MIN_BLOCKS=2)
    else:
        cfg = dict(BM=64, BN=64, BK=8, TM=4, TN=4, PAD_A=2, MIN_BLOCKS=2)
    cfg.update(dict(override))
    la = cfg["BM"] * cfg["BK"] // _threads(cfg)  # A, B elements a thread loads per slab
    lb = cfg["BN"] * cfg["BK"] // _threads(cfg)
    cfg["VEC"] = int(vec and la % 4 == 0 and lb % 4 == 0)
    cfg["VEC_C"] = int(np.dtype(c_dtype) in four and cfg["TN"] // 2 == 4)
    return MappingProxyType(cfg)


def _threads(cfg: dict) -> int:
    return (cfg["BM"] // cfg["TM"]) * (cfg["BN"] // cfg["TN"])


def mxm_spec(
    semiring: Semiring,
    a_dtype,
    b_dtype,
    c_dtype,
    fast: str | None = None,
    cfg: dict | None = None,
    mode: str = "plain",
    tile: str | None = None,
) -> Spec:
    """The tiled dense mxm for ``semiring`` on (A, B, C) value types.

    Accumulators start at the add identity and take ``acc = ADD(acc, MULT(a, b))``
    (built-in min/max on floats as fminf/fmaxf: equal while acc is never NaN).
    ``cfg`` overrides parts of the tile shape (see :func:`mxm_config`; for tuning).
    ``mode`` (one of ``MXM_MODES``): "plain" writes C = acc; "acc" writes
    C = ADD(C, acc) in place (mxm_dense_acc; A, B, C may overlap); "pred" also
    tracks, per accumulator, the k of its best term and copies PB(k, j) to PC(i, j)
    where C(i, j) strictly changes. ``tile`` defaults to "small" for "pred".
    """
    if fast is not None and fast not in MXM_FAST:
        raise ValueError(f"unknown dense fast path {fast!r}")
    if mode not in MXM_MODES:
        raise ValueError(f"unknown dense mode {mode!r}; one of {MXM_MODES}")
    ta, tb, tc = (as_dtype(t) for t in (a_dtype, b_dtype, c_dtype))
    tile = tile or ("small" if mode == "pred" else "large")
    cfg = mxm_config(ta, tb, tc, tile, **(cfg or {}))
    p = _Prelude()
    p.typedef(ctype(ta), "kl_a_t")
    p.typedef(ctype(tb), "kl_b_t")
    p.typedef(ctype(tc), "kl_c_t")
    for name, value in cfg.items():
        p.define(f"KL_{name}", value)
    p.define("KL_ACC", int(mode != "plain"))
    p.define("KL_PRED", int(mode == "pred"))
    _monoid_prelude(p, semiring.add, tc)
    p.add(_func("kl_c_t", "kl_mult", "kl_a_t x, kl_b_t y", semiring.mul.cuda_expr))
    add_key = semiring.add.op.key
    if fast == "imin" or fast == "imax":
        inf, split = MXM_FAST_INF, MXM_FAST_SPLIT
        if fast == "imin":
            pre = f"v < {inf} ? v : {inf}"
            step = "s < acc ? s : acc"
            post = f"acc >= {split} ? KL_INT_MAX : acc"
        else:
            pre = f"v > -{inf} ? v : -{inf}"
            step = "s > acc ? s : acc"
            post = f"acc <= -{split} ? KL_INT_MIN : acc"
        p.add(_func("kl_a_t", "kl_pre_a", "kl_a_t v", pre))
        p.add(_func("kl_b_t", "kl_pre_b", "kl_b_t v", pre))
        p.add(
            "__device__ __forceinline__ kl_c_t kl_step(kl_c_t acc, kl_a_t a, kl_b_t b) "
            f"{{ int s = a + b; return {step}; }}\n"
        )
        p.add(_func("kl_c_t", "kl_post", "kl_c_t acc", post))
    else:
        p.add(_func("kl_a_t", "kl_pre_a", "kl_a_t v", "v"))
        p.add(_func("kl_b_t", "kl_pre_b", "kl_b_t v", "v"))
        step = "kl_add(acc, kl_mult(a, b))"
        if tc.kind == "f" and add_key in (_builtin_binary.min.key, _builtin_binary.max.key):
            fn = "fmin" if add_key == _builtin_binary.min.key else "fmax"
            step = f"{fn}{'f' if tc == np.float32 else ''}(acc, kl_mult(a, b))"
        p.add(_func("kl_c_t", "kl_step", "kl_c_t acc, kl_a_t a, kl_b_t b", step))
        p.add(_func("kl_c_t", "kl_post", "kl_c_t acc", "acc"))
    names = ["kl_mxm_dense<false>"] + (["kl_mxm_dense<true>"] if cfg["VEC"] else [])
    key = ("mxm_dense", semiring.key, ta.str, tb.str, tc.str, fast)
    if mode != "plain":  # the tile is part of the key (equal tiles share code)
        key = (f"mxm_dense_{mode}", *key[1:], *sorted(cfg.items()))
    elif cfg != mxm_config(ta, tb, tc):  # a tuning override (benchmarks): keep it apart
        key += tuple(sorted(cfg.items()))
    return Spec("mxm_dense", key, p.text(), ("mxm_dense.cu",), tuple(p.macros), tuple(names))


def range_check_spec() -> Spec:
    """Kernel that flags int32 values outside the dense fast path's range."""
    p = _Prelude()
    p.define("KL_FAST_LIMIT", MXM_FAST_LIMIT)
    return Spec(
        "range_check",
        ("range_check",),
        p.text(),
        ("range_check.cu",),
        tuple(p.macros),
        ("kl_range_check<0>", "kl_range_check<1>"),
    )


# ---- closure primitives (APSP): in-place products and the one-block closure ---------


def range_check_view_spec() -> Spec:
    """Range check of the int32 fast path on strided 2-D views; ``<SIDE, ONE_SIGN>``
    also rejects finite values of the wrong sign (in-place products, see dense.py)."""
    p = _Prelude()
    p.define("KL_FAST_LIMIT", MXM_FAST_LIMIT)
    names = tuple(f"kl_range_check_view<{s}, {o}>" for s in (0, 1) for o in (0, 1))
    bodies = ("range_check_view.cu",)
    return Spec("range_check", ("range_check_view",), p.text(), bodies, tuple(p.macros), names)


def closure_spec(semiring: Semiring, dtype) -> Spec:
    """One thread block closes an n×n block in shared memory (Floyd-Warshall).

    ``kl_closure_dense<PRED, UNROLL>`` (``CLOSURE_VARIANTS``; see ``closure_variant``);
    the multiplicative identity is a kernel argument.
    """
    d = as_dtype(dtype)
    p = _Prelude()
    p.typedef(ctype(d), "kl_c_t")
    p.define("KL_CL_NY", CLOSURE_ROWS)
    p.define("KL_CL_MAX", CLOSURE_MAX)
    _monoid_prelude(p, semiring.add, d)
    p.add(_func("kl_c_t", "kl_mult", "kl_c_t x, kl_c_t y", semiring.mul.cuda_expr))
    names = tuple(f"kl_closure_dense<{p}, {u}>" for p, u in CLOSURE_VARIANTS)
    key = ("closure_dense", semiring.key, d.str)
    return Spec("closure_dense", key, p.text(), ("closure_dense.cu",), tuple(p.macros), names)


def closure_primitive_specs(semiring: Semiring, dtype) -> list[Spec]:
    """Every specialisation mxm_dense_acc / closure_dense can ask for on ``dtype``
    (A, B, C of one dtype): both tiles of "acc", "pred" and the closure where the
    add is idempotent, the int32 fast paths. None for ``any`` (a no-op there)."""
    if semiring.add.stops_at_first:
        return []
    d = as_dtype(dtype)
    fasts = [None] + ([f] if (f := mxm_fast_kind(semiring, d)) else [])
    specs = [mxm_spec(semiring, d, d, d, f, mode="acc", tile=t) for f in fasts for t in MXM_TILES]
    if semiring.add.idempotent:
        specs += [mxm_spec(semiring, d, d, d, f, mode="pred") for f in fasts]
        specs.append(closure_spec(semiring, d))
    return specs


# ---- sparse mxv (pull) and vxm (push) ---------------------------------------------


def _sparse_prelude(semiring: Semiring, a_dtype, u_dtype, c_dtype, flip: bool) -> _Prelude:
    ta, tu, tc = (as_dtype(t) for t in (a_dtype, u_dtype, c_dtype))
    p = _Prelude()
    p.typedef(ctype(ta), "kl_a_t")
    p.typedef(ctype(tu), "kl_u_t")
    p.typedef(ctype(tc), "kl_c_t")
    p.define("KL_BLOCK", BLOCK)
    p.define("KL_UNROLL", UNROLL)
    _monoid_prelude(p, semiring.add, tc)
    return p


def mxv_spec(semiring: Semiring, a_dtype, u_dtype, c_dtype, flip: bool = False) -> Spec:
    """Row-parallel pull w(i) = ADD_k MULT(A(i,k), u(k)) (``flip``: MULT(u(k), A(i,k)))."""
    p = _sparse_prelude(semiring, a_dtype, u_dtype, c_dtype, flip)
    if flip:
        p.add(_func("kl_c_t", "kl_mult", "kl_u_t x, kl_a_t y", semiring.mul.cuda_expr))
        p.add(_func("kl_c_t", "kl_mult_au", "kl_a_t a, kl_u_t u", "kl_mult(u, a)"))
    else:
        p.add(_func("kl_c_t", "kl_mult", "kl_a_t x, kl_u_t y", semiring.mul.cuda_expr))
        p.add(_func("kl_c_t", "kl_mult_au", "kl_a_t a, kl_u_t u", "kl_mult(a, u)"))
    names = [f"kl_mxv_pull<{g}>" for g in GROUP_SIZES]
    names += [f"kl_mxv_pull_long<{LONG_NT}, {LONG_UNROLL}>"]
    key = ("mxv_pull", semiring.key) + tuple(as_dtype(t).str for t in (a_dtype, u_dtype, c_dtype))
    key += (bool(flip),)
    bodies = ("group.cuh", "mxv_pull.cu")
    return Spec("mxv_pull", key, p.text(), bodies, tuple(p.macros), tuple(names))


def push_kind(monoid: Monoid, dtype) -> str:
    """How vxm_push combines products into w(j), one of ``PUSH_KINDS``.

    Atomics where the result cannot depend on arrival order; "sort" (products
    sorted by column, then segment_reduce) where it could: float plus and
    non-idempotent compare-and-swap monoids. "any" keeps the product of the first
    u entry (an atomicMin on its position), like the CPU back end.
    """
    d = as_dtype(dtype)
    if monoid.stops_at_first:
        return "any"
    a = monoid.atomic
    if a in ("min", "max"):
        return a
    if a == "plus":
        return "plus" if d.kind in "biu" else "sort"
    if a in ("lor", "land") and d == np.bool_:
        return a
    return "cas" if monoid.idempotent else "sort"


def vxm_spec(semiring: Semiring, a_dtype, u_dtype, c_dtype, flip: bool = False) -> Spec:
    """Push from a sparse u: w(j) = ADD_{k in u} MULT(u(k), A(k,j)) (``flip`` swaps)."""
    tc = as_dtype(c_dtype)
    p = _sparse_prelude(semiring, a_dtype, u_dtype, c_dtype, flip)
    if flip:
        p.add(_func("kl_c_t", "kl_mult", "kl_a_t x, kl_u_t y", semiring.mul.cuda_expr))
        p.add(_func("kl_c_t", "kl_mult_ua", "kl_u_t u, kl_a_t a", "kl_mult(a, u)"))
    else:
        p.add(_func("kl_c_t", "kl_mult", "kl_u_t x, kl_a_t y", semiring.mul.cuda_expr))
        p.add(_func("kl_c_t", "kl_mult_ua", "kl_u_t u, kl_a_t a", "kl_mult(u, a)"))
    kind = push_kind(semiring.add, tc)
    for k, code in _PUSH_CODE.items():
        p.define(f"KL_PUSH_{k.upper()}", code)
    p.define("KL_PUSH_KIND", _PUSH_CODE[kind])
    p.define("KL_IDEMPOTENT", int(semiring.add.idempotent))
    # bool results are staged in 32-bit words (atomics need 4 bytes)
    p.typedef("int" if tc == np.bool_ else "kl_c_t", "kl_w_t")
    if kind == "sort":
        names = ["kl_vxm_expand<0>"]
    else:
        names = [f"kl_vxm_push<{g}>" for g in GROUP_SIZES]
        names += [f"kl_vxm_push_long<{LONG_NT}, {LONG_UNROLL}>", "kl_vxm_init<0>"]
        if kind == "any":
            names.append("kl_vxm_any_finish<0>")
    key = ("vxm_push", semiring.key) + tuple(as_dtype(t).str for t in (a_dtype, u_dtype, tc))
    key += (bool(flip),)
    bodies = ("group.cuh", "vxm_push.cu")
    return Spec("vxm_push", key, p.text(), bodies, tuple(p.macros), tuple(names))


def segment_reduce_spec(monoid: Monoid, dtype) -> Spec:
    """Per-segment reduction of ``dtype`` values (empty -> identity)."""
    d = as_dtype(dtype)
    p = _Prelude()
    p.typedef(ctype(d), "kl_c_t")
    p.define("KL_BLOCK", BLOCK)
    _monoid_prelude(p, monoid, d)
    names = [f"kl_segment_reduce<{g}>" for g in GROUP_SIZES]
    key = ("segment_reduce", monoid.key, d.str)
    bodies = ("group.cuh", "segment_reduce.cu")
    return Spec("segment_reduce", key, p.text(), bodies, tuple(p.macros), tuple(names))


# ---- elementwise (cupy.ElementwiseKernel) ---------------------------------------


def _check_spec(kind: str, key: tuple, func: str, params: str, call: str) -> Spec:
    """A stand-alone kernel that calls the generated function (CI compile check)."""
    body = (
        f"template <int N> __global__ void kl_check({params}) {{\n"
        "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  {call};\n}}\n"
    )
    return Spec(kind, key, func + body, (), (), ("kl_check<0>",))


def binary_kernel(op: BinaryOp, x_dtype, y_dtype, z_dtype) -> Elementwise:
    """z = op(x, y), computed in the C types of x and y and cast to z."""
    tx, ty, tz = (as_dtype(t) for t in (x_dtype, y_dtype, z_dtype))
    cx, cy, cz = ctype(tx), ctype(ty), ctype(tz)
    func = _func(cz, "kl_binary_op", f"{cx} x, {cy} y", op.cuda_expr)
    check = _check_spec(
        "binary",
        ("binary", op.key, tx.str, ty.str, tz.str),
        func,
        f"const {cx}* x, const {cy}* y, {cz}* z",
        "z[i] = kl_binary_op(x[i], y[i])",
    )
    return Elementwise(
        name=f"kl_binary_{_ident(op.name)}",
        in_params=f"{_dtname(tx)} kx, {_dtname(ty)} ky",
        out_params=f"{_dtname(tz)} kz",
        operation="kz = kl_binary_op(kx, ky)",
        preamble=common_header() + func,
        check=check,
    )


def unary_kernel(op: UnaryOp, x_dtype, z_dtype) -> Elementwise:
    """z = op(x), computed in x's C type and cast to z."""
    tx, tz = as_dtype(x_dtype), as_dtype(z_dtype)
    cx, cz = ctype(tx), ctype(tz)
    func = _func(cz, "kl_unary_op", f"{cx} x", op.cuda_expr)
    check = _check_spec(
        "unary",
        ("unary", op.key, tx.str, tz.str),
        func,
        f"const {cx}* x, {cz}* z",
        "z[i] = kl_unary_op(x[i])",
    )
    return Elementwise(
        name=f"kl_unary_{_ident(op.name)}",
        in_params=f"{_dtname(tx)} kx",
        out_params=f"{_dtname(tz)} kz",
        operation="kz = kl_unary_op(kx)",
        preamble=common_header() + func,
        check=check,
    )


def index_unary_kernel(op: IndexUnaryOp, x_dtype, thunk_dtype) -> Elementwise:
    """keep = op(x, i, j, thunk) as bool; i and j are int64."""
    tx, tt = as_dtype(x_dtype), as_dtype(thunk_dtype)
    cx, ct = ctype(tx), ctype(tt)
    params = f"{cx} x, long long i, long long j, {ct} thunk"
    func = _func("bool", "kl_index_unary_op", params, op.cuda_expr)
    check = _check_spec(
        "index_unary",
        ("index_unary", op.key, tx.str, tt.str),
        func,
        f"const {cx}* x, const long long* r, const long long* c, {ct} thunk, bool* z",
        "z[i] = kl_index_unary_op(x[i], r[i], c[i], thunk)",
    )
    return Elementwise(
        name=f"kl_select_{_ident(op.name)}",
        in_params=f"{_dtname(tx)} kx, int64 krow, int64 kcol, {_dtname(tt)} kthunk",
        out_params="bool kz",
        operation="kz = kl_index_unary_op(kx, krow, kcol, kthunk)",
        preamble=common_header() + func,
        check=check,
    )


# ---- everything the built-ins need (CI compiles all of it) --------------------------


def builtin_specs() -> list[Spec]:
    """Every specialisation the built-in algebra can ask for, one of each.

    Semirings x their dtypes (A, B/u and the result of one dtype, as the
    operations use them) for mxm/mxv/vxm, both flips, the int32 fast paths;
    monoids x dtypes for reductions; operators x dtypes for elementwise kernels.
    """
    from ...semiring import SEMIRINGS, SUPPORTED_DTYPES
    from ...semiring.builtins import binary, indexunary, monoid, unary

    specs: list[Spec] = [range_check_spec(), range_check_view_spec()]
    for sr in SEMIRINGS.values():
        for d in sr.dtypes:
            c = sr.mul.result_dtype(d, d)
            specs.append(mxm_spec(sr, d, d, c))
            fast = mxm_fast_kind(sr, d)
            if fast:
                specs.append(mxm_spec(sr, d, d, c, fast))
            specs += closure_primitive_specs(sr, d)
            for flip in (False, True):
                specs.append(mxv_spec(sr, d, d, c, flip))
                specs.append(vxm_spec(sr, d, d, c, flip))
    for m in vars(monoid).values():
        for d in SUPPORTED_DTYPES:
            specs.append(segment_reduce_spec(m, d))
    for op in vars(binary).values():
        for d in SUPPORTED_DTYPES:
            specs.append(binary_kernel(op, d, d, op.result_dtype(d, d)).check)
    for op in vars(unary).values():
        for d in SUPPORTED_DTYPES:
            specs.append(unary_kernel(op, d, op.result_dtype(d)).check)
    for op in vars(indexunary).values():
        for d in SUPPORTED_DTYPES:
            thunk = np.int64 if op.thunk_type == "index" else d
            specs.append(index_unary_kernel(op, d, thunk).check)
    specs += [frontier_spec(True), frontier_spec(False)]
    seen: dict[tuple, Spec] = {}
    for s in specs:
        seen.setdefault(s.key, s)
    return list(seen.values())


# ---- fused frontier kernels (BFS levels, Bellman-Ford rounds) ---------------------------

_BOOLS = ("false", "true")
FRONTIER_RUN = (*(f"kl_bfs_run<{p}, {m}>" for p in _BOOLS for m in (0, 1, 2)), "kl_bf_run")
FRONTIER_STEP = (
    *(f"kl_bfs_step<{p}, {q}>" for p in _BOOLS for q in _BOOLS),
    "kl_bf_step",
    "kl_bfs_init",
)


def frontier_spec(cooperative: bool) -> Spec:
    """BFS/Bellman-Ford frontier kernels: the whole-run ones (launched cooperatively)
    or the one-level ones. Fixed types (int32 ids and levels, float64 distances)."""
    names = FRONTIER_RUN if cooperative else FRONTIER_STEP
    key = ("frontier", "run" if cooperative else "step")
    return Spec("frontier", key, "", ("frontier.cu",), (), names)
