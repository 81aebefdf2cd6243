"""Sparse APSP: repeated SSSP in batches of sources (Harish Alg. 7) and Johnson."""

from __future__ import annotations

import numpy as np

from ..ops import Matrix, Vector, apply, gpu_memory_free, host_memory_free, mxm, reduce, to_host
from ..progress import progress_for
from .single_source import sssp

# Each batched source costs about this many bytes per vertex on the device
# (distances, frontier, candidates, masks).
_BYTES_PER_SOURCE_VERTEX = 48


def bytes_per_pair(preds: bool) -> int:
    """Host bytes per (i, j) pair of a sparse APSP: float64 distances, int64 predecessors."""
    return 8 + (8 if preds else 0)


# Besides the result: a batch of up to 256 sources in flight (measured with
# tracemalloc at about 200 bytes per source and vertex on the CPU), and slack.
BYTES_PER_VERTEX = 256 * 200
FIXED_BYTES = 64 << 20


def _batch_size(A: Matrix) -> int:
    free = host_memory_free() if A.xp is np else gpu_memory_free()
    n = max(A.nrows, 1)
    return int(max(1, min(n, 256, (0.25 * free) // (n * _BYTES_PER_SOURCE_VERTEX))))


def work(method: str, n: int) -> int:
    """Progress units of a sparse APSP: one per source (Johnson's Bellman-Ford
    potentials cost about as much as a few sources; measured well under 1%)."""
    return n + (max(1, n // 256) if method == "johnson" else 0)


def repeated_sssp(A: Matrix, preds: bool, progress=None, method: str = "auto"):
    """Distances (and predecessors) row block by row block, into host memory."""
    n = A.nrows
    dist = np.empty((n, n), dtype=np.float64)
    pred = np.empty((n, n), dtype=np.int64) if preds else None
    batch = _batch_size(A)
    with progress_for(progress, work("repeated-sssp", n), "repeated-sssp") as bar:
        for lo in range(0, n, batch):
            srcs = list(range(lo, min(n, lo + batch)))
            out = sssp(A, srcs, method=method, return_predecessors=preds)
            if preds:
                dist[lo : lo + len(srcs)] = to_host(out[0])
                pred[lo : lo + len(srcs)] = to_host(out[1])
            else:
                dist[lo : lo + len(srcs)] = to_host(out)
            bar.step(len(srcs))
    return (dist, pred) if preds else dist


def johnson(A: Matrix, preds: bool, progress=None):
    """Johnson: potentials h from Bellman-Ford off a virtual source, w'(u,v) = w + h(u) - h(v) ≥ 0,
    repeated SSSP on w', then d(u,v) = d'(u,v) - h(u) + h(v). A negative cycle raises."""
    n = A.nrows
    with progress_for(progress, work("johnson", n), "johnson") as bar:
        shifted, hh = _reweighted(A)
        bar.step(work("johnson", n) - n)
        out = repeated_sssp(shifted, preds, bar, method="delta-stepping")
        dist = out[0] if preds else out
        dist += hh[None, :] - hh[:, None]
    return (dist, out[1]) if preds else dist


def _reweighted(A: Matrix):
    """(A with non-negative weights w + h(u) - h(v), the potentials h on the host)."""
    n = A.nrows
    xp = A.xp
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
    h_full = sssp(ext, n, method="bellman-ford")  # NegativeCycleError propagates
    h = Vector.from_dense(h_full[:n], missing=None)
    neg_h = apply(h, "ainv")
    shifted = mxm(mxm(Matrix.from_diag(h), A, "min_plus"), Matrix.from_diag(neg_h), "min_plus")
    if shifted.nvals and float(reduce(shifted, "min")) < 0:  # rounding: clamp to zero
        shifted = apply(shifted, "max", right=0.0)
    return shifted, to_host(h.to_dense())
