"""Conversions to and from networkx, python-graphblas and scipy.sparse."""

from __future__ import annotations

from typing import Any

import numpy as np

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
    nodes = list(G) if nodelist is None else list(nodelist)
    index = {v: i for i, v in enumerate(nodes)}
    if len(index) != len(nodes):
        raise ValueError("nodelist contains duplicate nodes")
    src, dst, wts = [], [], []
    edges = (
        G.edges(data=weight, default=default)
        if weight is not None
        else ((u, v, None) for u, v in G.edges())
    )
    for u, v, w in edges:
        if u in index and v in index:
            src.append(index[u])
            dst.append(index[v])
            wts.append(w)
    src_a = np.array(src, dtype=np.int64)
    dst_a = np.array(dst, dtype=np.int64)
    values = None
    if weight is not None:
        values = np.asarray(wts) if wts else np.zeros(0, np.float64)
        if values.dtype.kind not in "biuf":
            raise ValueError(f"edge attribute {weight!r} must hold numbers, got {values.dtype}")
        if values.dtype.kind == "f" and np.isnan(values).any():
            raise ValueError(f"edge attribute {weight!r} holds NaN")
        if dtype is None:
            kind = values.dtype.kind
            values = values.astype(
                np.bool_ if kind == "b" else np.int64 if kind in "iu" else np.float64
            )
    if not G.is_directed():
        off = src_a != dst_a
        src_a, dst_a = np.concatenate((src_a, dst_a[off])), np.concatenate((dst_a, src_a[off]))
        if values is not None:
            values = np.concatenate((values, values[off]))
    d = None if dtype is None else as_dtype(dtype)
    if values is not None and d is not None:
        values = values.astype(d)
    return Matrix.from_edges(src_a, dst_a, values, len(nodes), dup="min",
                             dtype=d if values is None else None)  # fmt: skip


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
        raise ValueError(f"to_networkx needs a square matrix, got shape {A.shape}")
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
    return Matrix.from_edges(np.asarray(rows, np.int64), np.asarray(cols, np.int64),
                             vals.astype(target), M.nrows, ncols=M.ncols, dup=None)  # fmt: skip


def to_graphblas(A: Matrix):
    """A python-graphblas ``Matrix`` with the entries of ``A``.

    >>> import kleene, kleene.io  # doctest: +SKIP
    >>> kleene.io.to_graphblas(kleene.Matrix.from_edges([0], [1], [2.0])).nvals  # doctest: +SKIP
    1
    """
    gb = _graphblas()
    rows, cols, vals = (np.asarray(x) for x in A.to("cpu").to_coo())
    return gb.Matrix.from_coo(rows, cols, vals, nrows=A.nrows, ncols=A.ncols, dtype=vals.dtype)
