"""Fused delta-stepping shortest paths from one source on the CPU, compiled with Numba.

The CPU back end's ``delta_stepping`` primitive behind
``kleene.engine.frontier_delta_stepping``, whose composed twin (buckets of public
operations in ``frontier.py``) defines the distances; tests/test_cpu_delta.py
checks the two against each other and against SciPy's Dijkstra.

Meyer and Sanders' delta-stepping as the GAP benchmark suite runs it, on one
thread: queued vertices sit in buckets of width ``delta`` (bucket b holds
b·delta <= d < (b + 1)·delta); the smallest non-empty bucket is emptied vertex
by vertex (FIFO), each relaxing all its out-edges, as GAP's ``RelaxEdges`` does:
a light edge (w <= delta) may put its target back into the current bucket, to be
taken again, a heavy one only into a later bucket. The composed form's split —
light edges until the bucket stays empty, then the heavy edges of what it
settled, once — was measured here too and lost, by about twice on road and RMAT
graphs alike: a second pass over each adjacency list whose light/heavy branch the
CPU cannot predict.

Bucket storage: a circular array of ``nslots`` doubly linked lists (head/tail per
slot, next/prev per vertex) and each queued vertex's absolute bucket number; an
improved vertex moves to its new bucket (unlink + append), so a vertex is
queued at most once and the memory is O(n + nslots). With nslots >= max weight /
delta + 3 (the usual case) a slot only ever holds one bucket; when that would be
too many slots (a tiny delta) slots are shared, entries of a later bucket are
skipped, and after a full turn of empty slots the scan jumps to the smallest
queued bucket.

Results: a vertex is improved only below its distance and an improved vertex is
queued again (its edges relaxed again later), so the loop ends at the fixed
point d(v) <= d(u) + w of every edge: the least left-to-right rounded path sum,
whatever the order of relaxations — the composed form's distances bit for bit,
and a function of the graph alone. Distances are float64; weights are read as
stored (float32/float64/int32/int64; other dtypes are converted to float64). A
distance that rounds into an earlier bucket stays in the current one, so
rounding never loses a relaxation.

Sequential: a road graph's buckets are a few hundred vertices, where threads
would cost more than they save. Releases the GIL (``nogil``); compiled on first
use and cached on disk. Without Numba ``delta_stepping`` is None and the
composed form runs.
"""

from __future__ import annotations

import numpy as np

from kleene.backends.strict_sums import strict_sums
from kleene.errors import InvalidValue

from .frontier import _csr, _source
from .tree import tight_parents

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None
_FAR = np.int64(1) << np.int64(62)  # the bucket of a distance beyond int64 buckets
_NATIVE = (np.float64, np.float32, np.int64, np.int32)  # weight dtypes compiled as stored


def _next_bucket(cur, nslots, bucket, nxt, head):
    """The smallest non-empty bucket >= cur (some vertex is queued; nslots a power of 2)."""
    for _ in range(nslots):
        v = head[cur & (nslots - 1)]
        while v >= 0:
            if bucket[v] == cur:
                return cur
            v = nxt[v]
        cur += 1
    least = _FAR + 1  # a full turn found nothing: slots are shared, jump
    for v in range(bucket.size):
        if 0 <= bucket[v] < least:
            least = bucket[v]
    return least


