"""kleene.pagerank against networkx.pagerank (the same semantics, to 1e-6 in L1).

Random directed graphs with isolated and dangling vertices, self loops and weights
(zero weights too, whose vertices count as dangling as in NetworkX), with and
without personalization, dangling distribution and start vector; unit weights with
``weight=False``; the errors, and the documented example.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.errors import DimensionMismatch, InvalidValue


@st.composite
def cases(draw, max_n=16):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 3 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    w = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=m, max_size=m))
    G = sp.coo_matrix((np.array(w), (np.array(src, int), np.array(dst, int))), shape=(n, n))
    G = G.tocsr()
    G.sum_duplicates()
    vec = st.lists(st.sampled_from([0.0, 0.25, 1.0, 2.0]), min_size=n, max_size=n)
    pers = draw(st.none() | vec.filter(lambda v: sum(v) > 0))
    dang = draw(st.none() | vec.filter(lambda v: sum(v) > 0))
    nstart = draw(st.none() | vec.filter(lambda v: sum(v) > 0))
    alpha = draw(st.sampled_from([0.0, 0.5, 0.85, 0.95]))
    return G, pers, dang, nstart, alpha


def _networkx(G, pers, dang, nstart, alpha, weight):
    g = nx.DiGraph()
    g.add_nodes_from(range(G.shape[0]))
    coo = G.tocoo()
    edges = zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True)
    g.add_weighted_edges_from(edges)

    def as_dict(v):
        return None if v is None else dict(enumerate(v))

    got = nx.pagerank(
        g,
        alpha=alpha,
        personalization=as_dict(pers),
        dangling=as_dict(dang),
        nstart=as_dict(nstart),
        tol=1e-10,
        max_iter=2000,
        weight="weight" if weight else None,
    )
    return np.array([got[i] for i in range(G.shape[0])])


@settings(max_examples=40, deadline=None)
@given(cases(), st.booleans())
def test_matches_networkx(case, weight):
    G, pers, dang, nstart, alpha = case
    want = _networkx(G, pers, dang, nstart, alpha, weight)
    got = kleene.pagerank(
        G,
        alpha=alpha,
        personalization=None if pers is None else np.array(pers),
        dangling=None if dang is None else np.array(dang),
        nstart=None if nstart is None else np.array(nstart),
        tol=1e-10,
        max_iter=2000,
        weight=weight,
    )
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == want.shape
    assert np.abs(got - want).sum() < 1e-6
    assert abs(got.sum() - 1.0) < 1e-9


def test_cycle_star_and_input_forms():
    cycle = sp.csr_matrix(([1, 1, 1], ([0, 1, 2], [1, 2, 0])), shape=(3, 3))
    np.testing.assert_allclose(kleene.pagerank(cycle), [1 / 3] * 3, atol=1e-12)
    # a star into 0: 0 is dangling, its rank spread uniformly
    star = np.full((4, 4), np.inf)
    star[1:, 0] = 1.0
    x = kleene.pagerank(star, tol=1e-12)
    assert x[0] > x[1] and np.allclose(x[1:], x[1])
    for form in (sp.csr_matrix(np.isfinite(star)), kleene.Matrix.from_dense(star)):
        np.testing.assert_allclose(kleene.pagerank(form, tol=1e-12), x, atol=1e-12)
    assert kleene.pagerank(sp.csr_matrix((0, 0))).shape == (0,)
    # no edges at all: every vertex dangling, the teleport vector is the answer
    p = np.array([1.0, 3.0])
    np.testing.assert_allclose(kleene.pagerank(sp.csr_matrix((2, 2)), personalization=p), p / 4)


def test_errors():
    G = sp.csr_matrix(([1.0, 1.0], ([0, 1], [1, 0])), shape=(2, 2))
    with pytest.raises(InvalidValue, match="alpha"):
        kleene.pagerank(G, alpha=1.5)
    with pytest.raises(InvalidValue, match="sums to zero"):
        kleene.pagerank(G, personalization=np.zeros(2))
    with pytest.raises(InvalidValue, match="non-negative"):
        kleene.pagerank(G, personalization=np.array([1.0, -1.0]))
    with pytest.raises(DimensionMismatch, match="length 2"):
        kleene.pagerank(G, dangling=np.ones(3))
    with pytest.raises(DimensionMismatch, match="length 2"):
        kleene.pagerank(G, nstart=np.ones((2, 1)))
    with pytest.raises(InvalidValue, match="non-negative"):
        kleene.pagerank(sp.csr_matrix(([-1.0], ([0], [1])), shape=(2, 2)))
    with pytest.raises(DimensionMismatch, match="square"):
        kleene.pagerank(sp.csr_matrix((2, 3)))
    with pytest.raises(InvalidValue, match="max_iter"):
        kleene.pagerank(G, max_iter=0)
    with pytest.raises(kleene.PowerIterationFailedConvergence) as err:
        kleene.pagerank(G, nstart=np.array([1.0, 0.0]), alpha=1.0, max_iter=5)
    assert isinstance(err.value, RuntimeError) and err.value.num_iterations == 5


def _iterations(G, **kw):
    """The number of steps pagerank takes: the least max_iter that does not raise."""
    for k in range(1, 500):
        try:
            kleene.pagerank(G, max_iter=k, **kw)
            return k
        except kleene.PowerIterationFailedConvergence as err:
            assert err.num_iterations == k
    raise AssertionError("no convergence")


@settings(max_examples=25, deadline=None)
@given(cases(), st.booleans())
def test_kernel_matches_the_composed_form(case, weight):
    G, pers, dang, nstart, alpha = case
    kw = dict(
        alpha=alpha,
        personalization=None if pers is None else np.array(pers),
        dangling=None if dang is None else np.array(dang),
        nstart=None if nstart is None else np.array(nstart),
        tol=1e-9,
        max_iter=3000,
        weight=weight,
    )
    composed = kleene.pagerank(G, fused=False, **kw)
    for form in (G, kleene.Matrix.from_scipy(G)):
        got = kleene.pagerank(form, **kw)
        assert np.abs(got - composed).sum() < 1e-9


def test_fast_path_keeps_the_graph_rules():
    # duplicates keep the least weight; +inf is no edge; one weight everywhere divides out
    D = sp.csr_matrix(
        (np.array([5.0, 1.0, 2.0, 1.0]), np.array([1, 1, 2, 0]), np.array([0, 3, 4, 4])),
        shape=(3, 3),
    )
    assert not D.has_canonical_format
    want = kleene.pagerank(kleene.Matrix.from_scipy(D), tol=1e-12, fused=False)
    np.testing.assert_allclose(kleene.pagerank(D, tol=1e-12), want, atol=1e-12)
    G = sp.csr_matrix(([1.0, np.inf, 2.0], ([0, 1, 1], [1, 2, 0])), shape=(3, 3))
    H = sp.csr_matrix(([1.0, 2.0], ([0, 1], [1, 0])), shape=(3, 3))
    np.testing.assert_allclose(kleene.pagerank(G, tol=1e-12), kleene.pagerank(H, tol=1e-12))
    G.data[1] = np.nan
    with pytest.raises(ValueError):
        kleene.pagerank(G)
    # weight=False reads the pattern: a stored +inf is still no edge, a NaN an edge
    G = sp.csr_matrix(([1.0, np.inf, 2.0], ([0, 1, 1], [1, 2, 0])), shape=(3, 3))
    want = kleene.pagerank(H, tol=1e-12, weight=False)
    for fused in (None, False):
        got = kleene.pagerank(G, tol=1e-12, weight=False, fused=fused)
        np.testing.assert_allclose(got, want, atol=1e-12)
    G = sp.csr_matrix(([1.0, np.nan, 2.0], ([0, 1, 1], [1, 2, 0])), shape=(3, 3))
    both = sp.csr_matrix(([1.0, 1.0, 1.0], ([0, 1, 1], [1, 2, 0])), shape=(3, 3))
    np.testing.assert_allclose(
        kleene.pagerank(G, tol=1e-12, weight=False),
        kleene.pagerank(both, tol=1e-12, weight=False),
        atol=1e-12,
    )
    U = sp.random(30, 30, density=0.2, random_state=1, format="csr")
    U.data[:] = 2.5
    np.testing.assert_allclose(
        kleene.pagerank(U, tol=1e-12), kleene.pagerank(U, tol=1e-12, weight=False), atol=1e-14
    )
    with pytest.raises(InvalidValue, match="fused"):
        kleene.pagerank(U, fused="yes")


def test_iteration_count_is_networkx():
    G = sp.random(200, 200, density=0.03, random_state=2, format="csr")
    k = _iterations(G, tol=1e-9)
    assert k == _iterations(G, tol=1e-9, fused=False) > 2
    with pytest.raises(kleene.PowerIterationFailedConvergence) as err:
        kleene.pagerank(G, tol=1e-9, max_iter=k - 1)
    assert err.value.num_iterations == k - 1


@pytest.mark.gpu
def test_gpu_kernel_matches_the_host_and_repeats_bit_for_bit():
    cupy = pytest.importorskip("cupy")
    if not kleene.gpu_available():
        pytest.skip("no GPU")
    from graph_data import load_scipy

    src, dst = kleene.generators.rmat(12, 8, seed=3, undirected=True)
    keep = src != dst
    rmat = sp.csr_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(4096, 4096))
    rmat.sum_duplicates()
    rmat.data[:] = 1.0
    rng = np.random.default_rng(4)
    weighted = sp.random(500, 500, density=0.01, random_state=6, format="csr")
    weighted.data = rng.choice([0.0, 0.5, 3.0], size=weighted.nnz)
    # a hub with long rows in A (5000 out-edges) and in Aᵀ (7500 in-edges), weighted
    src = np.r_[np.zeros(5000, int), np.arange(2500, 10000)]
    dst = np.r_[np.arange(1, 5001), np.zeros(7500, int)]
    hub = sp.csr_matrix((rng.choice([0.5, 1.0, 2.0], src.size), (src, dst)), shape=(10001, 10001))
    graphs = {
        "hub-weighted": hub,
        "hub-sym": (hub + hub.T).tocsr(),
        "rmat12-sym": rmat,
        "p2p-dir": load_scipy("p2p-Gnutella08.txt"),
        "rome-dir": load_scipy("rome99.gr"),
        "weighted-dir": weighted,
    }
    for name, G in graphs.items():
        n = G.shape[0]
        A = kleene.Matrix.from_scipy(G).to("gpu")
        pers = rng.random(n)
        for kw in (
            {},
            {"weight": False},
            {"personalization": pers, "dangling": pers[::-1].copy(), "nstart": pers + 1},
            {"alpha": 0.5},
        ):
            on_gpu = {k: cupy.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
            # (tol far below the rounding differences' reach: a step more or less
            # would still agree to n * tol)
            want = kleene.pagerank(G, tol=1e-13, max_iter=3000, **kw)
            got = kleene.pagerank(A, tol=1e-13, max_iter=3000, **on_gpu)
            assert isinstance(got, cupy.ndarray) and got.dtype == np.float64, name
            assert np.abs(got.get() - want).sum() < 1e-9, (name, kw)
            composed = kleene.pagerank(A, tol=1e-13, max_iter=3000, fused=False, **on_gpu)
            assert np.abs(got.get() - composed.get()).sum() < 1e-9, (name, kw)
        first = kleene.pagerank(A, tol=1e-8).get()
        for _ in range(5):
            assert np.array_equal(first, kleene.pagerank(A, tol=1e-8).get()), name
        # the same step count as a check after every step: k passes, k - 1 raises
        k = _iterations(G, tol=1e-8)
        kleene.pagerank(A, tol=1e-8, max_iter=k)
        with pytest.raises(kleene.PowerIterationFailedConvergence):
            kleene.pagerank(A, tol=1e-8, max_iter=k - 1)
        assert _iterations(A, tol=1e-8) == k, name
