"""Connected components: the back ends' compiled kernels (union-find, Afforest on the
GPU, Tarjan's search), or composed as min-label products (FastSV) and reachability
sweeps."""

from __future__ import annotations

import numpy as np

from kleene.backends import backend
from kleene.core import Matrix, Vector
from kleene.engine import strong_components, weak_components
from kleene.errors import InvalidValue
from kleene.ops import ewise_add, ewise_mult, extract, mxv, select, vxm
from kleene.semiring import Semiring, binary, monoid

from ..graph_input import as_graph, on_device

# max over the successors' marks (the backward sweep of the strong components)
_MAX_SECOND = Semiring(monoid.max, binary.second, name="max_second")
_CONNECTIONS = ("weak", "strong")


def connected_components(
    G,
    *,
    directed: bool = True,
    connection: str = "weak",
    return_labels: bool = True,
    fused: bool | None = None,
    device: str | None = None,
):
    """The connected components of a graph, as ``scipy.sparse.csgraph.connected_components``.

    Same arguments, same answer: the number of components and, with
    ``return_labels``, an int32 label per vertex, numbered as SciPy numbers them
    (weak components by their smallest vertex: the component of vertex 0 is 0,
    the next one met in vertex order 1, ...; strong components 0, 1, 2, ... in the
    order Tarjan's depth-first search completes them, roots tried in vertex order:
    with the installed SciPy >= 1.18 the search takes each row's successors in
    stored order, as SciPy 1.18's does; with SciPy <= 1.17 in reverse stored order,
    which completes them in the order of the Pearce search SciPy ran until then).
    A GPU graph's strong components are numbered by their smallest vertex, as
    cupyx.scipy.sparse.csgraph numbers them: the same partition, and the same labels
    as SciPy's wherever the pattern is symmetric
    (``kleene.engine.strong_components(A, numbering="scipy")`` gives SciPy's order on
    the GPU too, by the host's search).

    Weak components (``directed=False``, or ``connection="weak"``) are FastSV
    (Zhang, Azad and Hu): every vertex keeps a parent label, starting at itself;
    each round takes the least grandparent label among its neighbours by one
    ``min_second`` product on the symmetrised pattern, hooks its parent and itself
    to it (stochastic and aggressive hooking) and to its own grandparent
    (shortcutting), until the grandparents stop changing; every vertex then points
    at the smallest vertex of its component. Strong components (``directed=True``
    and ``connection="strong"``) propagate the least vertex id forward along edges
    (``min_first`` products) until nothing changes; a vertex that keeps its own id
    is a root, and its component is what reaches it backwards within its colour
    (``max_second`` products); those vertices are removed and the rest repeats.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        The pattern counts, not the weights: a stored zero is an edge.
    directed : bool
        False treats every edge as going both ways (``connection`` is then ignored).
    connection : {"weak", "strong"}
    return_labels : bool
    fused : bool or None
        None runs the back end's compiled kernel where there is one (the CPU's
        union-find and Tarjan's search, ``kleene.backends.cpu.components``, which
        read a SciPy CSR matrix with finite values as it is; the GPU's Afforest,
        ``kleene.backends.cuda.analytics.components``, for weak components, and
        for strong ones trimming and colouring sweeps, ``...analytics.strong``, or
        Afforest where the pattern is symmetric; a graph deeper than the sweeps'
        budget goes to Tarjan's search on a host copy of the pattern), False the
        composed form above (its strong labels number the components by their
        smallest vertex; the partition is the same), True requires the compiled
        kernel.

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Returns
    -------
    n_components : int
    labels : int32 array of length n on the input's device (only with ``return_labels``)

    Example
    -------
    >>> import numpy as np, scipy.sparse as sp, kleene
    >>> G = sp.csr_matrix(([1, 1, 1], ([0, 1, 3], [1, 0, 2])), shape=(5, 5))
    >>> n, labels = kleene.connected_components(G, directed=False)
    >>> n, labels.tolist()
    (3, [0, 0, 1, 1, 2])
    >>> kleene.connected_components(G, connection="strong", return_labels=False)
    4
    """
    G = on_device(G, device)
    if not isinstance(connection, str) or connection.lower() not in _CONNECTIONS:
        raise InvalidValue(f"connection must be 'weak' or 'strong', got {connection!r}")
    if fused not in (None, True, False):
        raise InvalidValue(f"fused must be None, True or False, got {fused!r}")
    strong = bool(directed) and connection.lower() == "strong"
    name = "components_strong" if strong else "components_weak"
    host = backend(np)
    quick = _host_pattern(G) if fused is not False else None
    if quick is not None and getattr(host, name, None) is not None:
        indptr, indices, n, values = quick  # a SciPy CSR's arrays, as they are
        found = getattr(host, name)(indptr, indices, n, values=values)
        if found is not None:  # (None: a value is not finite; the general path reads it)
            count, labels = found
            return (count, labels) if return_labels else count
    A = as_graph(G, directed=True, pattern=True, check_nan=False)
    xp = A.xp
    n = A.nrows
    kernel = getattr(host if strong else backend(xp), name, None)
    if fused is True and kernel is None:
        raise InvalidValue(f"connected_components: this back end has no compiled {name}")
    if n == 0:
        count, labels = 0, xp.zeros(0, dtype=np.int32)
    elif kernel is not None and fused is not False:
        # the kernels read A's CSR pattern as stored
        count, labels = strong_components(A) if strong else weak_components(A)
    else:
        root = _strong_roots(A) if strong else _fastsv(A)
        count, labels = _numbered(xp, root)
    return (count, labels) if return_labels else count


