"""closure_dense: A ← A* in place (kernels/closure_dense.cu; blocked beyond one block).

A block of up to ``one_block_limit`` rows is closed by one thread block, its
entries in registers (APSP's base case). Larger ones take Katz & Kider's blocked
Floyd-Warshall: up to ``GRID_MAX`` rows (values of 4 or 8 bytes, no predecessors) all
of it in one cooperative launch (kernels/closure_grid.cu: 32-row pivots, grid barriers
between the passes); otherwise per diagonal block the one-block kernel, then its block
row and column and the rest with the fused in-place ``mxm_dense_acc`` (exact for an
idempotent add, like the in-place R-Kleene products).
"""

from __future__ import annotations

from functools import cache, lru_cache

import cupy
import numpy as np

from kleene.errors import DimensionMismatch, InvalidValue
from kleene.semiring import Semiring
from kleene.semiring.dtypes import as_dtype

from . import bool_closure, codegen, jit
from .dense import as_view, mxm_dense_acc
from .elementwise import binary

# Largest block the one-block kernel takes (one SM does its n³ steps; beyond this,
# blocked passes spread the work over the GPU).
MAX_ONE_BLOCK = codegen.CLOSURE_MAX
_STATIC_SMEM = 48 * 1024  # dynamic shared memory allowed without the opt-in attribute

_smem_allowed: dict[tuple, int] = {}
# Largest block the one-launch closure takes: each of its n / 32 rounds re-reads the
# block, which runs at speed while the block stays in L2 (16 MB at 2048 fp32).
GRID_MAX = 2048
# Base case of a recursive closure past GRID_MAX: 2048 spends longer in the one-launch
# closure's rounds than its products would, 512 doubles the launches of the products.
GRID_BASE = 1024
_no_grid: set[int] = set()  # devices that refused the cooperative launch


@lru_cache(maxsize=256)
def _spec(sr: Semiring, d: np.dtype) -> codegen.Spec:
    return codegen.closure_spec(sr, d)


@lru_cache(maxsize=256)
def _grid_spec(sr: Semiring, d: np.dtype) -> codegen.Spec:
    return codegen.closure_grid_spec(sr, d)


def _one_launch(semiring: Semiring, a: cupy.ndarray, one) -> bool:
    """Close the view ``a`` in place in one cooperative launch of kl_closure_grid
    (the device's resident grid); False, with ``a`` untouched, if the launch is refused."""
    dev = jit.device_id()
    d = as_dtype(a.dtype)
    if dev in _no_grid or not codegen.closure_grid_eligible(d):
        return False
    fn = jit.function(_grid_spec(semiring, d), "kl_closure_grid")
    blocks = jit.sm_count(dev) * codegen.closure_grid_blocks_per_sm(d)
    bar = cupy.zeros(4, dtype=np.uint32)  # the grid barrier, two words of set-up
    args = (a, np.int64(as_view(a)[1]), np.int32(a.shape[0]), d.type(one), bar)
    try:
        fn((blocks,), (codegen.CLOSURE_GRID_THREADS,), args)
    except cupy.cuda.driver.CUDADriverError:
        _no_grid.add(dev)
        return False
    return True


def closure_base_block(n: int, dtype, pred: bool) -> int:
    """The base case a recursive closure of n×n ``dtype`` should stop at: n itself up to
    GRID_MAX where one launch closes it (else GRID_BASE), the one-block limit where the
    one-launch closure does not apply (predecessors, bool, other widths)."""
    dev = jit.device_id()
    if dev in _no_grid:
        return one_block_limit(np.dtype(dtype), pred)
    return _base_block(n, np.dtype(dtype), bool(pred), dev)


@lru_cache(maxsize=256)  # (asked twice on APSP's host path, which is on its critical path)
def _base_block(n: int, d: np.dtype, pred: bool, dev: int) -> int:
    if pred or not codegen.closure_grid_eligible(d):
        return _limit(dev, d, pred)
    return n if n <= GRID_MAX else GRID_BASE


def closure_smem_bytes(n: int, dtype, pred: bool) -> int:
    """Dynamic shared memory of the one-block kernel: the predecessors, if tracked
    (values live in registers; see closure_dense.cu)."""
    return 8 * n * n if pred else 0


@cache
def _smem_optin(dev: int) -> int:
    attrs = cupy.cuda.Device(dev).attributes
    return int(attrs.get("MaxSharedMemoryPerBlockOptin", _STATIC_SMEM))


@cache
def _limit(dev: int, dtype: np.dtype, pred: bool) -> int:
    budget = _smem_optin(dev)
    n = MAX_ONE_BLOCK
    while n > 1 and closure_smem_bytes(n, dtype, pred) > budget:
        n -= 1
    return n


