"""Property checks of the algebraic laws of monoids and semirings.

``check_semiring`` and ``check_monoid`` draw elements with Hypothesis and raise an
``AssertionError`` naming the law and the (shrunk) counterexample when a law fails.
Use them on your own semirings before trusting a kernel with them:

>>> import numpy as np, kleene
>>> from kleene.semiring import monoid, binary
>>> from kleene.testing import check_semiring
>>> widest = kleene.Semiring(monoid.max, binary.min, name="widest")
>>> check_semiring(widest, np.float64, one=float("inf"), max_examples=50)
>>> bad = kleene.Semiring(monoid.plus, binary.max, name="plus_max")
>>> try:
...     check_semiring(bad, np.int64, max_examples=50)
... except AssertionError as e:
...     print(str(e).splitlines()[0])
plus_max on int64: annihilation (zero * x == zero) fails

**The any monoid.** ``any`` (``monoid.stops_at_first``) may return either operand,
so it is not a function of its arguments in the usual sense. Laws are checked up to
that choice: every expression is evaluated to the *set* of values it may take (x ⊕ y
is ``{x, y}``; ⊗ applies to every member), each law compares sets, and separately
``op(x, y)`` must be one of ``x``, ``y`` (selection). Associativity, commutativity,
idempotence and distributivity then hold exactly; the identity law is skipped,
because the identity of ``any`` is only what an empty reduction returns.

Laws are checked on one carrier dtype. Where ⊗ changes the dtype (``pair`` gives
bool, for example) associativity of ⊗ is skipped (it is not closed) and the other
laws compare values across dtypes.
"""

from __future__ import annotations

from collections.abc import Callable

import hypothesis
import numpy as np
from hypothesis import HealthCheck
from hypothesis import strategies as st

from kleene.semiring import Monoid, Semiring, get_monoid, get_semiring
from kleene.semiring.dtypes import as_dtype, resolve_scalar

from . import strategies
from .scalars import binary_scalar

__all__ = ["check_monoid", "check_semiring"]

Law = Callable[[object, object, object], None]


class _Algebra:
    """Set-valued evaluation of ⊕ and ⊗ on one dtype (sets are singletons unless ``any``)."""

    def __init__(self, add: Monoid, mul, name: str, dtype: np.dtype):
        self.add, self.mul, self.name, self.dtype = add, mul, name, dtype

    def plus(self, xs: frozenset, ys: frozenset) -> frozenset:
        if self.add.stops_at_first:
            for x in xs:
                for y in ys:
                    self._selects(x, y)
            return xs | ys
        return frozenset(binary_scalar(self.add.op, x, y) for x in xs for y in ys)

    def times(self, xs: frozenset, ys: frozenset) -> frozenset:
        return frozenset(binary_scalar(self.mul, x, y) for x in xs for y in ys)

    def _selects(self, x, y) -> None:
        z = binary_scalar(self.add.op, x, y)
        if not (z == x or z == y):
            self.fail("selection (any returns one of its operands)", {"x": x, "y": y}, z, {x, y})

    def fail(self, law: str, args: dict, lhs, rhs) -> None:
        shown = ", ".join(f"{k}={_show(v)}" for k, v in args.items())
        hint = ""
        if any(_is_nan(v) for v in _flat(lhs) + _flat(rhs)):
            hint = "\n  (NaN appeared: the carrier holds values whose combination is undefined)"
        raise AssertionError(
            f"{self.name} on {self.dtype}: {law} fails\n"
            f"  counterexample: {shown}\n  left side:  {_show(lhs)}\n  right side: {_show(rhs)}"
            + hint
        )

    def expect(self, law: str, args: dict, lhs: frozenset, rhs: frozenset) -> None:
        if not _same_sets(lhs, rhs):
            self.fail(law, args, lhs, rhs)


def _show(v) -> str:
    if isinstance(v, (set, frozenset)):
        items = sorted(v, key=repr)
        return repr(items[0]) if len(items) == 1 else "one of " + repr(items)
    return repr(v)


def _flat(v) -> list:
    return list(v) if isinstance(v, (set, frozenset)) else [v]


def _is_nan(v) -> bool:
    a = np.asarray(v)
    return a.dtype.kind == "f" and bool(np.isnan(a))


def _same_sets(a: frozenset, b: frozenset) -> bool:
    # == on values (np.int32(1) == np.int64(1)); NaN never equals, so NaN fails a law.
    return all(any(bool(x == y) for y in b) for x in a) and all(
        any(bool(x == y) for x in a) for y in b
    )


def _monoid_laws(alg: _Algebra, dtype: np.dtype) -> list[Law]:
    m, d = alg.add, dtype
    s = frozenset  # readability: every operand is a set of candidates
    laws: list[Law] = []

    def assoc(x, y, z):
        X, Y, Z = s([x]), s([y]), s([z])
        lhs, rhs = alg.plus(alg.plus(X, Y), Z), alg.plus(X, alg.plus(Y, Z))
        alg.expect("associativity of add", {"x": x, "y": y, "z": z}, lhs, rhs)

    def comm(x, y, z):
        X, Y = s([x]), s([y])
        alg.expect("commutativity of add", {"x": x, "y": y}, alg.plus(X, Y), alg.plus(Y, X))

    laws += [assoc, comm]
    if not m.stops_at_first:
        e = m.identity_for(d)

        def ident(x, y, z):
            X, E = s([x]), s([e])
            alg.expect("identity of add (e + x == x)", {"e": e, "x": x}, alg.plus(E, X), X)
            alg.expect("identity of add (x + e == x)", {"e": e, "x": x}, alg.plus(X, E), X)

        laws.append(ident)
    if m.idempotent:

        def idem(x, y, z):
            X = s([x])
            alg.expect("idempotence of add (claimed)", {"x": x}, alg.plus(X, X), X)

        laws.append(idem)
    t = m.terminal_for(d)
    if t is not None:

        def term(x, y, z):
            X, T = s([x]), s([t])
            alg.expect("terminal value absorbs (t + x == t)", {"t": t, "x": x}, alg.plus(T, X), T)

        laws.append(term)
    return laws


