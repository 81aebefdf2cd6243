"""mxm_dense and mxm_dense_acc: the tiled semiring GEMM (kernels/mxm_dense.cu)."""

from __future__ import annotations

from functools import lru_cache

import cupy
import numpy as np

from kleene.backends.memory import overlaps
from kleene.errors import DimensionMismatch, DomainMismatch, InvalidValue
from kleene.semiring import Semiring
from kleene.semiring.builtins import binary as _ops
from kleene.semiring.dtypes import as_dtype

from . import boolean_mma, codegen, jit
from .elementwise import binary

# Below this many steps (m*n*k) the fast path's range check costs more than it saves.
_FAST_MIN_STEPS = 1 << 24
_INT_LIMIT = (1 << 31) - 1
_GRID_Y = 65535
# Tile-shape override for tuning (benchmarks/bench_core.py --mxm-sweep); None: defaults.
# Applies to mxm_dense only (mxm_dense_acc picks its tiles itself).
CONFIG_OVERRIDE: dict | None = None
# Multiplies whose result is an operand or a constant: no rounding on floats.
_SELECTIVE_MULS = frozenset(
    op.key
    for op in (
        _ops.min,
        _ops.max,
        _ops.first,
        _ops.second,
        _ops.pair,
        _ops.any,
        _ops.lor,
        _ops.land,
    )
)


@lru_cache(maxsize=512)
def _kernel(sr: Semiring, ta, tb, tc, fast, override, mode: str, tile: str, vec: bool, dev: int):
    """(compiled kl_mxm_dense<vec>, its tile config) for one specialisation, looked up
    once: in APSP's recursion this runs hundreds of times per call on small blocks."""
    spec = codegen.mxm_spec(sr, ta, tb, tc, fast, dict(override), mode, tile)
    cfg = codegen.mxm_config(ta, tb, tc, tile, **dict(override))
    return jit.function(spec, f"kl_mxm_dense<{'true' if vec else 'false'}>"), cfg


def _fast_path_ok(fast: str, a: cupy.ndarray, b: cupy.ndarray) -> bool:
    """True if every int32 input is in the fast path's range (one sync)."""
    fn = jit.function(codegen.range_check_spec(), f"kl_range_check<{int(fast == 'imax')}>")
    bad = cupy.zeros(1, dtype=np.int32)
    for x in (a, b):
        blocks = jit.blocks_for(x.size, 256, cap=jit.sm_count(jit.device_id()) * 8)
        fn((blocks,), (256,), (x, np.int64(x.size), bad))
    return not bool(bad.get()[0])


