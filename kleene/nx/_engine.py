"""The semiring computations behind the NetworkX functions, on a ``KleeneGraph``.

* ``bfs_levels``: breadth-first search that visits vertices in NetworkX's order.
  One masked ``vxm`` over ``min_plus`` per level: the frontier carries
  ``key(u) = position(u) * bound`` (its place in the level's queue) and the rank
  matrix R[u, v] the position of v among u's neighbours, so ``min_u key(u) + R[u, v]``
  names, for each newly reached v, the first frontier vertex that reaches it
  and in which order: the parent and the queue order NetworkX's BFS produces.
* ``shortest_tree``: distances and a shortest-path tree from ``kleene.sssp``
  (Bellman-Ford over ``min_plus``; several sources through a virtual source).
* ``paths_from_tree``: the path of every reached vertex from predecessors.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from kleene.algorithms import bfs, sssp
from kleene.core import Mask, Matrix, Vector
from kleene.errors import NegativeCycleError
from kleene.ops import vxm

from ._order import ordered_adjacency, ordered_weights, settle, settle_rows, walk
from .graph import KleeneGraph

NEGATIVE_CYCLE = "Negative cycle detected."


def host(a) -> np.ndarray:
    """A NumPy array from a NumPy or CuPy one."""
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def number(x, integral: bool):
    """A Python int (integral weights) or float: never a NumPy scalar."""
    return int(x) if integral else float(x)


def level_count(limit) -> int | None:
    """How many levels past the sources NetworkX's BFS expands for a ``cutoff`` or
    ``depth_limit`` (None: all). It expands level d while ``d < limit``: ceil(limit)
    levels for a limit > 0, none for a limit <= 0 or NaN, all for None or inf.

    >>> [level_count(x) for x in (None, -1, 0, 0.5, 1, 1.5, float("inf"))]
    [None, 0, 0, 1, 1, 2, None]
    """
    if limit is None:
        return None
    if not limit > 0:  # (NaN too: NetworkX's ``0 < nan`` is False)
        return 0
    if limit == math.inf:
        return None
    return min(math.ceil(limit), _ALL_LEVELS)


_ALL_LEVELS = 1 << 62  # more levels than any graph has (a bound the compiled walk takes)


def bfs_levels(G: KleeneGraph, sources, *, reverse: bool = False, depth_limit=None):
    """Yield (vertices, parents) per BFS level, vertices in NetworkX's queue order.

    ``sources``: vertex ids (level 0, in the given order, repeats dropped).
    ``parents[i]`` is the parent of ``vertices[i]`` (-1 at level 0). Levels stop
    after ``depth_limit``, read as NetworkX reads it (:func:`level_count`).
    """
    depth_limit = level_count(depth_limit)
    n = G.n
    first = list(dict.fromkeys(int(s) for s in sources))
    level = np.asarray(first, dtype=np.int64)
    yield level, np.full(level.size, -1, np.int64)
    if n == 0 or level.size == 0:
        return
    if walk is not None:  # the fused twin: one compiled pass on the host, whatever the
        # device (the output is host data in a host order; on the GPU the level loop
        # below costs a host round trip a level: 1 s on the 619 levels of NY)
        R, _ = G.rank_matrix(reverse=reverse, device="cpu")
        yield from _walked(G, R, first, reverse, depth_limit)
        return
    R, bound = G.rank_matrix(reverse=reverse)
    seen_at = np.zeros(n, np.bool_)
    seen_at[level] = True
    depth = 0
    while level.size and (depth_limit is None or depth < depth_limit) and not seen_at.all():
        keys = np.arange(level.size, dtype=np.int64) * bound
        q = Vector.from_coo(level, keys, n)
        if _on_gpu(R):
            q = q.to("gpu")
        visited = Vector.from_dense(seen_at, missing=False)
        if _on_gpu(R):
            visited = visited.to("gpu")
        t = vxm(
            q, R, "min_plus", mask=Mask(visited, structural=False, complement=True), replace=True
        )
        idx, key = (host(x) for x in t.to_coo())
        if idx.size == 0:
            return
        order = np.argsort(key, kind="stable")
        idx, key = idx[order].astype(np.int64), key[order]
        parents = level[key // bound]
        yield idx, parents
        seen_at[idx] = True
        level = idx
        depth += 1


def _walked(G: KleeneGraph, R, first, reverse: bool, depth_limit):
    """bfs_levels' levels after level 0 from the compiled walk (``_order.walk``)."""
    indptr, adj = G.cached(("ordered adjacency", reverse), lambda: ordered_adjacency(R))
    limit = -1 if depth_limit is None else int(depth_limit)
    queue, parent, starts = walk(indptr, adj, np.asarray(first, np.int64), G.n, limit)
    for k in range(1, starts.size - 1):
        lo, hi = starts[k], starts[k + 1]
        if lo == hi:
            return
        yield queue[lo:hi], parent[lo:hi]


