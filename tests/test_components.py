"""kleene.connected_components against scipy.sparse.csgraph.connected_components.

The count and the labels must be SciPy's exactly (its numbering, not only its
partition), for weak and strong components, directed and undirected, on random
graphs with isolated vertices, self loops, duplicate and zero-weight edges; the
composed forms (FastSV; forward-backward colouring) must give the same partition
(FastSV the same labels too). Also the input forms, the errors and ``fused=``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy
import scipy.sparse as sp
from graph_data import load_scipy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components as scipy_cc

import kleene
from kleene.errors import DimensionMismatch, InvalidObject, InvalidValue

MODES = [(False, "weak"), (True, "weak"), (True, "strong"), (False, "strong")]
# The compiled search numbers strong components as the installed SciPy does (1.18 on:
# Tarjan's search over the rows in stored order; up to 1.17: Pearce's, which completes
# them as Tarjan's over the reversed rows); without it (KLEENE_CPU=numpy, no Numba)
# the composed form numbers them by smallest vertex.
SCIPY_1_17 = tuple(int(x) for x in scipy.__version__.split(".")[:2]) < (1, 18)
SCIPY_STRONG_LABELS = kleene.backends.backend(np).components_strong is not None


@st.composite
def graphs(draw, max_n=24):
    n = draw(st.integers(0, max_n))
    m = draw(st.integers(0, 3 * n)) if n else 0
    src = draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m))
    w = draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=m, max_size=m))
    return sp.csr_matrix((np.array(w), (np.array(src, int), np.array(dst, int))), shape=(n, n))


def _same_partition(a, b) -> bool:
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_matches_scipy(G):
    for directed, connection in MODES:
        k, labels = scipy_cc(G, directed=directed, connection=connection)
        k2, labels2 = kleene.connected_components(G, directed=directed, connection=connection)
        assert k2 == k
        assert labels2.dtype == np.int32
        assert _same_partition(labels2, labels)
        if SCIPY_STRONG_LABELS or not (directed and connection == "strong"):
            np.testing.assert_array_equal(labels2, labels)
        k4, labels4 = kleene.connected_components(  # a Matrix: the general path
            kleene.Matrix.from_scipy(G), directed=directed, connection=connection
        )
        assert k4 == k
        np.testing.assert_array_equal(labels4, labels2)
        k3, labels3 = kleene.connected_components(
            G, directed=directed, connection=connection, fused=False
        )
        assert k3 == k
        assert _same_partition(labels3, labels)
        if not (directed and connection == "strong"):
            np.testing.assert_array_equal(labels3, labels)  # FastSV keeps SciPy's numbering


def test_known_answers():
    # 0 -> 1 -> 2 -> 0 (a cycle), 2 -> 3, 4 alone, 5 <-> 6
    G = sp.csr_matrix(([1, 1, 1, 1, 1, 1], ([0, 1, 2, 2, 5, 6], [1, 2, 0, 3, 6, 5])), shape=(7, 7))
    n, labels = kleene.connected_components(G)
    assert (n, labels.tolist()) == (3, [0, 0, 0, 0, 1, 2, 2])
    n, labels = kleene.connected_components(G, connection="strong")
    assert n == 4
    assert labels[0] == labels[1] == labels[2] != labels[3]
    assert labels[5] == labels[6]
    if SCIPY_STRONG_LABELS:  # (both numberings complete {3} first here)
        np.testing.assert_array_equal(labels, scipy_cc(G, connection="strong")[1])
        assert labels.tolist() == [1, 1, 1, 0, 2, 3, 3]
    else:
        assert labels.tolist() == [0, 0, 0, 1, 2, 3, 3]
    assert kleene.connected_components(G, connection="STRONG", return_labels=False) == 4
    assert kleene.connected_components(G, directed=False, connection="strong")[0] == 3


def test_input_forms_and_empty():
    G = sp.csr_matrix(([2.0, 3.0], ([0, 2], [1, 3])), shape=(5, 5))
    want = scipy_cc(G, directed=False)
    for form in (G, kleene.Matrix.from_scipy(G), G.toarray() + np.where(G.toarray(), 0, np.inf)):
        k, labels = kleene.connected_components(form, directed=False)
        assert k == want[0]
        np.testing.assert_array_equal(labels, want[1])
    k, labels = kleene.connected_components(sp.csr_matrix((0, 0)))
    assert k == 0 and labels.size == 0 and labels.dtype == np.int32
    assert kleene.connected_components(sp.csr_matrix((3, 3)), return_labels=False) == 3


def test_errors():
    G = sp.csr_matrix(np.eye(3))
    with pytest.raises(InvalidValue, match="connection must be 'weak' or 'strong'"):
        kleene.connected_components(G, connection="medium")
    with pytest.raises(ValueError):
        kleene.connected_components(G, connection=None)
    with pytest.raises(DimensionMismatch, match="square"):
        kleene.connected_components(sp.csr_matrix((2, 3)))
    with pytest.raises(InvalidObject):
        kleene.connected_components("not a graph")
    with pytest.raises(InvalidValue, match="fused"):
        kleene.connected_components(G, fused="yes")


def test_compiled_kernels_present_on_cpu():
    cpu = kleene.backends.backend(np)
    if cpu.components_weak is None:  # KLEENE_CPU=numpy or no Numba: composed only
        with pytest.raises(InvalidValue, match="no compiled"):
            kleene.connected_components(np.eye(2), fused=True)
        return
    G = sp.random(60, 60, density=0.03, random_state=3, format="csr")
    for directed, connection in MODES:
        k, labels = kleene.connected_components(
            G, directed=directed, connection=connection, fused=True
        )
        want = scipy_cc(G, directed=directed, connection=connection)
        assert k == want[0]
        assert _same_partition(labels, want[1])
        np.testing.assert_array_equal(labels, want[1])


def _tarjan_reference(indptr, indices, n, backwards=False):
    """Strong component labels by a plain recursive Tarjan: roots in vertex order, each
    row's successors in stored order (``backwards``: reversed), components labelled
    0, 1, ... in the order they complete (SciPy >= 1.18's numbering; reversed rows:
    SciPy <= 1.17's)."""
    index, low, on_stack = [-1] * n, [0] * n, [False] * n
    stack, labels, counter = [], [-1] * n, [0, 0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack[v] = True
        row = [int(w) for w in indices[indptr[v] : indptr[v + 1]]]
        for w in reversed(row) if backwards else row:
            if index[w] < 0:
                visit(w)
                low[v] = min(low[v], low[w])
            elif on_stack[w]:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            while True:
                w = stack.pop()
                on_stack[w] = False
                labels[w] = counter[1]
                if w == v:
                    break
            counter[1] += 1

    for v in range(n):
        if index[v] < 0:
            visit(v)
    return counter[1], np.array(labels, dtype=np.int64)


def _pearce_reference(indptr, indices, n):
    """Strong component labels by Pearce's search step for step as SciPy <= 1.17 runs
    it (successors pushed on a doubly linked depth-first stack, a vertex met again
    moved to the top; components labelled in the order they complete)."""
    void, end = -1, -2
    low = [void] * n  # then the labels, counted down from n - 1
    ss, back = [void] * n, [void] * n  # component stack / DFS forward links; back links
    ss_head, index, label = end, 0, n - 1
    for v0 in range(n):
        if low[v0] != void:
            continue
        head = v0
        ss[v0] = back[v0] = end
        while head != end:
            v = head
            if low[v] == void:
                low[v] = index
                index += 1
                for w in indices[indptr[v] : indptr[v + 1]]:
                    if low[w] != void:
                        continue
                    if ss[w] != void:  # already on the DFS stack: take it out
                        f, b = ss[w], back[w]
                        if b != end:
                            ss[b] = f
                        if f != end:
                            back[f] = b
                    ss[w], back[w], back[head] = head, end, w
                    head = w
                continue
            head = ss[v]
            if head >= 0:
                back[head] = end
            ss[v] = back[v] = void
            low_v, root = low[v], True
            for w in indices[indptr[v] : indptr[v + 1]]:
                if low[w] < low_v:
                    low_v, root = low[w], False
            low[v] = low_v
            if not root:
                ss[v], ss_head = ss_head, v
                continue
            index -= 1
            while ss_head != end and low[v] <= low[ss_head]:
                w, ss_head = ss_head, ss[ss_head]
                ss[w], low[w] = void, label
                index -= 1
            low[v] = label
            label -= 1
    return (n - 1) - label, (n - 1) - np.array(low, dtype=np.int64)


@st.composite
def shuffled_rows(draw, max_n=24, repeats=False):
    """A CSR whose rows hold their columns out of order (and, with ``repeats``, some
    more than once): no canonical form."""
    n = draw(st.integers(1, max_n))
    col = st.integers(0, n - 1)
    rows = [draw(st.lists(col, max_size=min(n, 4), unique=not repeats)) for _ in range(n)]
    indptr = np.cumsum([0] + [len(r) for r in rows])
    indices = np.array([w for r in rows for w in r], dtype=np.int32)
    return sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n, n))


