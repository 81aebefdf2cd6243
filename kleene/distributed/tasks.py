"""What runs on the workers: kleene operations on one block, or one batch of sources.

A task never writes a value it was given (Dask may hand the same object to several
tasks): it builds its own Matrix (``Matrix.from_dense`` copies), updates that, and
returns its array. The worker's device decides where the work runs: a worker that
sees a GPU moves host blocks there on first use (CuPy), others keep NumPy.
"""

from __future__ import annotations

from ..ops import Matrix, closure, gpu_available, is_cupy_array, mxm_accumulate, to_host
from ..semiring import SEMIRINGS, get_semiring
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
def star(sr, kk):
    """The pivot block's closure: (D, P) → (D*, P*)."""
    D, P = _matrix(kk[0]), _matrix(kk[1])
    closure(D, get_semiring(sr), out=D, pred=P)
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
    mxm_accumulate(_matrix(ik[0]), _matrix(kj[0]), C, get_semiring(sr), pred_b=_matrix(kj[1]),
                   pred_c=PC)  # fmt: skip
    return _out(C, PC)


@named_task
def host(block):
    """A block as NumPy arrays, for the client to gather."""
    return tuple(None if a is None else to_host(a) for a in block)


@named_task
def sources(name: str, graph, batch, kwargs: dict):
    """``kleene.bfs`` / ``kleene.sssp`` (``name``) from a batch of sources (a list, or one
    int), on this worker's device; host arrays back."""
    from .. import algorithms

    fn = algorithms.bfs if name == "bfs" else algorithms.sssp
    if gpu_available():
        graph = Matrix.from_scipy(graph).to("gpu")
    out = fn(graph, batch, **kwargs)
    return tuple(to_host(a) for a in out) if isinstance(out, tuple) else to_host(out)
