"""Conversions to and from networkx, python-graphblas and scipy.sparse."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from kleene.errors import DimensionMismatch, InvalidValue
from kleene.semiring.dtypes import as_dtype

from .matrix import Matrix


def from_scipy(s, *, dtype: Any = None, dup: str | None = "min") -> Matrix:
    """A CSR ``Matrix`` from a scipy.sparse matrix (``Matrix.from_scipy``).

    Stored entries, explicit zeros included, become entries; duplicates keep the minimum.

    >>> import scipy.sparse as sp, kleene.io
    >>> kleene.io.from_scipy(sp.eye(2, format="csr")).nvals
    2
    """
    return Matrix.from_scipy(s, dtype=dtype, dup=dup)


def to_scipy(A: Matrix):
    """A scipy.sparse CSR matrix on the host (``Matrix.to_scipy``).

    >>> import kleene, kleene.io
    >>> kleene.io.to_scipy(kleene.Matrix.from_edges([0], [1], [3.0])).toarray().tolist()
    [[0.0, 3.0], [0.0, 0.0]]
    """
    return A.to_scipy()


class GraphArcs(NamedTuple):
    """The arcs of a networkx graph as arrays: ``networkx_arcs``' answer.

    ``nodes[i]`` is vertex i; arc e runs ``src[e] -> dst[e]``, ``dst[e]`` being
    neighbour number ``rank[e]`` of ``src[e]`` in networkx's adjacency order;
    ``values[attr][e]`` is the arc's value of edge attribute ``attr`` (a list of
    the Python objects networkx holds, unchecked).
    """

    nodes: list
    src: np.ndarray
    dst: np.ndarray
    rank: np.ndarray
    values: dict


def networkx_arcs(G, attrs=None, nodelist=None, *, parallel=None, reverse=False) -> GraphArcs:
    """Read a networkx graph's arcs in its adjacency order: the one walk of a graph
    that both ``from_networkx`` and the NetworkX backend (``kleene.nx``) convert by.

    ``attrs``: {edge attribute: default}, the attributes to read (an edge without one
    reads as its default). ``nodelist``: the vertices, vertex i is ``nodelist[i]``
    (default ``list(G)``); arcs touching other nodes are left out. An undirected edge
    gives an arc each way (a self-loop one). A multigraph's parallel edges give one
    arc each, or with ``parallel`` (a function ``(values, attr, (u, v)) -> value``)
    one arc per connected ordered pair whose value it picks from theirs.
    ``reverse``: a directed graph's predecessor lists instead (arc u -> v for each
    predecessor v of u, ranked in ``G.pred[u]``'s order).

    >>> import networkx as nx, kleene.io
    >>> G = nx.DiGraph([("a", "b", {"w": 3}), ("a", "c")])
    >>> arcs = kleene.io.networkx_arcs(G, {"w": 1})
    >>> arcs.nodes, arcs.dst.tolist(), arcs.rank.tolist(), arcs.values
    (['a', 'b', 'c'], [1, 2], [0, 1], {'w': [3, 1]})
    """
    nodes = list(G) if nodelist is None else list(nodelist)
    index = {v: i for i, v in enumerate(nodes)}
    if len(index) != len(nodes):
        raise InvalidValue("nodelist contains duplicate nodes")
    defaults = dict(attrs or {})
    # (a directed graph's reverse view lists each node's predecessors as its adjacency)
    lists = G.reverse(copy=False) if reverse and G.is_directed() else G
    rows = list(lists.adjacency())
    multigraph = G.is_multigraph()
    if nodelist is None:
        arcs = _whole_rows(rows, index, defaults, parallel, multigraph)
    else:
        arcs = _kept_arcs(rows, index, defaults, parallel, multigraph)
    return GraphArcs(nodes, *arcs)


def _whole_rows(rows, index, defaults, parallel, multigraph):
    """(src, dst, rank, values) when every neighbour is a vertex: the tails and ranks
    come from the row lengths, one pass over the arcs per array."""
    counts = np.fromiter((len(nbrs) for _, nbrs in rows), np.int64, len(rows))
    m = int(counts.sum())
    tails = np.fromiter((index[u] for u, _ in rows), np.int64, len(rows))
    src = np.repeat(tails, counts)
    rank = np.arange(m, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    dst = np.fromiter((index[v] for _, nbrs in rows for v in nbrs), np.int64, m)
    values: dict = {a: [] for a in defaults}
    if not multigraph:
        for a, d in defaults.items():
            values[a] = [data.get(a, d) for _, nbrs in rows for data in nbrs.values()]
    elif parallel is None:  # an arc per edge: each pair's arc repeated per parallel edge
        pairs = [keyed for _, nbrs in rows for keyed in nbrs.values()]
        edges = np.fromiter(map(len, pairs), np.int64, m)
        src, dst, rank = (np.repeat(x, edges) for x in (src, dst, rank))
        for a, d in defaults.items():
            values[a] = [e.get(a, d) for keyed in pairs for e in keyed.values()]
    elif values:  # arc by arc, attribute by attribute: the first refusal is the first arc's
        for u, nbrs in rows:
            for v, keyed in nbrs.items():
                for a, out in values.items():
                    d = defaults[a]
                    out.append(parallel([e.get(a, d) for e in keyed.values()], a, (u, v)))
    return src, dst, rank, values


def _kept_arcs(rows, index, defaults, parallel, multigraph):
    """(src, dst, rank, values) arc by arc, leaving out arcs that touch a node not in
    ``index``; a multigraph's parallel edges one arc each unless ``parallel``."""
    src: list[int] = []
    dst: list[int] = []
    rank: list[int] = []
    values: dict = {a: [] for a in defaults}
    each_edge = multigraph and parallel is None
    for u, nbrs in rows:
        i = index.get(u)
        if i is None:
            continue
        for pos, (v, data) in enumerate(nbrs.items()):
            j = index.get(v)
            if j is None:
                continue
            for edge in data.values() if each_edge else (data,):
                src.append(i)
                dst.append(j)
                rank.append(pos)
                for a, out in values.items():
                    d = defaults[a]
                    if multigraph and not each_edge:  # edge: the pair's {key: attributes}
                        out.append(parallel([e.get(a, d) for e in edge.values()], a, (u, v)))
                    else:
                        out.append(edge.get(a, d))
    return (*(np.asarray(x, dtype=np.int64) for x in (src, dst, rank)), values)


