"""Sparse APSP: repeated SSSP in batches of sources (Harish Alg. 7) and Johnson.

Both run ``kleene.engine.multi_source_sssp`` on a batch of sources at a time: on
the CPU a compiled search per source, the batch spread over the cores; on
the GPU a fused bit-packed multi-source Bellman-Ford, as many sources per call as
fit in GPU memory (a few thousand vertices: every source in one call), each batch
written straight into its rows of the result: in GPU memory when the (n, n) arrays
fit there (``apsp_memory.need_for`` decides), else in host memory.
"""

from __future__ import annotations

import numpy as np

from kleene.backends import gpu_memory_free, host_memory_free, to_host
from kleene.core import Matrix, Vector
from kleene.engine import multi_source_sssp
from kleene.errors import NegativeCycleError
from kleene.ops import apply, mxm, reduce
from kleene.progress import progress_for

from .single_source import sssp

# Each batched source costs about this many bytes per vertex on the device
# (distances, frontier, candidates, masks; the GPU's fused sssp_rows: the batch's
# distances and predecessors, 16 B, and as much scratch).
_BYTES_PER_SOURCE_VERTEX = 48


def bytes_per_pair(preds: bool) -> int:
    """Bytes per (i, j) pair of a sparse APSP's result: float64 distances, int64
    predecessors (on the host, or on the GPU where they fit)."""
    return 8 + (8 if preds else 0)


# Besides the result: a batch of up to 256 sources in flight (measured with
# tracemalloc at about 200 bytes per source and vertex on the CPU's composed path,
# KLEENE_CPU=numpy; the fused Dijkstra writes into the result and needs only two
# n-entry arrays per thread), and slack.
BYTES_PER_VERTEX = 256 * 200
FIXED_BYTES = 64 << 20
# On the GPU, besides results kept in GPU memory: at least one group of 64 sources'
# scratch (a batch takes a quarter of what is free once the results are allocated).
DEVICE_BYTES_PER_VERTEX = 64 * _BYTES_PER_SOURCE_VERTEX
_UNWEIGHT_ROWS = 256  # rows Johnson's potentials are taken off at a time


