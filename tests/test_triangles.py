"""kleene.triangle_count, triangles, clustering and transitivity against NetworkX.

Random undirected graphs with self-loops (which count as no edge, as in NetworkX):
the counts must be exact and the coefficients NetworkX's within one rounding; a
directed graph is refused, as NetworkX refuses a DiGraph for triangles.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import kleene
from kleene.errors import InvalidValue


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


@pytest.mark.parametrize(
    "fn", [kleene.triangle_count, kleene.triangles, kleene.clustering, kleene.transitivity]
)
def test_directed_refused(fn):
    A = sp.csr_matrix(np.ones((3, 3)))
    with pytest.raises(InvalidValue, match="directed"):
        fn(A, directed=True)
    with pytest.raises(TypeError):
        fn("not a graph")
