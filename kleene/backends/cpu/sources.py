"""Fused multi-source shortest paths on the CPU: one compiled search per source, over the cores.

The CPU back end's ``dijkstra_rows`` primitive behind ``kleene.engine.multi_source_sssp``
(whose composed twin, multi-source Bellman-Ford over public operations, defines
the distances; tests/test_cpu_sources.py checks the two against each other).
Each source is an independent search written straight into its row of the (k, n)
result; the sources are shared among the threads with ``numba.prange``. A row
depends on nothing but its source, so the results do not depend on the
scheduling or the thread count.

Which search: the one single-source ``kleene.sssp`` runs, so that k sources never
cost more than k single-source calls. That is delta-stepping (``cpu/delta.py``,
bucket width the mean positive weight), which beats Dijkstra's heap on road
graphs (many levels, small buckets) and ties it on low-diameter ones; with
predecessors, each vertex then takes its smallest-numbered tight in-neighbour
(``cpu/tree.py``), a shortest-path tree whenever sums grow strictly
(``kleene.engine.strict_sums``: every weight > 0 and above the rounding step). Where
they may not (zero weights), the predecessors come from Dijkstra over an indexed
4-ary heap, whose scan order makes them a tree also across zero-weight cycles.

Dijkstra's predecessor rule (deterministic): the predecessor of v is the vertex
whose scan first set v's final distance by a strict improvement. Dijkstra scans
vertices in an order where each one's final distance is known when it is
scanned, so ``pred[v]`` was scanned before v: the chains lead back to the source
without cycles, even across zero-weight cycles, and ``dist[pred[v]] + w(pred[v],
v) == dist[v]`` holds exactly (it is the sum that was stored). Where several
vertices offer v the same distance, the one scanned first wins: the scan order
(the heap's tie-breaking included) is a function of the graph's CSR and the
source alone, not of threads or timing.

Both searches reach the same distances bit for bit (the least left-to-right
rounded path sum). Weights must be non-negative (``dijkstra_rows`` checks, in
O(m)): callers with negative weights reweight first (Johnson). The (k, n)
results are allocated before any search, and refused with a MemoryError naming
the bytes when they cannot fit (``row_results``). Without Numba ``dijkstra_rows``
is None, so the back end has no such primitive and the composed form runs.
"""

from __future__ import annotations

import numpy as np

from kleene.backends.strict_sums import strict_sums
from kleene.errors import InvalidValue

from .delta import _delta_search, bucket_slots
from .row_results import check_rows_fit

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None


def _dijkstra_row(indptr, indices, weights, source, dist, pred, want_pred, heap, pos, limit):
    """Distances from ``source`` into ``dist`` (and predecessors into ``pred``), exact up
    to ``limit``: the scan stops at the first vertex past it (the caller drops the
    tentative distances beyond it).

    ``heap``/``pos``: scratch of n entries each (any contents on entry). ``heap[:size]``
    is a 4-ary min-heap of vertices keyed by ``dist`` (half a binary heap's depth:
    1.2-1.8x faster on rome99/facebook/Gnutella); ``pos[v]`` is v's slot in it, -1
    before v is queued and -2 once it is scanned. The sifts are written out here:
    as helper functions (even inlined by Numba) the loop ran 1.8x slower.
    """
    n = dist.size
    for v in range(n):
        dist[v] = np.inf
        pos[v] = -1
    if want_pred:
        for v in range(n):
            pred[v] = -1
    dist[source] = 0.0
    heap[0] = source
    pos[source] = 0
    size = 1
    while size:
        u = heap[0]
        if dist[u] > limit:  # every vertex left is farther
            break
        pos[u] = -2
        size -= 1
        if size:  # sift the last entry down from the root
            x = heap[size]
            key = dist[x]
            at = 0
            while True:
                first = 4 * at + 1
                if first >= size:
                    break
                best = first
                best_key = dist[heap[first]]
                for c in range(first + 1, min(first + 4, size)):
                    ck = dist[heap[c]]
                    if ck < best_key:
                        best = c
                        best_key = ck
                if key <= best_key:
                    break
                y = heap[best]
                heap[at] = y
                pos[y] = at
                at = best
            heap[at] = x
            pos[x] = at
        du = dist[u]
        for e in range(indptr[u], indptr[u + np.uint32(1)]):
            v = indices[e]
            nd = du + weights[e]
            if nd < dist[v]:  # never true for a scanned v: weights are >= 0
                dist[v] = nd
                if want_pred:
                    pred[v] = u
                at = pos[v]
                if at < 0:  # not queued yet: append
                    at = size
                    size += 1
                while at > 0:  # sift v up
                    parent = (at - 1) >> 2
                    y = heap[parent]
                    if dist[y] <= nd:
                        break
                    heap[at] = y
                    pos[y] = at
                    at = parent
                heap[at] = v
                pos[v] = at


