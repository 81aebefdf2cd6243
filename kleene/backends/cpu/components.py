"""Connected components of a CSR graph on the CPU, compiled with Numba.

Two optional fused primitives (``kleene/engine/primitives.md``), each returning
``(number of components, int32 label of each vertex)`` with the labels numbered as
``scipy.sparse.csgraph.connected_components`` numbers them:

- ``components_weak(indptr, indices, n, *, symmetric=False, values=None)``: the components of the
  graph with every edge taken both ways. Union-find over the stored edges (union by
  the smaller root, path halving; a neighbour already under the row's root costs one
  read), then one pass over the vertices in increasing order gives each root the
  next label when its component is first met, so a component's label is the rank of
  its smallest vertex (SciPy's depth-first labelling gives the same).
- ``components_strong(indptr, indices, n, *, values=None)``: strongly connected components by
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


def _weak(indptr, indices, n):
    # parent[v] <= v always (a root goes under the smaller root; v under its root), so
    # a root is its tree's smallest vertex, and in increasing order a vertex's parent
    # is labelled before it. Indices are read unsigned: no negative-index wraparound.
    parent = np.empty(n, dtype=indices.dtype)  # (int32 indices: n fits int32)
    for v in range(n):
        parent[v] = v
    for u in range(n):
        ru = u
        while parent[ru] != ru:
            ru = parent[ru]
        lo, hi = np.uint64(indptr[u]), np.uint64(indptr[u + 1])
        if hi - lo >= 8:  # a long row: first count, in a loop that vectorises, the
            away = 0  # neighbours not yet under u's root; often there are none
            for j in range(lo, hi):
                away += parent[np.uint64(indices[j])] != ru
            if away == 0:
                continue
        for j in range(lo, hi):
            v = np.uint64(indices[j])
            rv = parent[v]
            if rv == ru:  # the common case: v already hangs under u's root
                continue
            while parent[rv] != rv:
                parent[rv] = parent[parent[rv]]  # path halving
                rv = parent[rv]
            if rv < ru:
                parent[ru] = rv
                ru = rv
            elif ru < rv:
                parent[rv] = ru
            parent[v] = ru
    labels = np.empty(n, dtype=np.int32)
    count = 0
    for v in range(n):
        p = parent[v]
        if p == v:  # the smallest vertex of its component
            labels[v] = count
            count += 1
        else:
            labels[v] = labels[p]
    return count, labels


def _finite(values):
    """Whether every value is finite (NaN and ±inf are not); no early exit, so the
    loop vectorises."""
    bad = False
    for i in range(values.size):
        x = values[i]
        bad |= (x - x) != 0.0
    return not bad


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
    _weak, _strong, _finite = _jit(_weak), _jit(_strong), _jit(_finite)


def components_weak(indptr, indices, n: int, *, symmetric: bool = False, values=None):
    """(count, int32 labels) of the weakly connected components of a CSR pattern
    (``symmetric``, whether every edge is stored both ways, changes nothing here:
    union-find reads each edge once either way). ``values``: the stored values of a
    float CSR, checked first: None is returned when one is not finite (an infinite
    weight is no edge, which the caller's general path handles)."""
    if values is not None and not _finite(np.asarray(values)):
        return None
    count, labels = _weak(np.asarray(indptr), np.asarray(indices), int(n))
    return int(count), labels


def components_strong(indptr, indices, n: int, *, values=None):
    """(count, int32 labels) of the strongly connected components, SciPy's numbering;
    ``values`` as for :func:`components_weak`."""
    if values is not None and not _finite(np.asarray(values)):
        return None
    count, labels = _strong(np.asarray(indptr), np.asarray(indices), int(n))
    return int(count), labels
