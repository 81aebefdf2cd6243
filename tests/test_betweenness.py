"""kleene.betweenness_centrality and edge_betweenness_centrality against NetworkX.

Random graphs (directed and undirected, connected or not, with self-loops) on nodes
0..n-1: every option (normalized, endpoints, k sampled sources with a seed, explicit
sources, positive weights) must give NetworkX's values within 1e-9 on every route
(the compiled kernels, ``fused=True``, and the composed twins, ``fused=False``), and
k with a seed must pick the sources NetworkX picks. The compiled kernels give the same
bits on every run; on the GPU, the 64-source kernel (chunked hubs included) gives the
CPU kernel's values.
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.errors import IndexOutOfBound, InvalidValue

GPU_OK = kleene.backends.gpu_available()
HAS_KERNEL = getattr(kleene.backends.backend(np), "brandes", None) is not None
ROUTES = [None, False] + ([True] if HAS_KERNEL else [])


@st.composite
def graphs(draw, max_n=14):
    n = draw(st.integers(1, max_n))
    directed = draw(st.booleans())
    m = draw(st.integers(0, 3 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src, dst, strict=True))
    return G


def _csr(G):
    return sp.csr_matrix(nx.to_scipy_sparse_array(G, nodelist=range(len(G)), format="csr"))


def _nx(G, **kw):
    d = nx.betweenness_centrality(G, **kw)
    return np.array([d[i] for i in range(len(G))])


@settings(max_examples=40, deadline=None)
@given(graphs(), st.booleans(), st.booleans(), st.sampled_from(ROUTES))
def test_exact_matches_networkx(G, normalized, endpoints, fused):
    got = kleene.betweenness_centrality(
        _csr(G), normalized=normalized, endpoints=endpoints, directed=G.is_directed(), fused=fused
    )
    want = _nx(G, normalized=normalized, endpoints=endpoints)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(graphs(), st.booleans(), st.booleans(), st.data())
def test_sampled_sources_match_networkx(G, normalized, endpoints, data):
    n = len(G)
    k = data.draw(st.integers(1, n))
    seed = data.draw(st.integers(0, 100))
    got = kleene.betweenness_centrality(
        _csr(G),
        k=k,
        seed=seed,
        normalized=normalized,
        endpoints=endpoints,
        directed=G.is_directed(),
    )
    want = _nx(G, k=k, seed=seed, normalized=normalized, endpoints=endpoints)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, equal_nan=True)


def test_seed_picks_networkx_sources():
    G = nx.gnp_random_graph(40, 0.1, seed=7)
    A = _csr(G)
    got = kleene.betweenness_centrality(A, k=5, seed=1, directed=False)
    np.testing.assert_allclose(got, _nx(G, k=5, seed=1), rtol=0, atol=1e-12)
    # the same as naming NetworkX's sample as the sources
    chosen = random.Random(1).sample(list(G), 5)
    same = kleene.betweenness_centrality(A, sources=chosen, directed=False)
    np.testing.assert_array_equal(got, same)
    # a random.Random is used as it is
    again = kleene.betweenness_centrality(A, k=5, seed=random.Random(1), directed=False)
    np.testing.assert_array_equal(got, again)


def test_disconnected_and_batches():
    # more sources than one batch, two components, an isolated vertex
    G = nx.union(nx.path_graph(50), nx.cycle_graph(range(50, 90)))
    G.add_node(90)
    got = kleene.betweenness_centrality(_csr(G), directed=False)
    np.testing.assert_allclose(got, _nx(G), rtol=0, atol=1e-9)
    D = nx.gnp_random_graph(80, 0.04, seed=3, directed=True)
    got = kleene.betweenness_centrality(_csr(D), endpoints=True, normalized=False)
    np.testing.assert_allclose(got, _nx(D, endpoints=True, normalized=False), rtol=0, atol=1e-9)


def test_input_forms_agree():
    G = nx.gnp_random_graph(12, 0.3, seed=2, directed=True)
    A = _csr(G)
    want = _nx(G)
    dense = np.where(A.toarray() > 0, 1.0, np.inf)
    for form in (A, kleene.Matrix.from_scipy(A), dense):
        np.testing.assert_allclose(kleene.betweenness_centrality(form), want, atol=1e-12)


def test_errors():
    A = _csr(nx.path_graph(4))
    with pytest.raises(ValueError, match="larger than"):
        kleene.betweenness_centrality(A, k=5)
    with pytest.raises(InvalidValue, match="k or sources"):
        kleene.betweenness_centrality(A, k=2, sources=[0])
    for bad in (-1, 0, 1.5, True):
        with pytest.raises(InvalidValue, match="positive int"):
            kleene.betweenness_centrality(A, k=bad)
    with pytest.raises(InvalidValue, match="sources is empty"):
        kleene.betweenness_centrality(A, sources=[])
    with pytest.raises(InvalidValue, match="seed"):
        kleene.betweenness_centrality(A, k=2, seed="x")
    with pytest.raises(IndexOutOfBound):
        kleene.betweenness_centrality(A, sources=[7])


# -- weights, edges, the routes -------------------------------------------------------
@st.composite
def weighted_graphs(draw, max_n=12):
    """A graph with positive weights, small integers or halves (so that equal path
    lengths are common: ties are counted as equal paths)."""
    G = draw(graphs(max_n))
    for u, v in G.edges:
        G[u][v]["weight"] = draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]))
    return G


def _nx_edges(G, **kw):
    return nx.edge_betweenness_centrality(G, **kw)


def _check_edges(E, G, want):
    """E (a kleene Matrix) holds NetworkX's value at every edge, both ways if undirected."""
    assert E.nvals == (len(want) if G.is_directed() else 2 * len(want) - nx.number_of_selfloops(G))
    D = E.to_dense(missing=np.nan)
    for (u, v), x in want.items():
        assert abs(D[u, v] - x) <= 1e-9, ((u, v), D[u, v], x)
        if not G.is_directed():
            assert D[v, u] == D[u, v]


