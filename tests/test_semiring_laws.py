"""Every built-in semiring satisfies its laws; broken semirings are caught by the checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st

import kleene
from kleene.semiring import SEMIRINGS, binary, monoid
from kleene.semiring.dtypes import resolve_scalar
from kleene.testing import check_monoid, check_semiring, strategies

# Multiplicative identities of the built-ins that have a two-sided one.
ONES = {
    "min_plus": 0,
    "max_plus": 0,
    "plus_times": 1,
    "max_times": 1,
    "lor_land": True,
    "max_min": float("inf"),
    "min_max": float("-inf"),
}

CASES = [(name, np.dtype(d)) for name, sr in SEMIRINGS.items() for d in sr.dtypes]


@pytest.mark.parametrize("name,dtype", CASES, ids=[f"{n}-{d}" for n, d in CASES])
def test_builtin_semiring_laws(name, dtype):
    check_semiring(SEMIRINGS[name], dtype, one=ONES.get(name), max_examples=60)


def test_semiring_looked_up_by_name():
    check_semiring("min_plus", np.int64, one=0, max_examples=20)


MONOIDS = [
    ("plus", "all", (np.int32, np.int64, np.float64)),
    ("times", "all", (np.int64, np.float64)),
    ("min", "all", (np.bool_, np.int32, np.int64, np.float32, np.float64)),
    ("max", "all", (np.bool_, np.int32, np.float64)),
    ("max_nonneg", "nonneg", (np.float32, np.float64)),
    ("lor", "bool", (np.bool_,)),
    ("land", "bool", (np.bool_,)),
    ("lxor", "bool", (np.bool_,)),
    ("any", "all", (np.bool_, np.int32, np.float64)),
]
MONOID_CASES = [(n, dom, np.dtype(d)) for n, dom, ds in MONOIDS for d in ds]


@pytest.mark.parametrize(
    "name,domain,dtype", MONOID_CASES, ids=[f"{n}-{d}" for n, _, d in MONOID_CASES]
)
def test_builtin_monoid_laws(name, domain, dtype):
    check_monoid(getattr(monoid, name), dtype, domain=domain, max_examples=40)


# ---- broken algebra is rejected, with the law named -----------------------------------


def _rejects(sr, dtype, law: str, **kw):
    with pytest.raises(AssertionError, match=law) as info:
        check_semiring(sr, dtype, max_examples=200, **kw)
    assert "counterexample" in str(info.value)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_plus_with_min_identity_is_rejected(dtype):
    bad = kleene.Semiring(kleene.Monoid(binary.plus, float("inf")), binary.times, name="bad")
    # Finite elements only, so the identity law (not inf * 0 = nan) is what breaks.
    finite = st.integers(-5, 5).map(np.dtype(dtype).type)
    _rejects(bad, dtype, "identity of add", elements=finite)


def test_non_distributive_mul_is_rejected():
    # plus.max: max(a, b + c) != max(a, b) + max(a, c); annihilation is waived to reach it.
    bad = kleene.Semiring(monoid.plus, binary.max, name="plus_max")
    _rejects(bad, np.int64, "distributivity", annihilates=False)


def test_wrong_idempotence_claim_is_rejected():
    fake = kleene.Monoid(binary.plus, 0, idempotent=True)
    _rejects(kleene.Semiring(fake, binary.times, name="fake"), np.int32, "idempotence")
    with pytest.raises(AssertionError, match="idempotence"):
        check_monoid(fake, np.int32, max_examples=50)


def test_min_plus_with_neg_inf_in_the_carrier_is_rejected():
    # -inf + inf is NaN: zero no longer annihilates, so -inf must stay out of min_plus.
    sr = kleene.Semiring(monoid.min, binary.tplus, name="min_plus_all", domain="all")
    # inf + -inf = nan breaks several laws; whichever is found first is named.
    _rejects(sr, np.float64, "annihilation|associativity of mul|distributivity")


def test_wrong_terminal_is_rejected():
    m = kleene.Monoid(binary.min, float("inf"), idempotent=True, terminal=0)
    with pytest.raises(AssertionError, match="terminal"):
        check_monoid(m, np.int64, max_examples=100)


def test_non_associative_mul_is_rejected():
    minus_mul = kleene.Semiring(monoid.plus, binary.minus, name="plus_minus")
    _rejects(minus_mul, np.int64, "associativity of mul")


def test_non_commutative_add_is_rejected():
    keep_left = kleene.BinaryOp("keep_left", lambda x, y: np.array(x, copy=True), "x")
    first_add = kleene.Monoid(keep_left, 0)
    with pytest.raises(AssertionError, match="commutativity|identity"):
        check_monoid(first_add, np.int64, max_examples=100)


def test_false_annihilation_claim_is_rejected():
    # min_first declares it does not annihilate; forcing the check must fail.
    _rejects(SEMIRINGS["min_first"], np.int32, "annihilation", annihilates=True)


def test_wrong_one_is_rejected():
    _rejects(SEMIRINGS["min_plus"], np.float64, "identity of mul", one=1)


def test_any_monoid_must_select_an_operand():
    # An "any" that invents a value is not a choice between its operands.
    bogus = kleene.BinaryOp("any", lambda x, y: x + y, "x + y")
    m = kleene.Monoid(bogus, 0, idempotent=True, terminal="any", atomic="any")
    with pytest.raises(AssertionError, match="selection"):
        check_monoid(m, np.int64, max_examples=100)


def test_custom_elements_strategy_is_used():
    # Restricting the carrier to nonnegative values makes max with identity 0 lawful.
    check_semiring(
        kleene.Semiring(monoid.max_nonneg, binary.min, name="cap"),
        np.int64,
        elements=st.integers(0, 50).map(np.int64),
        max_examples=50,
    )


def test_user_semiring_passes():
    # The example from the docs: widest paths with the user's own name.
    widest = kleene.Semiring(monoid.max, binary.min, name="widest")
    check_semiring(widest, np.float32, one=float("inf"), max_examples=50)


# ---- the element strategy draws from the carrier ---------------------------------------


@pytest.mark.parametrize(
    "name,dtype,has,lacks",
    [
        ("min_plus", np.float64, [np.inf], [-np.inf]),
        ("max_plus", np.float64, [-np.inf], [np.inf]),
        ("min_plus", np.int32, [np.iinfo(np.int32).max], [np.iinfo(np.int32).min]),
        ("max_times", np.float64, [0.0], [np.inf, -np.inf]),
        ("plus_times", np.float64, [0.0], [np.inf, -np.inf]),
        ("max_min", np.int64, [np.iinfo(np.int64).min, np.iinfo(np.int64).max], []),
    ],
)
def test_carrier_specials(name, dtype, has, lacks):
    specials, lo, hi = strategies.carrier_values(name, dtype)
    for v in has:
        assert any(s == v for s in specials), (name, v, specials)
    for v in lacks:
        assert not any(s == v for s in specials), (name, v, specials)
    assert all(np.asarray(s).dtype == np.dtype(dtype) for s in specials)
    if SEMIRINGS[name].domain == "nonneg":
        assert lo == 0


@pytest.mark.parametrize("name", sorted(SEMIRINGS))
def test_declared_one_is_the_known_one(name):
    sr = SEMIRINGS[name]
    if not hasattr(sr, "one"):
        pytest.skip("this version of Semiring declares no one")
    declared, known = sr.one, ONES.get(name)
    assert (declared is None) == (known is None), (declared, known)
    if known is not None:
        for d in sr.dtypes:
            assert sr.one_for(d) == resolve_scalar(known, d)
