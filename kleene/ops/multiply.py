"""mxm, mxv, vxm: semiring products, with masks and accumulators."""

from __future__ import annotations

import numpy as np

from kleene.backends.device import backend, gpu_memory_free
from kleene.backends.direction import TO_PULL
from kleene.core import access, layout
from kleene.core.checks import as_container, as_mask, check_out, reject_nan, same_device
from kleene.core.entries import Bitmap, Keys
from kleene.core.matrix import Matrix
from kleene.core.vector import Vector
from kleene.errors import DimensionMismatch, DomainMismatch, InvalidValue, OutOfMemory
from kleene.semiring import Semiring, get_semiring, lor_land

from .symmetry import is_symmetric
from .write import Rows, finish

_METHODS = ("auto", "pull", "push")


def _prepare(opname, sr, out, mask, shape, mul_dtype, **operands):
    sr = get_semiring(sr)
    xp = same_device(opname, out=out, mask=mask, **operands)
    sr.check_dtype(mul_dtype)
    reject_nan(opname, sr, **operands)
    return sr, xp, as_mask(opname, mask, shape)


def _mul_dtype(opname, sr, xname, x, yname, y):
    try:
        return sr.mul.result_dtype(x.dtype, y.dtype)
    except TypeError:
        raise DomainMismatch(
            f"{opname}: {xname} has dtype {x.dtype} and {yname} has dtype {y.dtype}; "
            f"semiring {sr.name} multiplies operands of one dtype (convert one first)"
        ) from None


def _filled(xp, m: Matrix, zero):
    """Dense values with absent entries replaced by ``zero``."""
    values, present = access.bitmap(m)
    if present is None:
        return values
    return xp.where(present, values, xp.asarray(zero, dtype=values.dtype))


def mxm(A: Matrix, B: Matrix, semiring, *, mask=None, accum=None, replace=False, out=None):
    """C<mask> = accum(C, A ⊕.⊗ B): matrix-matrix product over a semiring.

    Dense operands use the tiled dense kernel; otherwise a sparse product: under a
    sparse, not complemented mask one dot product per allowed entry (where the back
    end has the compiled form and it costs less), else the whole product, masked
    after. ``mask``, ``accum``, ``replace`` and ``out`` follow GraphBLAS.

    Example
    -------
    >>> import numpy as np, kleene
    >>> A = kleene.Matrix.from_dense(np.array([[0.0, 1.0], [np.inf, 0.0]]))
    >>> kleene.mxm(A, A, kleene.semiring.min_plus).to_dense().tolist()
    [[0.0, 1.0], [inf, 0.0]]
    """
    as_container("mxm", "A", A, (Matrix,))
    as_container("mxm", "B", B, (Matrix,))
    if A.ncols != B.nrows:
        raise DimensionMismatch(f"mxm: inner dimensions differ: A is {A.shape}, B is {B.shape}")
    sr0 = get_semiring(semiring)
    dtype = _mul_dtype("mxm", sr0, "A", A, "B", B)
    shape = (A.nrows, B.ncols)
    check_out("mxm", out, shape, Matrix)
    sr, xp, mask = _prepare("mxm", sr0, out, mask, shape, dtype, A=A, B=B)
    t = _mxm_compute(xp, A, B, sr, dtype, mask)
    return _finish("mxm", xp, t, shape, dtype, Matrix, out, mask, accum, replace)


def _finish(opname, xp, t, shape, dtype, kind, out, mask, accum, replace):
    return finish(
        opname,
        xp,
        t,
        shape=shape,
        dtype=dtype,
        kind=kind,
        out=out,
        mask=mask,
        accum=accum,
        replace=replace,
    )


def _unannihilated(sr: Semiring, dtype) -> list:
    """Float specials v (±inf) with zero ⊗ v != zero, e.g. 0 * inf = nan for plus_times."""
    if np.dtype(dtype).kind != "f" or sr.mul.typing != "same":
        return []
    zero = np.asarray(sr.zero_for(dtype), dtype=dtype)
    out = []
    for v in (np.inf, -np.inf):
        sv = np.asarray(v, dtype=dtype)
        with np.errstate(all="ignore"):
            z1 = np.asarray(sr.mul(zero, sv), dtype=dtype)
            z2 = np.asarray(sr.mul(sv, zero), dtype=dtype)
        if not (z1 == zero and z2 == zero):
            out.append(v)
    return out


