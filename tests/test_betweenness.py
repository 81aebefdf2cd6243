"""kleene.betweenness_centrality against NetworkX's betweenness_centrality.

Random graphs (directed and undirected, connected or not, with self-loops) on nodes
0..n-1: every option (normalized, endpoints, k sampled sources with a seed, explicit
sources) must give NetworkX's values within 1e-9, and k with a seed must pick the
sources NetworkX picks.
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
@given(graphs(), st.booleans(), st.booleans(), st.integers(0, 3))
def test_exact_matches_networkx(G, normalized, endpoints, seed):
    got = kleene.betweenness_centrality(
        _csr(G), normalized=normalized, endpoints=endpoints, directed=G.is_directed()
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
    with pytest.raises(InvalidValue, match="not supported yet"):
        kleene.betweenness_centrality(A, weight="weight")
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
