"""Elementwise operators as ``cupy.ElementwiseKernel`` parts, and their CI compile checks."""

from __future__ import annotations

from dataclasses import dataclass

from kleene.semiring import BinaryOp, IndexUnaryOp, UnaryOp
from kleene.semiring.dtypes import as_dtype

from .common import Spec, common_header, ctype, dtname, func, ident


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


def _check_spec(kind: str, key: tuple, fn: str, params: str, call: str) -> Spec:
    """A stand-alone kernel that calls the generated function (CI compile check)."""
    body = (
        f"template <int N> __global__ void kl_check({params}) {{\n"
        "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"  {call};\n}}\n"
    )
    return Spec(kind, key, fn + body, (), (), ("kl_check<0>",))


def binary_kernel(op: BinaryOp, x_dtype, y_dtype, z_dtype) -> Elementwise:
    """z = op(x, y), computed in the C types of x and y and cast to z."""
    tx, ty, tz = (as_dtype(t) for t in (x_dtype, y_dtype, z_dtype))
    cx, cy, cz = ctype(tx), ctype(ty), ctype(tz)
    fn = func(cz, "kl_binary_op", f"{cx} x, {cy} y", op.cuda_expr)
    check = _check_spec(
        "binary",
        ("binary", op.key, tx.str, ty.str, tz.str),
        fn,
        f"const {cx}* x, const {cy}* y, {cz}* z",
        "z[i] = kl_binary_op(x[i], y[i])",
    )
    return Elementwise(
        name=f"kl_binary_{ident(op.name)}",
        in_params=f"{dtname(tx)} kx, {dtname(ty)} ky",
        out_params=f"{dtname(tz)} kz",
        operation="kz = kl_binary_op(kx, ky)",
        preamble=common_header() + fn,
        check=check,
    )


def unary_kernel(op: UnaryOp, x_dtype, z_dtype) -> Elementwise:
    """z = op(x), computed in x's C type and cast to z."""
    tx, tz = as_dtype(x_dtype), as_dtype(z_dtype)
    cx, cz = ctype(tx), ctype(tz)
    fn = func(cz, "kl_unary_op", f"{cx} x", op.cuda_expr)
    check = _check_spec(
        "unary",
        ("unary", op.key, tx.str, tz.str),
        fn,
        f"const {cx}* x, {cz}* z",
        "z[i] = kl_unary_op(x[i])",
    )
    return Elementwise(
        name=f"kl_unary_{ident(op.name)}",
        in_params=f"{dtname(tx)} kx",
        out_params=f"{dtname(tz)} kz",
        operation="kz = kl_unary_op(kx)",
        preamble=common_header() + fn,
        check=check,
    )


def index_unary_kernel(op: IndexUnaryOp, x_dtype, thunk_dtype) -> Elementwise:
    """keep = op(x, i, j, thunk) as bool; i and j are int64."""
    tx, tt = as_dtype(x_dtype), as_dtype(thunk_dtype)
    cx, ct = ctype(tx), ctype(tt)
    params = f"{cx} x, long long i, long long j, {ct} thunk"
    fn = func("bool", "kl_index_unary_op", params, op.cuda_expr)
    check = _check_spec(
        "index_unary",
        ("index_unary", op.key, tx.str, tt.str),
        fn,
        f"const {cx}* x, const long long* r, const long long* c, {ct} thunk, bool* z",
        "z[i] = kl_index_unary_op(x[i], r[i], c[i], thunk)",
    )
    return Elementwise(
        name=f"kl_select_{ident(op.name)}",
        in_params=f"{dtname(tx)} kx, int64 krow, int64 kcol, {dtname(tt)} kthunk",
        out_params="bool kz",
        operation="kz = kl_index_unary_op(kx, krow, kcol, kthunk)",
        preamble=common_header() + fn,
        check=check,
    )
