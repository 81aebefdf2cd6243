"""Brandes' betweenness on the CPU, compiled with Numba, sources over the cores.

The optional fused primitive behind ``kleene.betweenness_centrality`` and
``kleene.edge_betweenness_centrality``, whose composed twins (kleene operations,
``kleene.algorithms.analytics.betweenness``) define the answers;
tests/test_betweenness.py runs the two against each other and NetworkX:

- ``brandes(indptr, indices, weights, sources, n, endpoints, edges, in_indptr,
  in_indices)`` →
  ``(bc, ebc)``: the dependencies of every vertex summed over ``sources`` (float64,
  length n; with ``endpoints`` NetworkX's end-vertex terms added), and, with
  ``edges``, those of every arc (float64, one per CSR position; else None).

The graph is the CSR of its arcs (out-neighbours; an undirected graph has each edge
both ways), each row's entries distinct. ``weights=None`` counts edges: on a shallow
graph (``_lanes_fit``) 64 breadth-first searches at once (``_lanes_batch``: a bit per
search in a word per vertex and level), else one breadth-first search per source.
Otherwise ``weights`` (float64, one per CSR
position, non-negative, checked by the caller) are lengths: one Dijkstra search per
source (an indexed binary heap), as NetworkX's
``_single_source_dijkstra_path_basic``: a vertex's shortest paths come from the
vertices settled before it whose distance plus the arc's weight equals its own
(the same float sum NetworkX compares), so ties count as equal paths. With
zero-weight arcs the order of settling breaks ties between equally long paths.

Both passes read out-neighbours only: forward, a settled vertex pushes its path count
σ to the vertices it reaches first; backward, in the reverse order of settling, a
vertex pulls the coefficients ``(1 + δ(w)) / σ(w)`` of its successors w on the
shortest-path DAG (one division per vertex, kept in an array, none per arc), so
``δ(v) = σ(v) Σ_w (1 + δ(w)) / σ(w)`` and the arc v → w gets ``σ(v) (1 + δ(w)) / σ(w)``.

Sources are shared among the threads with ``numba.prange`` in fixed groups (group g
takes sources g, g + G, ...; G from the thread count and n: a few groups a thread,
handed out one at a time), each group summing into its own arrays, and the groups are
added in their order at the end: no two threads write the same place, and the sums do
not depend on the scheduling (the same thread count gives the same bits on every run).
"""

from __future__ import annotations

import numpy as np

from .twin import twin

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None


def _bfs_group(indptr, indices, srcs, n, endpoints, edges, bc, ebc, dist, sigma, coef, order):
    """Brandes by breadth-first search from each of ``srcs``, adding into bc (and ebc)."""
    for i in range(srcs.size):
        s = srcs[i]
        dist[s] = 0
        sigma[s] = 1.0
        order[0] = s
        head = 0
        tail = 1
        while head < tail:
            v = order[head]
            head += 1
            dn = dist[v] + 1
            sv = sigma[v]
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                dw = dist[w]
                if dw < 0:
                    dist[w] = dw = dn
                    order[tail] = w
                    tail += 1
                # branch-free: whether an arc is on a shortest path is unpredictable
                sigma[w] += sv if dw == dn else 0.0
        for q in range(tail - 1, -1, -1):
            v = order[q]
            dn = dist[v] + 1
            sv = sigma[v]
            acc = 0.0
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                c = coef[w] if dist[w] == dn else 0.0
                acc += c
                if edges:
                    ebc[p] += sv * c
            d = sv * acc
            coef[v] = (1.0 + d) / sv
            if v != s:
                bc[v] += d + 1.0 if endpoints else d
        if endpoints:
            bc[s] += tail - 1
        for q in range(tail):
            v = order[q]
            dist[v] = -1
            sigma[v] = 0.0


def _sift_up(heap, where, key, i):
    """Moves heap[i] up to its place (a binary min-heap of vertices keyed by key[v])."""
    v = heap[i]
    kv = key[v]
    while i > 0:
        parent = (i - 1) >> 1
        u = heap[parent]
        if key[u] <= kv:
            break
        heap[i] = u
        where[u] = i
        i = parent
    heap[i] = v
    where[v] = i


def _pop_min(heap, where, key, size):
    """Removes and returns the root; the heap then holds size - 1 vertices."""
    top = heap[0]
    where[top] = -1
    size -= 1
    if size == 0:
        return top
    v = heap[size]
    kv = key[v]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and key[heap[c + 1]] < key[heap[c]]:
            c += 1
        if key[heap[c]] >= kv:
            break
        heap[i] = heap[c]
        where[heap[i]] = i
        i = c
    heap[i] = v
    where[v] = i
    return top


