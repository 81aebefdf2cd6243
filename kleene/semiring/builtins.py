"""Built-in operators, monoids and semirings, and lookup by name."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from kleene.errors import InvalidValue

from . import _funcs
from .monoid import Monoid
from .operators import BinaryOp, IndexUnaryOp, UnaryOp
from .semiring_type import Semiring

_NUMERIC = (np.int32, np.int64, np.float32, np.float64)
_ALL = (np.bool_, *_NUMERIC)
_FLOATS = (np.float32, np.float64)
_INF = float("inf")

# ---- binary operators -------------------------------------------------------
# Each carries its NumPy form, its CUDA C expression and its scalar form (Python
# expressions for the compiled CPU kernels, per dtype kind where they differ; HI/LO
# are the operand dtype's +inf/-inf: kleene's integer infinities saturate).
_B, _IF = "b", ("i", "f")


def _kinds(b, other):
    return {_B: b, **{k: other for k in _IF}}


# tplus on integers: hi wins, then lo, then a sum past a bound clamps to it (_funcs.tplus)
_TPLUS_INT = (
    "HI if x == HI or y == HI else LO if x == LO or y == LO else "
    "HI if y > 0 and x > HI - y else LO if y < 0 and x < LO - y else x + y"
)
# fmin / fmax: a NaN operand gives the other (x != x is False on integers and bool)
_FMIN = "y if y < x or x != x else x"
_FMAX = "y if y > x or x != x else x"
plus = BinaryOp("plus", _funcs.plus, "x + y", scalar=_kinds("x | y", "x + y"))
minus = BinaryOp("minus", _funcs.minus, "x - y", scalar=_kinds("x ^ y", "x - y"))
times = BinaryOp("times", _funcs.times, "x * y", scalar=_kinds("x & y", "x * y"))
# NaN-ignoring (IEEE minNum) on both back ends: fmin on the CPU, fminf on the GPU.
min_ = BinaryOp("min", np.fmin, "kl_min(x, y)", scalar=_FMIN)
max_ = BinaryOp("max", np.fmax, "kl_max(x, y)", scalar=_FMAX)
tplus = BinaryOp(
    "tplus", _funcs.tplus, "kl_tplus(x, y)", scalar={"b": "x | y", "i": _TPLUS_INT, "f": "x + y"}
)
first = BinaryOp("first", _funcs.first, "x", typing="first", scalar="x")
second = BinaryOp("second", _funcs.second, "y", typing="second", scalar="y")
pair = BinaryOp("pair", _funcs.pair, "true", typing="pair", scalar="True")
any_ = BinaryOp("any", _funcs.first, "x", scalar="x")
lor = BinaryOp("lor", _funcs.lor, "(x || y)", scalar="(x != 0) | (y != 0)")
land = BinaryOp("land", _funcs.land, "(x && y)", scalar="(x != 0) & (y != 0)")
lxor = BinaryOp("lxor", _funcs.lxor, "((x != 0) != (y != 0))", scalar="(x != 0) != (y != 0)")
eq = BinaryOp("eq", np.equal, "(x == y)", typing="bool", scalar="x == y")
ne = BinaryOp("ne", np.not_equal, "(x != y)", typing="bool", scalar="x != y")
lt = BinaryOp("lt", np.less, "(x < y)", typing="bool", scalar="x < y")
le = BinaryOp("le", np.less_equal, "(x <= y)", typing="bool", scalar="x <= y")
gt = BinaryOp("gt", np.greater, "(x > y)", typing="bool", scalar="x > y")
ge = BinaryOp("ge", np.greater_equal, "(x >= y)", typing="bool", scalar="x >= y")

binary = SimpleNamespace(
    plus=plus,
    minus=minus,
    times=times,
    min=min_,
    max=max_,
    tplus=tplus,
    first=first,
    second=second,
    pair=pair,
    any=any_,
    lor=lor,
    land=land,
    lxor=lxor,
    eq=eq,
    ne=ne,
    lt=lt,
    le=le,
    gt=gt,
    ge=ge,
)

# ---- monoids -----------------------------------------------------------------
monoid = SimpleNamespace(
    plus=Monoid(plus, 0, atomic="plus"),
    times=Monoid(times, 1),
    min=Monoid(min_, float("inf"), idempotent=True, terminal=float("-inf"), atomic="min"),
    max=Monoid(max_, float("-inf"), idempotent=True, terminal=float("inf"), atomic="max"),
    # max over a nonnegative carrier: identity 0 (most-reliable-path semiring)
    max_nonneg=Monoid(max_, 0, idempotent=True, terminal=float("inf"), atomic="max"),
    lor=Monoid(lor, False, idempotent=True, terminal=True, atomic="lor"),
    land=Monoid(land, True, idempotent=True, terminal=False, atomic="land"),
    lxor=Monoid(lxor, False),
    # any: keeps some present value; every value is terminal (stop at the first)
    any=Monoid(any_, 0, idempotent=True, terminal="any", atomic="any"),
)

# ---- semirings ---------------------------------------------------------------
_m = monoid
min_plus = Semiring(_m.min, tplus, "min_plus", _NUMERIC, "no_neg_inf", True, True, one=0)
max_plus = Semiring(_m.max, tplus, "max_plus", _NUMERIC, "no_pos_inf", True, True, one=0)
lor_land = Semiring(_m.lor, land, "lor_land", (np.bool_,), "bool", False, True, one=True)
plus_times = Semiring(_m.plus, times, "plus_times", _NUMERIC, "all", False, True, one=1)
max_min = Semiring(_m.max, min_, "max_min", _ALL, "all", True, True, one=_INF)
min_max = Semiring(_m.min, max_, "min_max", _ALL, "all", True, True, one=-_INF)
max_times = Semiring(_m.max_nonneg, times, "max_times", _FLOATS, "nonneg", True, True, one=1)
any_pair = Semiring(_m.any, pair, "any_pair", _ALL, "all", False, False)
min_first = Semiring(_m.min, first, "min_first", _NUMERIC, "all", True, False)
min_second = Semiring(_m.min, second, "min_second", _NUMERIC, "all", True, False)
any_first = Semiring(_m.any, first, "any_first", _ALL, "all", False, False)
any_second = Semiring(_m.any, second, "any_second", _ALL, "all", False, False)
plus_pair = Semiring(_m.plus, pair, "plus_pair", (np.bool_,), "bool", False, False)

SEMIRINGS: dict[str, Semiring] = {
    s.name: s
    for s in (
        min_plus,
        max_plus,
        lor_land,
        plus_times,
        max_min,
        min_max,
        max_times,
        any_pair,
        min_first,
        min_second,
        any_first,
        any_second,
    )
}
del plus_pair

# ---- unary and index-unary operators ----------------------------------------
unary = SimpleNamespace(
    identity=UnaryOp("identity", lambda x: x.copy(), "x"),
    ainv=UnaryOp("ainv", np.negative, "-x"),
    abs=UnaryOp("abs", np.abs, "(x < 0 ? -x : x)"),
    one=UnaryOp("one", np.ones_like, "1"),
    lnot=UnaryOp("lnot", np.logical_not, "!x", typing="bool"),
)

indexunary = SimpleNamespace(
    tril=IndexUnaryOp("tril", lambda x, i, j, k: j - i <= k, "j - i <= thunk", "index"),
    triu=IndexUnaryOp("triu", lambda x, i, j, k: j - i >= k, "j - i >= thunk", "index"),
    diag=IndexUnaryOp("diag", lambda x, i, j, k: j - i == k, "j - i == thunk", "index"),
    offdiag=IndexUnaryOp("offdiag", lambda x, i, j, k: j - i != k, "j - i != thunk", "index"),
    rowle=IndexUnaryOp("rowle", lambda x, i, j, k: i <= k, "i <= thunk", "index"),
    rowgt=IndexUnaryOp("rowgt", lambda x, i, j, k: i > k, "i > thunk", "index"),
    colle=IndexUnaryOp("colle", lambda x, i, j, k: j <= k, "j <= thunk", "index"),
    colgt=IndexUnaryOp("colgt", lambda x, i, j, k: j > k, "j > thunk", "index"),
    valueeq=IndexUnaryOp("valueeq", lambda x, i, j, k: x == k, "x == thunk"),
    valuene=IndexUnaryOp("valuene", lambda x, i, j, k: x != k, "x != thunk"),
    valuelt=IndexUnaryOp("valuelt", lambda x, i, j, k: x < k, "x < thunk"),
    valuele=IndexUnaryOp("valuele", lambda x, i, j, k: x <= k, "x <= thunk"),
    valuegt=IndexUnaryOp("valuegt", lambda x, i, j, k: x > k, "x > thunk"),
    valuege=IndexUnaryOp("valuege", lambda x, i, j, k: x >= k, "x >= thunk"),
)


def _lookup(kind: str, table: dict, obj, cls):
    if isinstance(obj, cls):
        return obj
    if isinstance(obj, str) and obj in table:
        return table[obj]
    known = ", ".join(sorted(table))
    raise InvalidValue(f"unknown {kind} {obj!r}; built-ins are: {known}")


def get_semiring(obj) -> Semiring:
    """A Semiring from an object or a built-in name such as ``"min_plus"``."""
    return _lookup("semiring", SEMIRINGS, obj, Semiring)


def get_monoid(obj) -> Monoid:
    """A Monoid from an object or a built-in name such as ``"min"``."""
    return _lookup("monoid", vars(monoid), obj, Monoid)


def get_binary(obj) -> BinaryOp:
    """A BinaryOp from an object or a built-in name such as ``"plus"``."""
    return _lookup("binary operator", vars(binary), obj, BinaryOp)


def get_unary(obj) -> UnaryOp:
    return _lookup("unary operator", vars(unary), obj, UnaryOp)


def get_indexunary(obj) -> IndexUnaryOp:
    return _lookup("select operator", vars(indexunary), obj, IndexUnaryOp)
