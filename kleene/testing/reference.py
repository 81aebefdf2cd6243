"""Reference semantics: every operation, definitional and obviously right.

Matrices and vectors are plain dicts of entries ``{(i, j): value}`` / ``{i: value}``
with a shape and a dtype; operations loop over entries and apply the operators'
NumPy ``func`` to one scalar at a time (see :mod:`kleene.testing.scalars`). Nothing
here touches either back end, so it is the third, independent opinion the CPU and
GPU results are checked against. It is slow: use it on small inputs.

The write rule (GraphBLAS): T is the computed result; Z = T if there is no accum,
else the union of C and T with ``accum`` where both are present; then inside the
mask C = Z (entries of C missing from Z are deleted), outside the mask C keeps its
entries unless ``replace``, which deletes them.

Example
-------
>>> import numpy as np
>>> from kleene.testing import reference as ref
>>> A = ref.RefMatrix((2, 2), np.float64, {(0, 1): 3.0, (1, 0): 1.0})
>>> C = ref.mxm(A, A, "min_plus")
>>> sorted((k, float(v)) for k, v in C.data.items())
[((0, 0), 4.0), ((1, 1), 4.0)]
>>> mask = ref.RefMask(ref.RefMatrix((2, 2), np.bool_, {(0, 0): True}), structural=True)
>>> sorted(ref.mxm(A, A, "min_plus", mask=mask).data)
[(0, 0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kleene.errors import DimensionMismatch, IndexOutOfBound, InvalidValue
from kleene.semiring import IndexUnaryOp, Monoid, UnaryOp, get_indexunary, get_semiring, get_unary
from kleene.semiring.dtypes import as_dtype

from .scalars import (
    OneOf,
    as_binary,
    as_monoid,
    binary_scalar,
    cast,
    fold,
    index_unary_scalar,
    scalar,
    unary_scalar,
)

__all__ = [
    "OneOf",
    "RefMask",
    "RefMatrix",
    "RefVector",
    "apply",
    "assign",
    "closure",
    "ewise_add",
    "ewise_mult",
    "extract",
    "identity_matrix",
    "identity_of",
    "masked_write",
    "mxm",
    "mxm_accumulate",
    "mxv",
    "reduce",
    "select",
    "transpose",
    "vxm",
    "write",
]


@dataclass
class RefMatrix:
    """A matrix as ``{(i, j): value}``; absent keys are missing entries."""

    shape: tuple[int, int]
    dtype: np.dtype
    data: dict = field(default_factory=dict)

    def __post_init__(self):
        self.shape = (int(self.shape[0]), int(self.shape[1]))
        self.dtype = as_dtype(self.dtype)
        self.data = {(int(i), int(j)): cast(v, self.dtype) for (i, j), v in self.data.items()}
        for i, j in self.data:
            if not (0 <= i < self.shape[0] and 0 <= j < self.shape[1]):
                raise IndexOutOfBound(f"entry ({i}, {j}) outside shape {self.shape}")

    @property
    def nvals(self) -> int:
        return len(self.data)

    def keys(self) -> list:
        """Every position of the matrix, row-major."""
        return [(i, j) for i in range(self.shape[0]) for j in range(self.shape[1])]

    def empty_like(self, dtype=None) -> RefMatrix:
        return RefMatrix(self.shape, dtype or self.dtype, {})


@dataclass
class RefVector:
    """A vector as ``{i: value}``; absent keys are missing entries."""

    size: int
    dtype: np.dtype
    data: dict = field(default_factory=dict)

    def __post_init__(self):
        self.size = int(self.size)
        self.dtype = as_dtype(self.dtype)
        self.data = {int(i): cast(v, self.dtype) for i, v in self.data.items()}
        for i in self.data:
            if not 0 <= i < self.size:
                raise IndexOutOfBound(f"entry {i} outside size {self.size}")

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    @property
    def nvals(self) -> int:
        return len(self.data)

    def keys(self) -> list:
        return list(range(self.size))

    def empty_like(self, dtype=None) -> RefVector:
        return RefVector(self.size, dtype or self.dtype, {})


Ref = RefMatrix | RefVector


@dataclass
class RefMask:
    """A mask: ``structural`` (entry present) or value (present and truthy), maybe complemented."""

    source: Ref
    structural: bool = False
    complement: bool = False

    def allows(self, key) -> bool:
        if self.structural:
            hit = key in self.source.data
        else:
            hit = key in self.source.data and bool(self.source.data[key])
        return hit != self.complement


# ---- the write rule -----------------------------------------------------------------


def _empty(shape, dtype) -> Ref:
    return RefMatrix(shape, dtype) if len(shape) == 2 else RefVector(shape[0], dtype)


def _check_mask(mask: RefMask | None, shape) -> None:
    if mask is not None and tuple(mask.source.shape) != tuple(shape):
        raise DimensionMismatch(f"mask shape {mask.source.shape} does not match output {shape}")


def masked_write(C: Ref, Z: Ref, mask: RefMask | None, replace: bool) -> Ref:
    """C<mask, replace> = Z: the final step of every operation (and of assign)."""
    _check_mask(mask, C.shape)
    out = {}
    for key in set(C.data) | set(Z.data):
        if mask is None or mask.allows(key):
            if key in Z.data:
                out[key] = cast(Z.data[key], C.dtype)
        elif not replace and key in C.data:
            out[key] = C.data[key]
    result = _empty(C.shape, C.dtype)
    result.data = out
    return result


def write(
    T: Ref,
    *,
    out: Ref | None = None,
    mask: RefMask | None = None,
    accum=None,
    replace: bool = False,
) -> Ref:
    """Apply the GraphBLAS write rule to a computed result ``T``.

    Without ``out`` the output starts empty with T's shape and dtype.
    """
    C = out if out is not None else _empty(T.shape, T.dtype)
    if tuple(C.shape) != tuple(T.shape):
        raise DimensionMismatch(f"output shape {C.shape} does not match result shape {T.shape}")
    if accum is None:
        Z = T
    else:
        op = as_binary(accum)
        data = {}
        for key in set(C.data) | set(T.data):
            if key in C.data and key in T.data:
                # T is cast to the output's dtype first (GraphBLAS typecasting).
                data[key] = binary_scalar(op, C.data[key], cast(T.data[key], C.dtype))
            else:
                data[key] = C.data[key] if key in C.data else T.data[key]
        zd = {k: cast(v, C.dtype) for k, v in data.items()}
        Z = _empty(C.shape, C.dtype)
        Z.data = zd
    return masked_write(C, Z, mask, replace)


def _finish(T: Ref, out, mask, accum, replace) -> Ref:
    if out is None and mask is None and accum is None:
        return T
    return write(T, out=out, mask=mask, accum=accum, replace=replace)


# ---- multiplication ----------------------------------------------------------------


def mxm(
    A: RefMatrix, B: RefMatrix, semiring, *, mask=None, accum=None, replace=False, out=None
) -> RefMatrix:
    """C(i,j) = ⊕_k A(i,k) ⊗ B(k,j) over k where both are present (absent if no k)."""
    sr = get_semiring(semiring)
    if A.shape[1] != B.shape[0]:
        raise DimensionMismatch(f"mxm: inner dimensions differ: {A.shape} and {B.shape}")
    dt = sr.mul.result_dtype(A.dtype, B.dtype)
    brows: dict[int, list] = {}
    for (k, j), v in sorted(B.data.items()):
        brows.setdefault(k, []).append((j, v))
    prods: dict[tuple, list] = {}
    for (i, k), a in sorted(A.data.items()):
        for j, b in brows.get(k, ()):
            prods.setdefault((i, j), []).append(binary_scalar(sr.mul, a, b, dt))
    T = RefMatrix((A.shape[0], B.shape[1]), dt)
    T.data = {key: fold(sr.add, ps, dt) for key, ps in prods.items()}
    return _finish(T, out, mask, accum, replace)


def mxv(
    A: RefMatrix,
    u: RefVector,
    semiring,
    *,
    mask=None,
    accum=None,
    replace=False,
    out=None,
    method: str = "auto",
) -> RefVector:
    """w(i) = ⊕_k A(i,k) ⊗ u(k). ``method`` is accepted and ignored (one semantics)."""
    sr = get_semiring(semiring)
    if A.shape[1] != u.size:
        raise DimensionMismatch(f"mxv: matrix {A.shape} and vector ({u.size},) do not conform")
    dt = sr.mul.result_dtype(A.dtype, u.dtype)
    prods: dict[int, list] = {}
    for (i, k), a in sorted(A.data.items()):
        if k in u.data:
            prods.setdefault(i, []).append(binary_scalar(sr.mul, a, u.data[k], dt))
    T = RefVector(A.shape[0], dt)
    T.data = {i: fold(sr.add, ps, dt) for i, ps in prods.items()}
    return _finish(T, out, mask, accum, replace)


def vxm(
    u: RefVector,
    A: RefMatrix,
    semiring,
    *,
    mask=None,
    accum=None,
    replace=False,
    out=None,
    method: str = "auto",
) -> RefVector:
    """w(j) = ⊕_k u(k) ⊗ A(k,j) (u is the left operand of ⊗)."""
    sr = get_semiring(semiring)
    if A.shape[0] != u.size:
        raise DimensionMismatch(f"vxm: vector ({u.size},) and matrix {A.shape} do not conform")
    dt = sr.mul.result_dtype(u.dtype, A.dtype)
    prods: dict[int, list] = {}
    for (k, j), a in sorted(A.data.items()):
        if k in u.data:
            prods.setdefault(j, []).append(binary_scalar(sr.mul, u.data[k], a, dt))
    T = RefVector(A.shape[1], dt)
    T.data = {j: fold(sr.add, ps, dt) for j, ps in sorted(prods.items())}
    return _finish(T, out, mask, accum, replace)


# ---- elementwise ---------------------------------------------------------------------


def _same_shape(name: str, A: Ref, B: Ref) -> None:
    if tuple(A.shape) != tuple(B.shape):
        raise DimensionMismatch(f"{name}: shapes differ: {A.shape} and {B.shape}")


def ewise_add(A: Ref, B: Ref, op, *, mask=None, accum=None, replace=False, out=None) -> Ref:
    """Union: op(a, b) where both are present, else the present value (cast)."""
    _same_shape("ewise_add", A, B)
    bop = as_binary(op)
    dt = bop.result_dtype(A.dtype, B.dtype)
    T = _empty(A.shape, dt)
    data = {}
    for key in set(A.data) | set(B.data):
        if key in A.data and key in B.data:
            data[key] = binary_scalar(bop, A.data[key], B.data[key], dt)
        else:
            data[key] = cast(A.data[key] if key in A.data else B.data[key], dt)
    T.data = data
    return _finish(T, out, mask, accum, replace)


def ewise_mult(A: Ref, B: Ref, op, *, mask=None, accum=None, replace=False, out=None) -> Ref:
    """Intersection: op(a, b) where both are present."""
    _same_shape("ewise_mult", A, B)
    bop = as_binary(op)
    dt = bop.result_dtype(A.dtype, B.dtype)
    T = _empty(A.shape, dt)
    T.data = {k: binary_scalar(bop, A.data[k], B.data[k], dt) for k in set(A.data) & set(B.data)}
    return _finish(T, out, mask, accum, replace)


def apply(
    A: Ref, op, *, left=None, right=None, mask=None, accum=None, replace=False, out=None
) -> Ref:
    """op(x) for a UnaryOp; op(left, x) or op(x, right) for a BinaryOp bound to a scalar.

    The bound scalar takes A's dtype.
    """
    if isinstance(op, UnaryOp) or (isinstance(op, str) and left is None and right is None):
        uop = op if isinstance(op, UnaryOp) else get_unary(op)
        dt = uop.result_dtype(A.dtype)
        vals = {k: unary_scalar(uop, v, dt) for k, v in A.data.items()}
    else:
        bop = as_binary(op)
        if (left is None) == (right is None):
            raise InvalidValue("apply with a BinaryOp needs exactly one of left= or right=")
        s = scalar(left if left is not None else right, A.dtype)
        dt = bop.result_dtype(A.dtype, A.dtype)
        if left is not None:
            vals = {k: binary_scalar(bop, s, v, dt) for k, v in A.data.items()}
        else:
            vals = {k: binary_scalar(bop, v, s, dt) for k, v in A.data.items()}
    T = _empty(A.shape, dt)
    T.data = vals
    return _finish(T, out, mask, accum, replace)


def select(A: Ref, op, thunk=None, *, mask=None, accum=None, replace=False, out=None) -> Ref:
    """Keep the entries where ``op(x, i, j, thunk)`` holds (vectors: i = index, j = 0)."""
    iop = op if isinstance(op, IndexUnaryOp) else get_indexunary(op)
    if iop.thunk_type == "index":
        k = np.int64(0 if thunk is None else thunk)
    else:
        k = scalar(0 if thunk is None else thunk, A.dtype)
    data = {}
    for key, v in A.data.items():
        i, j = key if isinstance(key, tuple) else (key, 0)
        if index_unary_scalar(iop, v, i, j, k):
            data[key] = v
    T = _empty(A.shape, A.dtype)
    T.data = data
    return _finish(T, out, mask, accum, replace)


# ---- reductions and structure ------------------------------------------------------------


def reduce(A: Ref, op, *, axis=None, mask=None, accum=None, replace=False, out=None):
    """axis=None: a scalar (identity if empty); axis 1/"rows" or 0/"columns": a vector.

    Rows (columns) with no entries are absent from the vector.
    """
    mon = op if isinstance(op, Monoid) else as_monoid(op)
    dt = A.dtype
    if axis is None:
        return fold(mon, [v for _, v in sorted(A.data.items())], dt)
    if isinstance(A, RefVector):
        raise InvalidValue("a vector reduces with axis=None only")
    ax = {1: 1, "rows": 1, 0: 0, "columns": 0}[axis]
    groups: dict[int, list] = {}
    for (i, j), v in sorted(A.data.items()):
        groups.setdefault(i if ax == 1 else j, []).append(v)
    T = RefVector(A.shape[0] if ax == 1 else A.shape[1], dt)
    T.data = {g: fold(mon, vs, dt) for g, vs in groups.items()}
    return _finish(T, out, mask, accum, replace)


def transpose(A: RefMatrix, *, mask=None, accum=None, replace=False, out=None) -> RefMatrix:
    T = RefMatrix((A.shape[1], A.shape[0]), A.dtype)
    T.data = {(j, i): v for (i, j), v in A.data.items()}
    return _finish(T, out, mask, accum, replace)


def _index_list(idx, n: int) -> list[int]:
    if idx is None:
        return list(range(n))
    out = [int(i) for i in np.asarray(idx).reshape(-1)]
    for i in out:
        if not 0 <= i < n:
            raise IndexOutOfBound(f"index {i} out of range for dimension {n}")
    return out


def extract(
    A: Ref,
    rows: Sequence[int] | None = None,
    cols: Sequence[int] | None = None,
    *,
    mask=None,
    accum=None,
    replace=False,
    out=None,
) -> Ref:
    """Matrix: Z(a, b) = A(rows[a], cols[b]); vector: ``extract(u, indices)``."""
    if isinstance(A, RefVector):
        idx = _index_list(rows, A.size)
        T = RefVector(len(idx), A.dtype)
        T.data = {a: A.data[i] for a, i in enumerate(idx) if i in A.data}
    else:
        r = _index_list(rows, A.shape[0])
        c = _index_list(cols, A.shape[1])
        T = RefMatrix((len(r), len(c)), A.dtype)
        T.data = {
            (a, b): A.data[(i, j)]
            for a, i in enumerate(r)
            for b, j in enumerate(c)
            if (i, j) in A.data
        }
    return _finish(T, out, mask, accum, replace)


def assign(
    C: Ref,
    value,
    rows: Sequence[int] | None = None,
    cols: Sequence[int] | None = None,
    *,
    mask=None,
    accum=None,
    replace=False,
) -> Ref:
    """GrB_assign: Z = C; Z(rows, cols) = accum(C(rows, cols), value) or value; C<mask> = Z.

    ``value`` is a RefMatrix/RefVector shaped like the region, or a scalar (every
    position of the region gets it). Where a region position has no value entry, Z
    loses it without accum and keeps C's entry with accum. Indices must be unique.
    """
    if isinstance(C, RefVector):
        targets = {(a,): (i,) for a, i in enumerate(_index_list(rows, C.size))}
        region = (len(targets),)
        unkey = {(i,): i for i in range(C.size)}
    else:
        r = _index_list(rows, C.shape[0])
        c = _index_list(cols, C.shape[1])
        targets = {(a, b): (i, j) for a, i in enumerate(r) for b, j in enumerate(c)}
        region = (len(r), len(c))
        unkey = None
    if len(set(targets.values())) != len(targets):
        raise InvalidValue("assign: duplicate indices are not allowed")
    op = as_binary(accum) if accum is not None else None
    if isinstance(value, (RefMatrix, RefVector)):
        if tuple(value.shape) != region:
            raise DimensionMismatch(
                f"assign: value shape {value.shape} does not match region {region}"
            )
        vdata = {(k if isinstance(k, tuple) else (k,)): v for k, v in value.data.items()}
        get = vdata.get
    else:
        s = scalar(value, C.dtype)

        def get(_k):
            return s

    Z = dict(C.data)
    for src, dst in targets.items():
        key = dst if unkey is None else unkey[dst]
        v = get(src)
        if v is None:
            if op is None:
                Z.pop(key, None)
        elif op is not None and key in C.data:
            Z[key] = binary_scalar(op, C.data[key], cast(v, C.dtype))
        else:
            Z[key] = v
    Zref = _empty(C.shape, C.dtype)
    Zref.data = {k: cast(v, C.dtype) for k, v in Z.items()}
    return masked_write(C, Zref, mask, replace)


# ---- closure (full dense blocks) -------------------------------------------------------------


def identity_matrix(n: int, semiring, dtype) -> RefMatrix:
    """I: ``one`` on the diagonal and the zero elsewhere, every entry present."""
    sr = get_semiring(semiring)
    if getattr(sr, "one", None) is None:
        raise InvalidValue(f"semiring {sr.name} declares no multiplicative identity (one=)")
    one = scalar(sr.one, dtype)
    zero = sr.zero_for(dtype)
    return RefMatrix(
        (n, n), dtype, {(i, j): one if i == j else zero for i in range(n) for j in range(n)}
    )


def closure(A: RefMatrix, semiring) -> RefMatrix:
    """A* = I ⊕ A ⊕ A² ⊕ … by iterating R ← I ⊕ R ⊗ A until R stops changing.

    Raises ValueError if it has not settled after n + 1 rounds (a cycle keeps
    improving paths, e.g. a negative cycle under min_plus). Needs the semiring's one.
    """
    sr = get_semiring(semiring)
    n = A.shape[0]
    if A.shape != (n, n):
        raise DimensionMismatch(f"closure: A must be square, got shape {A.shape}")
    eye = identity_matrix(n, sr, A.dtype)
    R = ewise_add(eye, A, sr.add)
    for _ in range(n + 1):
        nxt = ewise_add(eye, mxm(R, A, sr), sr.add)
        if nxt.data == R.data:
            return R
        R = nxt
    raise InvalidValue(f"closure under {sr.name} does not settle: a cycle keeps improving paths")


def mxm_accumulate(A: RefMatrix, B: RefMatrix, C: RefMatrix, semiring) -> RefMatrix:
    """C ⊕ A ⊗ B (a new matrix; the operation itself updates C in place)."""
    sr = get_semiring(semiring)
    return ewise_add(C, mxm(A, B, sr), sr.add)


def identity_of(op: Monoid | str, dtype):
    """The identity of a monoid (or built-in monoid name) as a scalar of ``dtype``."""
    return as_monoid(op).identity_for(dtype)
