"""Triangles, clustering and transitivity with NetworkX's semantics.

Undirected and unweighted, every answer comes from the per-vertex triangle counts
of ``kleene.triangles`` (the back end's degree-ordered count, or masked ``plus_pair``
products where it has none) on the graph without its self-loops (NetworkX ignores them), and the
degrees there: a vertex's clustering is ``2 T / (d (d - 1))`` and the transitivity
``sum(2 T) / sum(d (d - 1))``, NetworkX's formulas, in exact integers until the one
division. NetworkX's other forms are one masked product each, ``t = diag(S^3)`` as
the row sums of ``(S S) * S`` under the structure of S:

* directed (Fagiolo): S = A + Aᵀ of the pattern, the triangles of every orientation
  through a vertex, over ``2 (d_tot (d_tot - 1) - 2 d_recip)``;
* weighted: the arcs carry ``cbrt(w / max w)`` (NetworkX's geometric mean of the
  normalized weights: the cube root of a product is the product of the cube roots),
  so the sums are NetworkX's up to rounding;
* directed transitivity: NetworkX counts, per vertex, the pairs of its successors
  joined by an arc (``A Aᵀ`` under the structure of A).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

import kleene
from kleene.core import Matrix
from kleene.ops import ewise_add, ewise_mult, mxm, reduce, transpose
from kleene.semiring import plus_times

from ._engine import host
from .graph import KleeneGraph

__all__ = ["average_clustering", "clustering", "transitivity", "triangles"]


def _not_for_multigraph(G: KleeneGraph) -> None:
    """NetworkX's ``_triangles_and_degree_iter`` is ``@not_implemented_for("multigraph")``."""
    if G.multigraph:
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


def _simple_arcs(G: KleeneGraph):
    """(src, dst, which arcs) of the arcs that are not self-loops."""
    keep = G.src != G.dst
    return G.src[keep], G.dst[keep], keep


def _on_device(A: Matrix) -> Matrix:
    from .config import device

    return A if device() == "cpu" else A.to(device())


def counts(G: KleeneGraph) -> tuple[np.ndarray, np.ndarray]:
    """(triangles through each vertex, its degree), both without self-loops, int64."""

    def compute():
        if G.n == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        s, d, _ = _simple_arcs(G)
        A = _on_device(Matrix.from_edges(s, d, None, G.n, dup="min"))
        tri = host(kleene.triangles(A)).astype(np.int64)
        deg = np.bincount(s, minlength=G.n).astype(np.int64)
        return tri, deg

    return G.cached(("triangles",), compute)


def _closed_walks(S: Matrix, B: Matrix | None = None) -> list:
    """Row sums of ``(S B) * S`` under the structure of S (B: S), Python numbers."""
    P = mxm(S, S if B is None else B, plus_times, mask=S.S)
    return host(reduce(ewise_mult(P, S, "times"), "plus", axis=1).to_dense(0)).tolist()


def _arc_values(G: KleeneGraph, weight, keep) -> np.ndarray:
    """Per arc (of ``keep``): 1 (``weight=None``), or NetworkX's ``cbrt(w / max w)``
    with ``max w`` over every edge, self-loops included (1 for a graph without edges)."""
    if weight is None:
        return np.ones(int(keep.sum()), np.int64)
    G.no_hidden_arcs(weight, "clustering")
    w = G.arc_weights(weight)
    top = w.max() if w.size else 1
    return np.cbrt(w[keep] / top)


def _all_clustering(G: KleeneGraph, weight) -> list:
    """NetworkX's clustering of every vertex, in G's order."""
    if G.n == 0:
        return []
    if not G.directed and weight is None:
        tri, deg = counts(G)
        return [_coefficient(2 * t, d) for t, d in zip(tri.tolist(), deg.tolist(), strict=True)]
    s, d, keep = _simple_arcs(G)
    A = _on_device(Matrix.from_edges(s, d, _arc_values(G, weight, keep), G.n, dup="min"))
    S = ewise_add(A, transpose(A), "plus") if G.directed else A
    t = _closed_walks(S)
    if not G.directed:
        deg = np.bincount(s, minlength=G.n).tolist()
        return [_coefficient(ti, di) for ti, di in zip(t, deg, strict=True)]
    total = (np.bincount(s, minlength=G.n) + np.bincount(d, minlength=G.n)).tolist()
    n = np.int64(G.n)
    both = np.isin(s * n + d, d * n + s)  # arcs whose reverse is an arc too
    recip = np.bincount(s[both], minlength=G.n).tolist()
    return [
        0 if ti == 0 else ti / ((dt * (dt - 1) - 2 * db) * 2)
        for ti, dt, db in zip(t, total, recip, strict=True)
    ]


def _nbunch(G: KleeneGraph, nodes) -> list:
    """The nodes of ``nodes`` that are in ``G``, in its order (``G.nbunch_iter``)."""
    try:
        it = iter(nodes)
    except TypeError as e:
        raise nx.NetworkXError(f"nbunch is not a node or a sequence of nodes: {nodes!r}") from e
    return [v for v in it if v in G]


def triangles(G, nodes=None):
    """{node: triangles through it}, or a number for one node."""
    if G.directed:
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    if nodes is not None:
        _not_for_multigraph(G)
    tri, _ = counts(G)
    if nodes is None:
        return dict(zip(G.nodes, tri.tolist(), strict=True))
    if nodes in G:
        return int(tri[G.index[nodes]])
    return {v: int(tri[G.index[v]]) for v in _nbunch(G, nodes)}


def _coefficient(t2, d: int):
    """NetworkX's ``0 if t == 0 else t / (d * (d - 1))`` with t = 2 T (int 0 stays int)."""
    return 0 if t2 == 0 else t2 / (d * (d - 1))


def clustering(G, nodes=None, weight=None):
    """{node: clustering coefficient}, or a number for one node."""
    _not_for_multigraph(G)
    values = G.cached(("clustering", weight), lambda: _all_clustering(G, weight))
    if nodes is not None and nodes in G:
        return values[G.index[nodes]]
    ids = range(G.n) if nodes is None else [G.index[v] for v in _nbunch(G, nodes)]
    return {G.nodes[i]: values[i] for i in ids}


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """The mean clustering coefficient over ``nodes`` (all), zeros left out on request."""
    values = list(clustering(G, nodes, weight=weight).values())
    if not count_zeros:
        values = [v for v in values if abs(v) > 0]
    return sum(values) / len(values)


def transitivity(G):
    """The fraction of all possible triangles present: 3 triangles / triads."""
    _not_for_multigraph(G)
    if G.directed:  # NetworkX's count over each vertex's successors
        s, d, keep = _simple_arcs(G)
        A = _on_device(Matrix.from_edges(s, d, np.ones(s.size, np.int64), G.n, dup="min"))
        t2 = sum(_closed_walks(A, transpose(A))) if G.n else 0
        deg = np.bincount(s, minlength=G.n)
    else:
        tri, deg = counts(G)
        t2 = 2 * int(tri.sum())
    if t2 == 0:
        return 0
    return t2 / int((deg * (deg - 1)).sum())