def one_block_limit(dtype, pred: bool) -> int:
    """Largest n the one-block kernel closes on this device (its shared memory decides)."""
    return _limit(jit.device_id(), np.dtype(dtype), bool(pred))


def _one_block(semiring: Semiring, a: cupy.ndarray, p: cupy.ndarray | None, one) -> None:
    """Close the view ``a`` (n <= one_block_limit) in place with one thread block."""
    n = a.shape[0]
    d = as_dtype(a.dtype)
    spec = _spec(semiring, d)
    fn = jit.function(spec, codegen.closure_variant(d, p is not None))
    smem = closure_smem_bytes(n, d, p is not None)
    key = (jit.device_id(), spec.key, p is not None)
    if smem > _STATIC_SMEM and _smem_allowed.get(key, 0) < smem:
        fn.max_dynamic_shared_size_bytes = smem  # opt in past 48 KB
        _smem_allowed[key] = smem
    lda = as_view(a)[1]  # callers pass kernel-ready views
    ldp = 0 if p is None else as_view(p)[1]
    parg = np.uint64(0) if p is None else p  # a null pointer the kernel never reads
    args = (a, np.int64(lda), parg, np.int64(ldp), np.int32(n), d.type(one))
    fn((1,), (32, codegen.CLOSURE_ROWS), args, shared_mem=smem)


def _diagonal(semiring: Semiring, a: cupy.ndarray, p: cupy.ndarray | None, one) -> None:
    """Close a block of up to one block's rows: bit-packed for (or, and), else generic."""
    if bool_closure.eligible(semiring, a, p):
        bool_closure.close(a)
    else:
        _one_block(semiring, a, p, one)


def _blocked(semiring: Semiring, a: cupy.ndarray, p: cupy.ndarray | None, one, block: int):
    """Katz & Kider: per diagonal block, its closure, its block row and column, the rest."""
    n = a.shape[0]
    d = as_dtype(a.dtype)
    # The diagonal first, as in the one-block kernel and the generic version (the
    # diagonal blocks' kernels repeat it, which an idempotent add ignores).
    idx = cupy.arange(n)
    a[idx, idx] = binary(semiring.add.op, a[idx, idx], d.type(one), d)

    def acc(x, y, z):  # a[z] ⊕= a[x] ⊗ a[y] (mxm_dense_acc copies where preds need it)
        pp = (None, None) if p is None else (p[y], p[z])
        mxm_dense_acc(semiring, a[x], a[y], a[z], *pp)

    al = slice(None)
    for s in range(0, n, block):
        k = slice(s, min(n, s + block))
        _diagonal(semiring, a[k, k], None if p is None else p[k, k], one)
        acc((k, k), (k, al), (k, al))  # its block row ...
        acc((al, k), (k, k), (al, k))  # ... and column
        acc((al, k), (k, al), (al, al))  # the rest


def closure_dense(semiring: Semiring, a, one, pred=None) -> None:
    """A ← A* in place: diagonal ⊕= one, then Floyd-Warshall (k = 0..n-1).

    ``a`` is a square (strided) view; ``pred`` (int64, like a) takes P(i,j) = P(k,j)
    where A(i,j) strictly changes through k. Needs an idempotent add; ``any`` keeps
    A as it is. Results match :func:`kleene.backends.generic_closure.closure_dense`
    exactly up to the one-block size; beyond, values are the same closure (float
    sums may round differently) and predecessors may pick other equally good paths.
    """
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise DimensionMismatch(f"closure_dense: a must be square, got shape {a.shape}")
    if pred is not None and (pred.shape != a.shape or pred.dtype != np.int64):
        raise InvalidValue(f"closure_dense: pred must be int64 shaped {a.shape}")
    add = semiring.add
    if not add.idempotent:
        raise InvalidValue(f"closure_dense: {semiring.name}'s add is not idempotent")
    n = a.shape[0]
    if n == 0 or add.stops_at_first:
        return
    aw = as_view(a)[0]  # a itself unless its layout needs a work copy
    pw = None if pred is None else as_view(pred)[0]
    bits = bool_closure.eligible(semiring, aw, pw)  # (or, and) packed 32 entries a word
    limit = bool_closure.MAX_N if bits else one_block_limit(aw.dtype, pw is not None)
    if n <= limit:
        _diagonal(semiring, aw, pw, one)
    elif bits or pw is not None or n > GRID_MAX or not _one_launch(semiring, aw, one):
        _blocked(semiring, aw, pw, one, limit if limit < 32 else limit - limit % 32)
    if aw is not a:
        a[...] = aw
    if pred is not None and pw is not pred:
        pred[...] = pw