def _semiring_laws(alg: _Algebra, sr: Semiring, d: np.dtype, one, annihilates) -> list[Law]:
    s = frozenset
    laws = _monoid_laws(alg, d)
    closed = sr.mul.result_dtype(d, d) == d
    if closed:

        def assoc(x, y, z):
            X, Y, Z = s([x]), s([y]), s([z])
            lhs, rhs = alg.times(alg.times(X, Y), Z), alg.times(X, alg.times(Y, Z))
            alg.expect("associativity of mul", {"x": x, "y": y, "z": z}, lhs, rhs)

        laws.append(assoc)
    if one is not None:
        o = resolve_scalar(one, d)

        def ident(x, y, z):
            X, ONE = s([x]), s([o])
            alg.expect("identity of mul (1 * x == x)", {"one": o, "x": x}, alg.times(ONE, X), X)
            alg.expect("identity of mul (x * 1 == x)", {"one": o, "x": x}, alg.times(X, ONE), X)

        laws.append(ident)
    if annihilates is None:
        annihilates = getattr(sr, "_annihilates", None) is not False
    if annihilates:
        zero = sr.zero_for(d)
        zero_out = s([sr.zero_for(sr.mul.result_dtype(d, d))])

        def annih(x, y, z):
            X, Z0 = s([x]), s([zero])
            args = {"zero": zero, "x": x}
            alg.expect("annihilation (zero * x == zero)", args, alg.times(Z0, X), zero_out)
            alg.expect("annihilation (x * zero == zero)", args, alg.times(X, Z0), zero_out)

        laws.append(annih)

    def left(a, b, c):
        A, B, C = s([a]), s([b]), s([c])
        lhs = alg.times(A, alg.plus(B, C))
        rhs = alg.plus(alg.times(A, B), alg.times(A, C))
        alg.expect("left distributivity", {"a": a, "b": b, "c": c}, lhs, rhs)

    def right(a, b, c):
        A, B, C = s([a]), s([b]), s([c])
        lhs = alg.times(alg.plus(B, C), A)
        rhs = alg.plus(alg.times(B, A), alg.times(C, A))
        alg.expect("right distributivity", {"a": a, "b": b, "c": c}, lhs, rhs)

    return laws + [left, right]


def _run(laws: list[Law], el: st.SearchStrategy, max_examples: int) -> None:
    # report_multiple_bugs=False: one AssertionError (not an ExceptionGroup) comes out.
    @hypothesis.settings(
        max_examples=max_examples,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.given(el, el, el)
    def check(x, y, z):
        for law in laws:
            law(x, y, z)

    check()


def check_monoid(
    monoid: Monoid | str,
    dtype,
    *,
    elements: st.SearchStrategy | None = None,
    domain: str | None = None,
    max_examples: int = 200,
) -> None:
    """Check a monoid's laws on ``dtype``: associativity, commutativity, identity,
    idempotence (if claimed) and that its terminal value absorbs (if it has one).

    ``elements`` (a Hypothesis strategy of scalars) defaults to
    ``strategies.elements(monoid, dtype, domain=domain)``. Raises AssertionError
    naming the failing law and a counterexample.

    >>> import numpy as np
    >>> from kleene.semiring import monoid
    >>> check_monoid(monoid.min, np.int32, max_examples=30)
    >>> check_monoid(monoid.max_nonneg, np.float64, domain="nonneg", max_examples=30)
    """
    m = get_monoid(monoid)
    d = as_dtype(dtype)
    el = elements if elements is not None else strategies.elements(m, d, domain=domain)
    alg = _Algebra(m, m.op, f"monoid {m.name}", d)
    _run(_monoid_laws(alg, d), el, max_examples)


def check_semiring(
    semiring: Semiring | str,
    dtype,
    *,
    elements: st.SearchStrategy | None = None,
    one=None,
    annihilates: bool | None = None,
    max_examples: int = 200,
) -> None:
    """Check a semiring's laws on ``dtype``; raise AssertionError naming a failing law.

    Checked: associativity and commutativity of ⊕, its identity (the zero), its
    idempotence when ``semiring.idempotent`` claims it, its terminal value; closure
    laws of ⊗: associativity (when ⊗ keeps the dtype), the identity ``one`` (given
    here or declared by the semiring; skipped if neither: not every semiring has one,
    e.g. min_first), annihilation by zero
    (unless the semiring declares it does not annihilate, as min_first does, or
    ``annihilates=False``); both distributive laws.

    ``elements`` defaults to ``strategies.elements(semiring, dtype, one=one)``:
    small integers, the zero, ``one`` and the carrier's infinities.

    >>> import numpy as np
    >>> check_semiring("min_plus", np.int32, one=0, max_examples=50)
    >>> check_semiring("any_pair", np.float32, max_examples=50)
    """
    sr = get_semiring(semiring)
    d = as_dtype(dtype)
    if one is None:  # a semiring may declare its one (Semiring(..., one=...))
        one = getattr(sr, "one", None)
    el = elements if elements is not None else strategies.elements(sr, d, one=one)
    alg = _Algebra(sr.add, sr.mul, sr.name, d)
    _run(_semiring_laws(alg, sr, d, one, annihilates), el, max_examples)
