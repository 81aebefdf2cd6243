"""What a graph's weights may hold, at every entry point (sssp, apsp, bfs, closures, CLI):
a stored +inf is no edge (as in a dense array), -inf and NaN are a ValueError naming
the problem, a non-real dtype (complex, object, str) a TypeError naming the dtype."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import breadth_first_order, shortest_path

import kleene

inf = np.inf


def _with_infinite_edges(n: int, seed: int):
    """A random CSR graph with some stored +inf weights."""
    rng = np.random.default_rng(seed)
    G = sp.random(n, n, density=0.3, random_state=rng, format="csr")
    G.data = np.floor(G.data * 9) + 1.0  # whole numbers: every path sum is exact
    G.data[rng.random(G.nnz) < 0.3] = inf
    return G


def _dense(G) -> np.ndarray:
    """G as a dense array: inf where no entry is stored."""
    a = np.full(G.shape, inf)
    C = G.tocoo()
    a[C.row, C.col] = C.data
    return a


def _finite_part(G):
    H = G.copy()
    H.data[np.isinf(H.data)] = 0.0
    H.eliminate_zeros()
    return H


def _bfs_levels(G, s: int) -> np.ndarray:
    """Hop levels from s by SciPy (-1 unreachable)."""
    order, pred = breadth_first_order(G, s, return_predecessors=True)
    lv = np.full(G.shape[0], -1)
    lv[s] = 0
    for v in order[1:]:
        lv[v] = lv[pred[v]] + 1
    return lv


@given(st.integers(2, 12), st.integers(0, 10**6), st.booleans())
def test_infinite_weight_is_no_edge_as_scipy_says(n, seed, directed):
    G = _with_infinite_edges(n, seed)
    want = shortest_path(G, directed=directed)  # SciPy: inf weight = infinite length
    np.testing.assert_array_equal(kleene.apsp(G, directed=directed), want)
    np.testing.assert_array_equal(kleene.sssp(G, 0, directed=directed), want[0])
    np.testing.assert_array_equal(kleene.sssp(G, [0, n - 1], directed=directed), want[[0, n - 1]])
    for method in ("bellman-ford", "delta-stepping"):
        np.testing.assert_array_equal(kleene.sssp(G, 0, method=method, directed=directed), want[0])
    dist, pred = kleene.sssp(G, 0, return_predecessors=True, directed=directed)
    finite = _finite_part(G)
    for v in np.flatnonzero(np.isfinite(dist) & (np.arange(n) != 0)).tolist():
        u = int(pred[v])  # the predecessor's edge is a finite one
        assert finite[u, v] != 0 or (not directed and finite[v, u] != 0)
    # BFS follows the finite edges only, as for a dense array with inf = no edge
    F = finite if directed else finite + finite.T
    np.testing.assert_array_equal(kleene.bfs(G, 0, directed=directed), _bfs_levels(F, 0))
    np.testing.assert_array_equal(kleene.bfs(_dense(G), 0, directed=directed), _bfs_levels(F, 0))
    R = kleene.transitive_closure(G, directed=directed)
    np.testing.assert_array_equal(R, kleene.transitive_closure(F))


def test_infinite_weight_in_a_matrix_and_a_full_dense_matrix():
    src, dst, w = [0, 1, 0], [1, 2, 2], [1.0, inf, 5.0]
    A = kleene.Matrix.from_edges(src, dst, w, n=3)
    D = kleene.Matrix.from_dense(
        np.array([[0, 1, 5], [inf, 0, inf], [inf, inf, 0.0]]), missing=None
    )  # every entry stored, inf ones too
    for G in (A, D):
        assert kleene.sssp(G, 0).tolist() == [0.0, 1.0, 5.0]
        assert kleene.sssp(G, 0, return_predecessors=True)[1].tolist() == [-1, 0, 0]
        assert kleene.apsp(G)[1].tolist() == [inf, 0.0, inf]
        assert kleene.bfs(G, 1).tolist() == [-1, 0, -1]
    assert A.nvals == 3  # the input is left as it was


def test_infinite_weight_alone_does_not_pick_the_bucket_width():
    # the default sssp chose its delta-stepping bucket width from the mean weight: inf
    G = sp.csr_matrix(([inf], ([0], [1])), shape=(2, 2))
    assert kleene.sssp(G, 0).tolist() == [0.0, inf]
    assert kleene.sssp(G, 0, delta=2.0).tolist() == [0.0, inf]


NEG = sp.csr_matrix(([1.0, -inf], ([0, 1], [1, 2])), shape=(3, 3))
NEG_CALLS = {
    "sssp": lambda G: kleene.sssp(G, 0),
    "sssp, sources": lambda G: kleene.sssp(G, [0, 1]),
    "sssp, bellman-ford": lambda G: kleene.sssp(G, 0, method="bellman-ford"),
    "sssp, undirected": lambda G: kleene.sssp(G, 0, directed=False),
    "apsp": lambda G: kleene.apsp(G),
    "apsp, johnson": lambda G: kleene.apsp(G, method="johnson"),
    "apsp, floyd-warshall": lambda G: kleene.apsp(G, method="floyd-warshall"),
    "apsp, predecessors": lambda G: kleene.apsp(G, return_predecessors=True),
    "apsp, out of core": lambda G: kleene.apsp(G, memory_limit=1 << 12),
    "bfs": lambda G: kleene.bfs(G, 0),
    "bfs, sources": lambda G: kleene.bfs(G, [0, 1]),
    "transitive_closure": lambda G: kleene.transitive_closure(G),
}


@pytest.mark.parametrize("form", ["scipy", "dense", "matrix"])
@pytest.mark.parametrize("call", sorted(NEG_CALLS))
def test_negative_infinite_weight_is_refused_naming_its_edge(call, form):
    G = {"scipy": NEG, "dense": _dense(NEG), "matrix": kleene.Matrix.from_scipy(NEG)}[form]
    with pytest.raises(ValueError, match=r"-inf edge weight, at edge \(1, 2\)"):
        NEG_CALLS[call](G)


@pytest.mark.parametrize("call", ["sssp", "apsp", "bfs"])
def test_nan_weight_is_refused(call):
    G = sp.csr_matrix(([1.0, np.nan], ([0, 1], [1, 2])), shape=(3, 3))
    fn = {
        "sssp": lambda: kleene.sssp(G, 0),
        "apsp": lambda: kleene.apsp(G),
        "bfs": lambda: kleene.bfs(G, 0, directed=False),
    }[call]
    with pytest.raises(ValueError, match="NaN"):
        fn()


BAD_DTYPES = {
    "complex dense": np.array([[0, 1 + 1j], [inf, 0]]),
    "complex sparse": sp.csr_matrix(np.array([[0, 1 + 1j], [0, 0]])),
    "object": np.array([[0, 1], [1, 0]], dtype=object),
    "str": np.array([["0", "1"], ["1", "0"]]),
    "list of str": [["0", "1"], ["1", "0"]],
    "datetime": np.array([[0, 1], [1, 0]], dtype="datetime64[s]"),
}


@pytest.mark.filterwarnings("error")  # no ComplexWarning: refused before any cast
@pytest.mark.parametrize("call", ["sssp", "apsp", "bfs", "transitive_closure"])
@pytest.mark.parametrize("what", sorted(BAD_DTYPES))
def test_non_real_weights_are_a_type_error_naming_the_dtype(what, call):
    G = BAD_DTYPES[what]
    dtype = np.asarray(G).dtype if not sp.issparse(G) else G.dtype
    fn = getattr(kleene, call)
    args = (0,) if call in ("sssp", "bfs") else ()
    with pytest.raises(
        TypeError, match=re.escape(f"real edge weights (bool, integer or float), got dtype {dtype}")
    ):
        fn(G, *args)


def test_real_dtypes_still_work():
    for G in (
        [[0, 1], [1, 0]],
        np.array([[0, 1], [1, 0]], dtype=np.int8),
        np.array([[False, True], [False, False]]),
    ):
        assert kleene.bfs(G, 0).tolist() == [0, 1]


def test_cli_sssp_with_infinite_and_negative_infinite_weights(tmp_path):
    ok, bad = tmp_path / "inf.txt", tmp_path / "ninf.txt"
    ok.write_text("0 1 1.0\n1 2 inf\n0 3 2\n")
    bad.write_text("0 1 1.0\n1 2 -inf\n")
    run = [sys.executable, "-m", "kleene", "sssp"]
    good = subprocess.run([*run, str(ok), "--source", "0"], capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    assert "reached 3" in good.stdout and "delta" not in good.stderr
    refused = subprocess.run([*run, str(bad), "--source", "0"], capture_output=True, text=True)
    assert refused.returncode != 0
    assert "-inf edge weight, at edge (1, 2)" in refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("fused", [None, False])
def test_delta_stepping_op_sizes_its_buckets_without_infinite_weights(fused):
    """The op itself (no algorithm entry point dropping +inf first): an infinite
    weight is an edge no path uses, and the default bucket width ignores it."""
    A = kleene.Matrix.from_edges([0, 1, 0], [1, 2, 2], [1.0, np.inf, 5.0], n=4)
    d = kleene.engine.frontier_delta_stepping(A, 0, fused=fused)
    assert d.to_dense().tolist() == [0.0, 1.0, 5.0, np.inf]
    only = kleene.Matrix.from_edges([0], [1], [np.inf], n=2)
    assert kleene.engine.frontier_delta_stepping(only, 0, fused=fused).to_dense().tolist() == [
        0.0,
        np.inf,
    ]
