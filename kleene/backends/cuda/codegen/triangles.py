"""Triangle kernels (kernels/triangles.cu): the degree orientation and the count."""

from __future__ import annotations

from functools import cache

from .common import BLOCK, GROUP_SIZES, Prelude, Spec

TC_ORIENT = "kl_tc_orient"
# Lanes per out-edge x (count only, count and per-vertex counts).
TC_COUNT = {
    (g, per_vertex): f"kl_tc_count<{g}, {'true' if per_vertex else 'false'}>"
    for g in GROUP_SIZES
    for per_vertex in (False, True)
}


@cache
def triangles_spec() -> Spec:
    """Fixed types (int32 vertex ids, int64 offsets): one specialisation."""
    p = Prelude()
    p.define("KL_BLOCK", BLOCK)
    names = (TC_ORIENT, *TC_COUNT.values())
    return Spec("triangles", ("triangles",), p.text(), ("triangles.cu",), tuple(p.macros), names)
