"""The tiled dense mxm (kernels/mxm_dense.cu): tile shapes, fast paths, modes."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

import numpy as np

from kleene.errors import InvalidValue
from kleene.semiring import Semiring
from kleene.semiring.builtins import binary as _builtin_binary
from kleene.semiring.dtypes import as_dtype

from .common import Prelude, Spec, ctype, func, monoid_prelude

# Fast paths of the dense kernel for int32 tropical products over clamped inputs.
MXM_FAST = ("imin", "imax")
# int32 fast path: finite inputs must satisfy |v| < 2**28 and infinities are
# clamped to 2**30 - 1, so no sum overflows and finite/infinite sums stay apart.
MXM_FAST_LIMIT = 1 << 28
MXM_FAST_INF = (1 << 30) - 1
MXM_FAST_SPLIT = 1 << 29
# Dense kernel variants: C = A⊕.⊗B, C ⊕= A⊕.⊗B in place, and the latter with predecessors.
MXM_MODES = ("plain", "acc", "pred")
MXM_TILES = ("large", "small")


def mxm_fast_kind(semiring: Semiring, dtype) -> str | None:
    """'imin'/'imax' when the int32 clamped tropical fast path applies, else None.

    Applies to the built-in tropical multiply (tplus) under min or max on int32;
    the caller must still check the input range (see ``MXM_FAST_LIMIT``).
    """
    if as_dtype(dtype) != np.int32 or semiring.mul.key != _builtin_binary.tplus.key:
        return None
    op = semiring.add.op.key
    if op == _builtin_binary.min.key and semiring.add.identity == float("inf"):
        return "imin"
    if op == _builtin_binary.max.key and semiring.add.identity == float("-inf"):
        return "imax"
    return None


def mxm_config(a_dtype, b_dtype, c_dtype, tile: str = "large", **override) -> Mapping:
    """Tile shape of the dense kernel for these value types (``override``: tuning).

    ``tile="small"`` (64×64 blocks, 4×4 per thread) is for products too small to
    fill the GPU with 128×128 blocks and for the predecessor variant (two
    registers per accumulator); 8-byte types always use it. Read-only (cached).
    """
    key = (np.dtype(a_dtype), np.dtype(b_dtype), np.dtype(c_dtype), tile)
    return _mxm_config(*key, tuple(sorted(override.items())))


@lru_cache(maxsize=256)
def _mxm_config(a_dtype, b_dtype, c_dtype, tile: str, override: tuple) -> Mapping:
    if tile not in MXM_TILES:
        raise InvalidValue(f"unknown dense tile {tile!r}; one of {MXM_TILES}")
    size = max(np.dtype(t).itemsize for t in (a_dtype, b_dtype, c_dtype))
    four = {np.dtype(np.int32), np.dtype(np.float32)}
    vec = np.dtype(a_dtype) in four and np.dtype(b_dtype) in four
    if size <= 4 and tile == "large":  # deeper slabs (fewer barriers) with 16-byte loads
        cfg = dict(BM=128, BN=128, BK=16 if vec else 8, TM=8, TN=8, PAD_A=4, MIN_BLOCKS=2)
    elif size <= 4:  # PAD_A=2: 66-word rows keep the transposed A stores conflict-free
        cfg = dict(BM=64, BN=64, BK=16 if vec else 8, TM=4, TN=4, PAD_A=2, MIN_BLOCKS=2)
    else:
        cfg = dict(BM=64, BN=64, BK=8, TM=4, TN=4, PAD_A=2, MIN_BLOCKS=2)
    cfg.update(dict(override))
    la = cfg["BM"] * cfg["BK"] // _threads(cfg)  # A, B elements a thread loads per slab
    lb = cfg["BN"] * cfg["BK"] // _threads(cfg)
    cfg["VEC"] = int(vec and la % 4 == 0 and lb % 4 == 0)
    cfg["VEC_C"] = int(np.dtype(c_dtype) in four and cfg["TN"] // 2 == 4)
    return MappingProxyType(cfg)


def _threads(cfg: dict) -> int:
    return (cfg["BM"] // cfg["TM"]) * (cfg["BN"] // cfg["TN"])


def mxm_spec(
    semiring: Semiring,
    a_dtype,
    b_dtype,
    c_dtype,
    fast: str | None = None,
    cfg: dict | None = None,
    mode: str = "plain",
    tile: str | None = None,
) -> Spec:
    """The tiled dense mxm for ``semiring`` on (A, B, C) value types.

    Accumulators start at the add identity and take ``acc = ADD(acc, MULT(a, b))``
    (built-in min/max on floats as fminf/fmaxf: equal while acc is never NaN).
    ``cfg`` overrides parts of the tile shape (see :func:`mxm_config`; for tuning).
    ``mode`` (one of ``MXM_MODES``): "plain" writes C = acc; "acc" writes
    C = ADD(C, acc) in place (mxm_dense_acc; A, B, C may overlap); "pred" also
    tracks, per accumulator, the k of its best term and copies PB(k, j) to PC(i, j)
    where C(i, j) strictly changes. ``tile`` defaults to "small" for "pred".
    """
    if fast is not None and fast not in MXM_FAST:
        raise InvalidValue(f"unknown dense fast path {fast!r}")
    if mode not in MXM_MODES:
        raise InvalidValue(f"unknown dense mode {mode!r}; one of {MXM_MODES}")
    ta, tb, tc = (as_dtype(t) for t in (a_dtype, b_dtype, c_dtype))
    tile = tile or ("small" if mode == "pred" else "large")
    cfg = mxm_config(ta, tb, tc, tile, **(cfg or {}))
    p = Prelude()
    p.typedef(ctype(ta), "kl_a_t")
    p.typedef(ctype(tb), "kl_b_t")
    p.typedef(ctype(tc), "kl_c_t")
    for name, value in cfg.items():
        p.define(f"KL_{name}", value)
    p.define("KL_ACC", int(mode != "plain"))
    p.define("KL_PRED", int(mode == "pred"))
    monoid_prelude(p, semiring.add, tc)
    p.add(func("kl_c_t", "kl_mult", "kl_a_t x, kl_b_t y", semiring.mul.cuda_expr))
    if fast == "imin" or fast == "imax":
        _fast_steps(p, fast)
    else:
        _generic_steps(p, semiring, tc)
    names = ["kl_mxm_dense<false>"] + (["kl_mxm_dense<true>"] if cfg["VEC"] else [])
    key = ("mxm_dense", semiring.key, ta.str, tb.str, tc.str, fast)
    if mode != "plain":  # the tile is part of the key (equal tiles share code)
        key = (f"mxm_dense_{mode}", *key[1:], *sorted(cfg.items()))
    elif cfg != mxm_config(ta, tb, tc):  # a tuning override (benchmarks): keep it apart
        key += tuple(sorted(cfg.items()))
    return Spec("mxm_dense", key, p.text(), ("mxm_dense.cu",), tuple(p.macros), tuple(names))


def _fast_steps(p: Prelude, fast: str) -> None:
    """int32 clamped tropical steps: inputs clamped to ±MXM_FAST_INF on load, sums
    beyond ±MXM_FAST_SPLIT mapped back to the infinities."""
    inf, split = MXM_FAST_INF, MXM_FAST_SPLIT
    if fast == "imin":
        pre = f"v < {inf} ? v : {inf}"
        step = "s < acc ? s : acc"
        post = f"acc >= {split} ? KL_INT_MAX : acc"
    else:
        pre = f"v > -{inf} ? v : -{inf}"
        step = "s > acc ? s : acc"
        post = f"acc <= -{split} ? KL_INT_MIN : acc"
    p.add(func("kl_a_t", "kl_pre_a", "kl_a_t v", pre))
    p.add(func("kl_b_t", "kl_pre_b", "kl_b_t v", pre))
    p.add(
        "__device__ __forceinline__ kl_c_t kl_step(kl_c_t acc, kl_a_t a, kl_b_t b) "
        f"{{ int s = a + b; return {step}; }}\n"
    )
    p.add(func("kl_c_t", "kl_post", "kl_c_t acc", post))


def _generic_steps(p: Prelude, semiring: Semiring, tc: np.dtype) -> None:
    """acc = ADD(acc, MULT(a, b)); built-in float min/max as fmin/fmax."""
    add_key = semiring.add.op.key
    p.add(func("kl_a_t", "kl_pre_a", "kl_a_t v", "v"))
    p.add(func("kl_b_t", "kl_pre_b", "kl_b_t v", "v"))
    step = "kl_add(acc, kl_mult(a, b))"
    if tc.kind == "f" and add_key in (_builtin_binary.min.key, _builtin_binary.max.key):
        fn = "fmin" if add_key == _builtin_binary.min.key else "fmax"
        step = f"{fn}{'f' if tc == np.float32 else ''}(acc, kl_mult(a, b))"
    p.add(func("kl_c_t", "kl_step", "kl_c_t acc, kl_a_t a, kl_b_t b", step))
    p.add(func("kl_c_t", "kl_post", "kl_c_t acc", "acc"))