def _delta_kernel(indptr, indices, weights, source, dist, delta, nslots, limit):
    """Distances from ``source`` into ``dist`` (all inf on entry), exact up to ``limit``:
    the loop stops at the first bucket whose floor passes it (every distance left is
    larger); what it wrote past ``limit`` the caller drops. Allocates its scratch
    (``_delta_search`` takes it from the caller)."""
    n = dist.size
    bucket = np.full(n, -1, dtype=np.int64)
    head = np.full(nslots, -1, dtype=np.int32)
    tail = np.full(nslots, -1, dtype=np.int32)
    nxt = np.empty(n, dtype=np.int32)
    prv = np.empty(n, dtype=np.int32)
    touched = np.empty(n, dtype=np.int32)
    _delta_search(
        indptr,
        indices,
        weights,
        source,
        dist,
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


def _delta_search(
    indptr,
    indices,
    weights,
    source,
    dist,
    delta,
    nslots,
    limit,
    bucket,
    nxt,
    prv,
    head,
    tail,
    touched,
):
    """``_delta_kernel`` on the caller's scratch, so that a search bounded by ``limit``
    costs in proportion to what it reaches, not to n. Returns how many vertices it
    reached: their numbers are ``touched[:count]`` (each once, the source first).

    Scratch: ``bucket`` (n int64, a queued vertex's bucket, -1 if not queued) and
    ``head``/``tail`` (nslots int32) all -1 on entry, and left so on return (only
    the entries of reached vertices are reset); ``nxt``/``prv`` (n int32, the bucket
    lists' links) and ``touched`` (n int32) any contents.

    Each step takes the first vertex of bucket ``cur`` (FIFO) and relaxes all its
    out-edges; an improved vertex moves to its distance's bucket (``cur`` at the
    least, where it is taken again). When ``cur`` is empty, the next non-empty
    bucket. The list operations are written out in place: a helper taking the
    arrays would count references on every call.
    """
    touched[0] = source
    count = 1
    dist[source] = 0.0
    bucket[source] = 0
    nxt[source] = prv[source] = -1
    head[0] = tail[0] = source
    mask = nslots - 1  # nslots is a power of two
    queued, cur = 1, np.int64(0)
    while queued:
        slot = cur & mask
        u = head[slot]
        while u >= 0 and bucket[u] != cur:
            u = nxt[u]
        if u < 0:
            cur = _next_bucket(cur + 1, nslots, bucket, nxt, head)
            if cur * delta > limit:
                break
            continue
        p, q = prv[u], nxt[u]  # unlink u
        if p >= 0:
            nxt[p] = q
        else:
            head[slot] = q
        if q >= 0:
            prv[q] = p
        else:
            tail[slot] = p
        bucket[u] = -1
        queued -= 1
        du = dist[u]
        for e in range(indptr[u], indptr[u + np.uint32(1)]):
            v = indices[e]
            nd = du + weights[e]
            if nd < dist[v]:
                if dist[v] == np.inf:  # reached for the first time
                    touched[count] = v
                    count += 1
                dist[v] = nd
                x = nd / delta
                b = np.int64(x) if x < _FAR else _FAR
                if b < cur:  # rounded into an earlier bucket: this one takes it
                    b = cur
                old = bucket[v]
                if old == b:
                    continue
                if old >= 0:  # unlink v
                    at = old & mask
                    p, q = prv[v], nxt[v]
                    if p >= 0:
                        nxt[p] = q
                    else:
                        head[at] = q
                    if q >= 0:
                        prv[q] = p
                    else:
                        tail[at] = p
                else:
                    queued += 1
                at = b & mask  # append v to bucket b
                last = tail[at]
                prv[v] = last
                nxt[v] = -1
                if last >= 0:
                    nxt[last] = v
                else:
                    head[at] = v
                tail[at] = v
                bucket[v] = b
    for j in range(count if queued else 0):  # what the bound left queued: empty its lists
        v = touched[j]
        if bucket[v] >= 0:
            at = bucket[v] & mask
            head[at] = tail[at] = -1
            bucket[v] = -1
    return count


if HAVE_NUMBA:  # compiled on first call (per weight dtype), then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _next_bucket, _delta_search = _jit(_next_bucket), _jit(_delta_search)
    _delta_kernel = _jit(_delta_kernel)


def bucket_slots(most: float, delta: float, n: int) -> int:
    """Bucket slots for weights up to ``most``: one per bucket that a queued distance
    can be ahead of the current one (a power of two), or fewer, shared, when a tiny
    delta would need too many."""
    limit = max(1024, 2 * n)
    span = most / delta + 3 if most >= 0 else limit  # NaN: the limit
    return 1 << int(np.ceil(np.log2(min(span, limit))))


def _delta_stepping(
    indptr,
    indices,
    weights,
    n: int,
    source: int,
    delta: float,
    *,
    bounds=None,
    parents: bool = False,
    in_edges=None,
):
    """Shortest distances (float64, inf unreachable) from ``source`` by delta-stepping
    with bucket width ``delta`` (a finite number > 0). Weights must be non-negative
    (ValueError otherwise). ``bounds``: the weights' (least, greatest) where the
    caller knows them (the op caches them on the matrix); else two O(m) passes.
    ``parents``: also return ``tight_parents`` of the distances (as the CUDA loop
    does; from ``in_edges``, Aᵀ's CSR, where given); ValueError unless sums grow
    strictly (``strict_sums``)."""
    n = int(n)
    s = _source("delta_stepping", n, source)
    ptr, idx = _csr("delta_stepping", indptr, indices, n)
    w = np.ascontiguousarray(weights)
    if w.dtype not in _NATIVE:
        w = w.astype(np.float64)
    if w.shape != idx.shape:
        raise InvalidValue("delta_stepping: weights must have one value per stored edge")
    delta = float(delta)
    if not (np.isfinite(delta) and delta > 0):
        raise InvalidValue(f"delta_stepping: delta must be a finite number > 0, got {delta!r}")
    if bounds is None:
        bounds = (w.min(), w.max()) if w.size else (0.0, 0.0)
    least, most = float(bounds[0]), float(bounds[1])
    if not least >= 0:  # NaN too
        raise InvalidValue("delta_stepping: weights must be non-negative")
    nslots = bucket_slots(most, delta, n)
    if parents and not strict_sums(least, most, n):
        raise InvalidValue(
            "delta_stepping: parents need weights that grow every sum "
            "(strict_sums); use shortest_path_tree"
        )
    dist = np.full(n, np.inf, dtype=np.float64)
    _delta_kernel(ptr, idx, w, s, dist, delta, nslots, np.inf)
    if parents:
        return dist, tight_parents(ptr, idx, w, dist, in_edges=in_edges)
    return dist


# None without Numba: the back end then has no fused delta-stepping (the composed form runs).
delta_stepping = _delta_stepping if HAVE_NUMBA else None