def _dijkstra_group(
    indptr, indices, weights, srcs, n, endpoints, edges, bc, ebc, dist, sigma, coef, order, pos
):
    """Brandes by Dijkstra's search from each of ``srcs``, adding into bc (and ebc).
    An indexed binary heap (a vertex's place kept in ``where``: decrease-key in place,
    no stale entries)."""
    heap = np.empty(n, dtype=np.int32)
    where = np.full(n, -1, dtype=np.int32)
    for i in range(srcs.size):
        s = srcs[i]
        dist[s] = 0.0
        sigma[s] = 1.0
        heap[0] = s
        where[s] = 0
        size = 1
        settled = 0
        while size > 0:
            v = _pop_min(heap, where, dist, size)
            size -= 1
            pos[v] = settled
            order[settled] = v
            settled += 1
            d = dist[v]
            sv = sigma[v]
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                if pos[w] >= 0:
                    continue
                nd = d + weights[p]
                if nd < dist[w]:
                    dist[w] = nd
                    sigma[w] = sv
                    at = where[w]
                    if at < 0:
                        at = size
                        heap[at] = w
                        size += 1
                    _sift_up(heap, where, dist, at)
                elif nd == dist[w]:
                    sigma[w] += sv
        for q in range(settled - 1, -1, -1):
            v = order[q]
            dv = dist[v]
            pv = pos[v]
            sv = sigma[v]
            acc = 0.0
            for p in range(indptr[v], indptr[v + 1]):
                w = indices[p]
                c = coef[w] if (pos[w] > pv) & (dv + weights[p] == dist[w]) else 0.0
                acc += c
                if edges:
                    ebc[p] += sv * c
            d = sv * acc
            coef[v] = (1.0 + d) / sv
            if v != s:
                bc[v] += d + 1.0 if endpoints else d
        if endpoints:
            bc[s] += settled - 1
        # every vertex given a distance is reset, reached or only relaxed (none is
        # relaxed without being settled later, so the settled ones are all of them)
        for q in range(settled):
            v = order[q]
            dist[v] = np.inf
            sigma[v] = 0.0
            pos[v] = -1


def _lanes_batch(indptr, indices, srcs, n, endpoints, edges, bc, ebc, sig, coef, fv, fw):
    """Brandes by breadth-first search from up to 64 sources at once, adding into bc
    (and ebc): bit i of a vertex's word is search i, one pass over a frontier
    vertex's arcs serves every search that has it on that level (MS-BFS), and the
    path counts and coefficients of (vertex, search) are rows of 64 in ``sig`` and
    ``coef``. The levels are kept as (vertex, word) lists in ``fv``/``fw``."""
    one = np.uint64(1)
    zero = np.uint64(0)
    visited = np.zeros(n, dtype=np.uint64)
    word = np.zeros(n, dtype=np.uint64)  # scratch: the words of the level being built
    acc = np.zeros(64, dtype=np.float64)
    starts = [0]
    tail = 0
    for i in range(srcs.size):
        s = srcs[i]
        if word[s] == zero:
            fv[tail] = s
            tail += 1
        word[s] |= one << np.uint64(i)
        sig[s, i] = 1.0
    for q in range(tail):
        v = fv[q]
        fw[q] = word[v]
        visited[v] = word[v]
        word[v] = zero
    starts.append(tail)
    while True:  # forward: level d + 1 from level d, pushed
        for q in range(starts[-2], starts[-1]):
            u = fv[q]
            wu = fw[q]
            for p in range(indptr[u], indptr[u + 1]):
                v = indices[p]
                m = wu & ~visited[v]
                if m:
                    if word[v] == zero:
                        fv[tail] = v
                        tail += 1
                    word[v] |= m
                    while m:
                        lane = _cttz(m)
                        m &= m - one
                        sig[v, lane] += sig[u, lane]
        if tail == starts[-1]:
            break
        for q in range(starts[-1], tail):
            v = fv[q]
            fw[q] = word[v]
            visited[v] |= word[v]
            word[v] = zero
        starts.append(tail)
    depth = len(starts) - 1  # levels 0 .. depth - 1
    last = 0 if edges else 1  # level 0: the sources' arcs only (the edge form)
    for d in range(depth - 1, last - 1, -1):
        if d + 1 < depth:  # the words of level d + 1, dense
            for q in range(starts[d + 1], starts[d + 2]):
                word[fv[q]] = fw[q]
        for q in range(starts[d], starts[d + 1]):
            v = fv[q]
            wv = fw[q]
            m = wv
            while m:
                lane = _cttz(m)
                m &= m - one
                acc[lane] = 0.0
            for p in range(indptr[v], indptr[v + 1]):
                m = word[indices[p]] & wv
                if m:
                    w = indices[p]
                    e = 0.0
                    while m:
                        lane = _cttz(m)
                        m &= m - one
                        acc[lane] += coef[w, lane]
                        if edges:
                            e += sig[v, lane] * coef[w, lane]
                    if edges:
                        ebc[p] += e
            total = 0.0
            m = wv
            while m:
                lane = _cttz(m)
                m &= m - one
                dl = sig[v, lane] * acc[lane]
                coef[v, lane] = (1.0 + dl) / sig[v, lane]
                total += dl
            if d > 0:
                bc[v] += total + _ctpop(wv) if endpoints else total
        if d + 1 < depth:
            for q in range(starts[d + 1], starts[d + 2]):
                word[fv[q]] = zero
    if endpoints:  # a source: the vertices its search reached, itself excluded
        for q in range(starts[1], tail):
            m = fw[q]
            while m:
                lane = _cttz(m)
                m &= m - one
                bc[srcs[lane]] += 1.0
    # the rows used are cleared for the next batch (a vertex's lanes: its words)
    for q in range(tail):
        v = fv[q]
        m = fw[q]
        while m:
            lane = _cttz(m)
            m &= m - one
            sig[v, lane] = 0.0


