"""The backend graph: a networkx graph as kleene matrices, and the conversions.

``KleeneGraph`` keeps what the kleene algorithms need from a networkx graph:

* the node list (any hashable nodes; vertex ``i`` is ``nodes[i]``, in networkx's
  node order), the directed and multigraph flags;
* the arcs in networkx's adjacency order (``G.adjacency()``, read by
  ``kleene.io.networkx_arcs``, the walk ``Matrix.from_networkx`` reads by too: for
  an undirected graph each edge appears in both directions, a self-loop once;
  parallel edges of a multigraph once), with each arc's position in its tail's
  adjacency — BFS uses those positions to visit neighbours in networkx's order;
* per edge attribute, the arc weights (``default`` where an edge lacks the
  attribute; the lightest parallel edge of a multigraph, as networkx's
  ``_weight_function`` does), and the CSR ``kleene.Matrix`` built from them,
  cached per (attribute, device);
* the graph, node and edge attributes when networkx asks to preserve them
  (``transitive_closure`` returns a copy of its input with edges added).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kleene.core import Matrix
from kleene.errors import DomainMismatch, InvalidValue
from kleene.io import networkx_arcs

__all__ = ["KleeneGraph", "convert_from_nx", "convert_to_nx"]


class KleeneGraph:
    """A networkx graph converted for the kleene backend (``__networkx_backend__ = "kleene"``).

    Build one with ``kleene.nx.convert_from_nx(G)`` (networkx does it when a
    function runs with ``backend="kleene"``); pass it to networkx functions to
    skip the conversion on later calls. It does not change: a converted graph
    is a snapshot of ``G``.
    """

    __networkx_backend__ = "kleene"

    def __init__(
        self,
        nodes,
        directed: bool,
        multigraph: bool,
        src,
        dst,
        rank,
        *,
        pred_arcs=None,
        weights=None,
        graph_attrs=None,
        node_attrs=None,
        edges=None,
        hidden=None,
    ):
        self.nodes = list(nodes)
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.src = np.asarray(src, dtype=np.int64)
        self.dst = np.asarray(dst, dtype=np.int64)
        self.rank = np.asarray(rank, dtype=np.int64)
        self._pred_arcs = pred_arcs  # (src, dst, rank) in G.pred order (directed only)
        self.weights: dict[Any, np.ndarray] = dict(weights or {})
        # attributes that are None on some edge ({attribute: whether the others are all
        # integers}): NaN in ``weights`` there. NetworkX's Dijkstra skips such an edge
        # (its weight function returns None: "hidden"); its other algorithms cannot add
        # None and raise TypeError, and so does kleene (``hidden_arcs``: DomainMismatch).
        self.hidden: dict[Any, bool] = dict(hidden or {})
        self.graph_attrs = graph_attrs
        self.node_attrs = node_attrs
        self.edges = edges  # [(u, v, key, data)] when edge attributes were preserved
        self._index: dict | None = None
        self._derived: dict = {}  # what ``cached`` keeps
        self.__networkx_cache__: dict = {}

    # -- the small graph protocol networkx helpers look at ---------------------
    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable
            return False

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def __repr__(self) -> str:
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        return f"<KleeneGraph ({kind}) with {len(self.nodes)} nodes, {self.src.size} arcs>"

    # -- indices -----------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.nodes)

    @property
    def index(self) -> dict:
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.nodes)}
        return self._index

    def cached(self, key, compute):
        """``compute()`` for this graph under ``key``, computed on the first call only.

        The one place data derived from the graph lives (its matrices per weight and
        device, the adjacency in NetworkX's order): a converted graph never changes,
        so nothing is ever recomputed.

        >>> import networkx as nx
        >>> from kleene.nx import convert_from_nx
        >>> KG = convert_from_nx(nx.path_graph(3))
        >>> KG.cached("arcs", lambda: KG.src.size), KG.cached("arcs", lambda: -1)
        (4, 4)
        """
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    # -- matrices ----------------------------------------------------------------
    def arc_weights(self, weight) -> np.ndarray | None:
        """The weight of every arc for edge attribute ``weight`` (None: unweighted)."""
        if weight is None:
            return None
        if weight not in self.weights:
            if self.edges is None:
                raise KeyError(
                    f"edge attribute {weight!r} was not converted to the kleene graph; "
                    "convert with edge_attrs={%r: default}" % (weight,)
                )
            self.weights[weight], rest = _weights_from_edges(self, weight, 1)
            if rest is not None:
                self.hidden[weight] = rest
        return self.weights[weight]

    def hidden_arcs(self, weight) -> np.ndarray | None:
        """Which arcs have ``weight`` None (a boolean mask), or None when no arc has."""
        if weight is None:
            return None
        w = self.arc_weights(weight)
        return np.isnan(w) if weight in self.hidden else None

    def no_hidden_arcs(self, weight, what: str, tails=None, arcs=None) -> None:
        """TypeError if an arc whose ``weight`` is None starts at a vertex of ``tails``
        (a boolean mask over vertices; None: any vertex) and is among ``arcs`` (a mask
        over arcs; None: any), as NetworkX's ``what`` raises there when it adds or
        compares the None weight (its Dijkstra alone skips such an edge)."""
        hidden = self.hidden_arcs(weight)
        if hidden is None:
            return
        if tails is not None:
            hidden = hidden & tails[self.src]
        if arcs is not None:
            hidden = hidden & arcs
        if hidden.any():
            e = int(np.flatnonzero(hidden)[0])
            u, v = self.nodes[int(self.src[e])], self.nodes[int(self.dst[e])]
            raise DomainMismatch(
                f"edge ({u!r}, {v!r}) has weight attribute {weight!r} None: {what} cannot "
                "add it (NetworkX's Dijkstra functions skip such an edge)"
            )

    def has_infinite_weight(self, weight) -> bool:
        w = self.arc_weights(weight)
        return w is not None and w.dtype.kind == "f" and bool(np.isposinf(w).any())

    def matrix(
        self,
        weight=None,
        *,
        reverse: bool = False,
        unit: bool = False,
        device: str | None = None,
        keep_hidden: bool = False,
    ) -> Matrix:
        """The adjacency ``kleene.Matrix`` (entry (i, j): weight of arc i -> j).

        ``weight=None``: the Boolean pattern, or int64 ones with ``unit=True`` (for
        the weighted algorithms). ``reverse``: the transpose (arcs j -> i). Arcs whose
        weight is None are left out (the edges NetworkX's Dijkstra skips), or kept
        with a NaN weight with ``keep_hidden=True``; an inf weight is stored, and the
        kleene algorithms take it as no edge.
        """
        from .config import device as config_device

        dev = config_device() if device is None else device
        unit = unit and weight is None
        keep_hidden = keep_hidden and weight in self.hidden

        def build() -> Matrix:
            w = self.arc_weights(weight)
            self.no_negative_infinity(weight)
            s, d = (self.dst, self.src) if reverse else (self.src, self.dst)
            hidden = self.hidden_arcs(weight)
            if hidden is not None and not keep_hidden:
                s, d, w = s[~hidden], d[~hidden], w[~hidden]
            if unit:
                A = Matrix.from_edges(s, d, np.ones(s.size, np.int64), self.n, dup="min")
            elif w is None:
                A = Matrix.from_edges(s, d, None, self.n, dup="min")
            else:
                A = Matrix.from_edges(s, d, w, self.n, dup="min")
            return A if dev == "cpu" else A.to(dev)

        return self.cached((weight, reverse, unit, dev, keep_hidden), build)

    def no_negative_infinity(self, weight) -> None:
        """NotImplementedError naming an edge of weight -inf: kleene takes none (its
        sums would meet +inf in NaN); NetworkX runs the call instead with fallback on."""
        w = self.arc_weights(weight)
        if w is None or w.dtype.kind != "f":
            return
        bad = np.flatnonzero(w == -np.inf)
        if bad.size:
            e = int(bad[0])
            u, v = self.nodes[int(self.src[e])], self.nodes[int(self.dst[e])]
            raise NotImplementedError(
                f"kleene: edge ({u!r}, {v!r}) has weight attribute {weight!r} -inf; kleene "
                "takes no -inf weight (NetworkX runs the call with fallback on)"
            )

    def rank_matrix(
        self, *, reverse: bool = False, device: str | None = None
    ) -> tuple[Matrix, int]:
        """Int64 matrix R[u, v] = position of v among u's neighbours (networkx order).

        ``reverse`` (directed graphs): positions in the predecessor lists. Returns
        (R, bound) with every position < bound. ``device``: where R lives (None:
        the configured device).
        """
        from .config import device as config_device

        dev = config_device() if device is None else device

        def build() -> tuple[Matrix, int]:
            if reverse and self.directed:
                s, d, r = self._pred_arcs
            else:
                s, d, r = self.src, self.dst, self.rank
            bound = int(r.max()) + 1 if r.size else 1
            R = Matrix.from_edges(s, d, r.astype(np.int64), self.n, dup="min")
            return (R if dev == "cpu" else R.to(dev), bound)

        return self.cached(("rank", reverse and self.directed, dev), build)

    def has_negative_weight(self, weight) -> bool:
        w = self.arc_weights(weight)
        return w is not None and w.size > 0 and bool((w < 0).any())

    def integral(self, weight) -> bool:
        """Whether distances under ``weight`` are integers (int weights or unweighted)."""
        w = self.arc_weights(weight)
        return w is None or w.dtype.kind in "biu" or self.hidden.get(weight, False)


def _as_weights(values: list, attr) -> tuple[np.ndarray, bool | None]:
    """(weights, None), or where some are None (edges NetworkX's Dijkstra skips):
    (float weights with NaN there, whether the others are all integers)."""
    if any(v is None for v in values):
        rest = _numbers([v for v in values if v is not None], attr)
        out = np.full(len(values), np.nan)
        out[[i for i, v in enumerate(values) if v is not None]] = rest
        return out, rest.dtype.kind in "biu"
    return _numbers(values, attr), None


def _numbers(values: list, attr) -> np.ndarray:
    if not values:
        return np.zeros(0, np.int64)
    try:
        a = np.asarray(values)
    except (TypeError, ValueError) as e:
        raise DomainMismatch(f"edge attribute {attr!r} must hold numbers: {e}") from e
    if a.dtype.kind == "O":
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError) as e:
            raise DomainMismatch(f"edge attribute {attr!r} must hold numbers") from e
    if a.dtype.kind == "b":
        a = a.astype(np.int64)
    if a.dtype.kind not in "iuf":
        raise DomainMismatch(f"edge attribute {attr!r} must hold numbers, got {a.dtype}")
    if a.dtype.kind == "f":
        a = a.astype(np.float64)
        if np.isnan(a).any():
            raise InvalidValue(f"edge attribute {attr!r} holds NaN")
    else:
        a = a.astype(np.int64)
    return a


def _weights_from_edges(KG: KleeneGraph, attr, default):
    """``_as_weights`` of each arc's lightest edge, from the preserved edges."""
    parallel: dict = {}
    for u, v, _key, data in KG.edges:
        w = data.get(attr, default)
        pairs = ((u, v),) if KG.directed or u == v else ((u, v), (v, u))
        for p in pairs:
            parallel.setdefault(p, []).append(w)
    best = {p: _least(ws, attr, p) for p, ws in parallel.items()}
    nodes = KG.nodes
    arcs = zip(KG.src.tolist(), KG.dst.tolist(), strict=True)
    vals = [best[(nodes[s], nodes[d])] for s, d in arcs]
    return _as_weights(vals, attr)


def _least(weights: list, attr, arc):
    """The weight of an arc of parallel edges: the least, as NetworkX's weight function
    takes it (one edge's None stays None; None among several is NetworkX's TypeError)."""
    if len(weights) == 1:
        return weights[0]
    if any(w is None for w in weights):
        raise DomainMismatch(
            f"the parallel edges {arc!r} have weight attribute {attr!r} None on some: "
            "no least weight (NetworkX cannot compare None either)"
        )
    return min(weights)


def convert_from_nx(
    G,
    edge_attrs=None,
    node_attrs=None,
    preserve_edge_attrs=False,
    preserve_node_attrs=False,
    preserve_graph_attrs=False,
    name=None,
    graph_name=None,
    *,
    weight=None,
) -> KleeneGraph:
    """A ``KleeneGraph`` from a networkx graph, following networkx's backend signature.

    ``edge_attrs``: {attribute: default} of the edge attributes to convert (a
    missing attribute reads as ``default``; None as the default means 1, networkx's
    weight default). ``weight``: shorthand for ``edge_attrs={weight: 1}``.
    ``preserve_*_attrs=True`` keeps all graph / node / edge data (so that every
    attribute can be used later and ``convert_to_nx`` gives the graph back).
    """
    if isinstance(G, KleeneGraph):
        return G
    attrs = dict(edge_attrs or {})
    if weight is not None:
        attrs.setdefault(weight, 1)
    multigraph = G.is_multigraph()
    directed = G.is_directed()
    defaults = {a: (1 if d is None else d) for a, d in attrs.items()}
    arcs = networkx_arcs(G, defaults, parallel=_least)
    pred_arcs = None
    if directed:
        p = networkx_arcs(G, parallel=_least, reverse=True)
        pred_arcs = (p.src, p.dst, p.rank)
    converted = {a: _as_weights(lst, a) for a, lst in arcs.values.items()}
    weights = {a: w for a, (w, _) in converted.items()}
    hidden = {a: rest for a, (_, rest) in converted.items() if rest is not None}
    edges = None
    if preserve_edge_attrs is True or isinstance(preserve_edge_attrs, dict):
        if multigraph:
            edges = [(u, v, k, dict(d)) for u, v, k, d in G.edges(keys=True, data=True)]
        else:
            edges = [(u, v, None, dict(d)) for u, v, d in G.edges(data=True)]
    node_data = None
    if preserve_node_attrs is True or isinstance(preserve_node_attrs, dict):
        node_data = {v: dict(d) for v, d in G.nodes(data=True)}
    graph_attrs = dict(G.graph) if preserve_graph_attrs else None
    kinds = dict(weights=weights, hidden=hidden, pred_arcs=pred_arcs)
    kept = dict(graph_attrs=graph_attrs, node_attrs=node_data, edges=edges)
    return KleeneGraph(
        arcs.nodes, directed, multigraph, arcs.src, arcs.dst, arcs.rank, **kinds, **kept
    )


def empty_nx_like(KG: KleeneGraph):
    """An empty networkx graph of ``KG``'s kind."""
    import networkx as nx

    if KG.multigraph:
        return nx.MultiDiGraph() if KG.directed else nx.MultiGraph()
    return nx.DiGraph() if KG.directed else nx.Graph()


def convert_to_nx(obj, *, name: str | None = None):
    """A networkx graph from a ``KleeneGraph``; any other object comes back as it is.

    Nodes keep their order; graph, node and edge attributes come back where they
    were preserved, else each edge carries the converted weight attributes (a
    multigraph then has one edge, the lightest, per connected ordered pair).
    """
    if not isinstance(obj, KleeneGraph):
        return obj
    G = empty_nx_like(obj)
    if obj.graph_attrs:
        G.graph.update(obj.graph_attrs)
    if obj.node_attrs is not None:
        G.add_nodes_from((v, dict(obj.node_attrs.get(v, {}))) for v in obj.nodes)
    else:
        G.add_nodes_from(obj.nodes)
    nodes = obj.nodes
    if obj.edges is not None:
        if obj.multigraph:
            G.add_edges_from((u, v, k, dict(d)) for u, v, k, d in obj.edges)
        else:
            G.add_edges_from((u, v, dict(d)) for u, v, _k, d in obj.edges)
        return G
    cols = {a: _as_values(w, obj.hidden.get(a)) for a, w in obj.weights.items()}
    for e, (s, d) in enumerate(zip(obj.src.tolist(), obj.dst.tolist(), strict=True)):
        if not obj.directed and s > d:
            continue
        G.add_edge(nodes[s], nodes[d], **{a: c[e] for a, c in cols.items()})
    return G


def _as_values(w: np.ndarray, hidden: bool | None) -> list:
    """Python numbers, for a networkx graph. ``hidden``: None, or the attribute was None
    on some edges (NaN here: None again) and whether the others are integers."""
    if hidden is None:
        return w.tolist()
    return [None if x != x else int(x) if hidden else x for x in w.tolist()]
