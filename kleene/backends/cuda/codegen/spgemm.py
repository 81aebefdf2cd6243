"""Sparse matrix products: the masked dot-product form (kernels/spgemm.cu)."""

from __future__ import annotations

from kleene.semiring import Semiring
from kleene.semiring.dtypes import as_dtype

from .common import BLOCK, Prelude, Spec, ctype, func, monoid_prelude

# A list with more entries left than this skips a run by binary search, not steps.
GALLOP = 64
DOT3 = "kl_mxm_dot3<1>"


def dot3_spec(semiring: Semiring, a_dtype, b_dtype, c_dtype) -> Spec:
    """C<M>(i,j) = ADD_k MULT(A(i,k), B(k,j)) over A(i,:) ∩ Bᵀ(j,:), per mask entry."""
    ta, tb, tc = (as_dtype(t) for t in (a_dtype, b_dtype, c_dtype))
    p = Prelude()
    p.typedef(ctype(ta), "kl_a_t")
    p.typedef(ctype(tb), "kl_b_t")
    p.typedef(ctype(tc), "kl_c_t")
    p.define("KL_BLOCK", BLOCK)
    p.define("KL_GALLOP", GALLOP)
    monoid_prelude(p, semiring.add, tc)
    p.add(func("kl_c_t", "kl_mult", "kl_a_t x, kl_b_t y", semiring.mul.cuda_expr))
    key = ("mxm_dot3", semiring.key, ta.str, tb.str, tc.str)
    return Spec("mxm_dot3", key, p.text(), ("spgemm.cu",), tuple(p.macros), (DOT3,))