def _host_pattern(G):
    """(indptr, indices, n, values) of a square SciPy CSR matrix of real values, else
    None; ``values`` (float values only, else None) for the kernel to check finite: a
    matrix with none infinite or NaN is its pattern as it is (an infinite weight would
    be no edge, and as_graph reads every other form)."""
    if getattr(G, "format", None) != "csr" or not type(G).__module__.startswith("scipy.sparse"):
        return None
    n, ncols = G.shape
    data = G.data
    if n != ncols or n == 0 or data.dtype.kind not in "biuf":
        return None
    return G.indptr, G.indices, n, data if data.dtype.kind == "f" else None


def _numbered(xp, root):
    """(count, int32 labels): vertex v in the component whose smallest vertex is
    ``root[v]``, components numbered in the order of their smallest vertex."""
    n = root.size
    is_root = root == xp.arange(n, dtype=root.dtype)
    rank = xp.cumsum(is_root) - 1
    return int(is_root.sum()), rank[root].astype(np.int32)


def _ids(xp, n: int) -> Vector:
    """Vertex i holds i; dense format, so a union with a sparse vector is a copy and
    a scatter of the sparse one's entries, not a merge of sorted keys."""
    ids = xp.arange(n, dtype=np.int64)
    return Vector.from_coo(ids, ids, n).to_format("dense")


def _fastsv(A: Matrix):
    """The smallest vertex of each vertex's weak component (FastSV, composed)."""
    xp, n = A.xp, A.nrows
    S = as_graph(A, directed=False, pattern=True, check_nan=False)  # edges both ways
    f = _ids(xp, n)
    gf = f
    while True:
        mngf = mxv(S, gf, "min_second")  # least grandparent among the neighbours
        # stochastic hooking: f[f[u]] = min(f[f[u]], mngf[u]) (a scatter-min)
        nb, nv = mngf.to_coo()
        parents = extract(f, nb).to_dense()
        f = ewise_add(f, Vector.from_coo(parents, nv, n, dup="min"), "min")
        f = ewise_add(f, mngf, "min")  # aggressive hooking
        f = ewise_add(f, gf, "min")  # shortcutting
        ngf = extract(f, f.to_dense())  # grandparents
        if ngf.isequal(gf):
            break
        gf = ngf
    return f.to_dense()


def _strong_roots(A: Matrix):
    """The smallest vertex of each vertex's strong component (colouring, composed)."""
    xp, n = A.xp, A.nrows
    root = xp.full(n, -1, dtype=np.int64)
    left = _ids(xp, n)  # the vertices not yet in a component (values: their ids)
    while left.nvals:
        # trim: a vertex with no edge in, or none out, within `left` is alone
        has_in = vxm(left, A, "any_pair", mask=left.S)
        has_out = mxv(A, left, "any_pair", mask=left.S)
        both = ewise_mult(has_in, has_out, "land")
        alone = extract(left, None, mask=~both.S, replace=True)
        if alone.nvals:
            idx, val = alone.to_coo()
            root[idx] = val
            left = extract(left, None, mask=both.S, replace=True)
            continue
        # forward: every vertex takes the least id that reaches it within `left`,
        # pushed from the vertices whose colour fell in the last step only
        colour = frontier = left.to_format("dense")  # (dense: cheap unions, as _ids)
        while frontier.nvals:
            step = vxm(frontier, A, "min_first", mask=left.S)
            fell = select(ewise_mult(step, colour, "lt"), "valueeq", True)
            frontier = ewise_mult(step, fell, "first")
            colour = ewise_add(colour, frontier, "min")
        # a vertex that kept its own id roots a component: the vertices of its
        # colour that reach it backwards, found from the newest marks only
        roots = select(ewise_mult(colour, left, "eq"), "valueeq", True)
        mark = frontier = ewise_mult(colour, roots, "first")
        mark = mark.to_format("dense")
        while frontier.nvals:
            # successors' marks are ≤ a vertex's colour; the largest equals it
            # exactly when one successor is marked with its colour
            step = mxv(A, frontier, _MAX_SECOND, mask=~mark.S)
            same = select(ewise_mult(step, colour, "eq"), "valueeq", True)
            frontier = ewise_mult(colour, same, "first")
            mark = ewise_add(mark, frontier, "first")
        idx, val = mark.to_coo()
        root[idx] = val
        left = extract(left, None, mask=~mark.S, replace=True)  # those vertices are done
    return root
