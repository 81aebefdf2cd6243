"""Fused frontier loops for BFS and Bellman-Ford on the CPU, compiled with Numba.

The CPU twins of ``kleene/backends/cuda/frontier.py``: the same signatures and results
as the composed loops of ``kleene.engine.frontier`` (tests/test_cpu_frontier.py checks
them against each other), each level or round one pass over the frontier's edges
in a compiled loop, with no Python between levels.

Both loops are sequential: a road graph's levels are small, where threads would
cost more than they save, and a sequential pass gives scheduling-independent
results for free. They release the GIL (``nogil``), so several searches can run
on threads at once. Compiled on first use and cached on disk (``cache=True``).
What makes them as fast as scipy's ``breadth_first_order``: CSR arrays passed as
unsigned views (no negative-index checks), one state word per vertex (BFS: the
level, or level << 32 | parent, so the smallest-parent rule is one compare on the
word just loaded), and each level's loop in a function of its own (Numba types a
variable once per function: loops sharing one get slower code).

Numba is optional: without it ``bfs_levels`` and ``bellman_ford`` are None, so a
back end that exports them has no fused loops (``getattr(be, name, None)`` is None)
and the composed forms run.
"""

from __future__ import annotations

import numpy as np

from kleene.backends import direction
from kleene.errors import InvalidValue

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None
_METHOD = {"direction-optimizing": 0, "auto": 0, "push": 1, "pull": 2}


def _bfs_kernel(
    indptr, indices, t_indptr, t_indices, source, state, shift, method, to_pull, to_push, can_pull
):
    """BFS from ``source`` into ``state`` (all -1 on entry): per reached vertex its
    level, or with ``shift`` = 32 (level << 32 | parent) in an int64 state. Returns
    whether a level would have repaid building Aᵀ (method 0 with ``can_pull`` False:
    no in-edges given, so every level is pushed): its frontier's out-edges m_f are
    over 1/TO_PULL of all edges, so Beamer's rule pulls it (m_u <= nnz) and the pull
    skips edges on the scale of the nnz that the transpose costs. The rule alone also
    pulls the tail of a road graph's search, where m_u has shrunk below TO_PULL x m_f
    with a few dozen vertices in the frontier: no reason to build Aᵀ.

    CSR arrays come as unsigned views (uint64 indptr, uint32 indices): indexing
    then needs no negative-index wraparound. method: 0 direction-optimizing, 1 push,
    2 pull. One queue holds every level in turn: q[start:end] is the frontier, the
    next level is appended after it. Beamer's counts are those of kl_bfs_run
    (:class:`kleene.backends.direction.Switch`): m_f = the frontier's out-degree sum, m_u
    = the stored edges less the m_f of every pushed frontier; a push level sums its
    m_f as it walks the edges unless the switch depends on it.
    """
    n = state.size
    nnz = indices.size
    track = method == 0 and not can_pull  # push all, noting where the rule would pull
    if track:
        method = 1
    max_degree = _max_degree(indptr) if method == 0 else 0
    q = np.empty(n, dtype=np.uint32)
    unvisited = np.empty(0, dtype=np.uint32)
    n_unvisited = -1  # the list is made by the first pull level
    state[source] = 0
    q[0] = source
    start, end = 0, 1
    unexplored = nnz  # m_u
    previous = 0  # the size of the frontier before this one
    mf = 0  # this frontier's m_f, when a pull level has summed it
    pull = False
    wanted = False
    depth = 0
    while start < end:
        depth += 1
        inline = False  # this m_f is summed by the push pass (no switch can depend on it)
        nq = end - start
        if method == 0:  # as kleene.backends.direction.Switch
            if pull:
                if nq * to_push < n and nq < previous:
                    pull = False
                    unexplored -= mf
            elif nq * max_degree * to_pull > unexplored:  # might switch: m_f decides
                mf = _degree_sum(indptr, q, start, end)
                pull = mf * to_pull > unexplored
                if not pull:
                    unexplored -= mf
            else:
                inline = True
        else:
            pull = method == 2
        previous = nq
        if pull:
            if n_unvisited < 0:
                unvisited, n_unvisited = _unvisited(state)
            tail, mf, n_unvisited = _pull_level(
                indptr, t_indptr, t_indices, state, shift, depth, q, end, unvisited, n_unvisited
            )
        else:
            tail, mf = _push_level(indptr, indices, state, shift, depth, q, start, end)
            if inline:
                unexplored -= mf
            elif track:  # the rule's test on this level's m_f, summed by its push
                wanted = wanted or mf * to_pull > nnz
        start, end = end, tail
    return wanted


