"""Reachability, kleene.transitive_closure: the Boolean closure of a graph (lor_land),
on the CPU over bit-packed rows, on the GPU through the strongly connected components
and R-Kleene on the int8 tensor cores, or by apsp's dense methods."""

from __future__ import annotations

import numpy as np

from kleene.backends import array_module, backend, bool_tensor_cores
from kleene.core import Matrix
from kleene.engine import closure, product_scratch, replay_buffers, take_square
from kleene.errors import InvalidValue, OutOfMemory, names_gpu_memory
from kleene.progress import Progress, progress_for
from kleene.semiring import Semiring, get_semiring

from . import apsp_memory
from .apsp_memory import SPARSE, WHOLE, MemoryNeed, check_fits, out_of_memory
from .dense_closure import (
    DEFAULT_BLOCK,
    FINAL_UNITS,
    INITIAL_UNITS,
    closure_key,
    resolve_method,
    run_closure,
    solve,
    weights,
    work,
)
from .dense_closure import METHODS as APSP_METHODS
from .graph_input import as_graph, on_device


@names_gpu_memory("transitive_closure")
def transitive_closure(
    G,
    *,
    reflexive: bool = False,
    directed: bool = True,
    method: str = "auto",
    progress=None,
    device: str | None = None,
):
    """Reachability: R[i, j] is True when a path of one or more edges leads from i to j.

    ``reflexive=True`` also counts the empty path (R[i, i] True); ``directed=False``
    follows edges both ways. Computed as the closure A* over the Boolean semiring
    (lor_land), then R = A ⊗ A*: it equals A* off the diagonal, and R[i, i] holds
    when some edge i → j has A*[j, i], a gather over the edges. ``progress`` is as
    for :func:`apsp`. A result that does not fit raises an OutOfMemory (a
    MemoryError) saying what
    was asked and the largest n that fits, before anything n×n is allocated.

    ``method="auto"`` on the CPU computes reachability over bit-packed rows, one per
    strongly connected component, in reverse topological order
    (``kleene/backends/cpu/bool_closure.py``): a graph stored sparse straight from
    its edges into the result (peak: the result, 1 byte a pair, and the component
    rows, 1/8 byte a pair at most); a dense Matrix, or a graph of up to 2,048
    vertices, by one ``closure`` of the whole matrix (2 bytes a pair: the result and
    its working copy). On the GPU, a sparse
    graph's strongly connected components (SciPy, on the host) in reverse
    topological order, R-Kleene of the lower-triangular component graph on the int8
    tensor cores and one gather back to the vertices (docs/algorithms.md); a dense
    one by R-Kleene over all n vertices. With the other methods, the dense closures of
    :func:`apsp`.

    device : "cpu", "gpu" or None
        Where to compute (None: where G lives). G is copied there first (a SciPy or
        NumPy graph to the GPU, say) and the result lives there.

    Example
    -------
    >>> import numpy as np, kleene
    >>> G = np.array([[False, True, False], [False, False, True], [False, False, False]])
    >>> kleene.transitive_closure(G).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    G = on_device(G, device)
    if method not in APSP_METHODS:
        raise InvalidValue(
            f"transitive_closure: method must be one of {APSP_METHODS}, got {method!r}"
        )
    if method in SPARSE:
        raise InvalidValue(
            "transitive_closure: use a dense method (floyd-warshall, blocked, recursive)"
        )
    sr = get_semiring("lor_land")
    A = as_graph(G, directed=directed)
    if method == "auto" and _by_rows(A):
        return _reach_rows(A, reflexive, progress)
    whole = method == "auto" and A.xp is np  # the CPU: one closure of the whole matrix
    tensor = method == "auto" and A.xp is not np and bool_tensor_cores()  # R-Kleene
    if not tensor:  # (the tensor-core closure reads only the edges: every stored entry)
        A = weights(A, sr)
    method = WHOLE if whole else "recursive" if tensor else resolve_method(A, sr, method, False)
    n = A.nrows
    pad = (-n) % 16 if tensor else 0  # 16-aligned blocks for the tensor-core products
    need = check_fits(
        n + pad,
        np.dtype(bool),
        False,
        A.xp,
        method=method,
        what="transitive_closure",
        sparse_ok=False,
    )
    block = _tensor_base(n + pad) if tensor else DEFAULT_BLOCK
    total = (_WHOLE_UNITS * n * n if whole else work(n + pad, method, block, False)) + A.nvals
    with out_of_memory(need), progress_for(progress, total, "transitive_closure") as bar:
        if whole:
            star = _star_whole(A, sr, bar)
        elif tensor:
            reach = _closure_condensed(A, sr, bar, reflexive)
            if reach is not None:
                return reach
            star = _star_tensor_cores(A, sr, n + pad, block, bar)
        else:
            star = solve(A, sr, method, False, block, bar)
        if not reflexive:
            _drop_empty_paths(A, star)
        return star


def _tensor_base(size: int) -> int:
    """R-Kleene's base for the tensor-core Boolean closure: diagonal blocks of up to
    512 rows close bit-packed in one thread block (backends/cuda/bool_closure.py), 32
    Warshall steps a barrier. The largest base wins at every size (of 128, 256 and
    512; ``benchmarks/bench_apsp.py --boolean``): it has the fewest small products
    above it."""
    return 512


def _star_tensor_cores(A: Matrix, sr: Semiring, size: int, block: int, bar: Progress):
    """A* (n×n bool, with the empty paths) on the GPU: R-Kleene whose products run on
    the int8 tensor cores and 256- or 512-row diagonal blocks close bit-packed, on a
    ``size``×``size`` matrix (n padded to 16) built in place from the edges.
    Replayed as a CUDA graph where the matrix fits the graph cache, on the cache's
    buffer filled in place. Peak: 2 bytes a pair (the working matrix, the graph's
    buffer or not, and the result's copy; never three n² arrays at once) plus the
    products' scratch (at most 3/16 of the matrix: ``boolean_mma.scratch_bytes``)."""
    rows, cols, _ = A.to_coo()  # every stored entry is an edge, zero too
    D = _closure_of_edges(A.xp, rows, cols, size, sr, block, bar)
    del rows, cols
    n = A.nrows
    star = D.block(slice(0, n), slice(0, n)).to_dense()  # the result's own copy
    bar.step(FINAL_UNITS * size * size)
    return star


def _closure_of_edges(
    xp, rows, cols, size: int, sr: Semiring, block: int, bar: Progress, lower: bool = False
) -> Matrix:
    """The ``size``×``size`` Matrix holding A* for the graph with these edges (and the
    empty paths): the replay cache's buffer when replayed, so read it before the next
    closure of this size. ``lower``: every edge leads from a larger index to a
    smaller one."""
    method = "recursive-lower" if lower else "recursive"
    key = closure_key(method, block, sr)
    (dense,), (D,) = replay_buffers(key, [((size, size), np.bool_)], xp)  # filled in place
    dense.fill(False)
    dense[rows, cols] = True
    idx = xp.arange(size)
    dense[idx, idx] = True  # the empty path: sr.one on the diagonal
    del dense
    bar.step(INITIAL_UNITS * size * size)
    top = -(-(size // 2) // 16) * 16  # the top split's larger half: its products are the largest
    need = product_scratch(sr, np.bool_, top, top, top, xp)
    D, _ = run_closure(sr, D, None, method, block, bar, scratch=need, key=key)
    return D


# The GPU closure of a sparse graph goes through its strongly connected components:
# all vertices of a component reach the same set, and SciPy numbers the components
# in reverse topological order, so the component graph is lower triangular and its
# R-Kleene needs 2 products of 6 ("recursive-lower"). A DAG (n components) gains
# that alone: 3x fewer products for two n² gathers. SciPy labels them on the host
# (O(n + m): the edges travel, not n²), so only graphs with few edges a pair go
# this way.
_CONDENSE_MAX_DENSITY = 1 / 64  # edges per pair: above it the edges' trip costs more
_CONDENSE_MAX_SHARE = 0.5  # components per vertex without a triangular order


def _closure_condensed(A: Matrix, sr: Semiring, bar: Progress, reflexive: bool):
    """Reachability (the result of :func:`transitive_closure`) on the GPU through the
    condensation: the tensor-core closure C* of the component graph, then R[i, j] =
    C*[comp i, comp j] by two gathers, and R[i, i] = i's component has a cycle (more
    than one vertex, or a self loop) unless ``reflexive``. None when it would not pay
    (dense input; a component order that is not topological and merges few
    vertices). Peak: the c² closure, its products' scratch and the n² result: at
    most 2 bytes a pair and the scratch (c = n, a DAG)."""
    n = A.nrows
    if A.format == "dense" or A.nvals > n * n * _CONDENSE_MAX_DENSITY:
        return None
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    xp = A.xp
    host = A.to_scipy()  # O(n + m) bytes: the edges travel
    hp, hi = host.indptr, host.indices
    host = csr_matrix((np.ones(hi.size), hi, hp), shape=(n, n))  # zeros are edges too
    count, label = connected_components(host, directed=True, connection="strong")
    src = np.repeat(np.arange(n), np.diff(hp))
    lower = bool(np.all(label[src] >= label[hi]))  # checked, not assumed of SciPy
    if not lower and count > n * _CONDENSE_MAX_SHARE:
        return None
    cyclic = np.bincount(label, minlength=count) > 1
    cyclic[label[src[src == hi]]] = True  # a self loop is a cycle too
    comp = xp.asarray(label.astype(np.int32))
    rows, cols, _ = A.to_coo()
    cr, cc = comp[rows], comp[cols]
    keep = cr != cc  # a component's own edges: its closure's diagonal holds them
    cr, cc = cr[keep], cc[keep]
    del rows, cols, keep
    # sizes in coarse steps (at most 1/16 padding, isolated vertices): a new graph
    # with a slightly different count replays the same captured closure
    step = 1 << max(4, count.bit_length() - 4)
    size = -(-count // step) * step
    C = _closure_of_edges(xp, cr, cc, size, sr, _tensor_base(size), bar, lower)
    del cr, cc
    reach = take_square(C, comp)  # one pass from the closure's own buffer
    del C
    bar.step(FINAL_UNITS * size * size)
    if not reflexive:
        idx = xp.arange(n)
        reach[idx, idx] = xp.asarray(cyclic[label])
    return reach


# CPU transitive_closure "auto": one closure of the whole n×n bool matrix, which the
# CPU back end computes over bit-packed rows (cpu/bool_closure.py). Peak: the matrix
# (1 byte a pair) and the result's copy (1 byte), or the input's dense copy while the
# matrix is built; the packed adjacency and component rows (1/8 byte each) live only
# during the closure, beside the matrix alone. Measured with tracemalloc on real graphs:
# 2.0 bytes a pair; counted as 3 (the m-sized edge arrays come on top).
_WHOLE_UNITS = 3  # progress units a pair: building the matrix, its closure, the copy out


def _star_whole(A: Matrix, sr: Semiring, bar: Progress):
    """A* of the whole (n, n) bool matrix by one ``closure`` (the back end's fused
    Boolean closure where it has one, else Floyd-Warshall's composed form)."""
    n = A.nrows
    if A.format == "dense":
        dense = A.to_dense(missing=False)
    else:  # scattered from the edges: no (n, n) mask beside the values
        dense = A.xp.zeros((n, n), dtype=bool)
        rows, cols, vals = A.to_coo()
        dense[rows, cols] = vals
        del rows, cols, vals
    D = Matrix.from_dense(dense, missing=None)
    del dense
    bar.step(n * n)
    closure(D, sr, out=D)
    bar.step(n * n)
    return D.to_dense()  # the rest of the units: finish()


# CPU transitive_closure "auto" on a graph stored sparse: the back end's
# bool_closure_rows reads the CSR pattern and writes the n×n result directly. Its
# peak: the result (1 byte a pair), the component rows (n/8 bytes a vertex at most;
# the packed adjacency, as large, is freed before the result is made), Tarjan's
# arrays (8 int64s a vertex) and the pattern as int64 (8 bytes a vertex and an edge).
# Graphs up to _ROWS_SMALL_N vertices keep the whole-matrix closure (the same
# bit-packed method from a dense copy: its n² bytes are small there).
_ROWS_SMALL_N = 2048
_ROWS_INT64S_PER_VERTEX = 9
_ROWS_FIXED_BYTES = 64 << 20


def _by_rows(A: Matrix) -> bool:
    """Whether the CPU closure runs straight from A's sparse rows (bool_closure_rows)."""
    if A.xp is not np or A.format != "csr" or backend(np).bool_closure_rows is None:
        return False
    return A.nrows > _ROWS_SMALL_N


def _rows_need(n: int, nvals: int) -> MemoryNeed:
    """Host memory bool_closure_rows needs at its peak for n vertices and nvals edges."""
    words = -(-n // 64)
    per_vertex = 8 * words + 8 * _ROWS_INT64S_PER_VERTEX
    fixed = _ROWS_FIXED_BYTES + 8 * nvals
    return MemoryNeed(
        "transitive_closure",
        n,
        "bit-packed rows",
        False,
        1,
        per_vertex,
        fixed,
        apsp_memory.host_memory_free(),
        "host memory",
    )


def _reach_rows(A: Matrix, reflexive: bool, progress):
    """transitive_closure's result on the CPU from A's CSR pattern (every stored entry
    is an edge, zero or False too, as in scipy.csgraph and the GPU's closure), by
    bool_closure_rows: paths of
    one or more edges, and the empty ones when ``reflexive``. An OutOfMemory naming
    the bytes, before anything n×n is allocated, where the result cannot fit."""
    n = A.nrows
    need = _rows_need(n, A.nvals)
    if not need.fits():
        raise OutOfMemory(f"transitive_closure: {need.describe()}; {need.bytes:,} bytes")
    with out_of_memory(need), progress_for(progress, n * n + A.nvals, "transitive_closure") as bar:
        s = A.to_scipy()  # the host CSR, borrowed: its pattern is the graph
        reach = backend(np).bool_closure_rows(s.indptr, s.indices, n, reflexive=reflexive)
        del s
        bar.step(n * n + A.nvals)
    return reach


def _drop_empty_paths(A: Matrix, star) -> None:
    """A* → A ⊗ A* in place: only the diagonal changes (i ≠ j needs an edge anyway);
    R[i, i] holds when an edge i → j has A*[j, i] (a self loop: j = i)."""
    rows, cols, _ = A.to_coo()
    xp = array_module(star)
    on_cycle = xp.zeros(A.nrows, dtype=bool)
    on_cycle[rows[star[cols, rows]]] = True
    idx = xp.arange(A.nrows)
    star[idx, idx] = on_cycle
