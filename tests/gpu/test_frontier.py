"""The fused GPU frontier loops agree with the composed operations they replace.

``kleene.bfs`` / ``kleene.sssp`` on the GPU run kernels/frontier.cu (all levels in
one cooperative launch). Here they are checked against the composed-operation
searches (``kleene.engine.frontier_bfs`` / ``frontier_bellman_ford`` with
``fused=False``, on the same GPU matrix), against
scipy, and against the per-level fallback, including parents (the smallest
neighbour one level up) and negative cycles. Skipped without CuPy or a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.gpu

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)


from scipy.sparse.csgraph import shortest_path  # noqa: E402

import kleene  # noqa: E402
from kleene.algorithms.graph_input import as_graph  # noqa: E402
from kleene.backends.cuda import frontier, jit  # noqa: E402
from kleene.errors import NegativeCycleError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from graph_data import load_scipy  # noqa: E402


@st.composite
def graphs(draw, negative=False, max_n=40):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 5 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    lo = -2 if negative else 0
    w = draw(st.lists(st.integers(lo, 9), min_size=m, max_size=m))
    g = sp.coo_matrix((np.array(w, float), (src, dst)), shape=(n, n)).tocsr()  # sums dups
    s = draw(st.integers(0, n - 1))
    return g, s


def _composed_bfs(A, s, method, parents):
    levels, par = kleene.engine.frontier_bfs(A, s, parents=parents, method=method, fused=False)
    return levels.to_dense(missing=-1), par.to_dense(missing=-1)


class _PerLevel:
    """Force the per-level fallback (as on a device that refuses cooperative launches)."""

    def __enter__(self):
        frontier._no_cooperative.add(jit.device_id())

    def __exit__(self, *exc):
        frontier._no_cooperative.discard(jit.device_id())


@settings(max_examples=60, deadline=None)
@given(
    data=graphs(),
    method=st.sampled_from(["push", "pull", "direction-optimizing"]),
    directed=st.booleans(),
)
def test_fused_bfs_equals_composed(data, method, directed):
    g, s = data
    A = as_graph(kleene.Matrix.from_scipy(g).to("gpu"), directed=directed)
    want_lv, want_par = (x.get() for x in _composed_bfs(A, s, method, True))
    lv, par = kleene.bfs(A, s, method=method, return_predecessors=True)
    assert np.array_equal(lv.get(), want_lv)
    assert np.array_equal(par.get(), want_par)
    with _PerLevel():
        lv2, par2 = kleene.bfs(A, s, method=method, return_predecessors=True)
    assert np.array_equal(lv2.get(), want_lv) and np.array_equal(par2.get(), want_par)
    assert np.array_equal(kleene.bfs(A, s, method=method).get(), want_lv)


@settings(max_examples=60, deadline=None)
@given(data=graphs(negative=True))
def test_fused_bellman_ford_equals_composed(data):
    g, s = data
    A = kleene.Matrix.from_scipy(g).to("gpu")
    try:
        want = kleene.engine.frontier_bellman_ford(A, s, fused=False).to_dense().get()
    except NegativeCycleError:
        with pytest.raises(NegativeCycleError):
            kleene.sssp(A, s, method="bellman-ford")
        with _PerLevel(), pytest.raises(NegativeCycleError):
            kleene.sssp(A, s, method="bellman-ford")
        return
    got = kleene.sssp(A, s, method="bellman-ford").get()
    np.testing.assert_array_equal(got, want)
    with _PerLevel():
        np.testing.assert_array_equal(kleene.sssp(A, s, method="bellman-ford").get(), want)


@pytest.mark.parametrize("method", ["push", "pull", "direction-optimizing"])
def test_fused_bfs_new_york_and_facebook(method):
    for name, symmetric in (("USA-road-NY.pace.gr.xz", True), ("facebook_combined.txt.gz", True)):
        g = load_scipy(name, symmetric=symmetric)
        A = kleene.Matrix.from_scipy(g).to("gpu")
        lv, par = (x.get() for x in kleene.bfs(A, 3, method=method, return_predecessors=True))
        want = shortest_path(g, unweighted=True, indices=3)
        assert np.array_equal(lv, np.where(np.isinf(want), -1, want).astype(np.int64))
        want_lv, want_par = (x.get() for x in _composed_bfs(A, 3, "push", True))
        assert np.array_equal(par, want_par)


class _RoundLevels:
    """Run the thin graphs' BFS at ``k`` levels a round; record the kernels launched."""

    def __init__(self, k):
        self.k, self.names = k, []

    def __enter__(self):
        self.saved, self.launch = frontier.ROUND_LEVELS, frontier._cooperative
        frontier.ROUND_LEVELS = self.k

        def spy(name, args, per_sm=None):
            self.names.append(name)
            return self.launch(name, args, per_sm)

        frontier._cooperative = spy
        return self

    def __exit__(self, *exc):
        frontier.ROUND_LEVELS, frontier._cooperative = self.saved, self.launch


