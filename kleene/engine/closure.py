"""closure (the Kleene star of a dense block) and in-place accumulating products.

These are the building blocks of blocked and recursive APSP: ``closure`` is the
small-block base case, ``mxm_accumulate`` the C ⊕= A ⊗ B update on block views.
Both optionally carry a predecessor matrix (Floyd-Warshall's rule: when C(i,j)
strictly improves through k, its predecessor becomes B's at (k, j)).
"""

from __future__ import annotations

from kleene.backends import generic_closure as closure_generic
from kleene.backends.device import backend
from kleene.backends.memory import overlaps
from kleene.core import access
from kleene.core.checks import as_container, same_device
from kleene.core.matrix import Matrix
from kleene.errors import DimensionMismatch, DomainMismatch, InvalidValue
from kleene.semiring import Semiring, get_semiring


def _full_dense(opname: str, name: str, m: Matrix) -> None:
    as_container(opname, name, m, (Matrix,))
    if m.format != "dense" or access.present(m) is not None:
        raise InvalidValue(
            f"{opname}: {name} must be a full dense matrix (Matrix.from_dense(a, missing=None)); "
            f"got {m!r}"
        )


def _closure_semiring(opname: str, semiring) -> Semiring:
    sr = get_semiring(semiring)
    if not sr.idempotent:
        raise InvalidValue(
            f"{opname}: semiring {sr.name} has a non-idempotent add; its closure is not "
            "computed in place (the star may not exist)"
        )
    return sr


def closure(
    A: Matrix, semiring="min_plus", *, out: Matrix | None = None, pred: Matrix | None = None
) -> Matrix:
    """A* = I ⊕ A ⊕ A² ⊕ … of a square full dense matrix (Floyd-Warshall).

    The result holds, for every pair, the best path value under the semiring
    (shortest for min_plus, widest for max_min, reachability for lor_land);
    pairs with no path hold the semiring's zero. ``out=A`` (or a block view)
    computes in place. ``pred`` (int64 full matrix, -1 = none) is updated with
    each entry's predecessor of its column vertex. Needs an idempotent add.

    Example
    -------
    >>> import numpy as np, kleene
    >>> inf = np.inf
    >>> A = kleene.Matrix.from_dense(np.array([[inf, 1.0], [2.0, inf]]), missing=None)
    >>> kleene.closure(A, "min_plus").to_dense().tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    _full_dense("closure", "A", A)
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"closure: A must be square, got shape {A.shape}")
    sr = _closure_semiring("closure", semiring)
    sr.check_dtype(A.dtype)
    xp = same_device("closure", A=A, out=out, pred=pred)
    target = A if out is None else out
    if out is None:
        target = A.dup()
    elif out is not A:
        _full_dense("closure", "out", out)
        if out.shape != A.shape or out.dtype != A.dtype:
            raise InvalidValue(f"closure: out is {out!r}, A is {A!r}")
        access.values(out)[...] = access.values(A)
    if pred is not None:
        _full_dense("closure", "pred", pred)
    _closure_dense(
        backend(xp),
        sr,
        access.values(target),
        sr.one_for(A.dtype),
        None if pred is None else access.values(pred),
    )
    access.touched(target)
    return target


def mxm_accumulate(
    A: Matrix,
    B: Matrix,
    C: Matrix,
    semiring,
    *,
    pred_b: Matrix | None = None,
    pred_c: Matrix | None = None,
) -> Matrix:
    """C ⊕= A ⊗ B in place on full dense matrices or block views of one matrix.

    The operands may overlap (Buluç's in-place B ← A ⊗ B): with an idempotent add
    the in-place result is the one the closure algorithms need (Buluç §2.2);
    otherwise overlapping operands are copied first. ``pred_b``/``pred_c`` track
    predecessors (see ``closure``); each (value, predecessor) pair is then read
    consistently, also in place. Returns C.

    Example
    -------
    >>> import numpy as np, kleene
    >>> D = kleene.Matrix.from_dense(np.array([[0.0, 5.0], [1.0, 0.0]]), missing=None)
    >>> row = D.block(slice(0, 1), slice(0, 2))
    >>> _ = kleene.mxm_accumulate(row, D, row, "min_plus")
    >>> D.to_dense()[0].tolist()
    [0.0, 5.0]
    """
    for name, m in (("A", A), ("B", B), ("C", C)):
        _full_dense("mxm_accumulate", name, m)
    if A.ncols != B.nrows or (A.nrows, B.ncols) != C.shape:
        raise DimensionMismatch(f"mxm_accumulate: A is {A.shape}, B is {B.shape}, C is {C.shape}")
    sr = get_semiring(semiring)
    sr.check_dtype(C.dtype)
    if not (A.dtype == B.dtype == C.dtype):
        raise DomainMismatch(f"mxm_accumulate: dtypes differ: {A.dtype}, {B.dtype}, {C.dtype}")
    xp = same_device("mxm_accumulate", A=A, B=B, C=C)
    if (pred_b is None) != (pred_c is None):
        raise InvalidValue("mxm_accumulate: pass both pred_b and pred_c, or neither")
    a, b, c = access.values(A), access.values(B), access.values(C)
    # In place is valid for an idempotent add (the back ends handle overlapping
    # operands, predecessors included); otherwise overlapping operands are copied.
    if not sr.idempotent and (overlaps(a, c) or overlaps(b, c)):
        a, b = a.copy(), b.copy()
    pb = None if pred_b is None else access.values(pred_b)
    pc = None if pred_c is None else access.values(pred_c)
    _mxm_dense_acc(backend(xp), sr, a, b, c, pb, pc)
    access.touched(C)
    return C


def closure_base_block(n: int, dtype, xp, preds: bool = False) -> int:
    """The largest diagonal block the back end closes in one fused step for an n×n
    closure of ``dtype``: the base case a recursive closure should stop at.

    128 (one thread block's closure) unless the back end says otherwise: on the GPU
    blocks up to 2048 rows of 4- or 8-byte values without predecessors close in one
    cooperative launch, so n up to 2048 is one step and larger closures recurse down
    to 1024 (``kleene/backends/cuda/closure.py``).

    Example
    -------
    >>> import numpy as np, kleene
    >>> kleene.engine.closure_base_block(4096, np.float32, np)
    128
    """
    fn = getattr(backend(xp), "closure_base_block", None)
    return fn(n, dtype, preds) if fn else 128


def _closure_dense(be, *args):
    """The back end's fused closure kernel if it has one, else the generic one."""
    fused = getattr(be, "closure_dense", None)
    return fused(*args) if fused else closure_generic.closure_dense(be, *args)


def _mxm_dense_acc(be, *args):
    fused = getattr(be, "mxm_dense_acc", None)
    return fused(*args) if fused else closure_generic.mxm_dense_acc(be, *args)
