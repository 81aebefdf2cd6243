"""Check that a back end computes a semiring's products as the reference defines them.

A user-defined semiring runs on the GPU through kernels generated from its CUDA
expressions; ``check_backend`` draws small matrices and vectors from the
semiring's carrier, with masks, accumulators and outputs, and compares mxm, mxv,
vxm and the add monoid's reductions on ``device`` with the reference semantics.

>>> import numpy as np, kleene
>>> from kleene.semiring import monoid, binary
>>> from kleene.testing import check_backend
>>> widest = kleene.Semiring(monoid.max, binary.min, name="widest")
>>> check_backend(widest, np.float64, device="cpu", max_examples=10)
"""

from __future__ import annotations

import hypothesis
import numpy as np
from hypothesis import HealthCheck
from hypothesis import strategies as st

from kleene.errors import InvalidValue
from kleene.semiring import Semiring, get_semiring
from kleene.semiring.dtypes import as_dtype

from . import reference as ref
from . import strategies as kst
from .convert import assert_matches, mask_to_reference, to_reference

__all__ = ["OPERATIONS", "check_backend"]

OPERATIONS = ("mxm", "mxv", "vxm", "reduce")


@st.composite
def _write_args(draw, shape, dtype, device, accum):
    kw: dict = {}
    if draw(st.booleans()):
        kw["mask"] = draw(kst.masks(shape, device=device))
    if draw(st.booleans()):
        kw["accum"] = accum
    if draw(st.booleans()):
        kw["replace"] = True
    if draw(st.booleans()):
        el = kst.values(dtype, infinities=False)
        if len(shape) == 1:
            kw["out"] = draw(kst.vectors(dtype, shape[0], elements=el, device=device))
        else:
            kw["out"] = draw(kst.matrices(dtype, shape, elements=el, device=device))
    rkw = dict(kw)
    if "mask" in kw:
        rkw["mask"] = mask_to_reference(kw["mask"])
    if "out" in kw:
        rkw["out"] = to_reference(kw["out"])
    return kw, rkw


def _one_case(sr: Semiring, d: np.dtype, op: str, device: str, data, el, max_side: int):
    import kleene

    side = st.integers(0, max_side)
    m, k, n = data.draw(st.tuples(side, side, side), label="sizes")
    odt = sr.mul.result_dtype(d, d)
    A = data.draw(kst.matrices(d, (m, k), elements=el, device=device), label="A")
    if op == "mxm":
        B = data.draw(kst.matrices(d, (k, n), elements=el, device=device), label="B")
        kw, rkw = data.draw(_write_args((m, n), odt, device, sr.add), label="write args")
        expected = ref.mxm(to_reference(A), to_reference(B), sr, **rkw)
        got = kleene.mxm(A, B, sr, **kw)
    elif op in ("mxv", "vxm"):
        size, out = (k, m) if op == "mxv" else (m, k)
        u = data.draw(kst.vectors(d, size, elements=el, device=device), label="u")
        kw, rkw = data.draw(_write_args((out,), odt, device, sr.add), label="write args")
        method = data.draw(st.sampled_from(["auto", "pull", "push"]), label="method")
        if op == "mxv":
            expected = ref.mxv(to_reference(A), to_reference(u), sr, **rkw)
            got = kleene.mxv(A, u, sr, method=method, **kw)
        else:
            expected = ref.vxm(to_reference(u), to_reference(A), sr, **rkw)
            got = kleene.vxm(u, A, sr, method=method, **kw)
    elif op == "reduce":
        axis = data.draw(st.sampled_from([None, "rows", "columns"]), label="axis")
        expected = ref.reduce(to_reference(A), sr.add, axis=axis)
        got = kleene.reduce(A, sr.add, axis=axis)
    else:
        raise InvalidValue(f"unknown operation {op!r}; choose from {OPERATIONS}")
    assert_matches(got, expected, context=f"{op} with {sr.name} on {device}")


def check_backend(
    semiring: Semiring | str,
    dtype,
    *,
    device: str = "gpu",
    operations=OPERATIONS,
    elements=None,
    max_examples: int = 50,
    max_side: int = 5,
) -> None:
    """Check ``device``'s mxm/mxv/vxm/reduce with ``semiring`` against the reference.

    Inputs are drawn from ``elements`` (default: the semiring's carrier, see
    :func:`kleene.testing.strategies.elements`), in both storage formats, with
    masks of every kind, the add monoid as accumulator, replace and output
    containers. Raises AssertionError with the first differing entries and the
    (shrunk) inputs.
    """
    sr = get_semiring(semiring)
    d = as_dtype(dtype)
    sr.check_dtype(d)
    el = elements if elements is not None else kst.elements(sr, d)
    for op in operations:
        if op not in OPERATIONS:
            raise InvalidValue(f"unknown operation {op!r}; choose from {OPERATIONS}")

    @hypothesis.settings(
        max_examples=max_examples,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.given(data=st.data(), op=st.sampled_from(list(operations)))
    def check(data, op):
        _one_case(sr, d, op, device, data, el, max_side)

    check()
