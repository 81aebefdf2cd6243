"""``device=`` on the algorithms: where G lives it changes nothing, a bad name or a
missing GPU is a clear error (the GPU runs are tests/gpu/test_device_argument_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import kleene
from kleene.errors import DeviceUnavailable

G = sp.csr_matrix(
    ([1.0, 2.0, 1.0, 3.0, 1.0, 1.0], ([0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2])), shape=(4, 4)
)
CALLS = {
    "bfs": lambda g, **kw: kleene.bfs(g, 0, **kw),
    "sssp": lambda g, **kw: kleene.sssp(g, 0, **kw),
    "transitive_closure": lambda g, **kw: kleene.transitive_closure(g, **kw),
    "apsp": lambda g, **kw: kleene.apsp(g, **kw),
    "pagerank": lambda g, **kw: kleene.pagerank(g, **kw),
    "connected_components": lambda g, **kw: kleene.connected_components(g, **kw)[1],
    "betweenness_centrality": lambda g, **kw: kleene.betweenness_centrality(g, **kw),
    "edge_betweenness_centrality": lambda g, **kw: kleene.edge_betweenness_centrality(
        g, **kw
    ).to_dense(missing=0),
    "triangle_count": lambda g, **kw: kleene.triangle_count(g, **kw),
    "triangles": lambda g, **kw: kleene.triangles(g, **kw),
    "clustering": lambda g, **kw: kleene.clustering(g, **kw),
    "transitivity": lambda g, **kw: kleene.transitivity(g, **kw),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_cpu_where_the_graph_is_changes_nothing(name):
    call = CALLS[name]
    want = call(G)
    dense = np.where(G.toarray() == 0, np.inf, G.toarray())  # (inf: no edge)
    for form in (G, dense, kleene.Matrix.from_scipy(G)):
        got = call(form if name != "apsp" else G, device="cpu")
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_bad_device_is_a_value_error(name):
    with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu'"):
        CALLS[name](G, device="cuda:0")


@pytest.mark.skipif(kleene.gpu_available(), reason="checks the error where there is no GPU")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_gpu_without_one_says_so(name):
    with pytest.raises(DeviceUnavailable, match="needs CuPy and a CUDA GPU"):
        CALLS[name](G, device="gpu")


def test_not_with_a_client():
    with pytest.raises(ValueError, match="not with client="):
        kleene.bfs(G, 0, device="cpu", client=object())
    with pytest.raises(ValueError, match="not with client="):
        kleene.sssp(G, 0, device="cpu", client=object())