def _rows_range(indptr, indices, weights, sources, dist, pred, want_pred, first, step, limit):
    """Rows first, first + step, ... of ``dist`` (and ``pred``), each from its source,
    on this thread with one heap. Without ``want_pred``, ``pred`` has rows of length
    0, never written."""
    k = sources.size
    n = dist.shape[1]
    heap = np.empty(n, dtype=np.uint32)
    pos = np.empty(n, dtype=np.int32)
    for i in range(first, k, step):
        d = dist[i]
        _dijkstra_row(indptr, indices, weights, sources[i], d, pred[i], want_pred, heap, pos, limit)
        if limit < np.inf:
            for v in range(n):
                if d[v] > limit:
                    d[v] = np.inf
                    if want_pred:
                        pred[i][v] = -1


def _rows_kernel(indptr, indices, weights, sources, dist, pred, want_pred, workers, limit):
    """Row i of ``dist`` (and ``pred``) from ``sources[i]``; worker w takes rows w,
    w + workers, ... (interleaved: sources of unequal cost spread evenly)."""
    for w in numba.prange(workers):
        _rows_range(indptr, indices, weights, sources, dist, pred, want_pred, w, workers, limit)


def _delta_rows_range(
    indptr, indices, weights, sources, dist, pred, want_pred, delta, nslots, first, step, limit
):
    """Rows first, first + step, ... as ``_rows_range`` by delta-stepping; with
    ``want_pred`` (strict sums only) each reached vertex's smallest tight in-neighbour.
    The search's scratch is allocated once and every search resets only what it
    reached, so that past filling its row (the result is dense) a search bounded by
    ``limit`` costs in proportion to the vertices and edges within it."""
    k = sources.size
    n = dist.shape[1]
    bucket = np.full(n, -1, dtype=np.int64)
    head = np.full(nslots, -1, dtype=np.int32)
    tail = np.full(nslots, -1, dtype=np.int32)
    nxt = np.empty(n, dtype=np.int32)
    prv = np.empty(n, dtype=np.int32)
    touched = np.empty(n, dtype=np.int32)
    for i in range(first, k, step):
        d = dist[i]
        d[:] = np.inf
        count = _delta_search(
            indptr,
            indices,
            weights,
            sources[i],
            d,
            delta,
            nslots,
            limit,
            bucket,
            nxt,
            prv,
            head,
            tail,
            touched,
        )
        if limit < np.inf:
            for j in range(count):
                v = touched[j]
                if d[v] > limit:
                    d[v] = np.inf
        if want_pred:
            _reached_parents(indptr, indices, weights, d, pred[i], touched, count, n)


def _delta_rows_kernel(
    indptr, indices, weights, sources, dist, pred, want_pred, delta, nslots, workers, limit
):
    """As ``_rows_kernel`` by delta-stepping (``_delta_rows_range`` per worker).
    Bounded by ``limit``, a search costs mostly the fill of its row, alike for every
    row, so worker w takes one block of consecutive rows: it then first-touches
    memory of its own, where interleaved rows, which do not end on page boundaries,
    would share every page between two workers."""
    k = sources.size
    blocks = limit < np.inf
    for w in numba.prange(workers):
        lo = k * w // workers if blocks else 0
        hi = k * (w + 1) // workers if blocks else k
        _delta_rows_range(
            indptr,
            indices,
            weights,
            sources[lo:hi],
            dist[lo:hi],
            pred[lo:hi],
            want_pred,
            delta,
            nslots,
            0 if blocks else w,
            1 if blocks else workers,
            limit,
        )


def _reached_parents(indptr, indices, weights, d, p, touched, count, n):
    """``p`` (one row) -1 except at the reached vertices ``touched[:count]`` of finite
    distance: there the smallest u of v's tight in-edges (the rule of ``tree.py``'s
    ``_parents_kernel``), found from the out-edges of the reached vertices alone."""
    p[:] = -1
    for j in range(count):
        v = touched[j]
        if d[v] < np.inf:
            p[v] = n
    for j in range(count):
        u = touched[j]
        du = d[u]
        if not du < np.inf:
            continue
        for e in range(indptr[u], indptr[u + np.uint32(1)]):
            v = indices[e]
            if v != u and du + weights[e] == d[v] and u < p[v]:
                p[v] = u
    for j in range(count):
        v = touched[j]
        if p[v] == n:
            p[v] = -1


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _dijkstra_row, _reached_parents = _jit(_dijkstra_row), _jit(_reached_parents)
    # The rows of one thread (also called alone, for searches too small to repay
    # waking the other threads, which on a loaded machine can wait a scheduler tick
    # each), and over the cores. (Separate functions: one function compiled both
    # ways would share its disk cache entry, and one way would load the other's.)
    _rows_range, _delta_rows_range = _jit(_rows_range), _jit(_delta_rows_range)
    _rows_kernel = numba.njit(cache=True, nogil=True, parallel=True)(_rows_kernel)
    _delta_rows_kernel = numba.njit(cache=True, nogil=True, parallel=True)(_delta_rows_kernel)

# Below this many (sources × stored edges), an upper bound of the searches' work, the
# rows run on the calling thread.
_SERIAL_WORK = 1 << 21


