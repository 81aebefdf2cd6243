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
- ``components_strong(indptr, indices, n, *, values=None, numbering=None)``: strongly
  connected components by Tarjan's depth-first search, iterative in the manner of
  Tarjan and Zwick (2024): each edge read once, one array for the high-links and the
  labels, components labelled 0, 1, 2, ... in the order the search completes them,
  roots tried in vertex order. SciPy numbers them the same way, with the successors
  taken in stored order from 1.18 on (its own Tarjan-Zwick search) and, up to 1.17,
  in reverse stored order: Pearce's search that SciPy ran until then pushes every
  successor onto a doubly linked depth-first stack, a vertex met again moved to the
  top, so it descends into the last successor first, which is a recursive search
  over the reversed rows, and completes the components in its order. ``numbering``
  ("tarjan" or "pearce"; None: the installed SciPy's) picks the direction, so the
  labels, not only the partition, are SciPy's (tests/test_components.py checks both
  directions against plain references, and the installed SciPy's directly).

Both read the pattern only (a stored zero is an edge). The composed forms
(``kleene.algorithms.analytics.components``: FastSV min-second products, and
forward-backward reachability) compute the same partition and relabel it the same
way; the tests run the two against each other and against SciPy. Without Numba, or
with ``KLEENE_CPU=numpy``, both names are None and the composed forms run.
"""

from __future__ import annotations

import numpy as np
import scipy

from kleene.errors import InvalidValue

try:
    import numba
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None
# SciPy 1.18 numbers strong components as a search over the rows in stored order
# completes them, SciPy up to 1.17 as one over the reversed rows (the module docstring).
SCIPY_NUMBERING = (
    "tarjan" if tuple(int(x) for x in scipy.__version__.split(".")[:2]) >= (1, 18) else "pearce"
)


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


def _tarjan(indptr, indices, n, backwards):
    """(count, int32 labels) of the strong components by Tarjan's depth-first search,
    iterative in the manner of Tarjan and Zwick (2024), labelled 0, 1, 2, ... in the
    order the search completes them; roots tried in vertex order, each vertex's
    successors in stored order (``backwards``: from the row's end).

    One array ``val`` holds each vertex's state: -1 unvisited; while the vertex is
    active (visited, its component not complete) its high-link: the earliest-visited
    active vertex it is known to reach, as that vertex's reverse timestamp (the
    first vertex visited gets n, the next n - 1, ...; a completed component gives
    its timestamps back, so those of the active vertices are exactly n, n - 1, ...,
    ts + 1); once its component is complete, the component's label.
    Labels stay below ts + 1 (there are never more of them than completed vertices),
    so a completed successor never raises a high-link: the search needs no on-stack
    flag. The depth-first stack holds (vertex, next edge): one successor is advanced
    at a time and each edge is read once; a vertex's entry is stored complemented
    (sign bit set) once its high-link rises above its own timestamp, i.e. once it is
    known not to lead its component. A finished vertex that leads its component
    takes its label with the finished non-leads above it on the component stack
    whose high-link does not pass its timestamp (those it reached); a non-lead goes
    on that stack and passes its high-link to its parent.
    """
    val = np.full(n, -1, dtype=np.int32)
    stack_v = np.empty(n, dtype=np.int32)
    stack_e = np.empty(n, dtype=indptr.dtype)
    comp = np.empty(n, dtype=np.int32)
    step = -1 if backwards else 1
    ts = n  # the next reverse timestamp
    label = 0
    held = 0  # entries of comp
    for r in range(n):
        if val[r] != -1:
            continue
        # The current vertex's frame lives in locals (v, its high-link hv, lead, the
        # next edge e); the stack holds its ancestors' frames.
        v = r
        hv = val[r] = ts
        ts -= 1
        lead = True
        e, stop = (indptr[r + 1] - 1, indptr[r] - 1) if backwards else (indptr[r], indptr[r + 1])
        top = -1
        while True:
            down = -1
            while e != stop:
                w = indices[e]
                e += step
                vw = val[w]
                if vw == -1:
                    down = w
                    break
                if vw > hv:  # (a completed successor's label never passes hv)
                    hv = vw
                    lead = False
            if down >= 0:  # descend into the unvisited successor
                top += 1
                stack_v[top] = v if lead else ~v
                stack_e[top] = e
                val[v] = hv
                v = down
                hv = val[v] = ts
                ts -= 1
                lead = True
                if backwards:
                    e, stop = indptr[v + 1] - 1, indptr[v] - 1
                else:
                    e, stop = indptr[v], indptr[v + 1]
                continue
            if lead:  # v leads its component: it and what it reached above it
                while held > 0 and val[comp[held - 1]] <= hv:
                    held -= 1
                    val[comp[held]] = label
                    ts += 1
                val[v] = label
                ts += 1
                label += 1
            else:
                val[v] = hv
                comp[held] = v
                held += 1
            if top < 0:
                break
            x = stack_v[top]  # back to the parent, which takes a non-lead's high-link
            e = stack_e[top]
            top -= 1
            child, child_lead = hv, lead
            lead = x >= 0
            v = x if lead else ~x
            hv = val[v]
            stop = indptr[v] - 1 if backwards else indptr[v + 1]
            if not child_lead and child > hv:
                hv = child
                lead = False
    return label, val


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _weak, _tarjan, _finite = _jit(_weak), _jit(_tarjan), _jit(_finite)


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


def components_strong(indptr, indices, n: int, *, values=None, numbering=None):
    """(count, int32 labels) of the strongly connected components, labelled in the order
    Tarjan's search completes them with each row's successors in stored order
    (``numbering="tarjan"``, SciPy >= 1.18's labels) or in reverse stored order
    ("pearce", SciPy <= 1.17's); None: the installed SciPy's. ``values`` as for
    :func:`components_weak`."""
    numbering = SCIPY_NUMBERING if numbering is None else numbering
    if numbering not in ("tarjan", "pearce"):
        raise InvalidValue(f"numbering must be 'tarjan' or 'pearce', got {numbering!r}")
    if values is not None and not _finite(np.asarray(values)):
        return None
    ptr, idx = np.asarray(indptr), np.asarray(indices)
    count, labels = _tarjan(ptr, idx, int(n), numbering == "pearce")
    return int(count), labels