@settings(max_examples=40, deadline=None)
@given(weighted_graphs(), st.booleans(), st.booleans(), st.sampled_from(ROUTES), st.data())
def test_weighted_matches_networkx(G, normalized, endpoints, fused, data):
    kw = {"normalized": normalized, "endpoints": endpoints}
    if data.draw(st.booleans()):
        kw["k"] = data.draw(st.integers(1, len(G)))
        kw["seed"] = data.draw(st.integers(0, 100))
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, nodelist=range(len(G)), weight="weight"))
    got = kleene.betweenness_centrality(
        A, weight="weight", directed=G.is_directed(), fused=fused, **kw
    )
    want = _nx(G, weight="weight", **kw)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, equal_nan=True)


@settings(max_examples=40, deadline=None)
@given(weighted_graphs(), st.booleans(), st.booleans(), st.sampled_from(ROUTES), st.data())
def test_edge_betweenness_matches_networkx(G, normalized, weighted, fused, data):
    kw = {"normalized": normalized, "weight": "weight" if weighted else None}
    if data.draw(st.booleans()):
        kw["k"] = data.draw(st.integers(1, len(G)))
        kw["seed"] = data.draw(st.integers(0, 100))
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, nodelist=range(len(G)), weight="weight"))
    E = kleene.edge_betweenness_centrality(A, directed=G.is_directed(), fused=fused, **kw)
    _check_edges(E, G, _nx_edges(G, **kw))


def test_weights_route_paths_and_ties():
    # the square 0-1-2-3-0 with a heavy 3-0: the paths between 0 and 3 go around
    G = nx.cycle_graph(4)
    nx.set_edge_attributes(G, 1.0, "weight")
    G[3][0]["weight"] = 5.0
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, nodelist=range(4), weight="weight"))
    got = kleene.betweenness_centrality(A, weight=True, directed=False, normalized=False)
    assert (
        got.tolist() == [0.0, 2.0, 2.0, 0.0] == _nx(G, weight="weight", normalized=False).tolist()
    )
    # unweighted, 3-0 is one hop: the same matrix read as a pattern
    flat = kleene.betweenness_centrality(A, directed=False, normalized=False)
    assert flat.tolist() == [0.5, 0.5, 0.5, 0.5]
    # a stored +inf weight is no edge
    inf = A.copy()
    inf.data[inf.data == 5.0] = np.inf
    H = nx.path_graph(4)
    got = kleene.betweenness_centrality(inf, weight=True, directed=False, normalized=False)
    assert got.tolist() == _nx(H, normalized=False).tolist()