def _depth(indptr, indices, s, n):
    """How many levels the breadth-first search from s has."""
    dist = np.full(n, -1, dtype=np.int32)
    order = np.empty(n, dtype=np.int32)
    dist[s] = 0
    order[0] = s
    head, tail = 0, 1
    while head < tail:
        v = order[head]
        head += 1
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            if dist[w] < 0:
                dist[w] = dist[v] + 1
                order[tail] = w
                tail += 1
    return dist[order[tail - 1]] + 1


def _run_lanes(indptr, indices, sources, n, endpoints, edges, batches):
    """``_lanes_batch`` over ``batches`` batches of at most 64 sources (batch g:
    sources g, g + B, ...), shared among the threads, summed in batch order."""
    m = indices.size
    bcs = np.zeros((batches, n), dtype=np.float64)
    ebcs = np.zeros((batches, m if edges else 0), dtype=np.float64)
    for g in numba.prange(batches):
        srcs = sources[g::batches]
        sig = np.zeros((n, 64), dtype=np.float64)
        coef = np.empty((n, 64), dtype=np.float64)
        fv = np.empty(n * 64, dtype=np.int32)  # every (vertex, level) at most once a search
        fw = np.empty(n * 64, dtype=np.uint64)
        for b0 in range(0, srcs.size, 64):
            _lanes_batch(
                indptr,
                indices,
                srcs[b0 : b0 + 64],
                n,
                endpoints,
                edges,
                bcs[g],
                ebcs[g],
                sig,
                coef,
                fv,
                fw,
            )
    bc = bcs[0].copy()
    for g in range(1, batches):  # fixed order: the same sums on every run
        bc += bcs[g]
    ebc = ebcs[0].copy()
    for g in range(1, batches):
        ebc += ebcs[g]
    return bc, ebc