def _fill_is_exact(xp, A, B, sr: Semiring, dtype) -> bool:
    """Can absent entries be filled with zero without changing the product?"""
    if not sr.annihilates(dtype):
        return False
    for v in _unannihilated(sr, dtype):
        for m in (A, B):  # a special on either side may meet a filled zero on the other
            if bool((access.keys(m)[1] == v).any()):
                return False
    return True


def _mxm_compute(xp, A, B, sr: Semiring, dtype, mask=None):
    be = backend(xp)
    both_dense = A.format == "dense" and B.format == "dense"
    full = access.present(A) is None and access.present(B) is None
    if both_dense and (full or _fill_is_exact(xp, A, B, sr, dtype)):
        zero = sr.zero_for(dtype)
        values = be.mxm_dense(sr, _filled(xp, A, zero), _filled(xp, B, zero), dtype)
        if full and A.ncols > 0:
            return Bitmap(values, None)
        pa = access.bitmap(A)[1] if access.present(A) is not None else xp.ones(A.shape, bool)
        pb = access.bitmap(B)[1] if access.present(B) is not None else xp.ones(B.shape, bool)
        present = be.mxm_dense(lor_land, pa, pb, np.dtype(bool))
        return Bitmap(values, present)
    if mask is not None and not mask.complement and A.format == "csr" and B.format == "csr":
        t = _masked_spgemm(xp, A, B, sr, dtype, mask)
        if t is not None:
            return t
    return _spgemm(xp, A, B, sr, dtype)


def _mask_pattern(xp, mask):
    """CSR (indptr, indices) of the positions a not complemented mask allows: its
    pattern (structural), or its entries whose value is true (a value mask)."""
    ptr, idx, val = access.csr(mask.container)
    if mask.structural:
        return ptr, idx
    keep = val if val.dtype == bool else val.astype(bool)
    if bool(keep.all()):
        return ptr, idx
    kept = xp.zeros(keep.size + 1, dtype=np.int64)
    xp.cumsum(keep, out=kept[1:])
    return kept[ptr], idx[keep]


# dot3 steps one unmasked product's term is worth (the cost rule of _masked_spgemm)
_DOT3_PER_FLOP = 8.0


def _masked_spgemm(xp, A, B, sr: Semiring, dtype, mask):
    """The product at the mask's allowed positions only, by dot products ("dot3"):
    C(i,j) = ⊕_k A(i,k) ⊗ B(k,j) over the intersection of A(i,:) and Bᵀ(j,:), for
    each allowed (i, j). None where the back end has no compiled form or the cost
    rule prefers the unmasked product; the caller then runs ``_spgemm``. The write
    rule (``finish``) still applies the mask, so either way the result is the same.
    """
    fused = getattr(backend(xp), "mxm_masked", None)  # optional (primitives.md)
    if fused is None:
        return None
    nm = mask.container.nvals
    a_ptr, a_idx, a_val = access.csr(A)
    b_ptr = access.csr(B)[0]
    # Cost rule. The unmasked product makes `flops` terms, each a scattered update
    # (CPU) or an expanded term sorted by key (GPU), and its whole result is then
    # searched against the mask. dot3 merges two sorted lists per allowed entry,
    # skipping a long list's runs by binary search: at most min(s + l, s·(1 + log2 l))
    # steps for lists of s ≤ l entries, each a compare of sequential reads. So a dot
    # step costs a fraction of an unmasked term: dot3 runs while its steps stay under
    # _DOT3_PER_FLOP times the flops.
    if nm == 0 or a_idx.size == 0:
        return Keys(xp.zeros(0, np.int64), xp.zeros(0, dtype))
    m_ptr, m_idx = _mask_pattern(xp, mask)
    at_hand = transpose_at_hand(B)
    if at_hand is not None:
        bt_len = xp.diff(at_hand[0])
    else:
        bt_len = xp.bincount(access.csr(B)[1], minlength=B.ncols)
    m_rows = layout.offsets_to_rows(xp, m_ptr)
    la = xp.diff(a_ptr)[m_rows].astype(np.float64)
    lb = bt_len[m_idx].astype(np.float64)
    s, big = xp.minimum(la, lb), xp.maximum(la, lb)
    steps = xp.minimum(s + big, s * (1.0 + xp.log2(big + 1.0))).sum()
    flops = (b_ptr[a_idx + 1] - b_ptr[a_idx]).sum().astype(np.float64)
    flops, steps = (float(x) for x in xp.stack([flops, steps]).tolist())  # one sync
    if flops == 0 or m_idx.size == 0:
        return Keys(xp.zeros(0, np.int64), xp.zeros(0, dtype))
    if steps > _DOT3_PER_FLOP * flops:
        return None
    bt_ptr, bt_idx, bt_val = at_hand or transposed_csr(B)
    kv = fused(sr, a_ptr, a_idx, a_val, bt_ptr, bt_idx, bt_val, m_ptr, m_idx, B.ncols, dtype)
    return None if kv is None else Keys(*kv)