def test_weight_errors():
    A = sp.csr_matrix(([1.0, -2.0], ([0, 1], [1, 2])), shape=(3, 3))
    for f in (kleene.betweenness_centrality, kleene.edge_betweenness_centrality):
        with pytest.raises(InvalidValue, match="non-negative"):
            f(A, weight=True)
        with pytest.raises(ValueError):  # InvalidValue is a ValueError
            f(A, weight="weight", directed=False)
        nan = sp.csr_matrix(([1.0, np.nan], ([0, 1], [1, 2])), shape=(3, 3))
        with pytest.raises(InvalidValue, match="NaN"):
            f(nan, weight=True)
        with pytest.raises(InvalidValue, match="weight must be"):
            f(A, weight=lambda u, v, d: 1)
        with pytest.raises(InvalidValue, match="fused"):
            f(A, fused="yes")
    # negative weights are read only as lengths: the pattern alone is fine
    assert kleene.betweenness_centrality(A, normalized=False).tolist() == [0.0, 1.0, 0.0]


def test_zero_weights_and_boolean_matrices():
    # a zero-weight edge is a path of length 0; a Boolean matrix has no lengths
    A = sp.csr_matrix(([0.0, 1.0, 1.0], ([0, 1, 2], [1, 2, 3])), shape=(4, 4))
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 0.0), (1, 2, 1.0), (2, 3, 1.0)])
    got = kleene.betweenness_centrality(A, weight=True, normalized=False)
    np.testing.assert_allclose(got, _nx(G, weight="weight", normalized=False), atol=1e-12)
    B = A.astype(bool)
    np.testing.assert_array_equal(
        kleene.betweenness_centrality(B, weight=True), kleene.betweenness_centrality(B)
    )


@pytest.mark.skipif(not HAS_KERNEL, reason="no compiled CPU kernel (KLEENE_CPU=numpy or no Numba)")
def test_compiled_kernel_is_deterministic_and_matches_composed():
    G = nx.gnp_random_graph(300, 0.03, seed=4, directed=True)
    rng = np.random.default_rng(0)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 4))
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, nodelist=range(300), weight="weight"))
    for weight in (None, True):
        for directed in (True, False):
            kw = {"weight": weight, "directed": directed, "k": 40, "seed": 5}
            first = kleene.betweenness_centrality(A, fused=True, **kw)
            again = kleene.betweenness_centrality(A, fused=True, **kw)
            assert first.tobytes() == again.tobytes()
            composed = kleene.betweenness_centrality(A, fused=False, **kw)
            np.testing.assert_allclose(first, composed, rtol=1e-12, atol=1e-12)
            E1 = kleene.edge_betweenness_centrality(A, fused=True, **kw)
            E2 = kleene.edge_betweenness_centrality(A, fused=True, **kw)
            assert E1.isequal(E2)
            E3 = kleene.edge_betweenness_centrality(A, fused=False, **kw)
            np.testing.assert_allclose(
                E1.to_dense(missing=0.0), E3.to_dense(missing=0.0), rtol=1e-12, atol=1e-12
            )


def test_edge_betweenness_forms():
    # Matrix input, a sampled source set, an empty graph, one vertex
    G = nx.karate_club_graph()
    A = kleene.Matrix.from_scipy(_csr(G))
    E = kleene.edge_betweenness_centrality(A, directed=False, k=8, seed=2)
    _check_edges(E, G, _nx_edges(G, k=8, seed=2))
    assert kleene.edge_betweenness_centrality(sp.csr_matrix((0, 0))).nvals == 0
    one = kleene.edge_betweenness_centrality(sp.csr_matrix(([1.0], ([0], [0])), shape=(1, 1)))
    assert one.to_dense(missing=np.nan).tolist() == [[0.0]]


# -- the GPU kernel -------------------------------------------------------------------
def _hub_graph(n=6000, seed=1, directed=False):
    """A random graph with a hub of more arcs than one warp takes (chunked) and a few
    small components."""
    rng = np.random.default_rng(seed)
    m = 4 * n
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    hub = np.arange(1, 3000)
    src = np.concatenate([src, np.zeros(hub.size, np.int64), [n - 3, n - 2]])
    dst = np.concatenate([dst, hub, [n - 2, n - 1]])
    A = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = rng.integers(1, 4, A.nnz).astype(np.float64)
    return A if directed else sp.csr_matrix(A.maximum(A.T))


