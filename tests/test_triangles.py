"""kleene.triangle_count, triangles, clustering and transitivity against NetworkX.

Random undirected graphs with self-loops (which count as no edge, as in NetworkX):
the counts must be exact and the coefficients NetworkX's within one rounding; a
directed graph is refused, as NetworkX refuses a DiGraph for triangles. The
compiled kernels (``fused=None``: the degree-ordered count of
``backends/cpu/triangles.py`` and ``backends/cuda/analytics/triangles.py``) and the
composed masked products (``fused=False``) give the same answers, on one thread and
on several, on the CPU and the GPU; the GPU's integer atomics give the same bits on
every run.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.backends import backend as backend_of
from kleene.errors import InvalidValue

FUNCTIONS = [kleene.triangle_count, kleene.triangles, kleene.clustering, kleene.transitivity]
COMPILED = backend_of(np).triangle_count is not None  # None under KLEENE_CPU=numpy


@st.composite
def graphs(draw, max_n=16):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 4 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src, dst, strict=True))
    return G


def _upper_only(G):
    """Each edge stored once (i <= j): the reader must add the other direction."""
    A = sp.triu(nx.to_scipy_sparse_array(G, nodelist=range(len(G))), format="csr")
    return sp.csr_matrix(A)


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_match_networkx(G):
    n = len(G)
    A = _upper_only(G)
    t = nx.triangles(G)
    want_t = np.array([t[i] for i in range(n)])
    got_t = kleene.triangles(A)
    assert got_t.dtype == np.int64
    np.testing.assert_array_equal(got_t, want_t)
    assert kleene.triangle_count(A) == sum(t.values()) // 3
    c = nx.clustering(G)
    got_c = kleene.clustering(A)
    assert got_c.dtype == np.float64
    np.testing.assert_allclose(got_c, [c[i] for i in range(n)], rtol=1e-15, atol=0)
    assert kleene.transitivity(A) == pytest.approx(nx.transitivity(G), rel=1e-15, abs=0)
    # the composed twin: the same answers
    np.testing.assert_array_equal(kleene.triangles(A, fused=False), want_t)
    assert kleene.triangle_count(A, fused=False) == sum(t.values()) // 3
    np.testing.assert_array_equal(kleene.clustering(A, fused=False), got_c)
    assert kleene.transitivity(A, fused=False) == kleene.transitivity(A)


def test_known_graphs():
    K5 = nx.complete_graph(5)
    A = sp.csr_matrix(nx.to_scipy_sparse_array(K5))
    assert kleene.triangle_count(A) == 10
    assert kleene.triangles(A).tolist() == [6] * 5
    assert kleene.clustering(A).tolist() == [1.0] * 5
    assert kleene.transitivity(A) == 1.0
    star = sp.csr_matrix(nx.to_scipy_sparse_array(nx.star_graph(4)))
    assert kleene.triangle_count(star) == 0
    assert kleene.transitivity(star) == 0.0
    assert kleene.clustering(star).tolist() == [0.0] * 5


def test_input_forms_and_weights():
    G = nx.karate_club_graph()
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, weight="weight"))
    want = kleene.triangles(A)
    dense = np.where(A.toarray() > 0, A.toarray(), np.inf)
    np.testing.assert_array_equal(kleene.triangles(dense), want)
    np.testing.assert_array_equal(kleene.triangles(kleene.Matrix.from_scipy(A)), want)
    assert kleene.triangle_count(A) == 45  # Zachary's karate club


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_directed_refused(fn):
    A = sp.csr_matrix(np.ones((3, 3)))
    with pytest.raises(InvalidValue, match="directed"):
        fn(A, directed=True)
    with pytest.raises(TypeError):
        fn("not a graph")


# ------------------------------------------------------------ the compiled kernels


def _rmat(scale: int, seed: int = 0, loops: bool = True) -> sp.csr_matrix:
    """A symmetric RMAT pattern (skewed degrees: hubs), duplicates merged, with or
    without its self-loops, stored one way only for half the edges."""
    n = 1 << scale
    src, dst = kleene.generators.rmat(scale, 8, seed=seed)
    if not loops:
        keep = src != dst
        src, dst = src[keep], dst[keep]
    A = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    A.sum_duplicates()
    return A


def _reference(A: sp.csr_matrix):
    """(count, per-vertex) from SciPy: (P @ P) ∘ P on the simple pattern."""
    P = ((A + A.T) != 0).astype(np.int64).tolil()
    P.setdiag(0)
    P = P.tocsr()
    P.eliminate_zeros()
    per = np.asarray((P @ P).multiply(P).sum(axis=1)).ravel() // 2
    return int(per.sum()) // 3, per


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _on(A: sp.csr_matrix, device: str):
    return kleene.Matrix.from_scipy(A).to(device)


@pytest.mark.parametrize("scale, seed", [(6, 0), (9, 1), (11, 2)])
def test_compiled_matches_composed_on_skewed_graphs(backend, scale, seed):
    A = _rmat(scale, seed)
    count, per = _reference(A)
    M = _on(A, backend)
    for fused in (None, False):
        assert kleene.triangle_count(M, fused=fused) == count
        got = kleene.triangles(M, fused=fused)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(_host(got), per)
    np.testing.assert_array_equal(
        _host(kleene.clustering(M)), _host(kleene.clustering(M, fused=False))
    )
    assert kleene.transitivity(M) == kleene.transitivity(M, fused=False)


@pytest.mark.skipif(not COMPILED, reason="the compiled CPU kernels are left out")
@pytest.mark.parametrize("scale", [6, 10])
def test_cpu_threads_and_orders_give_the_same_answers(monkeypatch, scale):
    """All threads (PARALLEL_MIN lowered to 0) and one, out-lists in the (degree, id)
    order and in the id order: the same integers."""
    from kleene.backends.cpu import triangles as cpu_triangles

    A = _rmat(scale, 3)
    count, per = _reference(A)
    for parallel_min in (0, 1 << 62):
        for id_order_max in (-1, 1 << 62):
            monkeypatch.setattr(cpu_triangles, "PARALLEL_MIN", parallel_min)
            monkeypatch.setattr(cpu_triangles, "ID_ORDER_MAX_DEGREE", id_order_max)
            assert kleene.triangle_count(A, fused=True) == count
            np.testing.assert_array_equal(kleene.triangles(A, fused=True), per)


@pytest.mark.skipif(not COMPILED, reason="the compiled CPU kernels are left out")
def test_cpu_kernels_read_either_index_width():
    A = _rmat(8, 4, loops=False)
    A = ((A + A.T) != 0).astype(np.float64).tocsr()
    count, per = _reference(A)
    host = backend_of(np)
    for dt in (np.int32, np.int64):
        ptr, idx = A.indptr.astype(dt), A.indices.astype(dt)
        assert host.triangle_count(ptr, idx, A.shape[0]) == count
        np.testing.assert_array_equal(host.triangle_vertices(ptr, idx, A.shape[0]), per)
    assert host.triangle_count(np.zeros(1, np.int64), np.zeros(0, np.int32), 0) == 0
    assert host.triangle_vertices(np.zeros(1, np.int64), np.zeros(0, np.int32), 0).size == 0


def test_unsorted_rows_and_duplicates(backend):
    """A SciPy CSR with unsorted rows and a duplicate entry: the kernels read the
    canonical pattern the reader makes of it."""
    indptr = [0, 4, 7, 10, 13]
    indices = [3, 1, 2, 1, 2, 0, 3, 3, 1, 0, 2, 0, 1]  # K4, row 0 unsorted with (0, 1) twice
    A = sp.csr_matrix((np.ones(13), indices, indptr), shape=(4, 4))
    assert not A.has_canonical_format
    G = A if backend == "cpu" else _on(A, "gpu")
    for fused in (None, False):
        assert kleene.triangle_count(G, fused=fused) == 4
        assert _host(kleene.triangles(G, fused=fused)).tolist() == [3] * 4


def test_empty_and_loop_only_graphs(backend):
    for A in (sp.csr_matrix((0, 0)), sp.csr_matrix((5, 5)), sp.identity(4, format="csr")):
        M = _on(sp.csr_matrix(A), backend)
        n = A.shape[0]
        for fused in (None, False):
            assert kleene.triangle_count(M, fused=fused) == 0
            np.testing.assert_array_equal(_host(kleene.triangles(M, fused=fused)), np.zeros(n))
            np.testing.assert_array_equal(_host(kleene.clustering(M, fused=fused)), np.zeros(n))
            assert kleene.transitivity(M, fused=fused) == 0.0


def test_fused_argument(monkeypatch):
    A = sp.csr_matrix(nx.to_scipy_sparse_array(nx.complete_graph(4)))
    with pytest.raises(InvalidValue, match="fused"):
        kleene.triangle_count(A, fused="yes")
    host = backend_of(np)
    monkeypatch.setattr(host, "triangle_count", None)
    monkeypatch.setattr(host, "triangle_vertices", None)
    for fn in FUNCTIONS:
        with pytest.raises(InvalidValue, match="no compiled"):
            fn(A, fused=True)
    assert kleene.triangle_count(A) == 4  # fused=None: the composed form
    assert kleene.triangles(A).tolist() == [3] * 4


# ------------------------------------------------------------------------ the GPU


@pytest.mark.gpu
@pytest.mark.parametrize("lanes", [1, 2, 4, 8, 16, 32])
def test_gpu_every_lane_count(monkeypatch, lanes):
    pytest.importorskip("cupy")
    from kleene.backends.cuda.analytics import triangles as gpu_triangles

    monkeypatch.setattr(gpu_triangles, "_lanes", lambda nnz, n: lanes)
    A = _rmat(10, 5)
    count, per = _reference(A)
    M = _on(A, "gpu")
    assert kleene.triangle_count(M, fused=True) == count
    np.testing.assert_array_equal(_host(kleene.triangles(M, fused=True)), per)


@pytest.mark.gpu
def test_gpu_repeat_runs_identical():
    """Integer atomics: every run gives the same bits."""
    pytest.importorskip("cupy")
    A = _rmat(12, 6)
    M = _on(A, "gpu")
    first = _host(kleene.triangles(M))
    counts = {kleene.triangle_count(M) for _ in range(5)}
    assert counts == {int(first.sum()) // 3}
    for _ in range(5):
        assert _host(kleene.triangles(M)).tobytes() == first.tobytes()


@pytest.mark.gpu
def test_gpu_matches_cpu_on_random_graphs():
    pytest.importorskip("cupy")
    rng = np.random.default_rng(7)
    for n, m in [(1, 0), (2, 1), (30, 200), (300, 5000), (2000, 3000)]:
        src, dst = rng.integers(0, n, size=(2, m))
        A = sp.csr_matrix((np.ones(m), (src, dst)), shape=(n, n))
        A.sum_duplicates()
        count, per = _reference(A)
        M = _on(A, "gpu")
        assert kleene.triangle_count(M) == count
        np.testing.assert_array_equal(_host(kleene.triangles(M)), per)
        np.testing.assert_array_equal(_host(kleene.clustering(M)), kleene.clustering(A))


def test_gpu_kernels_compile_with_nvcc(tmp_path):
    """The triangle kernels' source (every instance) compiles as NVRTC compiles it."""
    import shutil
    import subprocess

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    from kleene.backends.cuda import codegen
    from kleene.backends.cuda.codegen.triangles import triangles_spec

    spec = triangles_spec()
    source = codegen.render(spec) + "".join(
        f"void* kl_force_{j} = (void*)&{name};\n" for j, name in enumerate(spec.names)
    )
    cu = tmp_path / "triangles.cu"
    cu.write_text(source)
    cmd = [nvcc, "-arch=sm_90", "-std=c++17", "-c", str(cu), "-o", str(tmp_path / "t.o")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
