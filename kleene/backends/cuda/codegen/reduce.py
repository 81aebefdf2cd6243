"""Per-segment and whole-array reductions (kernels/segment_reduce.cu)."""

from __future__ import annotations

from kleene.semiring import Monoid
from kleene.semiring.dtypes import as_dtype

from .common import BLOCK, GROUP_SIZES, Prelude, Spec, ctype, monoid_prelude


def segment_reduce_spec(monoid: Monoid, dtype) -> Spec:
    """Per-segment reduction of ``dtype`` values (empty -> identity)."""
    d = as_dtype(dtype)
    p = Prelude()
    p.typedef(ctype(d), "kl_c_t")
    p.define("KL_BLOCK", BLOCK)
    monoid_prelude(p, monoid, d)
    names = [f"kl_segment_reduce<{g}>" for g in GROUP_SIZES] + ["kl_reduce_small"]
    key = ("segment_reduce", monoid.key, d.str)
    bodies = ("group.cuh", "segment_reduce.cu")
    return Spec("segment_reduce", key, p.text(), bodies, tuple(p.macros), tuple(names))
