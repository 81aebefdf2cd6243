"""The algebra: operators, monoids, semirings and the built-ins.

Built-in semirings are attributes of this module (``kleene.semiring.min_plus``)
and can be named by string wherever an operation takes a semiring.
"""

from .builtins import (
    SEMIRINGS,
    any_first,
    any_pair,
    any_second,
    binary,
    get_binary,
    get_indexunary,
    get_monoid,
    get_semiring,
    get_unary,
    indexunary,
    lor_land,
    max_min,
    max_plus,
    max_times,
    min_first,
    min_max,
    min_plus,
    min_second,
    monoid,
    plus_times,
    unary,
)
from .dtypes import SUPPORTED_DTYPES, infinity, neg_infinity
from .monoid import Monoid
from .operators import BinaryOp, IndexUnaryOp, UnaryOp
from .semiring_type import Semiring

__all__ = [
    "SEMIRINGS",
    "SUPPORTED_DTYPES",
    "BinaryOp",
    "IndexUnaryOp",
    "Monoid",
    "Semiring",
    "UnaryOp",
    "any_first",
    "any_pair",
    "any_second",
    "binary",
    "get_binary",
    "get_indexunary",
    "get_monoid",
    "get_semiring",
    "get_unary",
    "indexunary",
    "infinity",
    "lor_land",
    "max_min",
    "max_plus",
    "max_times",
    "min_first",
    "min_max",
    "min_plus",
    "min_second",
    "monoid",
    "neg_infinity",
    "plus_times",
    "unary",
]
