"""Sparse products: row-parallel pull (mxv_pull.cu) and push from a sparse u (vxm_push.cu)."""

from __future__ import annotations

import numpy as np

from kleene.semiring import Monoid, Semiring
from kleene.semiring.dtypes import as_dtype

from .common import BLOCK, GROUP_SIZES, UNROLL, Prelude, Spec, ctype, func, monoid_prelude

# Threads per block and loads in flight per lane for queued long rows.
LONG_NT = 512
LONG_UNROLL = 8

# vxm_push update strategies (see push_kind).
PUSH_KINDS = ("min", "max", "plus", "lor", "land", "cas", "any", "sort")
_PUSH_CODE = {k: i for i, k in enumerate(PUSH_KINDS)}


def _sparse_prelude(semiring: Semiring, a_dtype, u_dtype, c_dtype) -> Prelude:
    ta, tu, tc = (as_dtype(t) for t in (a_dtype, u_dtype, c_dtype))
    p = Prelude()
    p.typedef(ctype(ta), "kl_a_t")
    p.typedef(ctype(tu), "kl_u_t")
    p.typedef(ctype(tc), "kl_c_t")
    p.define("KL_BLOCK", BLOCK)
    p.define("KL_UNROLL", UNROLL)
    monoid_prelude(p, semiring.add, tc)
    return p


def _key(kind: str, semiring: Semiring, dtypes, flip: bool) -> tuple:
    return (kind, semiring.key, *(as_dtype(t).str for t in dtypes), bool(flip))


def mxv_spec(semiring: Semiring, a_dtype, u_dtype, c_dtype, flip: bool = False) -> Spec:
    """Row-parallel pull w(i) = ADD_k MULT(A(i,k), u(k)) (``flip``: MULT(u(k), A(i,k)))."""
    p = _sparse_prelude(semiring, a_dtype, u_dtype, c_dtype)
    if flip:
        p.add(func("kl_c_t", "kl_mult", "kl_u_t x, kl_a_t y", semiring.mul.cuda_expr))
        p.add(func("kl_c_t", "kl_mult_au", "kl_a_t a, kl_u_t u", "kl_mult(u, a)"))
    else:
        p.add(func("kl_c_t", "kl_mult", "kl_a_t x, kl_u_t y", semiring.mul.cuda_expr))
        p.add(func("kl_c_t", "kl_mult_au", "kl_a_t a, kl_u_t u", "kl_mult(a, u)"))
    names = [f"kl_mxv_pull<{g}>" for g in GROUP_SIZES]
    names += [f"kl_mxv_pull_long<{LONG_NT}, {LONG_UNROLL}>"]
    key = _key("mxv_pull", semiring, (a_dtype, u_dtype, c_dtype), flip)
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
    p = _sparse_prelude(semiring, a_dtype, u_dtype, c_dtype)
    if flip:
        p.add(func("kl_c_t", "kl_mult", "kl_a_t x, kl_u_t y", semiring.mul.cuda_expr))
        p.add(func("kl_c_t", "kl_mult_ua", "kl_u_t u, kl_a_t a", "kl_mult(a, u)"))
    else:
        p.add(func("kl_c_t", "kl_mult", "kl_u_t x, kl_a_t y", semiring.mul.cuda_expr))
        p.add(func("kl_c_t", "kl_mult_ua", "kl_u_t u, kl_a_t a", "kl_mult(u, a)"))
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
    key = _key("vxm_push", semiring, (a_dtype, u_dtype, tc), flip)
    bodies = ("group.cuh", "vxm_push.cu")
    return Spec("vxm_push", key, p.text(), bodies, tuple(p.macros), tuple(names))