def _spgemm(xp, A, B, sr: Semiring, dtype):
    """Sparse product by expansion: every A(i,k)·B(k,j), sorted by (i,j), reduced."""
    be = backend(xp)
    a_ptr, a_idx, a_val = access.csr(A)
    b_ptr, b_idx, b_val = access.csr(B)
    fused = getattr(be, "mxm_sparse", None)  # optional (primitives.md); None: not compiled
    if fused is not None:
        # its CSR form where the back end has one: C's arrays as they are stored
        rows = getattr(be, "mxm_sparse_csr", None) if xp is np else None
        if rows is not None:
            csr = rows(sr, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, B.ncols, dtype)
            if csr is not None:
                return Rows(*csr, B.ncols)
        kv = fused(sr, a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, B.ncols, dtype)
        if kv is not None:
            return Keys(*kv)
    a_rows = layout.offsets_to_rows(xp, a_ptr)
    k = a_idx.astype(np.int64)
    lengths = (b_ptr[k + 1] - b_ptr[k]).astype(np.int64)
    total = int(lengths.sum()) if lengths.size else 0
    if total == 0:
        return Keys(xp.zeros(0, np.int64), xp.zeros(0, dtype))
    if xp is np:
        return _expand(xp, be, sr, dtype, a_rows, a_val, b_ptr, b_idx, b_val, k, lengths, total, B)
    need = _check_expansion(total, dtype)
    try:
        return _expand(xp, be, sr, dtype, a_rows, a_val, b_ptr, b_idx, b_val, k, lengths, total, B)
    except MemoryError as e:  # the device's pool or a sort's scratch ran out after all
        raise OutOfMemory(
            f"mxm: the sparse product expands to {total:,} terms, about {need:,} bytes of "
            f"GPU memory, and ran out of GPU memory ({e})"
        ) from e


def _expand(xp, be, sr, dtype, a_rows, a_val, b_ptr, b_idx, b_val, k, lengths, total, B):
    """The expansion product's body: every term, sorted by key, reduced."""
    src = layout.repeat_index(xp, lengths)
    starts = xp.cumsum(lengths) - lengths
    edge = b_ptr[k][src] + (xp.arange(total, dtype=np.int64) - starts[src])
    prod = be.binary(sr.mul, a_val[src], b_val[edge], dtype)
    keys = a_rows[src] * B.ncols + b_idx[edge].astype(np.int64)
    order = xp.argsort(keys, kind="stable")
    keys, prod = keys[order], prod[order]
    first = xp.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    starts = xp.flatnonzero(first).astype(np.int64)
    offsets = xp.concatenate([starts, xp.asarray([keys.size], dtype=np.int64)])
    return Keys(keys[starts], be.segment_reduce(sr.add, prod, offsets, dtype))


# Bytes per term the expansion holds at its peak: the source entry, the B position,
# the key, the sort order, the sorted keys and the sort's scratch (a key copy, an index
# copy, a double buffer: int64 each), the product and its sorted copy.
_EXPANSION_INT64S = 8


def _check_expansion(total: int, dtype) -> int:
    """The bytes the GPU expansion of ``total`` terms needs; OutOfMemory naming them,
    before any allocation, where they cannot fit in the free device memory."""
    need = total * (8 * _EXPANSION_INT64S + 2 * np.dtype(dtype).itemsize)
    free = gpu_memory_free()
    if need > free:
        raise OutOfMemory(
            f"mxm: the sparse product expands to {total:,} terms, {need:,} bytes of GPU "
            f"memory; {free:,} bytes are free (a mask that keeps few entries computes "
            f"only those)"
        )
    return need


def transposed_csr(A: Matrix, *, build: bool = False):
    """CSR arrays (indptr, indices, values) of Aᵀ, cached on A's storage until a write.

    On the GPU a square CSR matrix that equals its transpose (one fingerprint pass,
    ``is_symmetric``) serves as its own: no second copy is built. ``build=True``
    always builds it (what ``is_symmetric`` compares against where it cannot
    fingerprint).
    """

    def compute():
        if not build and A.xp is not np and A.format == "csr" and is_symmetric(A):
            return access.csr(A)
        return layout.csr_transpose(A.xp, *access.csr(A), A.shape)

    return A.cached("csr_T", compute)


