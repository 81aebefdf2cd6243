"""kleene.connected_components against scipy.sparse.csgraph.connected_components.

The count and the labels must be SciPy's exactly (its numbering, not only its
partition), for weak and strong components, directed and undirected, on random
graphs with isolated vertices, self loops, duplicate and zero-weight edges; the
composed forms (FastSV; forward-backward colouring) must give the same partition
(FastSV the same labels too). Also the input forms, the errors and ``fused=``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components as scipy_cc

import kleene
from kleene.errors import DimensionMismatch, InvalidObject, InvalidValue

MODES = [(False, "weak"), (True, "weak"), (True, "strong"), (False, "strong")]
# The compiled Pearce search numbers strong components as SciPy up to 1.17 does
# (SciPy 1.18 numbers the same partition in another order); without it
# (KLEENE_CPU=numpy, no Numba) the composed form numbers them by smallest vertex.
SCIPY_1_17 = tuple(int(x) for x in scipy.__version__.split(".")[:2]) < (1, 18)
SCIPY_STRONG_LABELS = kleene.backends.backend(np).components_strong is not None and SCIPY_1_17


@st.composite
def graphs(draw, max_n=24):
    n = draw(st.integers(0, max_n))
    m = draw(st.integers(0, 3 * n)) if n else 0
    src = draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=m, max_size=m))
    w = draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=m, max_size=m))
    return sp.csr_matrix((np.array(w), (np.array(src, int), np.array(dst, int))), shape=(n, n))


def _same_partition(a, b) -> bool:
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_matches_scipy(G):
    for directed, connection in MODES:
        k, labels = scipy_cc(G, directed=directed, connection=connection)
        k2, labels2 = kleene.connected_components(G, directed=directed, connection=connection)
        assert k2 == k
        assert labels2.dtype == np.int32
        assert _same_partition(labels2, labels)
        if SCIPY_STRONG_LABELS or not (directed and connection == "strong"):
            np.testing.assert_array_equal(labels2, labels)
        k3, labels3 = kleene.connected_components(
            G, directed=directed, connection=connection, fused=False
        )
        assert k3 == k
        assert _same_partition(labels3, labels)
        if not (directed and connection == "strong"):
            np.testing.assert_array_equal(labels3, labels)  # FastSV keeps SciPy's numbering


def test_known_answers():
    # 0 -> 1 -> 2 -> 0 (a cycle), 2 -> 3, 4 alone, 5 <-> 6
    G = sp.csr_matrix(([1, 1, 1, 1, 1, 1], ([0, 1, 2, 2, 5, 6], [1, 2, 0, 3, 6, 5])), shape=(7, 7))
    n, labels = kleene.connected_components(G)
    assert (n, labels.tolist()) == (3, [0, 0, 0, 0, 1, 2, 2])
    n, labels = kleene.connected_components(G, connection="strong")
    assert n == 4
    assert labels[0] == labels[1] == labels[2] != labels[3]
    assert labels[5] == labels[6]
    if SCIPY_STRONG_LABELS:
        np.testing.assert_array_equal(labels, scipy_cc(G, connection="strong")[1])
        assert labels.tolist() == [1, 1, 1, 0, 2, 3, 3]
    else:
        assert labels.tolist() == [0, 0, 0, 1, 2, 3, 3]
    assert kleene.connected_components(G, connection="STRONG", return_labels=False) == 4
    assert kleene.connected_components(G, directed=False, connection="strong")[0] == 3


def test_input_forms_and_empty():
    G = sp.csr_matrix(([2.0, 3.0], ([0, 2], [1, 3])), shape=(5, 5))
    want = scipy_cc(G, directed=False)
    for form in (G, kleene.Matrix.from_scipy(G), G.toarray() + np.where(G.toarray(), 0, np.inf)):
        k, labels = kleene.connected_components(form, directed=False)
        assert k == want[0]
        np.testing.assert_array_equal(labels, want[1])
    k, labels = kleene.connected_components(sp.csr_matrix((0, 0)))
    assert k == 0 and labels.size == 0 and labels.dtype == np.int32
    assert kleene.connected_components(sp.csr_matrix((3, 3)), return_labels=False) == 3


def test_errors():
    G = sp.csr_matrix(np.eye(3))
    with pytest.raises(InvalidValue, match="connection must be 'weak' or 'strong'"):
        kleene.connected_components(G, connection="medium")
    with pytest.raises(ValueError):
        kleene.connected_components(G, connection=None)
    with pytest.raises(DimensionMismatch, match="square"):
        kleene.connected_components(sp.csr_matrix((2, 3)))
    with pytest.raises(InvalidObject):
        kleene.connected_components("not a graph")
    with pytest.raises(InvalidValue, match="fused"):
        kleene.connected_components(G, fused="yes")


def test_compiled_kernels_present_on_cpu():
    cpu = kleene.backends.backend(np)
    if cpu.components_weak is None:  # KLEENE_CPU=numpy or no Numba: composed only
        with pytest.raises(InvalidValue, match="no compiled"):
            kleene.connected_components(np.eye(2), fused=True)
        return
    G = sp.random(60, 60, density=0.03, random_state=3, format="csr")
    for directed, connection in MODES:
        k, labels = kleene.connected_components(
            G, directed=directed, connection=connection, fused=True
        )
        want = scipy_cc(G, directed=directed, connection=connection)
        assert k == want[0]
        assert _same_partition(labels, want[1])
        if SCIPY_1_17 or connection == "weak" or not directed:
            np.testing.assert_array_equal(labels, want[1])


def test_strong_composed_on_a_chain_of_cycles():
    # cycles 0-1-2, 3-4, 5 alone, linked 2 -> 3 -> 5 and 5 -> 0 closes one big cycle
    src = [0, 1, 2, 3, 4, 2, 4]
    dst = [1, 2, 0, 4, 3, 3, 5]
    G = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(6, 6))
    k, labels = kleene.connected_components(G, connection="strong", fused=False)
    assert k == 3
    assert labels.tolist() == [0, 0, 0, 1, 1, 2]  # composed: numbered by smallest vertex
    G2 = G + sp.csr_matrix(([1.0], ([5], [0])), shape=(6, 6))
    assert kleene.connected_components(G2, connection="strong", fused=False)[0] == 1
