"""The closure primitives (APSP): in-place products and the one-block closure."""

from __future__ import annotations

import numpy as np

from kleene.semiring import Semiring
from kleene.semiring.dtypes import as_dtype

from .common import Prelude, Spec, ctype, func, monoid_prelude
from .dense import MXM_TILES, mxm_fast_kind, mxm_spec

# The one-block closure kernel: 32 × CLOSURE_ROWS threads, blocks of up to CLOSURE_MAX
# rows (CLOSURE_MAX / 32 columns and CLOSURE_MAX / CLOSURE_ROWS rows per thread, in registers).
CLOSURE_ROWS = 16
CLOSURE_MAX = 128
CLOSURE_VARIANTS = (("false", "true"), ("false", "false"), ("true", "false"))
# The one-launch closure of mid-size blocks (kernels/closure_grid.cu): threads a block.
CLOSURE_GRID_THREADS = 256


def closure_variant(dtype, pred: bool) -> str:
    """The closure kernel for ``dtype``: the unrolled one where it fits in registers
    (values of at most 4 bytes, no predecessors), else the select-chain one."""
    unroll = not pred and np.dtype(dtype).itemsize <= 4
    return f"kl_closure_dense<{'true' if pred else 'false'}, {'true' if unroll else 'false'}>"


def closure_spec(semiring: Semiring, dtype) -> Spec:
    """One thread block closes an n×n block in shared memory (Floyd-Warshall).

    ``kl_closure_dense<PRED, UNROLL>`` (``CLOSURE_VARIANTS``; see ``closure_variant``);
    the multiplicative identity is a kernel argument.
    """
    d = as_dtype(dtype)
    p = Prelude()
    p.typedef(ctype(d), "kl_c_t")
    p.define("KL_CL_NY", CLOSURE_ROWS)
    p.define("KL_CL_MAX", CLOSURE_MAX)
    monoid_prelude(p, semiring.add, d)
    p.add(func("kl_c_t", "kl_mult", "kl_c_t x, kl_c_t y", semiring.mul.cuda_expr))
    names = tuple(f"kl_closure_dense<{pr}, {un}>" for pr, un in CLOSURE_VARIANTS)
    key = ("closure_dense", semiring.key, d.str)
    return Spec("closure_dense", key, p.text(), ("closure_dense.cu",), tuple(p.macros), names)


def closure_grid_eligible(dtype) -> bool:
    """Whether the one-launch closure takes ``dtype``: integer or float values of 4 or 8
    bytes (its launch bound and shared-memory staging are sized for them), not bool
    (the bit-packed closure's)."""
    d = np.dtype(dtype)
    return d.itemsize in (4, 8) and d.kind in "iuf"


def closure_grid_blocks_per_sm(dtype) -> int:
    """Blocks per SM the one-launch closure is compiled for (its launch bound): two for
    4-byte values, one for 8-byte ones (their panel tasks keep 64 values a lane)."""
    return 2 if np.dtype(dtype).itemsize <= 4 else 1


def closure_grid_spec(semiring: Semiring, dtype) -> Spec:
    """``kl_closure_grid``: a mid-size block's whole blocked closure in one cooperative
    launch (kernels/closure_grid.cu); the multiplicative identity is an argument."""
    d = as_dtype(dtype)
    p = Prelude()
    p.typedef(ctype(d), "kl_c_t")
    p.define("KL_GR_THREADS", CLOSURE_GRID_THREADS)
    p.define("KL_GR_MIN_BLOCKS", closure_grid_blocks_per_sm(d))
    monoid_prelude(p, semiring.add, d)
    p.add(func("kl_c_t", "kl_mult", "kl_c_t x, kl_c_t y", semiring.mul.cuda_expr))
    key = ("closure_grid", semiring.key, d.str)
    return Spec(
        "closure_grid",
        key,
        p.text(),
        ("grid.cuh", "closure_grid.cu"),
        tuple(p.macros),
        ("kl_closure_grid",),
        True,
    )


def closure_primitive_specs(semiring: Semiring, dtype) -> list[Spec]:
    """Every specialisation mxm_dense_acc / closure_dense can ask for on ``dtype``
    (A, B, C of one dtype): both tiles of "acc", "pred" and the closure where the
    add is idempotent, the int32 fast paths. None for ``any`` (a no-op there)."""
    if semiring.add.stops_at_first:
        return []
    d = as_dtype(dtype)
    fasts = [None] + ([f] if (f := mxm_fast_kind(semiring, d)) else [])
    specs = [mxm_spec(semiring, d, d, d, f, mode="acc", tile=t) for f in fasts for t in MXM_TILES]
    if semiring.add.idempotent:
        specs += [mxm_spec(semiring, d, d, d, f, mode="pred") for f in fasts]
        specs.append(closure_spec(semiring, d))
        if closure_grid_eligible(d):
            specs.append(closure_grid_spec(semiring, d))
    return specs