@pytest.mark.gpu
@pytest.mark.skipif(not GPU_OK, reason="no GPU")
@pytest.mark.parametrize("directed", [False, True])
def test_gpu_kernel_matches_cpu_and_repeats(directed):
    import cupy
    import cupyx.scipy.sparse as csp

    A = _hub_graph(directed=directed)
    D = csp.csr_matrix(A)
    sources = [0, 5, 17, 5999, 5998, *range(100, 180)]  # two batches, a hub, a tail
    for endpoints in (False, True):
        kw = {"directed": directed, "sources": sources, "normalized": False}
        gpu = kleene.betweenness_centrality(D, endpoints=endpoints, **kw)
        assert isinstance(gpu, cupy.ndarray)
        again = kleene.betweenness_centrality(D, endpoints=endpoints, **kw)
        assert cupy.asnumpy(gpu).tobytes() == cupy.asnumpy(again).tobytes()
        cpu = kleene.betweenness_centrality(A, endpoints=endpoints, **kw)
        np.testing.assert_allclose(cupy.asnumpy(gpu), cpu, rtol=1e-9, atol=1e-9)
    kw = {"directed": directed, "sources": sources}
    Eg = kleene.edge_betweenness_centrality(D, **kw)
    Eg2 = kleene.edge_betweenness_centrality(D, **kw)
    assert Eg.isequal(Eg2)
    Ec = kleene.edge_betweenness_centrality(A, **kw)
    np.testing.assert_allclose(
        Eg.to("cpu").to_dense(missing=0.0), Ec.to_dense(missing=0.0), rtol=1e-9, atol=1e-12
    )
    # weighted: the CPU kernel on a host copy, answered on the device
    w = kleene.betweenness_centrality(D, weight=True, **kw)
    np.testing.assert_allclose(
        cupy.asnumpy(w), kleene.betweenness_centrality(A, weight=True, **kw), rtol=1e-12
    )


def test_small_graphs_on_each_backend_match_networkx(backend):
    G = nx.gnp_random_graph(30, 0.12, seed=9, directed=True)
    A = kleene.Matrix.from_scipy(_csr(G)).to(backend)
    for directed in (True, False):
        H = G if directed else G.to_undirected()
        for fused in (None, False):
            got = kleene.betweenness_centrality(A, directed=directed, k=12, seed=4, fused=fused)
            got = kleene.backends.to_host(got)
            np.testing.assert_allclose(got, _nx(H, k=12, seed=4), atol=1e-9)
            E = kleene.edge_betweenness_centrality(A, directed=directed, fused=fused)
            _check_edges(E.to("cpu"), H, _nx_edges(H))


@pytest.mark.parametrize("directed", [False, True])
def test_deep_graphs_take_one_search_per_source(directed):
    # a long grid: the search from the first source (a corner) is deeper than the
    # 64-search batches take, so the compiled kernel runs one search per source
    G = nx.convert_node_labels_to_integers(nx.grid_2d_graph(4, 40))
    if directed:
        G = nx.DiGraph(G)
        G.remove_edges_from([(u, v) for u, v in list(G.edges) if (u * 7 + v) % 5 == 0])
    A = _csr(G)
    sources = [0, *range(5, 160, 3)]
    for endpoints in (False, True):
        got = kleene.betweenness_centrality(
            A, sources=sources, endpoints=endpoints, directed=directed, normalized=False
        )
        nodes = [int(s) for s in sources]
        want = _nx(G, k=len(nodes), seed=_Fixed(nodes), endpoints=endpoints, normalized=False)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
    E = kleene.edge_betweenness_centrality(A, sources=sources, directed=directed)
    _check_edges(E, G, _nx_edges(G, k=len(sources), seed=_Fixed(sources)))


class _Fixed(random.Random):
    """A generator whose sample is the given sources (NetworkX samples its k sources
    with ``seed.sample(list(G), k)``)."""

    def __init__(self, picks):
        super().__init__(0)
        self.picks = list(picks)

    def sample(self, population, k):
        return list(self.picks)