def _on_gpu(M) -> bool:
    return getattr(M, "device", "cpu") != "cpu"


def bfs_reach(G: KleeneGraph, source: int, *, reverse: bool = False) -> np.ndarray:
    """BFS levels from ``source`` (-1 where unreachable), over the pattern matrix."""
    A = G.matrix(None, reverse=reverse)
    return host(bfs(A, int(source)))


def bfs_levels_many(G: KleeneGraph, sources, cutoff=None):
    """Levels (k, n) from each of ``sources`` (``kleene.bfs`` with a list of sources),
    -1 past ``cutoff`` (read as NetworkX reads it: :func:`level_count`)."""
    A = G.matrix(None)
    lv = host(bfs(A, [int(s) for s in sources]))
    lv = np.atleast_2d(lv)
    levels = level_count(cutoff)
    if levels is not None:
        lv = np.where(lv > levels, -1, lv)
    return lv


def beyond_cutoff(dist: np.ndarray, cutoff, sources) -> np.ndarray:
    """``dist`` (one row per source in ``sources``, or one row for them all) with NaN
    where NetworkX's Dijkstra prunes (a distance > ``cutoff``; never a source, at 0
    whatever the cutoff). NaN equals no sum: ``settle`` reaches none of them."""
    if cutoff is None:
        return dist
    with np.errstate(invalid="ignore"):
        far = dist > cutoff
    if dist.ndim == 1:
        far[np.asarray(sources, np.int64)] = False
    else:
        far[np.arange(dist.shape[0]), np.asarray(sources, np.int64)] = False
    return np.where(far, np.nan, dist)


def distances_many(G: KleeneGraph, sources, weight, cutoff=None) -> np.ndarray:
    """Distances (k, n) from each of ``sources`` (inf where unreachable, NaN past
    ``cutoff``: :func:`beyond_cutoff`): ``kleene.sssp`` with a list of sources, one
    batched search (on the CPU a compiled search per source over the cores).
    Weights must be >= 0."""
    A = G.matrix(weight, unit=True)
    dist = np.atleast_2d(host(sssp(A, [int(s) for s in sources])))
    return beyond_cutoff(dist, cutoff, sources)


def shortest_tree(G: KleeneGraph, sources, weight, *, reverse: bool = False):
    """(dist, pred): float distances (inf = unreachable) and a shortest-path tree.

    ``pred[v]`` is v's parent (-1 for the sources and unreachable vertices).
    ``kleene.sssp`` (Bellman-Ford over min_plus) computes both; several sources
    run as one search from a virtual source with a zero-weight arc to each.
    Raises ``nx.NetworkXUnbounded`` on a negative cycle reachable from a source.
    """
    sources = list(dict.fromkeys(int(s) for s in sources))
    n = G.n
    try:
        if len(sources) == 1:
            A = G.matrix(weight, reverse=reverse, unit=True)
            dist, pred = sssp(A, sources[0], return_predecessors=True)
            return host(dist), host(pred)
        w = G.arc_weights(weight)
        s, d = (G.dst, G.src) if reverse else (G.src, G.dst)
        hidden = G.hidden_arcs(weight)
        if hidden is not None:  # (None weights: skipped)
            s, d, w = s[~hidden], d[~hidden], w[~hidden]
        src = np.concatenate((s, np.full(len(sources), n, np.int64)))
        dst = np.concatenate((d, np.asarray(sources, np.int64)))
        if w is None:
            w = np.ones(s.size, np.int64)
        vals = np.concatenate((w, np.zeros(len(sources), w.dtype)))
        A = Matrix.from_edges(src, dst, vals, n + 1, dup="min")
        if _on_gpu(G.matrix(weight)):
            A = A.to("gpu")
        dist, pred = sssp(A, n, return_predecessors=True)
        dist, pred = host(dist)[:n], host(pred)[:n].copy()
        pred[pred == n] = -1
        return dist, pred
    except NegativeCycleError:
        raise nx.NetworkXUnbounded(NEGATIVE_CYCLE) from None  # (not kleene's call)