def _views_in_range(fast: str, views, one_sign: bool) -> bool:
    """True if every entry of the (view, row stride) pairs suits the fast path (one sync).

    ``one_sign``: finite values must also be >= 0 (imin) / <= 0 (imax); see
    kernels/range_check_view.cu for why in-place products need that.
    """
    name = f"kl_range_check_view<{int(fast == 'imax')}, {int(one_sign)}>"
    fn = jit.function(codegen.range_check_view_spec(), name)
    bad = cupy.zeros(1, dtype=np.int32)
    for x, ld in views:
        rows, cols = x.shape
        gx = min(-(-cols // 256), 64)
        gy = min(rows, _GRID_Y, max(1, jit.sm_count(jit.device_id()) * 32 // gx))
        fn((gx, gy), (256,), (x, np.int64(rows), np.int64(cols), np.int64(ld), bad))
    return not bool(bad.get()[0])


def row_stride(x) -> int | None:
    """Row stride in elements of a 2-D array the kernels can take as it is (unit
    column stride, rows in order and apart), else None (the caller copies it)."""
    rows, cols = x.shape
    size = x.itemsize
    if cols > 1 and x.strides[1] != size:
        return None
    if rows <= 1:
        return max(cols, 1)
    s = x.strides[0]
    if s % size or s < cols * size:
        return None
    return s // size


def as_view(x) -> tuple[cupy.ndarray, int]:
    """(``x`` or a C-contiguous copy of it, its row stride in elements)."""
    if not isinstance(x, cupy.ndarray):
        x = cupy.asarray(x)
    ld = row_stride(x)
    if ld is None:
        x = cupy.ascontiguousarray(x)
        ld = row_stride(x)
    return x, ld


def copy_view(x, ld: int) -> tuple[cupy.ndarray, int]:
    """A C-contiguous copy of a kernel-ready view (row stride ``ld``) by one
    cudaMemcpy2DAsync: a CuPy copy of a strided view costs several times the host
    time, and a recursive APSP copies hundreds of blocks."""
    rows, cols = x.shape
    out = cupy.empty((rows, cols), dtype=x.dtype)
    width = cols * x.itemsize
    if rows and cols:
        rt = cupy.cuda.runtime
        stream = cupy.cuda.get_current_stream().ptr
        rt.memcpy2DAsync(
            out.data.ptr,
            width,
            x.data.ptr,
            ld * x.itemsize,
            width,
            rows,
            rt.memcpyDeviceToDevice,
            stream,
        )
    return out, max(cols, 1)


def views_share(x, y) -> bool:
    """Do two kernel-ready 2-D views (see ``as_view``) share an element?

    Exact for views of one matrix with one row stride, where a span test is not:
    APSP's A21 and A22 interleave in memory but share nothing. Otherwise (other
    strides, rows wrapping past the stride) whether their spans overlap.
    """
    if not overlaps(x, y):
        return False
    size = x.itemsize
    lds = {v.strides[0] for v in (x, y) if v.shape[0] > 1}
    if y.itemsize != size or len(lds) != 1:
        return True  # (two single rows: contiguous, the span test is exact)
    return _blocks_meet(x.data.ptr - y.data.ptr, x.shape, y.shape, lds.pop(), size)


def _blocks_meet(offset: int, xshape, yshape, stride: int, size: int) -> bool:
    """Do blocks x (at ``offset`` bytes from y's first element) and y of a row-major
    matrix with row stride ``stride`` bytes meet? True where unsure."""
    d, rem = divmod(offset, size)
    ld, rem2 = divmod(stride, size)
    if rem or rem2 or xshape[1] > ld or yshape[1] > ld:
        return True
    qx, rx = divmod(d, ld)  # x's first element: row qx, column rx of y's frame
    parts = [(qx, rx)]  # (first row, first column) of x's pieces in that frame
    if rx + xshape[1] > ld:  # x's rows wrap: their tails start the next frame row
        parts.append((qx + 1, 0))
    # y covers rows [0, my), columns [0, ny); a piece covers mx rows from its first
    # and columns from its first (not past ld, so no wider than x)
    return any(q < yshape[0] and q + xshape[0] > 0 and c < yshape[1] for q, c in parts)


def _launch(opname, semiring, a, b, c, lds, fast, mode, tile, override=(), pred_args=()):
    """One launch of kl_mxm_dense on (strided) a, b, c with row strides ``lds``."""
    m, k = a.shape
    n = b.shape[1]
    ta, tb, tc = a.dtype, b.dtype, c.dtype
    cfg = codegen.mxm_config(ta, tb, tc, tile, **dict(override))
    # 16-byte accesses: every row start of every operand 16-byte aligned
    vec = bool(cfg["VEC"]) and k % 4 == 0 and n % 4 == 0 and all(ld % 4 == 0 for ld in lds)
    vec = vec and (a.data.ptr | b.data.ptr | c.data.ptr) % 16 == 0
    fn, cfg = _kernel(semiring, ta, tb, tc, fast, override, mode, tile, vec, jit.device_id())
    grid = (-(-n // cfg["BN"]), -(-m // cfg["BM"]))
    if grid[1] > _GRID_Y:
        raise InvalidValue(f"{opname}: {m} rows exceed the kernel's grid ({_GRID_Y * cfg['BM']})")
    threads = (cfg["BM"] // cfg["TM"]) * (cfg["BN"] // cfg["TN"])
    sizes = (np.int32(m), np.int32(n), np.int32(k))
    fn(grid, (threads,), (a, b, c, *sizes, *(np.int64(ld) for ld in lds), *pred_args))


def mxm_dense(semiring: Semiring, a, b, out_dtype) -> cupy.ndarray:
    """C = A ⊕.⊗ B on full dense arrays (every entry present), C of ``out_dtype``.

    The any monoid keeps the first term, A(i,0) ⊗ B(0,j).
    """
    out = as_dtype(out_dtype)
    a, b = jit.contiguous(a), jit.contiguous(b)
    m, k = a.shape
    k2, n = b.shape
    if k != k2:
        raise DimensionMismatch(f"mxm_dense: inner dimensions differ: {a.shape} and {b.shape}")
    if max(m, n, k) > _INT_LIMIT:
        raise InvalidValue(f"mxm_dense: dimensions {m}x{k}x{n} exceed the kernel's int32 indexing")
    add = semiring.add
    if k == 0 or m == 0 or n == 0:
        return cupy.full((m, n), add.identity_for(out), dtype=out)
    if add.stops_at_first:
        return binary(semiring.mul, a[:, :1], b[:1, :], out)
    if out == np.bool_ and boolean_mma.eligible(semiring, a, b, a):  # tensor cores
        c = cupy.empty((m, n), dtype=out)
        boolean_mma.product(a, b, c, accumulate=False)
        return c
    ta, tb = as_dtype(a.dtype), as_dtype(b.dtype)
    fast = codegen.mxm_fast_kind(semiring, out)
    big = m * n * k >= _FAST_MIN_STEPS
    if fast and not (ta == tb == out and big and _fast_path_ok(fast, a, b)):
        fast = None
    override = tuple(sorted((CONFIG_OVERRIDE or {}).items()))
    c = cupy.empty((m, n), dtype=out)
    _launch("mxm_dense", semiring, a, b, c, (k, n, n), fast, "plain", "large", override)
    return c


def acc_fast_kind(semiring: Semiring, a, lda: int, b, ldb: int, c, aliased: bool) -> str | None:
    """The int32 fast path mxm_dense_acc may take for these operands, or None.

    Needs large enough int32 tropical products and inputs in range (one range-check
    launch per operand and one sync). In-place products (``aliased``: A or B
    overlaps C) read entries other blocks have already updated; with finite inputs
    of one sign those stay in range too, so then the sign is checked as well.
    """
    fast = codegen.mxm_fast_kind(semiring, c.dtype)
    m, k = a.shape
    n = b.shape[1]
    if not fast or not (a.dtype == b.dtype == c.dtype) or m * n * k < _FAST_MIN_STEPS:
        return None
    return fast if _views_in_range(fast, ((a, lda), (b, ldb)), aliased) else None


def reads_in_place(semiring: Semiring, dtype) -> bool:
    """May an in-place product read A/B entries that C's updates overlap, unsynchronised?

    Yes where the idempotent add and the multiply cannot round on ``dtype`` (integers,
    bool; min/max-like multiplies on floats): the in-place result then equals
    C ⊕ A ⊗ B for the closure products (Buluç §2.2) whatever a block read, so it does
    not depend on the schedule. Float sums and products round differently depending
    on which updated entries a block reads, so there the overlapping operand is
    copied first (one block copy; results are deterministic).
    """
    if not semiring.add.idempotent:
        return False
    return np.dtype(dtype).kind != "f" or semiring.mul.key in _SELECTIVE_MULS


def _tile_for(ta, tb, tc, m: int, n: int) -> str:
    """128×128 blocks unless they would leave SMs idle (APSP's smaller products)."""
    cfg = codegen.mxm_config(ta, tb, tc)
    blocks = -(-m // cfg["BM"]) * -(-n // cfg["BN"])
    return "small" if blocks < jit.sm_count(jit.device_id()) else "large"


def mxm_dense_acc(semiring: Semiring, a, b, c, pb=None, pc=None) -> None:
    """C ⊕= A ⊗ B in place, fused: C(i,j) = ADD(C(i,j), ⊕_k A(i,k) ⊗ B(k,j)).

    a, b, c (and pb, pc) may be strided 2-D views (unit column stride; others are
    copied, outputs written back). A or B may overlap C when the add is idempotent
    (R-Kleene's in-place products): the kernel reads them in place where that is
    exact (see ``reads_in_place``); otherwise, and when predecessors are tracked,
    the overlapping operand is copied first. With int64 ``pb``/``pc`` (shaped like b
    and c): where C(i,j) strictly changes, ``pc[i,j] = pb[k,j]`` for the first k
    whose term attains the new value. The ``any`` monoid keeps C as it is.
    """
    if (pb is None) != (pc is None):
        raise InvalidValue("mxm_dense_acc: pass both pb and pc, or neither")
    if a.ndim != 2 or b.ndim != 2 or c.ndim != 2:
        raise InvalidValue("mxm_dense_acc: a, b and c must be 2-D")
    m, k = a.shape
    k2, n = b.shape
    if k != k2 or c.shape != (m, n):
        raise DimensionMismatch(f"mxm_dense_acc: a is {a.shape}, b is {b.shape}, c is {c.shape}")
    add = semiring.add
    pred = pc is not None
    if pred:
        if not add.idempotent:
            raise InvalidValue(
                f"mxm_dense_acc: predecessors need an idempotent add; {semiring.name}'s is not"
            )
        if pb.shape != b.shape or pc.shape != c.shape:
            raise DimensionMismatch(f"mxm_dense_acc: pb is {pb.shape}, pc is {pc.shape}")
        if pb.dtype != np.int64 or pc.dtype != np.int64:
            raise DomainMismatch(f"mxm_dense_acc: pb, pc must be int64, got {pb.dtype}, {pc.dtype}")
    if max(m, n, k) > _INT_LIMIT:
        raise InvalidValue(f"mxm_dense_acc: {m}x{k}x{n} exceeds the kernel's int32 indexing")
    if m == 0 or n == 0 or k == 0 or add.stops_at_first:
        return  # nothing to add (any: ADD(C, x) keeps C)
    if not pred and boolean_mma.eligible(semiring, a, b, c):  # (or, and) on tensor cores
        boolean_mma.product(a, b, c, accumulate=True)
        return
    a, lda = as_view(a)
    b, ldb = as_view(b)
    cw, ldc = as_view(c)  # c itself unless its layout needs a work copy
    pw, ldpc = as_view(pc) if pred else (None, 0)
    # In place, the kernel reads A/B entries other blocks may already have updated;
    # (value, predecessor) pairs must be read consistently, so those read copies.
    a_in_c, b_in_c = views_share(a, cw), views_share(b, cw)
    aliased = a_in_c or b_in_c
    if aliased and (pred or not reads_in_place(semiring, cw.dtype)):
        if a_in_c:
            a, lda = copy_view(a, lda)
        if b_in_c:
            b, ldb = copy_view(b, ldb)
        aliased = False
    pred_args: tuple = ()
    if pred:
        pb, ldpb = as_view(pb)
        if views_share(pb, pw):
            pb, ldpb = copy_view(pb, ldpb)
        pred_args = (pb, pw, np.int64(ldpb), np.int64(ldpc))
    fast = acc_fast_kind(semiring, a, lda, b, ldb, cw, aliased)
    mode = "pred" if pred else "acc"
    tile = "small" if pred else _tile_for(a.dtype, b.dtype, cw.dtype, m, n)
    _launch("mxm_dense_acc", semiring, a, b, cw, (lda, ldb, ldc), fast, mode, tile, (), pred_args)
    if cw is not c:
        c[...] = cw
    if pred and pw is not pc:
        pc[...] = pw
