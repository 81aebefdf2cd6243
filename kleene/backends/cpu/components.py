"""Connected components of a CSR graph on the CPU, compiled with Numba.

Two optional fused primitives (``kleene/ops/primitives.md``), each returning
``(number of components, int32 label of each vertex)`` with the labels numbered as
``scipy.sparse.csgraph.connected_components`` numbers them:

- ``components_weak(indptr, indices, n)``: the components of the graph with every
  edge taken both ways. Union-find over the stored edges (union by the smaller root,
  path halving), then one pass over the vertices in increasing order gives each
  root the next label when its component is first met, so a component's label is
  the rank of its smallest vertex (SciPy's depth-first labelling gives the same).
- ``components_strong(indptr, indices, n)``: strongly connected components by
  Pearce's iterative variant of Tarjan's algorithm, step for step the one SciPy
  runs (successors pushed on a doubly linked depth-first stack, a vertex met again
  moved to the top; components labelled in the order they complete), so the
  labels, not only the partition, are SciPy's.

Both read the pattern only (a stored zero is an edge). The composed forms
(``kleene.algorithms.analytics.components``: FastSV min-second products, and
forward-backward reachability) compute the same partition and relabel it the same
way; the tests run the two against each other and against SciPy. Without Numba, or
with ``KLEENE_CPU=numpy``, both names are None and the composed forms run.
"""

from __future__ import annotations

import numpy as np

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None


def _find(parent, v):
    while parent[v] != v:
        parent[v] = parent[parent[v]]  # path halving
        v = parent[v]
    return v


def _weak(indptr, indices, n):
    parent = np.arange(n, dtype=np.int64)
    for u in range(n):
        for j in range(indptr[u], indptr[u + 1]):
            ru = _find(parent, u)
            rv = _find(parent, indices[j])
            if ru < rv:
                parent[rv] = ru
            elif rv < ru:
                parent[ru] = rv
    labels = np.empty(n, dtype=np.int32)
    count = 0
    for v in range(n):
        r = _find(parent, v)
        if r == v:  # the smallest vertex of its component: roots are always the minimum
            labels[v] = count
            count += 1
        else:
            labels[v] = labels[r]
    return count, labels


def _strong(indptr, indices, n):
    void = -1
    end = -2
    lowlinks = np.full(n, void, dtype=np.int64)  # then the labels, counted down
    ss = np.full(n, void, dtype=np.int64)  # component stack; also the DFS stack's forward links
    stack_b = np.full(n, void, dtype=np.int64)
    ss_head = end
    index = 0
    label = n - 1
    for v0 in range(n):
        if lowlinks[v0] != void:
            continue
        stack_head = v0
        ss[v0] = end
        stack_b[v0] = end
        while stack_head != end:
            v = stack_head
            if lowlinks[v] == void:
                lowlinks[v] = index
                index += 1
                for j in range(indptr[v], indptr[v + 1]):
                    w = indices[j]
                    if lowlinks[w] == void:
                        if ss[w] != void:  # already on the DFS stack: excise it
                            f = ss[w]
                            b = stack_b[w]
                            if b != end:
                                ss[b] = f
                            if f != end:
                                stack_b[f] = b
                        ss[w] = stack_head
                        stack_b[w] = end
                        stack_b[stack_head] = w
                        stack_head = w
            else:
                stack_head = ss[v]
                if stack_head >= 0:
                    stack_b[stack_head] = end
                ss[v] = void
                stack_b[v] = void
                root = True
                low_v = lowlinks[v]
                for j in range(indptr[v], indptr[v + 1]):
                    low_w = lowlinks[indices[j]]
                    if low_w < low_v:
                        low_v = low_w
                        root = False
                lowlinks[v] = low_v
                if root:
                    index -= 1
                    while ss_head != end and lowlinks[v] <= lowlinks[ss_head]:
                        w = ss_head
                        ss_head = ss[w]
                        ss[w] = void
                        lowlinks[w] = label
                        index -= 1
                    lowlinks[v] = label
                    label -= 1
                else:
                    ss[v] = ss_head
                    ss_head = v
    labels = ((n - 1) - lowlinks).astype(np.int32)
    return (n - 1) - label, labels


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _find = _jit(_find)
    _weak, _strong = _jit(_weak), _jit(_strong)


def components_weak(indptr, indices, n: int):
    """(count, int32 labels) of the weakly connected components of a CSR pattern."""
    count, labels = _weak(np.asarray(indptr), np.asarray(indices), int(n))
    return int(count), labels


def components_strong(indptr, indices, n: int):
    """(count, int32 labels) of the strongly connected components, SciPy's numbering."""
    count, labels = _strong(np.asarray(indptr), np.asarray(indices), int(n))
    return int(count), labels