def cache_transpose(A: Matrix) -> Matrix:
    """Build Aᵀ's CSR now and keep it with ``A`` until ``A`` is written (LAGraph's
    cached ``AT``); returns ``A``.

    A vxm that pulls (on the GPU: a vector holding a sixteenth of A's rows or more)
    reads Aᵀ's rows, and the first one builds them: a matrix that many such products
    will read can pay for it once, where it is made, at the cost of a second copy of
    A's entries. A symmetric square matrix on the GPU serves as its own transpose,
    as in any product.

    Example
    -------
    >>> import kleene
    >>> A = kleene.Matrix.from_edges([0, 0], [1, 2], n=3)
    >>> kleene.ops.cache_transpose(A) is A
    True
    >>> u = kleene.Vector.from_coo([0, 1, 2], [True] * 3, 3)
    >>> kleene.vxm(u, A, "any_pair").to_coo()[0].tolist()
    [1, 2]
    """
    as_container("cache_transpose", "A", A, (Matrix,))
    transposed_csr(A)
    return A


def transpose_at_hand(A: Matrix):
    """Aᵀ's CSR (indptr, indices, values; rows sorted) where it needs no build, else
    None: the cached transpose, or A's own CSR where A is symmetric (on the GPU one
    fingerprint pass decides and is cached; on the CPU only an answer already cached,
    as its test builds Aᵀ)."""
    if A.nrows != A.ncols or A.format != "csr":
        return None
    cached = A.known("csr_T")
    if cached is not None:
        return cached
    symmetric = is_symmetric(A) if A.xp is not np else A.known("symmetric")
    return access.csr(A) if symmetric else None


def transposed_pattern(A: Matrix):
    """(indptr, indices) of Aᵀ's pattern: A's own when its pattern is symmetric."""
    if A.format == "csr" and is_symmetric(A, values=False):
        return access.csr(A)[:2]
    return transposed_csr(A)[:2]


def _vector_parts(xp, u: Vector):
    if u.format == "sparse":
        return access.indices(u), access.values(u)
    return access.keys(u)


def _matvec(opname, xp, A, u, sr, dtype, allowed, method, transpose_a):
    """w = A ⊕.⊗ u (transpose_a False) or w = u ⊕.⊗ A (True), by pull or push."""
    be = backend(xp)
    if method not in _METHODS:
        raise InvalidValue(f"{opname}: method must be one of {_METHODS}, got {method!r}")
    nout = A.ncols if transpose_a else A.nrows
    if method == "auto":
        # The GPU pulls once u is dense enough to make the scatter's atomics contend.
        # The CPU cannot exploit pull's early exit, so it scatters (work ∝ u's
        # edges), except for a full u whose product rows are at hand (mxv, or vxm
        # with Aᵀ cached or A symmetric): then every edge is read either way, and
        # a pull sums each row once, with no accumulators per thread to merge.
        nvals = u.nvals
        if xp is not np:
            method = "push" if nvals * 16 < max(u.size, 1) else "pull"
        elif nvals == u.size and (not transpose_a or transpose_at_hand(A) is not None):
            method = "pull"
        else:
            method = _cpu_direction(A, u, sr, allowed, transpose_a)
    if method == "pull":
        ptr, idx, val = transposed_csr(A) if transpose_a else access.csr(A)
        uv, up = access.bitmap(u)
        return be.mxv_pull(sr, ptr, idx, val, uv, up, allowed, dtype, flip=transpose_a)
    ptr, idx, val = access.csr(A) if transpose_a else transposed_csr(A)
    ui, uv = _vector_parts(xp, u)
    return be.vxm_push(sr, ptr, idx, val, ui, uv, allowed, nout, dtype, flip=not transpose_a)


