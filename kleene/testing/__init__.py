"""Testing tools for kleene and for users' own semirings (needs ``hypothesis``).

- :mod:`kleene.testing.reference`: definitional semantics of every operation, on
  dicts of entries; the third opinion the CPU and GPU back ends are checked against.
- :mod:`kleene.testing.strategies`: Hypothesis strategies for carrier elements,
  matrices, vectors, masks and edge lists.
- :func:`check_semiring`, :func:`check_monoid`: property checks of the algebraic laws.
- :func:`check_backend`: a back end (the GPU, say) computes a semiring's products
  and reductions as the reference does.
- :func:`check_devices_agree`: on large random inputs (sizes across warp, block and
  tile boundaries) the GPU gives the CPU's results (:mod:`kleene.testing.devices`).
- :func:`to_reference`, :func:`from_reference`, :func:`assert_matches`: move between
  containers and the reference, and compare a result with the reference.

Example
-------
>>> import numpy as np
>>> from kleene.testing import check_semiring
>>> check_semiring("max_min", np.int64, one=float("inf"), max_examples=20)
"""

from . import devices, reference, scalars, strategies
from .agreement import check_backend
from .convert import assert_matches, from_reference, mask_to_reference, to_reference
from .devices import check_devices_agree
from .laws import check_monoid, check_semiring

__all__ = [
    "assert_matches",
    "check_backend",
    "check_devices_agree",
    "check_monoid",
    "check_semiring",
    "devices",
    "from_reference",
    "mask_to_reference",
    "reference",
    "scalars",
    "strategies",
    "to_reference",
]