needs_strong_kernel = pytest.mark.skipif(
    not SCIPY_STRONG_LABELS, reason="no compiled strong components (KLEENE_CPU=numpy or no Numba)"
)


@needs_strong_kernel
@settings(max_examples=150, deadline=None)
@given(st.one_of(graphs(), shuffled_rows()))
def test_strong_numberings_match_their_references(G):
    """Both numberings, whichever SciPy is installed: "tarjan" (SciPy >= 1.18's) is the
    plain recursive Tarjan's, "pearce" (SciPy <= 1.17's) Pearce's search's and the
    reversed rows' Tarjan's; None is the installed SciPy's labels."""
    cpu = kleene.backends.backend(np)
    n = G.shape[0]
    ptr, idx = G.indptr, G.indices
    k, labels = cpu.components_strong(ptr, idx, n, numbering="tarjan")
    assert labels.dtype == np.int32
    assert (k, labels.tolist()) == _tuple(_tarjan_reference(ptr, idx, n))
    k, labels = cpu.components_strong(ptr, idx, n, numbering="pearce")
    want = _tuple(_pearce_reference(ptr, idx, n))
    assert (k, labels.tolist()) == want == _tuple(_tarjan_reference(ptr, idx, n, backwards=True))
    if n:
        k, labels = cpu.components_strong(ptr, idx, n)
        wk, wl = scipy_cc(G, connection="strong")
        assert k == wk
        np.testing.assert_array_equal(labels, wl)
        if SCIPY_1_17:
            assert labels.tolist() == want[1]