def _cpu_direction(A: Matrix, u: Vector, sr: Semiring, allowed, transpose_a: bool) -> str:
    """Push or pull for a CPU product whose u is not full: pull where the mask leaves
    few outputs to compute. A push reads the out-edges of u's entries (m_f) and
    scatters each at a random position; a pull reads, for each allowed output, its
    in-edges until one meets u (``any``: the first; a monoid with a terminal value:
    that value; else all of them). The pull runs where its expected reads are under
    half the push's. vxm's pull reads Aᵀ's rows: it builds Aᵀ (cached on A until a
    write) only where Beamer's rule would pull (m_f · TO_PULL > the edges), as the
    BFS engine does: a search asks for it again on its next levels."""
    if allowed is None or u.nvals == 0 or A.nvals == 0:
        return "push"
    inner, nout = (A.nrows, A.ncols) if transpose_a else (A.ncols, A.nrows)
    n_allowed = int(np.count_nonzero(allowed))
    if transpose_a:  # vxm: the push reads A's own rows
        ptr = access.csr(A)[0]
        ui = _vector_parts(np, u)[0]
        m_f = float((ptr[ui + 1] - ptr[ui]).sum())
    else:
        m_f = u.nvals * A.nvals / max(inner, 1)
    per_row = A.nvals / max(nout, 1)  # in-edges an output reads
    if sr.add.stops_at_first:  # until the first of u's entries: about inner / |u| reads
        per_row = min(per_row, inner / u.nvals)
    if 2 * n_allowed * (per_row + 1) >= m_f:
        return "push"
    if transpose_a and transpose_at_hand(A) is None and m_f * TO_PULL <= A.nvals:
        return "push"
    return "pull"


def mxv(
    A: Matrix,
    u: Vector,
    semiring,
    *,
    mask=None,
    accum=None,
    replace=False,
    out=None,
    method: str = "auto",
):
    """w<mask> = accum(w, A ⊕.⊗ u): matrix-vector product over a semiring.

    ``method``: "pull" (row-parallel over A's rows), "push" (scatter from u's
    entries), or "auto" (push for a sparse u with few entries). Rows outside the
    mask are not computed.

    Example
    -------
    >>> import numpy as np, kleene
    >>> A = kleene.Matrix.from_edges([0, 1], [1, 2], [2.0, 3.0], n=3)
    >>> u = kleene.Vector.from_coo([2], [0.0], 3)
    >>> kleene.mxv(A, u, "min_plus").to_dense().tolist()
    [inf, 3.0, inf]
    """
    return _matvec_op("mxv", A, u, semiring, mask, accum, replace, out, method, vector_first=False)


def vxm(
    u: Vector,
    A: Matrix,
    semiring,
    *,
    mask=None,
    accum=None,
    replace=False,
    out=None,
    method: str = "auto",
):
    """w<mask> = accum(w, u ⊕.⊗ A): vector-matrix product over a semiring.

    Example
    -------
    >>> import numpy as np, kleene
    >>> A = kleene.Matrix.from_edges([0, 1], [1, 2], [2.0, 3.0], n=3)
    >>> u = kleene.Vector.from_coo([0], [0.0], 3)
    >>> kleene.vxm(u, A, "min_plus").to_dense().tolist()
    [inf, 2.0, inf]
    """
    return _matvec_op("vxm", A, u, semiring, mask, accum, replace, out, method, vector_first=True)


def _matvec_op(opname, A, u, semiring, mask, accum, replace, out, method, vector_first):
    """mxv (A ⊕.⊗ u) or, with ``vector_first``, vxm (u ⊕.⊗ A = Aᵀ ⊕.⊗ u, operands flipped)."""
    as_container(opname, "A", A, (Matrix,))
    as_container(opname, "u", u, (Vector,))
    inner = A.nrows if vector_first else A.ncols
    if inner != u.size:
        raise DimensionMismatch(f"{opname}: A is {A.shape} but u has size {u.size}")
    sr0 = get_semiring(semiring)
    if vector_first:
        dtype = _mul_dtype(opname, sr0, "u", u, "A", A)
    else:
        dtype = _mul_dtype(opname, sr0, "A", A, "u", u)
    shape = (A.ncols,) if vector_first else (A.nrows,)
    check_out(opname, out, shape, Vector)
    sr, xp, mask = _prepare(opname, sr0, out, mask, shape, dtype, A=A, u=u)
    allowed = None if mask is None else _allowed(xp, mask)
    w, wp = _matvec(opname, xp, A, u, sr, dtype, allowed, method, transpose_a=vector_first)
    if out is None and xp is np:
        # The CPU primitives compute allowed entries only, so with no ``out`` (no
        # accum, nothing to keep or replace) the mask has been applied already.
        mask = None
    return _finish(opname, xp, Bitmap(w, wp), shape, dtype, Vector, out, mask, accum, replace)


def _allowed(xp, mask):
    """The dense bool array of the positions ``mask`` allows; a structural mask on a
    sparse vector on the CPU is one fill and one scatter of its indices."""
    c = mask.container
    if xp is np and mask.structural and isinstance(c, Vector) and c.format == "sparse":
        allowed = np.full(c.size, mask.complement, dtype=bool)
        allowed[access.indices(c)] = not mask.complement
        return allowed
    return mask.allowed(xp)
