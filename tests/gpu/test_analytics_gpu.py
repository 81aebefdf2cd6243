"""kleene.pagerank and kleene.connected_components on GPU graphs.

A graph on the GPU must give CuPy results equal to the CPU's and to the references:
PageRank within 1e-9 in L1 of the CPU answer (the same operations; sums may run in
another order), with personalization and dangling vectors given as CuPy arrays;
weak components (the compiled Afforest kernel, and the composed FastSV) with SciPy's
labels; strong components with SciPy's labels (the compiled search on a host copy of
the pattern) and, composed (``fused=False``), SciPy's partition. Skipped without
CuPy or a GPU.
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

from scipy.sparse.csgraph import connected_components as scipy_cc  # noqa: E402

import kleene  # noqa: E402


@st.composite
def graphs(draw, max_n=40):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 3 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    w = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=m, max_size=m))
    G = sp.coo_matrix((np.array(w), (np.array(src, int), np.array(dst, int))), shape=(n, n))
    G = G.tocsr()
    G.sum_duplicates()
    return G


def _gpu(G):
    return kleene.Matrix.from_scipy(G).to("gpu")


def _same_partition(a, b) -> bool:
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@settings(max_examples=25, deadline=None)
@given(graphs(), st.booleans())
def test_pagerank_agrees(G, personalized):
    n = G.shape[0]
    kw = {"tol": 1e-10, "max_iter": 1000}
    p = np.arange(1.0, n + 1) if personalized else None
    d = None if p is None else p[::-1].copy()
    want = kleene.pagerank(G, personalization=p, dangling=d, **kw)
    got = kleene.pagerank(
        _gpu(G),
        personalization=None if p is None else cupy.asarray(p),
        dangling=None if d is None else cupy.asarray(d),
        **kw,
    )
    assert isinstance(got, cupy.ndarray) and got.dtype == np.float64
    assert float(np.abs(cupy.asnumpy(got) - want).sum()) < 1e-9
    from cupyx.scipy import sparse as cupyx_sparse

    again = kleene.pagerank(cupyx_sparse.csr_matrix(G), **kw)
    assert isinstance(again, cupy.ndarray)
    ref = kleene.pagerank(G, **kw)
    assert float(np.abs(cupy.asnumpy(again) - ref).sum()) < 1e-9


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_components_agree(G):
    A = _gpu(G)
    for directed, connection in [(False, "weak"), (True, "weak"), (True, "strong")]:
        k, labels = scipy_cc(G, directed=directed, connection=connection)
        k2, labels2 = kleene.connected_components(A, directed=directed, connection=connection)
        assert isinstance(labels2, cupy.ndarray) and labels2.dtype == np.int32
        assert k2 == k
        # strong labels: the installed SciPy's numbering (1.18 on: Tarjan's search over
        # the rows in stored order; up to 1.17: Pearce's), as the CPU's
        got = cupy.asnumpy(labels2)
        assert _same_partition(got, labels)
        np.testing.assert_array_equal(
            got, kleene.connected_components(G, directed=directed, connection=connection)[1]
        )
        np.testing.assert_array_equal(got, labels)
        k3, labels3 = kleene.connected_components(
            A, directed=directed, connection=connection, fused=False
        )
        assert k3 == k
        assert _same_partition(cupy.asnumpy(labels3), labels)


def test_weak_and_strong_compiled_on_gpu_graphs():
    A = _gpu(sp.csr_matrix(np.eye(3)))
    k, labels = kleene.connected_components(A, fused=True)  # Afforest (cuda/analytics)
    assert k == 3 and cupy.asnumpy(labels).tolist() == [0, 1, 2]
    k, labels = kleene.connected_components(A, connection="strong", fused=True)
    assert k == 3 and cupy.asnumpy(labels).tolist() == [0, 1, 2]
