"""SciPy's traversals: breadth- and depth-first orders and trees (``walks.py``).

A graph on the GPU is walked on a host copy of its pattern (a visit order is one
queue, sequential by nature) and the results go back to the GPU.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kleene.backends import to_host

from .paths import tree_of
from .validation import check_vertex, validate
from .walks import bfs_walk, dfs_walk, in_edges


def _walk(walker, csgraph, i_start, directed):
    g = validate(csgraph, directed, dense=False)
    S = g.data if g.xp is np else sp.csr_matrix(g.data.get())
    start = check_vertex(i_start, g.n)
    ptr, idx = S.indptr, S.indices
    both = not directed  # undirected: the in-edges too, scanned after the out-edges
    if directed:
        ptr2, idx2 = ptr, idx
    elif in_edges is not None and S.indptr[-1] == S.indices.size:
        ptr2, idx2 = in_edges(ptr, idx, g.n)  # (SciPy's order; the pattern alone)
        if np.array_equal(ptr, ptr2) and np.array_equal(idx, idx2):
            # a symmetric pattern: a vertex's in-neighbours are its out-neighbours, all
            # seen once its out-edges are scanned, so that scan would add nothing
            both = False
    else:
        T = S.T.tocsr()  # (SciPy's order)
        ptr2, idx2 = T.indptr, T.indices
    order, pred = walker(ptr, idx, ptr2, idx2, both, start, g.n)
    if g.xp is not np:
        order, pred = g.xp.asarray(order), g.xp.asarray(pred)
    return order, pred, g


def breadth_first_order(csgraph, i_start, directed=True, return_predecessors=True):
    """The vertices reached from ``i_start`` in breadth-first order, as
    ``scipy.sparse.csgraph.breadth_first_order`` (int32; predecessors -9999 where none).

    Example
    -------
    >>> from kleene import csgraph
    >>> G = [[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
    >>> order, pred = csgraph.breadth_first_order(G, 0)
    >>> order.tolist(), pred.tolist()
    ([0, 1, 2, 3], [-9999, 0, 0, 1])
    """
    order, pred, _ = _walk(bfs_walk, csgraph, i_start, directed)
    return (order, pred) if return_predecessors else order


def depth_first_order(csgraph, i_start, directed=True, return_predecessors=True):
    """The vertices reached from ``i_start`` in depth-first order, as
    ``scipy.sparse.csgraph.depth_first_order``.

    Example
    -------
    >>> from kleene import csgraph
    >>> G = [[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
    >>> order, pred = csgraph.depth_first_order(G, 0)
    >>> order.tolist(), pred.tolist()
    ([0, 1, 3, 2], [-9999, 0, 0, 1])
    """
    order, pred, _ = _walk(dfs_walk, csgraph, i_start, directed)
    return (order, pred) if return_predecessors else order


def breadth_first_tree(csgraph, i_start, directed=True):
    """The breadth-first tree from ``i_start`` as a sparse graph (edge weights from
    ``csgraph``), as ``scipy.sparse.csgraph.breadth_first_tree``.

    Example
    -------
    >>> from kleene import csgraph
    >>> G = [[0, 1, 2, 0], [0, 0, 0, 3], [0, 0, 0, 4], [0, 0, 0, 0]]
    >>> csgraph.breadth_first_tree(G, 0).toarray().tolist()[:2]
    [[0.0, 1.0, 2.0, 0.0], [0.0, 0.0, 0.0, 3.0]]
    """
    _, pred, g = _walk(bfs_walk, csgraph, i_start, directed)
    return tree_of(g, to_host(pred), directed)


def depth_first_tree(csgraph, i_start, directed=True):
    """The depth-first tree from ``i_start`` as a sparse graph, as
    ``scipy.sparse.csgraph.depth_first_tree``.

    Example
    -------
    >>> from kleene import csgraph
    >>> G = [[0, 1, 2, 0], [0, 0, 0, 3], [0, 0, 0, 4], [0, 0, 0, 0]]
    >>> csgraph.depth_first_tree(G, 0).toarray().tolist()[:2]
    [[0.0, 1.0, 2.0, 0.0], [0.0, 0.0, 0.0, 3.0]]
    """
    _, pred, g = _walk(dfs_walk, csgraph, i_start, directed)
    return tree_of(g, to_host(pred), directed)
