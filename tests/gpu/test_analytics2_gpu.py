"""kleene.betweenness_centrality and the triangle kernels on GPU graphs.

A graph on the GPU (a kleene Matrix moved there, or a cupyx sparse matrix) must give
CuPy results equal to the CPU's: betweenness within 1e-9 (the same products; sums may
run in another order) for every option, triangle counts exactly, clustering within
one rounding. Skipped without CuPy or a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

import kleene  # noqa: E402


@st.composite
def graphs(draw, max_n=40):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 4 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    G = sp.coo_matrix((np.ones(m), (np.array(src, int), np.array(dst, int))), shape=(n, n))
    G = G.tocsr()
    G.sum_duplicates()
    return G


def _gpu(G):
    return kleene.Matrix.from_scipy(G).to("gpu")


@settings(max_examples=25, deadline=None)
@given(graphs(), st.booleans(), st.booleans(), st.booleans(), st.data())
def test_betweenness_gpu_matches_cpu(G, directed, normalized, endpoints, data):
    n = G.shape[0]
    k = data.draw(st.one_of(st.none(), st.integers(1, n)))
    kw = dict(k=k, seed=3, directed=directed, normalized=normalized, endpoints=endpoints)
    want = kleene.betweenness_centrality(G, **kw)
    got = kleene.betweenness_centrality(_gpu(G), **kw)
    assert isinstance(got, cupy.ndarray) and got.dtype == np.float64
    np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=0, atol=1e-9, equal_nan=True)


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_triangles_gpu_match_cpu(G):
    import cupyx.scipy.sparse as csp

    for form in (_gpu(G), csp.csr_matrix(G)):
        t = kleene.triangles(form)
        assert isinstance(t, cupy.ndarray) and t.dtype == np.int64
        np.testing.assert_array_equal(cupy.asnumpy(t), kleene.triangles(G))
        assert kleene.triangle_count(form) == kleene.triangle_count(G)
        c = kleene.clustering(form)
        assert isinstance(c, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(c), kleene.clustering(G), rtol=1e-15, atol=0)
        assert kleene.transitivity(form) == pytest.approx(kleene.transitivity(G), rel=1e-15)


def test_betweenness_gpu_batches():
    # more sources than one batch: a path and a cycle, undirected
    n = 150
    i = np.arange(n - 1)
    G = sp.csr_matrix((np.ones(n - 1), (i, i + 1)), shape=(n, n))
    want = kleene.betweenness_centrality(G, directed=False)
    got = kleene.betweenness_centrality(_gpu(G), directed=False)
    np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=0, atol=1e-9)
