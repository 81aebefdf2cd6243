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