def from_networkx(
    G, weight: str | None = "weight", nodelist=None, *, dtype: Any = None, default: Any = 1
) -> Matrix:
    """The adjacency ``Matrix`` of a networkx graph; vertex i is ``nodelist[i]``.

    ``nodelist`` defaults to ``list(G)``. Undirected graphs store each edge both
    ways; multigraph parallel edges keep the minimum weight. ``weight=None`` gives
    a Boolean pattern matrix; an edge without the attribute weighs ``default``.
    Edges touching nodes outside ``nodelist`` are left out.

    >>> import networkx as nx, kleene.io
    >>> G = nx.Graph([(0, 1, {"weight": 2.5}), (1, 2, {"weight": 1.0})])
    >>> A = kleene.io.from_networkx(G)
    >>> A.shape, A.nvals, float(A.to_dense()[1, 0])
    ((3, 3), 4, 2.5)
    """
    attrs = {} if weight is None else {weight: default}
    arcs = networkx_arcs(G, attrs, nodelist)
    values = None
    if weight is not None:
        wts = arcs.values[weight]
        values = np.asarray(wts) if wts else np.zeros(0, np.float64)
        if values.dtype.kind not in "biuf":
            raise InvalidValue(f"edge attribute {weight!r} must hold numbers, got {values.dtype}")
        if values.dtype.kind == "f" and np.isnan(values).any():
            raise InvalidValue(f"edge attribute {weight!r} holds NaN")
        if dtype is None:
            kind = values.dtype.kind
            values = values.astype(
                np.bool_ if kind == "b" else np.int64 if kind in "iu" else np.float64
            )
    d = None if dtype is None else as_dtype(dtype)
    if values is not None and d is not None:
        values = values.astype(d)
    return Matrix.from_edges(
        arcs.src, arcs.dst, values, len(arcs.nodes), dup="min", dtype=d if values is None else None
    )


def to_networkx(A: Matrix, *, directed: bool = True, weight: str | None = "weight"):
    """A networkx ``DiGraph`` (or ``Graph`` with ``directed=False``) with nodes 0..n-1.

    Each stored entry (u, v) becomes an edge u→v whose ``weight`` attribute holds
    the value (no attribute for a Boolean matrix or ``weight=None``). An undirected
    result keeps the lighter of the two directions.

    >>> import kleene, kleene.io
    >>> G = kleene.io.to_networkx(kleene.Matrix.from_edges([0, 1], [1, 2], [4, 5]))
    >>> sorted(G.edges(data="weight"))
    [(0, 1, 4), (1, 2, 5)]
    """
    import networkx as nx

    if A.nrows != A.ncols:
        raise DimensionMismatch(f"to_networkx needs a square matrix, got shape {A.shape}")
    rows, cols, vals = (np.asarray(x) for x in A.to("cpu").to_coo())
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(A.nrows))
    if weight is None or A.dtype == np.bool_:
        G.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
        return G
    if not directed:
        order = np.argsort(vals, kind="stable")[::-1]  # heaviest first: the lightest is kept
        rows, cols, vals = rows[order], cols[order], vals[order]
    triples = zip(rows.tolist(), cols.tolist(), vals.tolist(), strict=True)
    G.add_weighted_edges_from(triples, weight=weight)
    return G


def _graphblas():
    try:
        import graphblas
    except ImportError as e:
        raise ImportError(
            "this needs python-graphblas (pip install python-graphblas), "
            f"which is not importable here: {e}"
        ) from e
    return graphblas


def from_graphblas(M) -> Matrix:
    """A CSR ``Matrix`` from a python-graphblas ``Matrix`` (same shape, values and dtype).

    >>> import graphblas as gb, kleene.io  # doctest: +SKIP
    >>> M = gb.Matrix.from_coo([0, 1], [1, 0], [2.0, 3.0], nrows=2, ncols=2)  # doctest: +SKIP
    >>> kleene.io.from_graphblas(M).nvals  # doctest: +SKIP
    2
    """
    _graphblas()
    rows, cols, vals = M.to_coo()
    vals = np.asarray(vals)
    kind = vals.dtype.kind
    target = np.bool_ if kind == "b" else np.int64 if kind in "iu" else np.float64
    if vals.dtype in (np.dtype(np.int32), np.dtype(np.float32)):
        target = vals.dtype
    return Matrix.from_edges(
        np.asarray(rows, np.int64),
        np.asarray(cols, np.int64),
        vals.astype(target),
        M.nrows,
        ncols=M.ncols,
        dup=None,
    )


def to_graphblas(A: Matrix):
    """A python-graphblas ``Matrix`` with the entries of ``A``.

    >>> import kleene, kleene.io  # doctest: +SKIP
    >>> kleene.io.to_graphblas(kleene.Matrix.from_edges([0], [1], [2.0])).nvals  # doctest: +SKIP
    1
    """
    gb = _graphblas()
    rows, cols, vals = (np.asarray(x) for x in A.to("cpu").to_coo())
    return gb.Matrix.from_coo(rows, cols, vals, nrows=A.nrows, ncols=A.ncols, dtype=vals.dtype)