def _dijkstra_rows(
    indptr, indices, weights, sources, predecessors: bool = False, out=None, limit=np.inf
):
    """Shortest distances from each of ``sources`` by Dijkstra, one row per source.
    ``limit``: distances past it are inf (their predecessors -1), and no search goes
    further than it needs to know that.

    ``indptr``/``indices``/``weights``: the graph's CSR (int64 / int32 / any real
    dtype, converted once if need be); weights must be >= 0 (ValueError otherwise).
    Returns (dist float64 (k, n), inf where unreachable; pred int64 (k, n), -1 for
    the source and unreachable vertices, or None unless ``predecessors``).
    ``out``: optional (dist, pred or None) C-contiguous arrays of those shapes and
    dtypes to write the results into (and return), e.g. row blocks of a larger
    result: no second allocation, no copy.
    """
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    idx = np.ascontiguousarray(indices, dtype=np.int32)
    n = ptr.size - 1
    if n < 0 or idx.ndim != 1 or (n and int(ptr[-1]) > idx.size):
        raise InvalidValue("dijkstra_rows: indptr/indices are not a CSR matrix")
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != idx.shape:
        raise InvalidValue("dijkstra_rows: weights must have one value per stored edge")
    least, most, delta = _weight_stats(w) if w.size else (0.0, 0.0, 1.0)
    if not least >= 0:  # NaN fails this too
        raise InvalidValue("dijkstra_rows: Dijkstra needs non-negative weights (reweight first)")
    limit = float(limit)
    if not limit >= 0:  # NaN too
        raise InvalidValue(f"dijkstra_rows: limit must be >= 0, got {limit}")
    src = np.ascontiguousarray(sources, dtype=np.int64).reshape(-1)
    if src.size and (int(src.min()) < 0 or int(src.max()) >= n):
        bad = src[(src < 0) | (src >= n)][0]
        raise IndexError(f"dijkstra_rows: source {bad} is out of range for {n} vertices")
    k = src.size
    if out is None:
        what = "float64 distances" + (" and int64 predecessors" if predecessors else "")
        check_rows_fit("sssp", k, n, what, 16 if predecessors else 8)
    dist, pred = _outputs(out, k, n, bool(predecessors))
    if k and n:
        # (a small search asks nothing of Numba's threads: that alone costs microseconds)
        serial = k * idx.size <= _SERIAL_WORK
        workers = 1 if serial else max(1, min(k, numba.get_num_threads()))
        serial = serial or workers == 1
        rows = pred if predecessors else np.empty((k, 0), dtype=np.int64)  # never written
        uptr, uidx = ptr.view(np.uint64), idx.view(np.uint32)
        if not predecessors or strict_sums(least, most, n):
            args = (uptr, uidx, w, src, dist, rows, bool(predecessors))
            args += (delta, bucket_slots(most, delta, n))
            if serial:
                _delta_rows_range(*args, 0, 1, limit)
            else:
                _delta_rows_kernel(*args, workers, limit)
        else:
            args = (uptr, uidx, w, src, dist, rows, bool(predecessors))
            if serial:
                _rows_range(*args, 0, 1, limit)
            else:
                _rows_kernel(*args, workers, limit)
    return dist, pred


def _weight_stats(w):
    """(least, greatest, mean of the finite positive weights or 1 if none: the bucket
    width) in one pass; NaN makes the least NaN (the caller refuses it). Any width
    gives the same distances: it orders the work, not the result. The loop has no
    branch (adding 0.0 leaves the sum, of positive terms, as it is): its only chain
    from one weight to the next is then the sum's, in the weights' order."""
    least = np.inf
    most = -np.inf
    total = 0.0
    count = 0
    nan = False
    for i in range(w.size):
        x = w[i]
        nan |= x != x
        least = min(least, x)
        most = max(most, x)
        ok = (0 < x) & (x < np.inf)
        total += x if ok else 0.0
        count += ok
    if nan:
        least = np.nan
    return least, most, (total / count if count else 1.0)


if HAVE_NUMBA:
    _weight_stats = numba.njit(cache=True, nogil=True)(_weight_stats)


def _outputs(out, k: int, n: int, predecessors: bool):
    """(dist, pred or None): ``out``'s arrays checked, or new ones."""
    if out is None:
        pred = np.empty((k, n), dtype=np.int64) if predecessors else None
        return np.empty((k, n), dtype=np.float64), pred
    dist, pred = out
    wants = [(dist, np.float64)] + ([(pred, np.int64)] if predecessors else [])
    for a, dtype in wants:
        if not (
            isinstance(a, np.ndarray)
            and a.shape == (k, n)
            and a.dtype == dtype
            and a.flags.c_contiguous
            and a.flags.writeable
        ):
            raise InvalidValue(
                f"dijkstra_rows: out arrays must be writable C-contiguous "
                f"({k}, {n}) float64 / int64 arrays"
            )
    return dist, (pred if predecessors else None)


# None without Numba: the back end then has no such primitive (the composed form runs).
dijkstra_rows = _dijkstra_rows if HAVE_NUMBA else None
