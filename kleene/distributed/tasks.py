"""What runs on the workers: kleene operations on one block, or one batch of sources.

A task never writes a value it was given (Dask may hand the same object to several
tasks): it builds its own Matrix (``Matrix.from_dense`` copies), updates that, and
returns its array. The worker's device decides where the work runs: a worker that
sees a GPU moves host blocks there on first use (CuPy), others keep NumPy.
"""

from __future__ import annotations

import numpy as np

from kleene.algorithms import apsp_dense, dense_closure
from kleene.backends import gpu_available, is_cupy_array, to_host
from kleene.core import Matrix
from kleene.engine import closure, mxm_accumulate
from kleene.errors import InvalidValue
from kleene.semiring import SEMIRINGS, get_semiring

from .failures import named_task


def semiring_arg(sr):
    """What to ship for a semiring: the name of a built-in (the worker's own object, which
    the back ends know), else the object itself (pickled by value)."""
    return sr.name if SEMIRINGS.get(sr.name) is sr else sr


def _matrix(a) -> Matrix | None:
    """A private full dense Matrix of ``a`` on this worker's device (None stays None)."""
    if a is None:
        return None
    m = Matrix.from_dense(a, missing=None)
    if not is_cupy_array(a) and gpu_available():
        m = m.to("gpu")
    return m


def _out(D: Matrix, P: Matrix | None):
    return D.to_dense(), None if P is None else P.to_dense()


@named_task
def initial(sr, chunk, r0: int, c0: int, preds: bool):
    """A chunk of a dense graph (inf = no edge; bool: False = no edge) at rows r0..,
    columns c0.. → its block of D (diagonal ⊕= one on the graph's diagonal) and of P
    (P[i, j] = i for each edge off the diagonal, else -1), as apsp builds them."""
    a = chunk if is_cupy_array(chunk) or not gpu_available() else _matrix(chunk).to_dense()
    if a.dtype != np.bool_ and a.dtype.kind != "f":
        a = a.astype(np.float64)
    A = Matrix.from_dense(a, missing=False if a.dtype == np.bool_ else float("inf"))
    if A.has_nan():
        raise InvalidValue(f"G has NaN edge weights in rows {r0}..{r0 + a.shape[0] - 1}")
    if a.dtype.kind == "f" and bool((a == -np.inf).any()):
        i, j = (int(x[0]) for x in (a == -np.inf).nonzero())
        raise InvalidValue(
            f"G has a -inf edge weight, at edge ({r0 + i}, {c0 + j}): path "
            "lengths need finite weights"
        )
    semiring = get_semiring(sr)
    A = dense_closure.weights(A, semiring)
    if r0 == c0:  # a diagonal block: the same as the whole graph's D and P
        D, P = dense_closure.initial(A, semiring, preds)
        if P is not None:
            xp = A.xp
            p = P.to_dense()
            P = Matrix.from_dense(xp.where(p >= 0, p + r0, p), missing=None)
        return _out(D, P)
    D = A.to_dense(missing=semiring.zero_for(A.dtype))
    if not preds:
        return D, None
    xp = A.xp
    rows, cols, _ = A.to_coo()
    p = xp.full(D.shape, -1, dtype=np.int64)
    p[rows, cols] = rows.astype(np.int64) + r0
    return D, p


@named_task
def cycle_on_diagonal(sr, kk):
    """The first diagonal index of a diagonal block whose entry beats ``one`` (a cycle
    better than the empty path: a negative cycle for min_plus), else None."""
    return dense_closure.first_cycle(Matrix.from_dense(kk[0], missing=None), get_semiring(sr))


@named_task
def star(sr, kk):
    """The pivot block's closure: (D, P) → (D*, P*), by the dense method ``kleene.apsp``
    would close it with in one process (``dense_closure.dense_method``). A block the
    back end closes in one step goes to ``closure``; on the GPU a larger one would
    otherwise be closed by ``closure``'s blocked Floyd-Warshall over pieces one thread
    block closes (b / that size serial steps of thin products), where R-Kleene's
    products are large.
    A Boolean block keeps ``closure``, whose bit-packed kernel closes large blocks."""
    D, P = _matrix(kk[0]), _matrix(kk[1])
    semiring = get_semiring(sr)
    method, block = dense_closure.dense_method(D.nrows, D.dtype, D.xp, P is not None)
    if D.nrows <= block or D.dtype == np.bool_:
        closure(D, semiring, out=D, pred=P)
    elif method == "recursive":
        apsp_dense.recursive(semiring, D, P, block)
    else:
        apsp_dense.blocked(semiring, D, P, block)
    return _out(D, P)


@named_task
def row(sr, kk, kj):
    """A pivot-row block: D_kj ⊕= D_kk* ⊗ D_kj (its predecessors carried along)."""
    C, PC = _matrix(kj[0]), _matrix(kj[1])
    mxm_accumulate(_matrix(kk[0]), C, C, get_semiring(sr), pred_b=PC, pred_c=PC)
    return _out(C, PC)


@named_task
def column(sr, ik, kk):
    """A pivot-column block: D_ik ⊕= D_ik ⊗ D_kk*."""
    C, PC = _matrix(ik[0]), _matrix(ik[1])
    mxm_accumulate(C, _matrix(kk[0]), C, get_semiring(sr), pred_b=_matrix(kk[1]), pred_c=PC)
    return _out(C, PC)


@named_task
def trailing(sr, ij, ik, kj):
    """Any other block: D_ij ⊕= D_ik ⊗ D_kj."""
    C, PC = _matrix(ij[0]), _matrix(ij[1])
    mxm_accumulate(
        _matrix(ik[0]), _matrix(kj[0]), C, get_semiring(sr), pred_b=_matrix(kj[1]), pred_c=PC
    )
    return _out(C, PC)


def in_order(fn, _after, *args):
    """``fn(*args)``, run by the worker only after ``_after`` (the task before it on
    this worker in :mod:`kleene.distributed.grid_order`'s schedule, or None): the
    extra input fixes the order in which the worker queues its work."""
    return fn(*args)


@named_task
def host(block):
    """A block as NumPy arrays, for the client to gather."""
    return tuple(None if a is None else to_host(a) for a in block)


@named_task
def load_graph(csr):
    """A host CSR → this worker's kleene Matrix, on its GPU when it has one; kept in the
    worker's memory for the source batches that follow."""
    A = Matrix.from_scipy(csr)
    return A.to("gpu") if gpu_available() else A


def device_of(matrix: Matrix) -> str:
    """Where a worker keeps its Matrix: "cpu" or "gpu"."""
    return matrix.device


@named_task
def sources(name: str, graph: Matrix, batch, kwargs: dict, on_device: bool = False):
    """``kleene.bfs`` / ``kleene.sssp`` (``name``) from a batch of sources (a list, or one
    int) on this worker's loaded graph; host arrays back, or left on the worker's device
    (``on_device``: for results that stay distributed)."""
    from kleene import algorithms

    fn = algorithms.bfs if name == "bfs" else algorithms.sssp
    out = fn(graph, batch, **kwargs)
    if on_device:
        return out
    return tuple(to_host(a) for a in out) if isinstance(out, tuple) else to_host(out)
