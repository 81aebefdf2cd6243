"""Sparse matrix products: the masked dot-product form (kernels/spgemm.cu) and the
unmasked row-wise form with hash accumulators (kernels/spgemm_hash.cu)."""

from __future__ import annotations

from kleene.semiring import Semiring
from kleene.semiring.dtypes import as_dtype

from .common import BLOCK, GROUP_SIZES, Prelude, Spec, ctype, func, monoid_prelude

DOT3 = "kl_mxm_dot3<1>"
DOT3_GROUPS = {g: f"kl_mxm_dot3_group<{g}>" for g in GROUP_SIZES if g > 1}


def order_free(semiring: Semiring, c_dtype) -> bool:
    """Does the add's result not depend on the order of its terms (so a group of lanes
    may fold them by a tree)? Integers and bool, and idempotent adds, but not "any"."""
    add = semiring.add
    if add.stops_at_first:
        return False
    return add.idempotent or as_dtype(c_dtype).kind in "biu"


def dot3_spec(semiring: Semiring, a_dtype, b_dtype, c_dtype) -> Spec:
    """C<M>(i,j) = ADD_k MULT(A(i,k), B(k,j)) over A(i,:) ∩ Bᵀ(j,:), per mask entry."""
    ta, tb, tc = (as_dtype(t) for t in (a_dtype, b_dtype, c_dtype))
    p = Prelude()
    p.typedef(ctype(ta), "kl_a_t")
    p.typedef(ctype(tb), "kl_b_t")
    p.typedef(ctype(tc), "kl_c_t")
    p.define("KL_BLOCK", BLOCK)
    monoid_prelude(p, semiring.add, tc)
    p.add(func("kl_c_t", "kl_mult", "kl_a_t x, kl_b_t y", semiring.mul.cuda_expr))
    key = ("mxm_dot3", semiring.key, ta.str, tb.str, tc.str)
    names = (DOT3, *DOT3_GROUPS.values())
    bodies = ("group.cuh", "spgemm.cu")
    return Spec("mxm_dot3", key, p.text(), bodies, tuple(p.macros), names)


# The unmasked product (kernels/spgemm_hash.cu): a warp per row, hash accumulators in
# shared memory (rows of a bin) or in a global pool (the heaviest rows), symbolic pass
# (COUNT = 1) and numeric pass (COUNT = 0), and the move of rows into place.
HASH_ROWS = {(c, r): f"kl_spgemm_rows<{c}, {r}>" for c in (0, 1) for r in (0, 1)}
HASH_HEAVY = {c: f"kl_spgemm_heavy<{c}>" for c in (0, 1)}
HASH_COPY = "kl_spgemm_copy<0>"
# Warps per block of the heavy-row kernel (KL_SPG_WARPS_HEAVY in the template).
HEAVY_WARPS = 4


def hash_spec(semiring: Semiring, a_dtype, b_dtype, c_dtype) -> Spec:
    """C = ADD_k MULT(A(i,k), B(k,j)) for every (i, j), row by row (Gustavson)."""
    ta, tb, tc = (as_dtype(t) for t in (a_dtype, b_dtype, c_dtype))
    p = Prelude()
    p.typedef(ctype(ta), "kl_a_t")
    p.typedef(ctype(tb), "kl_b_t")
    p.typedef(ctype(tc), "kl_c_t")
    p.define("KL_SPG_WARPS_HEAVY", HEAVY_WARPS)
    monoid_prelude(p, semiring.add, tc)
    p.add(func("kl_c_t", "kl_mult", "kl_a_t x, kl_b_t y", semiring.mul.cuda_expr))
    key = ("mxm_hash", semiring.key, ta.str, tb.str, tc.str)
    names = (*HASH_ROWS.values(), *HASH_HEAVY.values(), HASH_COPY)
    # compiled together: a product runs most of them (one NVRTC run, not one each)
    return Spec(
        "mxm_hash", key, p.text(), ("spgemm_hash.cu",), tuple(p.macros), names, together=True
    )