def _batch_size(A: Matrix) -> int:
    n = max(A.nrows, 1)
    if A.xp is np:
        free = host_memory_free()
        return int(max(1, min(n, 256, (0.25 * free) // (n * _BYTES_PER_SOURCE_VERTEX))))
    # GPU: one fused call runs its sources in as few launches as memory allows, so
    # the batch is as large as a quarter of the free memory holds (fewer calls and
    # host copies; rome99's 3,353 sources are one call).
    free = gpu_memory_free()
    return int(max(1, min(n, (0.25 * free) // (n * _BYTES_PER_SOURCE_VERTEX))))


def work(method: str, n: int) -> int:
    """Progress units of a sparse APSP: one per source (Johnson's Bellman-Ford
    potentials cost about as much as a few sources; measured well under 1%)."""
    return n + (max(1, n // 256) if method == "johnson" else 0)


def repeated_sssp(A: Matrix, preds: bool, progress=None):
    """Distances (and predecessors) row block by row block: ``multi_source_sssp`` on a
    batch of sources at a time (on the CPU one compiled search per source, the batch
    spread over the cores), into GPU memory for a GPU graph whose results fit there,
    else host memory. Weights must be >= 0."""
    return _rows(A, preds, progress, "repeated-sssp", None)


def johnson(A: Matrix, preds: bool, progress=None):
    """Johnson: potentials h from Bellman-Ford off a virtual source, w'(u,v) = w + h(u) - h(v) ≥ 0,
    repeated SSSP on w', then d(u,v) = d'(u,v) - h(u) + h(v) (predecessors unchanged:
    reweighting changes every path from u to v by the same h(u) - h(v)). A negative
    cycle raises. Without negative weights h = 0: no Bellman-Ford, no reweighting."""
    n = A.nrows
    with progress_for(progress, work("johnson", n), "johnson") as bar:
        shifted, h = _reweighted(A)
        bar.step(work("johnson", n) - n)
        return _rows(shifted, preds, bar, "johnson", h)


def _rows(A: Matrix, preds: bool, progress, label: str, h):
    """The (n, n) results a batch of sources at a time; with potentials ``h`` (host
    array or None) each batch's distances are un-reweighted as they arrive."""
    from .apsp_memory import need_for  # (apsp_memory sizes this module's needs)

    n = A.nrows
    xp = A.xp
    # A GPU graph's results stay in GPU memory where they fit: copying n² results to
    # host memory costs several times the searches themselves.
    need = need_for("apsp", n, label, preds, A.dtype, xp)
    on_device = xp is not np and need.where != "host memory"
    rx = xp if on_device else np
    dist = rx.empty((n, n), dtype=np.float64)
    pred = rx.empty((n, n), dtype=np.int64) if preds else None
    if h is not None:
        h = rx.asarray(h)
    batch = _batch_size(A)
    in_place = xp is rx  # written in place: no batch buffer, no copy
    with progress_for(progress, n, label) as bar:
        for lo in range(0, n, batch):
            hi = min(n, lo + batch)
            srcs = np.arange(lo, hi)
            if in_place:
                block = (dist[lo:hi], pred[lo:hi] if preds else None)
                multi_source_sssp(A, srcs, predecessors=preds, out=block)
            else:
                d, p = multi_source_sssp(A, srcs, predecessors=preds)
                _to_rows(dist[lo:hi], d)
                if preds:
                    _to_rows(pred[lo:hi], p)
            if h is not None:  # a few rows at a time: the (rows, n) temporary stays small
                for a in range(lo, hi, _UNWEIGHT_ROWS):
                    b = min(hi, a + _UNWEIGHT_ROWS)
                    dist[a:b] += h[None, :] - h[a:b, None]
            bar.step(hi - lo)
    return (dist, pred) if preds else dist


def _to_rows(target: np.ndarray, block) -> None:
    """A device block copied straight into its host rows (no host temporary: on a
    few thousand vertices the copies, not the search, dominated)."""
    get = getattr(block, "get", None)
    if get is None:
        target[...] = to_host(block)
    else:
        get(out=target)


def _reweighted(A: Matrix):
    """(A with non-negative weights w + h(u) - h(v), the potentials h on the host);
    (A, None) when no weight is negative (h = 0)."""
    n = A.nrows
    xp = A.xp
    if not A.nvals or float(reduce(A, "min")) >= 0:
        return A, None
    rows, cols, vals = A.to_coo()
    if vals.dtype != np.float64:  # potentials come back in float64
        vals = vals.astype(np.float64)
        A = Matrix.from_edges(rows, cols, vals, n)
    virtual = xp.full(n, n, dtype=np.int64)
    ext = Matrix.from_edges(
        xp.concatenate([rows, virtual]),
        xp.concatenate([cols, xp.arange(n, dtype=np.int64)]),
        xp.concatenate([vals, xp.zeros(n, vals.dtype)]),
        n + 1,
    )
    try:
        h_full = sssp(ext, n, method="bellman-ford")
    except NegativeCycleError as e:  # the virtual source reaches every vertex
        raise NegativeCycleError(
            "apsp: the graph has a negative cycle (found by Johnson's Bellman-Ford pass, "
            "which reaches every vertex); shortest paths through it are undefined"
        ) from e
    h = Vector.from_dense(h_full[:n], missing=None)
    neg_h = apply(h, "ainv")
    shifted = mxm(mxm(Matrix.from_diag(h), A, "min_plus"), Matrix.from_diag(neg_h), "min_plus")
    if shifted.nvals and float(reduce(shifted, "min")) < 0:  # rounding: clamp to zero
        shifted = apply(shifted, "max", right=0.0)
    return shifted, to_host(h.to_dense())