@needs_strong_kernel
@settings(max_examples=60, deadline=None)
@given(shuffled_rows(repeats=True))
def test_strong_numberings_read_a_repeated_edge_once(G):
    # (SciPy <= 1.17's search does not finish on a row holding an edge twice in a row;
    # the compiled one meets a repeat as a visited vertex, as the plain search does)
    cpu = kleene.backends.backend(np)
    n, ptr, idx = G.shape[0], G.indptr, G.indices
    for numbering, backwards in (("tarjan", False), ("pearce", True)):
        k, labels = cpu.components_strong(ptr, idx, n, numbering=numbering)
        assert (k, labels.tolist()) == _tuple(_tarjan_reference(ptr, idx, n, backwards))


def _tuple(result):
    return int(result[0]), result[1].tolist()


@needs_strong_kernel
def test_strong_numberings_on_deep_and_known_graphs():
    cpu = kleene.backends.backend(np)
    # 0 -> 1, 0 -> 2, 1 -> 0, 2 -> 3: Tarjan in stored order completes {3}, {2}, {0, 1};
    # over the reversed rows (Pearce's order) it descends into 2 first: {3}, {2}, {0, 1}
    # too, while 4 -> 5, 4 -> 6 completes {5}, {6} in stored order, {6}, {5} reversed
    G = sp.csr_matrix((np.ones(6), ([0, 0, 1, 2, 4, 4], [1, 2, 0, 3, 5, 6])), shape=(7, 7))
    k, labels = cpu.components_strong(G.indptr, G.indices, 7, numbering="tarjan")
    assert (k, labels.tolist()) == (6, [2, 2, 1, 0, 5, 3, 4])
    k, labels = cpu.components_strong(G.indptr, G.indices, 7, numbering="pearce")
    assert (k, labels.tolist()) == (6, [2, 2, 1, 0, 5, 4, 3])
    np.testing.assert_array_equal(
        cpu.components_strong(G.indptr, G.indices, 7)[1], scipy_cc(G, connection="strong")[1]
    )
    # a cycle of 200,000 vertices and a path hanging off it: the search is iterative
    n = 200_000
    src = np.r_[np.arange(n), np.arange(n, 2 * n - 1)]
    dst = np.r_[(np.arange(n) + 1) % n, np.arange(n + 1, 2 * n)]
    src, dst = np.r_[src, n - 1], np.r_[dst, n]
    C = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(2 * n, 2 * n))
    for numbering in ("tarjan", "pearce"):
        k, labels = cpu.components_strong(C.indptr, C.indices, 2 * n, numbering=numbering)
        assert k == n + 1
        assert (labels[:n] == n).all()  # the cycle completes last
        assert labels[n:].tolist() == list(range(n - 1, -1, -1))  # the path's end first
    with pytest.raises(InvalidValue, match="numbering"):
        cpu.components_strong(G.indptr, G.indices, 7, numbering="kosaraju")


def test_strong_composed_on_a_chain_of_cycles():
    # cycles 0-1-2, 3-4, 5 alone, linked 2 -> 3 -> 5 and 5 -> 0 closes one big cycle
    src = [0, 1, 2, 3, 4, 2, 4]
    dst = [1, 2, 0, 4, 3, 3, 5]
    G = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(6, 6))
    k, labels = kleene.connected_components(G, connection="strong", fused=False)
    assert k == 3
    assert labels.tolist() == [0, 0, 0, 1, 1, 2]  # composed: numbered by smallest vertex
    G2 = G + sp.csr_matrix(([1.0], ([5], [0])), shape=(6, 6))
    assert kleene.connected_components(G2, connection="strong", fused=False)[0] == 1