def dijkstra_order(
    G: KleeneGraph, dist: np.ndarray, sources, weight, *, reverse: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(order, pred): the reached vertices in the order NetworkX's Dijkstra settles
    them and the parents of its paths, from kleene's distances (``_order.settle``:
    ties go as NetworkX's heap breaks them, by push order). Needs weights >= 0."""
    indptr, adj, wts = _dijkstra_adjacency(G, weight, reverse)
    srcs = np.asarray(list(dict.fromkeys(int(s) for s in sources)), np.int64)
    return settle(indptr, adj, wts, np.ascontiguousarray(dist, dtype=np.float64), srcs)


def dijkstra_orders(G: KleeneGraph, dist: np.ndarray, sources, weight):
    """``dijkstra_order`` for each row of ``dist`` (k, n), row b from ``sources[b]``,
    the rows in parallel: a list of (order, pred)."""
    indptr, adj, wts = _dijkstra_adjacency(G, weight, False)
    rows = np.ascontiguousarray(dist, dtype=np.float64)
    orders, counts, preds = settle_rows(indptr, adj, wts, rows, np.asarray(sources, np.int64))
    return [(orders[b, : counts[b]], preds[b]) for b in range(len(sources))]


def _dijkstra_adjacency(G: KleeneGraph, weight, reverse: bool):
    """(indptr, adj, weights) in NetworkX's adjacency order, on the host, cached."""

    def build():
        R, _ = G.rank_matrix(reverse=reverse, device="cpu")
        indptr, adj = ordered_adjacency(R)
        W = G.matrix(
            weight, reverse=reverse and G.directed, unit=True, device="cpu", keep_hidden=True
        )  # NaN weights: never a tight arc
        return indptr, adj, ordered_weights(R, W)

    return G.cached(("dijkstra adjacency", weight, reverse), build)


def settle_order(dist: np.ndarray, sources) -> np.ndarray:
    """Reached vertices, sources first, then by distance (ties by vertex id)."""
    sources = list(dict.fromkeys(int(s) for s in sources))
    reached = np.flatnonzero(np.isfinite(dist))
    mask = np.ones(reached.size, bool)
    mask[np.isin(reached, sources)] = False
    rest = reached[mask]
    rest = rest[np.argsort(dist[rest], kind="stable")]
    return np.concatenate((np.asarray(sources, np.int64), rest))


def paths_from_tree(nodes, pred: np.ndarray, order) -> dict:
    """{node: path} for the vertices of ``order``, from a predecessor array."""
    paths: dict[int, list] = {}
    predl = pred.tolist()
    out = {}
    for v in order.tolist() if hasattr(order, "tolist") else order:
        chain = []
        u = v
        while u not in paths and u != -1:
            chain.append(u)
            u = predl[u]
        base = paths[u] if u != -1 else []
        for x in reversed(chain):
            base = base + [nodes[x]]
            paths[x] = base
        out[nodes[v]] = paths[v]
    return out


def path_to(nodes, pred: np.ndarray, target: int) -> list:
    path = []
    u = int(target)
    predl = pred
    while u != -1:
        path.append(nodes[u])
        u = int(predl[u])
    path.reverse()
    return path


def dist_dict(G: KleeneGraph, dist: np.ndarray, order, weight) -> dict:
    """{node: distance} in ``order``: Python ints for integral weights, else floats
    (converted in bulk by ``tolist``, not one NumPy scalar at a time: all-pairs
    results hold millions of entries)."""
    order = np.asarray(order, dtype=np.int64)
    vals = dist[order]
    vals = vals.astype(np.int64) if G.integral(weight) else vals.astype(np.float64)
    nodes = G.nodes
    return dict(zip([nodes[v] for v in order.tolist()], vals.tolist(), strict=True))
