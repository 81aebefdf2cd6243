"""Every specialisation the built-in algebra can ask for (CI compiles all of it)."""

from __future__ import annotations

import numpy as np

from .checks import range_check_spec, range_check_view_spec
from .closure import closure_primitive_specs
from .common import Spec
from .dense import mxm_fast_kind, mxm_spec
from .elementwise import binary_kernel, index_unary_kernel, unary_kernel
from .frontier import frontier_spec
from .multi_frontier import multi_frontier_spec
from .reduce import segment_reduce_spec
from .sources import sources_spec
from .sparse import mxv_spec, vxm_spec
from .spgemm import dot3_spec, hash_spec
from .structure import structure_spec


def builtin_specs() -> list[Spec]:
    """Every specialisation the built-in algebra can ask for, one of each.

    Semirings x their dtypes (A, B/u and the result of one dtype, as the
    operations use them) for mxm/mxv/vxm, both flips, the int32 fast paths, the
    sparse products (masked by dot products, unmasked by hash accumulators);
    monoids x dtypes for reductions; operators x dtypes for elementwise kernels.
    """
    from kleene.semiring import SEMIRINGS, SUPPORTED_DTYPES
    from kleene.semiring.builtins import binary, indexunary, monoid, unary

    specs: list[Spec] = [range_check_spec(), range_check_view_spec()]
    for sr in SEMIRINGS.values():
        for d in sr.dtypes:
            c = sr.mul.result_dtype(d, d)
            specs.append(mxm_spec(sr, d, d, c))
            fast = mxm_fast_kind(sr, d)
            if fast:
                specs.append(mxm_spec(sr, d, d, c, fast))
            specs += closure_primitive_specs(sr, d)
            specs += [dot3_spec(sr, d, d, c), hash_spec(sr, d, d, c)]
            for flip in (False, True):
                specs.append(mxv_spec(sr, d, d, c, flip))
                specs.append(vxm_spec(sr, d, d, c, flip))
    for m in vars(monoid).values():
        for d in SUPPORTED_DTYPES:
            specs.append(segment_reduce_spec(m, d))
    for op in vars(binary).values():
        for d in SUPPORTED_DTYPES:
            specs.append(binary_kernel(op, d, d, op.result_dtype(d, d)).check)
    for op in vars(unary).values():
        for d in SUPPORTED_DTYPES:
            specs.append(unary_kernel(op, d, op.result_dtype(d)).check)
    for op in vars(indexunary).values():
        for d in SUPPORTED_DTYPES:
            thunk = np.int64 if op.thunk_type == "index" else d
            specs.append(index_unary_kernel(op, d, thunk).check)
    specs += [frontier_spec(True), frontier_spec(False), structure_spec(), multi_frontier_spec()]
    specs += [sources_spec(True), sources_spec(False)]
    seen: dict[tuple, Spec] = {}
    for s in specs:
        seen.setdefault(s.key, s)
    return list(seen.values())
