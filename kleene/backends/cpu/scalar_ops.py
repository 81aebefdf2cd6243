"""The scalar half of the compiled CPU kernels: from the algebra to Python source.

A compiled kernel (``cpu/compiled.py``) calls two scalar functions, ``_mul(x, y)``
and ``_add(x, y)``, and reads a few constants (the add identity ``ZERO``, its
terminal value ``TERM``, whether the add keeps the first value met). This module
writes them as the source text of a module prelude, specialised for one
(add monoid, multiply, x dtype, y dtype, result dtype):

- an operator whose ``scalar=`` form is an expression string (every built-in) is
  inlined as text, with ``HI``/``LO`` bound to the operand dtype's infinities, so the
  generated module is plain source: Numba caches it on disk (``cache=True``);
- an operator whose scalar form is a Python function is compiled with
  ``numba.njit`` and bound into the module's globals: it runs compiled too, but is
  cached per process only (a function object has no stable text to key a disk
  cache on);
- an operator without a scalar form for the dtype's kind has no compiled form
  (``Spec`` is None): the operation runs the NumPy path.

Every scalar result is cast to the result dtype, as the NumPy path casts each
product and each partial sum (``primitives.binary``), so integer arithmetic wraps
the same way (Numba widens int32 arithmetic to int64; the cast truncates it back).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kleene.semiring import BinaryOp, Monoid, Semiring
from kleene.semiring.dtypes import SUPPORTED_DTYPES, infinity, neg_infinity


@dataclass(frozen=True)
class Spec:
    """What one generated module is specialised on."""

    add: object  # expression string or callable (the add monoid's operator)
    mul: object  # expression string or callable
    x: np.dtype  # multiply's left operand dtype
    y: np.dtype  # multiply's right operand dtype
    out: np.dtype  # result dtype (products and sums)
    identity: object
    terminal: object  # None, or the absorbing value
    stops_at_first: bool
    flip: bool  # the matrix is the multiply's right operand (mxv_pull / vxm_push)

    @property
    def user(self) -> bool:
        """A scalar form is a Python function: no disk cache for this module."""
        return callable(self.add) or callable(self.mul)


def spec_for(semiring: Semiring, x, y, out, flip: bool = False) -> Spec | None:
    """The specialisation for ``semiring`` on these dtypes, or None (NumPy path)."""
    x, y, out = np.dtype(x), np.dtype(y), np.dtype(out)
    if any(d not in SUPPORTED_DTYPES for d in (x, y, out)):
        return None
    add: Monoid = semiring.add
    mul: BinaryOp = semiring.mul
    add_form = add.op.scalar_for(out)
    mul_form = mul.scalar_for(x)
    if add_form is None or mul_form is None:
        return None
    return Spec(
        add_form,
        mul_form,
        x,
        y,
        out,
        add.identity_for(out),
        add.terminal_for(out),
        add.stops_at_first,
        bool(flip),
    )


def literal(value, dtype) -> str:
    """Python source for ``value`` as a NumPy scalar of ``dtype``."""
    d = np.dtype(dtype)
    if d.kind == "b":
        text = "True" if bool(value) else "False"
    elif d.kind == "f":
        v = float(value)
        text = repr(v) if np.isfinite(v) else ('float("inf")' if v > 0 else '-float("inf")')
    else:
        text = str(int(value))
    return f'np.dtype("{d.name}").type({text})'


_SCALAR_FN = """
@numba.njit(cache=CACHE, nogil=True)
def {name}(x, y):
    HI = {name}_HI
    LO = {name}_LO
    return OUT({expr})
"""


def _scalar_fn(name: str, form, dtype, user_globals: dict) -> str:
    consts = (
        f"{name}_HI = {literal(infinity(dtype), dtype)}\n"
        f"{name}_LO = {literal(neg_infinity(dtype), dtype)}\n"
    )
    if callable(form):
        import numba

        user = f"{name}_user"
        user_globals[user] = (
            form
            if isinstance(form, numba.core.dispatcher.Dispatcher)
            else (numba.njit(nogil=True)(form))
        )
        expr = f"{user}(x, y)"
    else:
        expr = form
    return consts + _SCALAR_FN.format(name=name, expr=expr)


def prelude(spec: Spec) -> tuple[str, dict]:
    """(source text, globals to bind before running it) for ``spec``'s module."""
    user_globals: dict = {}
    out = spec.out
    term = spec.terminal
    lines = [
        "import numba",
        "import numpy as np",
        "",
        f"CACHE = {not spec.user}",
        f'OUT = np.dtype("{out.name}").type',
        f"ZERO = {literal(spec.identity, out)}",
        f"TERM = {literal(spec.identity if term is None else term, out)}",
        f"HAS_TERM = {term is not None}",
        f"STOP_FIRST = {spec.stops_at_first}",
        f"# multiply: {spec.x.name} x {spec.y.name} -> {out.name}, flip={spec.flip}",
    ]
    text = "\n".join(lines) + "\n"
    text += _scalar_fn("_mul", spec.mul, spec.x, user_globals)
    text += _scalar_fn("_add", spec.add, out, user_globals)
    return text, user_globals