def test_fast_path_keeps_the_graph_rules():
    # a SciPy CSR is read as it is only when its values are finite: +inf is no edge
    # (the general path drops it), NaN is an edge, -inf is refused
    G = sp.csr_matrix(([1.0, np.inf, 2.0], ([0, 1, 3], [1, 2, 4])), shape=(5, 5))
    k, labels = kleene.connected_components(G, directed=False)
    assert (k, labels.tolist()) == (3, [0, 0, 1, 2, 2])
    G.data[1] = np.nan
    # a NaN weight is an edge for the compiled kernels (the composed form, the only one
    # under KLEENE_CPU=numpy, symmetrizes first, which refuses NaN)
    if kleene.backends.backend(np).components_weak is not None:
        assert kleene.connected_components(G, directed=False)[0] == 2
    G.data[1] = -np.inf
    with pytest.raises(ValueError, match="-inf"):
        kleene.connected_components(G, directed=False)
    # duplicates and unsorted rows change nothing
    D = sp.csr_matrix((np.ones(4), np.array([3, 1, 3, 0]), np.array([0, 3, 4, 4, 4])), shape=(4, 4))
    assert not D.has_canonical_format
    k, labels = kleene.connected_components(D, directed=False)
    want = scipy_cc(D, directed=False)
    assert k == want[0]
    np.testing.assert_array_equal(labels, want[1])


def _rmat_scipy(scale, edge_factor, seed, undirected):
    src, dst = kleene.generators.rmat(scale, edge_factor, seed=seed, undirected=undirected)
    n = 1 << scale
    return sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))


def _gpu_graphs():
    yield "rmat12-sym", _rmat_scipy(12, 4, 1, True)
    yield "rmat11-dir", _rmat_scipy(11, 2, 2, False)
    yield "sparse-many", sp.random(3000, 3000, density=0.0004, random_state=5, format="csr")
    yield "p2p-dir", load_scipy("p2p-Gnutella08.txt")
    yield "road-sym", load_scipy("rome99.gr", symmetric=True)
    # a long path (many rounds of hooking) and its reverse order
    n = 5000
    path = sp.csr_matrix((np.ones(n - 1), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))
    yield "path", path
    yield "path-reversed", path.T.tocsr()
    # hubs: rows of thousands of entries go by segments; two stars, the smaller one
    # outside the giant component, one pointing out and one in
    src = np.r_[np.zeros(6000, int), np.arange(7000, 12000)]
    dst = np.r_[np.arange(1, 6001), np.full(5000, 12500)]
    yield "stars", sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(13000, 13000))
    stars = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(13000, 13000))
    yield "stars-sym", (stars + stars.T).tocsr()


@pytest.mark.gpu
def test_gpu_weak_components_are_scipys_and_repeat_bit_for_bit():
    cupy = pytest.importorskip("cupy")
    if not kleene.gpu_available():
        pytest.skip("no GPU")
    for name, G in _gpu_graphs():
        A = kleene.Matrix.from_scipy(G).to("gpu")
        for directed in (False, True):
            want = scipy_cc(G, directed=directed, connection="weak")
            k, labels = kleene.connected_components(A, directed=directed)
            assert isinstance(labels, cupy.ndarray) and labels.dtype == np.int32, name
            assert k == want[0], name
            np.testing.assert_array_equal(labels.get(), want[1], err_msg=name)
            k2, labels2 = kleene.connected_components(A, directed=directed, fused=False)
            assert k2 == k, name
            np.testing.assert_array_equal(labels2.get(), want[1], err_msg=name)
        first = kleene.connected_components(A, directed=False)[1].get()
        for _ in range(10):  # atomics must not make the labels depend on scheduling
            again = kleene.connected_components(A, directed=False)[1].get()
            assert np.array_equal(first, again), name
    # the kernel itself on a directed pattern (no giant-component skip) and on none
    cuda = kleene.backends.backend(cupy)
    G = _rmat_scipy(10, 3, 7, False)
    k, labels = cuda.components_weak(cupy.asarray(G.indptr), cupy.asarray(G.indices), G.shape[0])
    want = scipy_cc(G, directed=True, connection="weak")
    assert k == want[0]
    np.testing.assert_array_equal(labels.get(), want[1])
    assert cuda.components_weak(cupy.zeros(1, dtype=np.int64), cupy.zeros(0, np.int32), 0)[0] == 0
