"""kleene.csgraph on the GPU: CuPy / cupyx input gives CuPy results equal to SciPy's.

Skipped, with the reason, where CuPy does not import or sees no GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as scipy_csgraph
from numpy.testing import assert_allclose, assert_array_equal

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy", reason="cupy is not installed")

from kleene import csgraph  # noqa: E402
from kleene.backends import gpu_available  # noqa: E402

if not gpu_available():
    pytest.skip("cupy sees no CUDA GPU", allow_module_level=True)

import cupyx.scipy.sparse as csp  # noqa: E402


def _graph(n=300, density=0.02, seed=0, negative=False):
    rng = np.random.default_rng(seed)
    S = sp.random_array((n, n), density=density, format="csr", rng=rng)
    S.data = np.round(S.data * 9) + 1.0
    if negative:
        S = sp.triu(S, 1, format="csr")
        S.data -= 5.0
    return S


def _on_gpu(S):
    return csp.csr_matrix(sp.csr_matrix(S))


def _is_cupy(a):
    return type(a).__module__.startswith("cupy")


@pytest.mark.parametrize("method", ["auto", "FW", "D", "BF", "J"])
@pytest.mark.parametrize("directed", [True, False])
def test_shortest_path(method, directed):
    S = _graph()
    d, p = csgraph.shortest_path(_on_gpu(S), method, directed, return_predecessors=True)
    assert _is_cupy(d) and _is_cupy(p) and p.dtype == np.int32
    want = scipy_csgraph.shortest_path(S, method, directed)
    assert_allclose(d.get(), want)
    assert_allclose(csgraph.construct_dist_matrix(S, p.get(), directed=directed), want)


def test_dijkstra_many_sources_limit_and_min_only():
    S = _graph(n=500)
    G = _on_gpu(S)
    idx = np.arange(0, 500, 7)
    d = csgraph.dijkstra(G, indices=idx, limit=6)
    assert _is_cupy(d)
    assert_allclose(d.get(), scipy_csgraph.dijkstra(S, indices=idx, limit=6))
    d, p, s = csgraph.dijkstra(G, indices=idx, min_only=True, return_predecessors=True)
    wd, _, ws = scipy_csgraph.dijkstra(S, indices=idx, min_only=True, return_predecessors=True)
    assert _is_cupy(d) and _is_cupy(s)
    assert_allclose(d.get(), wd)
    assert_array_equal(s.get() == -9999, ws == -9999)


def test_negative_weights_and_cycles():
    S = _graph(negative=True)
    assert_allclose(csgraph.bellman_ford(_on_gpu(S)).get(), scipy_csgraph.bellman_ford(S))
    assert_allclose(csgraph.johnson(_on_gpu(S)).get(), scipy_csgraph.johnson(S))
    C = cupy.asarray([[0, 1.0], [-2.0, 0]])
    with pytest.raises(scipy_csgraph.NegativeCycleError):
        csgraph.bellman_ford(C)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("connection", ["weak", "strong"])
def test_connected_components(directed, connection):
    S = _graph(n=2000, density=0.0006)
    n, labels = csgraph.connected_components(_on_gpu(S), directed, connection)
    wn, wl = scipy_csgraph.connected_components(S, directed, connection)
    assert n == wn and _is_cupy(labels)
    if directed and connection == "strong":  # cupyx's numbering: by smallest vertex
        _, first = np.unique(wl, return_index=True)
        rank = np.empty(wn, dtype=np.int64)
        rank[np.argsort(first)] = np.arange(wn)
        wl = rank[wl]
    assert_array_equal(labels.get(), wl)


def test_connected_components_read_every_stored_entry_as_an_edge():
    # a stored inf, NaN or 0 is an edge, as SciPy reads it; a symmetric pattern
    # (Afforest) and a directed one (the colouring sweeps)
    S = sp.csr_array(
        (np.array([np.inf, np.nan, 0.0, -np.inf, 2.0]), ([0, 1, 2, 3, 5], [1, 2, 3, 0, 4])),
        shape=(7, 7),
    )
    for G in (S, (S + S.T).tocsr()):
        for directed, connection in ((True, "strong"), (False, "weak")):
            n, labels = csgraph.connected_components(_on_gpu(G), directed, connection)
            wn, wl = scipy_csgraph.connected_components(G, directed, connection)
            assert n == wn
            assert _same_partition(labels.get(), wl)


@pytest.mark.parametrize("name", ["breadth_first_order", "depth_first_order"])
@pytest.mark.parametrize("directed", [True, False])
def test_orders(name, directed):
    S = _graph()
    order, pred = getattr(csgraph, name)(_on_gpu(S), 3, directed)
    want = getattr(scipy_csgraph, name)(S, 3, directed)
    assert _is_cupy(order)
    assert_array_equal(order.get(), want[0])
    assert_array_equal(pred.get(), want[1])


def test_dense_cupy_input_reads_zero_as_no_edge():
    a = np.array([[0, 1, 5], [0, 0, 1], [0, 0, 0]], dtype=float)
    d = csgraph.shortest_path(cupy.asarray(a))
    assert _is_cupy(d)
    assert_allclose(d.get(), scipy_csgraph.shortest_path(a))
    S = csgraph.csgraph_from_dense(cupy.asarray(a))
    assert_allclose(S.toarray().get(), a)


def test_yen_and_unweighted():
    S = _graph(n=60, density=0.1)
    G = _on_gpu(S)
    assert_allclose(csgraph.yen(G, 0, 5, 3).get(), scipy_csgraph.yen(S, 0, 5, 3))
    assert_allclose(
        csgraph.shortest_path(G, unweighted=True).get(),
        scipy_csgraph.shortest_path(S, unweighted=True),
    )


def _same_partition(a, b) -> bool:
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))
