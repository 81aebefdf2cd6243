"""Range checks deciding whether the dense int32 fast path applies (range_check*.cu)."""

from __future__ import annotations

from .common import Prelude, Spec
from .dense import MXM_FAST_LIMIT


def range_check_spec() -> Spec:
    """Kernel that flags int32 values outside the dense fast path's range."""
    p = Prelude()
    p.define("KL_FAST_LIMIT", MXM_FAST_LIMIT)
    return Spec(
        "range_check",
        ("range_check",),
        p.text(),
        ("range_check.cu",),
        tuple(p.macros),
        ("kl_range_check<0>", "kl_range_check<1>"),
    )


def range_check_view_spec() -> Spec:
    """Range check of the int32 fast path on strided 2-D views; ``<SIDE, ONE_SIGN>``
    also rejects finite values of the wrong sign (in-place products, see dense.py)."""
    p = Prelude()
    p.define("KL_FAST_LIMIT", MXM_FAST_LIMIT)
    names = tuple(f"kl_range_check_view<{s}, {o}>" for s in (0, 1) for o in (0, 1))
    bodies = ("range_check_view.cu",)
    return Spec("range_check", ("range_check_view",), p.text(), bodies, tuple(p.macros), names)