def _push_level(indptr, indices, state, shift, depth, q, start, end):
    """Scatter from q[start:end], appending new vertices from q[end]; returns the new
    tail and the frontier's m_f. An edge u -> v is keyed (depth << shift | u): v takes
    the key if unvisited, or if smaller (v reached in this level by a larger u), so v
    keeps its smallest frontier in-neighbour whatever the order of the queue."""
    low = (np.int64(1) << shift) - 1  # the parent's bits of a key (none with shift 0)
    base = np.int64(depth) << shift
    tail = end
    mf = 0
    for i in range(start, end):
        u = q[i]
        key = base | (u & low)
        beg, stop = indptr[u], indptr[u + np.uint32(1)]
        mf += np.int64(stop - beg)
        for e in range(beg, stop):
            v = indices[e]
            s = state[v]
            if s < 0:
                state[v] = key
                q[tail] = v
                tail += 1
            elif key < s:
                state[v] = key
    return tail, mf


def _pull_level(indptr, t_indptr, t_indices, state, shift, depth, q, end, unvisited, count):
    """Each vertex of unvisited[:count] (ascending) scans its sorted in-edges and stops
    at the first vertex of level depth - 1, the smallest. Appends the new vertices
    from q[end] and drops them (and those pushed since) from the list; returns the
    new tail, the new frontier's m_f and the list's new length."""
    low = (np.int64(1) << shift) - 1
    base = np.int64(depth) << shift
    prev = depth - 1
    tail = end
    mf = 0
    keep = 0
    for k in range(count):
        v = unvisited[k]
        if state[v] >= 0:  # reached by a push level since the list was made
            continue
        found = False
        for e in range(t_indptr[v], t_indptr[v + np.uint32(1)]):
            u = t_indices[e]
            if (state[u] >> shift) == prev:
                state[v] = base | (u & low)
                found = True
                break
        if found:
            q[tail] = v
            tail += 1
            mf += np.int64(indptr[v + np.uint32(1)] - indptr[v])
        else:
            unvisited[keep] = v
            keep += 1
    return tail, mf, keep


def _unvisited(state):
    """The vertices not reached yet, ascending, and their count."""
    out = np.empty(state.size, dtype=np.uint32)
    count = 0
    for v in range(state.size):
        if state[v] < 0:
            out[count] = v
            count += 1
    return out, count


def _degree_sum(indptr, q, start, end):
    total = 0
    for i in range(start, end):
        u = q[i]
        total += np.int64(indptr[u + np.uint32(1)] - indptr[u])
    return total


def _max_degree(indptr):
    most = 0
    for v in range(indptr.size - 1):
        most = max(most, np.int64(indptr[v + 1] - indptr[v]))
    return most


def _unpack(state, source):
    """(levels, parents) int64 from an int64 state of (level << 32 | parent) keys."""
    n = state.size
    levels = np.empty(n, dtype=np.int64)
    parents = np.empty(n, dtype=np.int64)
    for v in range(n):
        s = state[v]
        levels[v] = s >> 32
        parents[v] = -1 if s < 0 else s & 0xFFFFFFFF
    parents[source] = -1
    return levels, parents


def _bellman_ford_kernel(indptr, indices, weights, n, source):
    """Distances (inf unreachable) and whether round n still improved something.

    Round r relaxes the out-edges of the vertices improved in round r - 1 (the
    source in round 1), reading each one's distance when it is taken from the
    queue; improvements are written at once (Gauss-Seidel), and an improved vertex
    joins the next round's queue once (stamp[v] = r). After round k every walk of
    at most k edges from the source is no shorter than the distance found (a
    vertex's distance first at most a walk's prefix, set in round j < k, is
    relaxed from in round j + 1), so without a reachable negative cycle round n
    improves nothing, and with one the queue never empties: the verdict of the
    composed loop (n Jacobi rounds). At the fixed point the distances are the
    composed loop's too: the minimum over walks of their rounded left-to-right
    sums (a rounded sum is monotone in each operand).
    """
    dist = np.full(n, np.inf, dtype=np.float64)
    stamp = np.full(n, -1, dtype=np.int32)
    q_in = np.empty(n, dtype=np.uint32)
    q_out = np.empty(n, dtype=np.uint32)
    dist[source] = 0.0
    q_in[0] = source
    nq = 1
    for rnd in range(1, max(n, 1) + 1):
        nout = 0
        for i in range(nq):
            u = q_in[i]
            du = dist[u]
            for e in range(indptr[u], indptr[u + np.uint32(1)]):
                v = indices[e]
                nd = du + weights[e]
                if nd < dist[v]:
                    dist[v] = nd
                    if stamp[v] != rnd:
                        stamp[v] = rnd
                        q_out[nout] = v
                        nout += 1
        if nout == 0:
            return dist, False
        nq = nout
        q_in, q_out = q_out, q_in
    return dist, True