def _bfs_levels(g, s):
    want = shortest_path(g, unweighted=True, indices=s)
    return np.where(np.isinf(want), -1, want).astype(np.int64)


@settings(max_examples=80, deadline=None)
@given(data=graphs(max_n=60), k=st.sampled_from([1, 2, 3, 4, 8]), directed=st.booleans())
def test_bfs_rounds_equal_composed(data, k, directed):
    # Several levels a round (thin graphs, no parents): levels claimed by atomicMin
    # end as the composed search's, whatever order warps reach a vertex in.
    g, s = data
    A = as_graph(kleene.Matrix.from_scipy(g).to("gpu"), directed=directed)
    levels, _ = kleene.engine.frontier_bfs(A, s, method="push", fused=False)
    want = levels.to_dense(missing=-1).get()
    with _RoundLevels(k) as r:
        got = kleene.bfs(A, s).get()
    assert np.array_equal(got, want)
    thin = A.nvals < frontier._THIN_DEGREE * A.nrows
    assert ("kl_bfs_rounds" in r.names) == thin
    if thin:
        with _RoundLevels(k), _PerLevel():  # refused: the per-level kernels from scratch
            assert np.array_equal(kleene.bfs(A, s).get(), want)


@pytest.mark.parametrize("k", [1, 3, 4, 7])
def test_bfs_rounds_chains_grids_and_hubs(k):
    n = 6000
    chain = sp.diags([np.ones(n - 1)], [1], shape=(n, n), format="csr")  # 5,999 levels
    grid = kleene.generators.road_graph(48, seed=2).to_scipy()
    hub = sp.coo_matrix((np.ones(n - 1), (np.zeros(n - 1), np.arange(1, n))), shape=(n, n))
    hub = (hub + sp.diags([np.ones(n - 1)], [1], shape=(n, n))).tocsr()  # a star and a chain
    lone = sp.block_diag([chain, sp.csr_matrix((5, 5))]).tocsr()  # unreachable vertices
    # Mean degree 7.5, just thin: a round reaches most of the graph by many paths, so
    # vertices are lowered several times a round (each goes on the frontier once a round).
    rand = sp.random(20000, 20000, density=7.5 / 20000, random_state=4, format="csr")
    small = sp.random(30, 30, density=0.24, random_state=5, format="csr")
    for g, sources in (
        (chain, (0, n // 2)),
        (chain + chain.T, (n // 3,)),
        (grid, (0, 777)),
        (hub, (0, 1, n - 2)),
        (hub + hub.T, (5,)),
        (lone, (0,)),
        (rand, (0, 11)),
        (small, (0, 3)),
    ):
        A = kleene.Matrix.from_scipy(g.tocsr()).to("gpu")
        for s in sources:
            with _RoundLevels(k) as r:
                got = kleene.bfs(A, s).get()
            assert r.names == ["kl_bfs_rounds"]
            np.testing.assert_array_equal(got, _bfs_levels(g, s))


def test_fused_sssp_rome_and_new_york():
    for name in ("rome99.gr", "USA-road-NY.pace.gr.xz"):
        g = load_scipy(name)
        if name.startswith("USA"):  # unweighted topology: seeded integer weights
            g = g.tocsr()
            g.data = np.random.default_rng(5).integers(1, 1000, g.nnz).astype(float)
        A = kleene.Matrix.from_scipy(g).to("gpu")
        got = kleene.sssp(A, 0).get()
        np.testing.assert_allclose(got, shortest_path(g, indices=0), rtol=0, atol=0)


def test_fused_runs_are_identical_on_rmat():
    """Atomic levels, parents and distances do not depend on scheduling."""
    src, dst = kleene.generators.rmat(14, 16, seed=3)
    w = np.random.default_rng(3).uniform(1.0, 100.0, src.size)
    A = kleene.Matrix.from_edges(src, dst, w, 1 << 14, dup="min").to("gpu")
    lv0, par0 = (x.get() for x in kleene.bfs(A, 1, return_predecessors=True, directed=False))
    d0 = kleene.sssp(A, 1).get()
    for _ in range(20):
        lv, par = (x.get() for x in kleene.bfs(A, 1, return_predecessors=True, directed=False))
        assert np.array_equal(lv, lv0) and np.array_equal(par, par0)
        assert np.array_equal(kleene.sssp(A, 1).get(), d0)


def _hub_graph(negative: bool, seed: int = 5):
    """Four hubs of 5,000 out-edges each (over the heavy threshold, so their edges
    are spread over the grid) in a sparse random graph; ``negative``: a DAG (edges go
    to higher ids) with weights in [-1, 10), so no negative cycle."""
    rng = np.random.default_rng(seed)
    n = 20000
    src = np.concatenate([np.repeat(np.arange(4), 5000), rng.integers(0, n, 60000)])
    dst = np.concatenate([rng.integers(0, n, 20000), rng.integers(0, n, 60000)])
    if negative:
        keep = src < dst
        src, dst = src[keep], dst[keep]
    w = rng.uniform(-1.0 if negative else 1.0, 10.0, src.size)
    return kleene.Matrix.from_edges(src, dst, w, n).to_scipy(), n


def _dag_distances(g, n: int, s: int) -> np.ndarray:
    """Shortest distances on a DAG whose edges go to higher ids (one pass in id order)."""
    d = np.full(n, np.inf)
    d[s] = 0.0
    for u in range(s, n):
        if np.isfinite(d[u]):
            lo, hi = g.indptr[u], g.indptr[u + 1]
            np.minimum.at(d, g.indices[lo:hi], d[u] + g.data[lo:hi])
    return d


@pytest.mark.parametrize("negative", [False, True])
@pytest.mark.parametrize("source", [0, 7])  # a hub (heavy from the start), a light vertex
def test_bellman_ford_with_hubs(negative, source):
    g, n = _hub_graph(negative)
    A = kleene.Matrix.from_scipy(g).to("gpu")
    want = _dag_distances(g, n, source) if negative else shortest_path(g, indices=source)
    for dtype in (np.float64, np.float32):
        B = A if dtype == np.float64 else A.astype(np.float32)
        w = g.astype(dtype) if dtype == np.float32 else g
        expect = (
            want
            if dtype == np.float64
            else (
                _dag_distances(w.astype(np.float64), n, source)
                if negative
                else shortest_path(w.astype(np.float64), indices=source)
            )
        )
        got = kleene.engine.frontier_bellman_ford(B, source).to_dense().get()
        np.testing.assert_allclose(got, expect, rtol=1e-12)
        again = kleene.engine.frontier_bellman_ford(B, source).to_dense().get()
        np.testing.assert_array_equal(got, again)  # atomics: the same every run
        with _PerLevel():
            np.testing.assert_array_equal(
                kleene.engine.frontier_bellman_ford(B, source).to_dense().get(), got
            )