def _run(indptr, indices, weights, sources, n, endpoints, edges, groups, weighted):
    m = indices.size
    bcs = np.zeros((groups, n), dtype=np.float64)
    ebcs = np.zeros((groups, m if edges else 0), dtype=np.float64)
    for g in numba.prange(groups):
        srcs = sources[g::groups]
        sigma = np.zeros(n, dtype=np.float64)
        coef = np.zeros(n, dtype=np.float64)  # (1 + δ) / σ of the vertices done
        order = np.empty(n, dtype=np.int32)
        ebc = ebcs[g]
        if weighted:
            dist = np.full(n, np.inf)
            pos = np.full(n, -1, dtype=np.int32)
            _dijkstra_group(
                indptr,
                indices,
                weights,
                srcs,
                n,
                endpoints,
                edges,
                bcs[g],
                ebc,
                dist,
                sigma,
                coef,
                order,
                pos,
            )
        else:
            hops = np.full(n, -1, dtype=np.int32)
            _bfs_group(
                indptr, indices, srcs, n, endpoints, edges, bcs[g], ebc, hops, sigma, coef, order
            )
    bc = bcs[0].copy() if groups else np.zeros(n, dtype=np.float64)
    for g in range(1, groups):  # fixed order: the same sums on every run
        bc += bcs[g]
    ebc = ebcs[0].copy() if edges and groups else np.zeros(m if edges else 0, dtype=np.float64)
    if edges:
        for g in range(1, groups):
            ebc += ebcs[g]
    return bc, ebc


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    from llvmlite import ir as _ir
    from numba.core import cgutils as _cgutils
    from numba.extending import intrinsic as _intrinsic

    def _bit_intrinsic(name: str, flag: bool):
        """An int64 from LLVM's ``name`` on a uint64 (cttz: the lowest set bit's index,
        ctpop: the set bits)."""

        @_intrinsic
        def bits(typingctx, x):
            def codegen(context, builder, signature, args):
                i64 = _ir.IntType(64)
                params = [i64, _ir.IntType(1)] if flag else [i64]
                fnty = _ir.FunctionType(i64, params)
                fn = _cgutils.get_or_insert_function(builder.module, fnty, f"llvm.{name}.i64")
                extra = [_ir.Constant(_ir.IntType(1), 0)] if flag else []
                return builder.call(fn, [args[0], *extra])

            return numba.types.int64(x), codegen

        return bits

    _cttz = _bit_intrinsic("cttz", True)
    _ctpop = _bit_intrinsic("ctpop", False)
    _seq = numba.njit(cache=True, nogil=True)
    _bfs_group = _seq(_bfs_group)
    _sift_up = numba.njit(cache=True, nogil=True, inline="always")(_sift_up)
    _pop_min = numba.njit(cache=True, nogil=True, inline="always")(_pop_min)
    _dijkstra_group = _seq(_dijkstra_group)
    _lanes_batch = _seq(_lanes_batch)
    _depth = _seq(_depth)
    # the serial variants are twins (own names in Numba's disk cache, which does not
    # tell compile options apart: see twin.py); prange runs as range in them
    _run_serial = _seq(twin(_run, "_serial"))
    _run = numba.njit(cache=True, nogil=True, parallel=True)(_run)
    _run_lanes_serial = _seq(twin(_run_lanes, "_serial"))
    _run_lanes = numba.njit(cache=True, nogil=True, parallel=True)(_run_lanes)


# Groups of sources per thread: more groups than threads, handed out one at a time,
# keep both cores busy when one is slowed by other work; each group sums into its own
# n floats, so their number is also bounded by memory.
_GROUPS_PER_THREAD = 4
_GROUP_BYTES = 1 << 29


# Below this much work (sources x (vertices + arcs)) the searches run on one thread: a
# parallel region waits for every thread at its end, and on a busy machine a thread
# that has been descheduled costs more than the searches themselves.
_PARALLEL_WORK = 1 << 22


def _groups(sources: int, n: int) -> int:
    """How many groups the sources go in: fixed by the thread count and n alone, so
    the sums (added in group order) are the same on every run."""
    threads = numba.get_num_threads()
    fit = max(threads, _GROUP_BYTES // max(8 * n, 1))
    return max(0, min(sources, _GROUPS_PER_THREAD * threads, fit))


# The 64-search batches pay off where searches are shallow (a small-world graph: one
# pass over a vertex's arcs serves the searches that reach it on the same level) and
# cost a row of 64 path counts and coefficients per vertex: they run when the search
# from the first source has at most this many levels and those rows fit this budget.
_LANES_DEPTH = 32
_LANES_BYTES = 1 << 31


def _lanes_fit(indptr, indices, sources, n: int) -> bool:
    threads = numba.get_num_threads()
    if n == 0 or threads * n * (64 * 8 * 2 + 64 * 12) > _LANES_BYTES:
        return False
    return int(_depth(indptr, indices, int(sources[0]), n)) <= _LANES_DEPTH


def brandes(
    indptr,
    indices,
    weights,
    sources,
    n: int,
    endpoints=False,
    edges=False,
    in_indptr=None,
    in_indices=None,
):
    """(bc, ebc): Brandes' dependencies summed over ``sources`` (see the module).

    ``in_indptr``/``in_indices`` (the in-arcs, which the GPU kernel pulls along) are
    not read: both passes here read out-neighbours only."""
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    weighted = weights is not None
    w = np.ascontiguousarray(weights, dtype=np.float64) if weighted else np.zeros(1)
    if not weighted and sources.size and _lanes_fit(indptr, indices, sources, int(n)):
        batches = -(-int(sources.size) // 64)  # full words: one arc pass serves 64
        run = _run_lanes if batches > 1 else _run_lanes_serial
        bc, ebc = run(indptr, indices, sources, int(n), bool(endpoints), bool(edges), batches)
        return bc, (ebc if edges else None)
    groups = _groups(int(sources.size), int(n))
    run = _run if int(sources.size) * (int(n) + indices.size) >= _PARALLEL_WORK else _run_serial
    with numba.parallel_chunksize(1):  # a group at a time to whichever thread is free
        bc, ebc = run(
            indptr, indices, w, sources, int(n), bool(endpoints), bool(edges), groups, weighted
        )
    return bc, (ebc if edges else None)