if HAVE_NUMBA:  # compiled on first call (per argument types), then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _push_level, _pull_level, _unvisited = _jit(_push_level), _jit(_pull_level), _jit(_unvisited)
    _degree_sum, _max_degree, _unpack = _jit(_degree_sum), _jit(_max_degree), _jit(_unpack)
    _bfs_kernel, _bellman_ford_kernel = _jit(_bfs_kernel), _jit(_bellman_ford_kernel)


def _csr(opname: str, indptr, indices, n: int):
    """uint64/uint32 views of int64/int32 CSR arrays (converted once if need be)."""
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    idx = np.ascontiguousarray(indices, dtype=np.int32)
    if ptr.shape != (n + 1,) or idx.ndim != 1 or (n and int(ptr[-1]) > idx.size):
        raise InvalidValue(f"{opname}: indptr/indices are not a CSR of {n} rows")
    return ptr.view(np.uint64), idx.view(np.uint32)


def _source(opname: str, n: int, source) -> int:
    if not 0 <= int(source) < n:
        raise IndexError(f"{opname}: source {source} is out of range for {n} vertices")
    return int(source)


def _bfs_levels(
    indptr,
    indices,
    t_indptr,
    t_indices,
    n: int,
    source: int,
    parents: bool,
    method: str = "auto",
    *,
    on_pull_wanted=None,
):
    """BFS levels (int64, -1 unreachable) and parents (int64, -1 none; None unless asked).

    ``t_indptr``/``t_indices`` are Aᵀ's CSR (A's own for a symmetric graph) for the
    pull levels, or None where the caller has no in-edges at hand: then every level
    is pushed (the same levels and parents), and where a pull level would have
    skipped a good share of the edges (see ``_bfs_kernel``) ``on_pull_wanted()`` is
    called once after the search, so that a caller can build Aᵀ for the next search
    of the same graph. A vertex's parent is its smallest-numbered in-neighbour one
    level up (what the ``min_first`` product gives). "direction-optimizing" (=
    "auto") switches by Beamer's rule (:mod:`kleene.backends.direction`); "pull" needs
    the in-edges.
    """
    if method not in _METHOD:
        raise InvalidValue(f"bfs_levels: method must be one of {tuple(_METHOD)}, got {method!r}")
    n = int(n)
    s = _source("bfs_levels", n, source)
    ptr, idx = _csr("bfs_levels", indptr, indices, n)
    can_pull = t_indptr is not None and t_indices is not None
    if can_pull:
        tptr, tidx = _csr("bfs_levels", t_indptr, t_indices, n)
    elif method == "pull":
        raise InvalidValue("bfs_levels: method 'pull' needs the transpose (t_indptr, t_indices)")
    else:  # placeholders of the compiled types, never read
        tptr, tidx = _NO_PTR, _NO_IDX
    state = np.full(n, -1, dtype=np.int64 if parents else np.int32)
    shift = 32 if parents else 0
    wanted = _bfs_kernel(
        ptr,
        idx,
        tptr,
        tidx,
        s,
        state,
        shift,
        _METHOD[method],
        direction.TO_PULL,
        direction.TO_PUSH,
        can_pull,
    )
    if wanted and on_pull_wanted is not None:
        on_pull_wanted()
    if parents:
        return _unpack(state, s)
    return state.astype(np.int64), None


_NO_PTR = np.zeros(1, dtype=np.uint64)
_NO_IDX = np.zeros(0, dtype=np.uint32)


def _bellman_ford(indptr, indices, weights, n: int, source: int, nonnegative: bool = False):
    """Shortest distances (float64, inf unreachable) from ``source`` and whether a
    negative cycle is reachable (the n-th round still improved something).
    ``nonnegative`` (every weight >= 0) is the GPU loop's hint; one thread needs none."""
    n = int(n)
    s = _source("bellman_ford", n, source)
    ptr, idx = _csr("bellman_ford", indptr, indices, n)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != idx.shape:
        raise InvalidValue("bellman_ford: weights must have one value per stored edge")
    dist, negative = _bellman_ford_kernel(ptr, idx, w, n, s)
    return dist, bool(negative)


# None without Numba: the back end then has no fused loops (the composed forms run).
bfs_levels = _bfs_levels if HAVE_NUMBA else None
bellman_ford = _bellman_ford if HAVE_NUMBA else None
