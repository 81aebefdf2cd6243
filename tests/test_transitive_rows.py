"""kleene.transitive_closure on the CPU from a sparse graph's rows (bool_closure_rows,
kleene/algorithms/transitive.py): the same result as the whole-matrix closure and as
SciPy's reachability, its memory check, and the route it takes."""

from __future__ import annotations

import re
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

import kleene
from kleene.algorithms import transitive
from kleene.backends import cpu as cpu_backend

pytestmark = pytest.mark.skipif(
    cpu_backend.bool_closure_rows is None, reason="no compiled Boolean closure (numba)"
)

N = 2300  # above the size the whole-matrix closure keeps


def _graph(seed: int, n: int = N, per_vertex: float = 1.2) -> sp.csr_matrix:
    """A random digraph with a few large strongly connected components and self loops."""
    rng = np.random.default_rng(seed)
    m = int(n * per_vertex)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    ring = rng.permutation(n)[:300]  # one cycle through 300 vertices
    src = np.concatenate([src, ring, [5, 7]])
    dst = np.concatenate([dst, np.roll(ring, 1), [5, 7]])
    w = rng.integers(1, 9, src.size).astype(np.float64)
    return sp.csr_matrix((w, (src, dst)), shape=(n, n))


def _whole(G, **kw):
    """The whole-matrix closure (the route graphs up to 2,048 vertices take)."""
    saved = transitive._by_rows
    transitive._by_rows = lambda A: False
    try:
        return kleene.transitive_closure(G, **kw)
    finally:
        transitive._by_rows = saved


def _scipy_row(G, i: int, reflexive: bool) -> np.ndarray:
    """Vertices reached from i by one or more edges (and i itself if ``reflexive``)."""
    n = G.shape[0]
    row = np.zeros(n, dtype=bool)
    for j in G.indices[G.indptr[i] : G.indptr[i + 1]]:
        row[breadth_first_order(G, j, directed=True, return_predecessors=False)] = True
    if reflexive:
        row[i] = True
    return row


@pytest.fixture
def rows_calls(monkeypatch):
    calls = []
    real = cpu_backend.bool_closure_rows

    def spy(*args, **kw):
        calls.append(args[2])
        return real(*args, **kw)

    monkeypatch.setattr(cpu_backend, "bool_closure_rows", spy)
    return calls


@pytest.mark.parametrize("reflexive", [False, True])
@pytest.mark.parametrize("directed", [True, False])
def test_rows_equal_the_whole_matrix_closure(rows_calls, reflexive, directed):
    G = _graph(1)
    got = kleene.transitive_closure(G, reflexive=reflexive, directed=directed)
    assert rows_calls == [N]
    want = _whole(G, reflexive=reflexive, directed=directed)
    assert got.shape == (N, N) and got.dtype == np.bool_
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("reflexive", [False, True])
def test_rows_match_scipy_reachability(reflexive):
    G = _graph(2)
    R = kleene.transitive_closure(G, reflexive=reflexive)
    rng = np.random.default_rng(0)
    ring_member = int(G.indices[G.indptr[5]])  # 5 has a self loop
    for i in [0, 5, 7, ring_member, *rng.integers(0, N, 6).tolist()]:
        np.testing.assert_array_equal(R[i], _scipy_row(G, i, reflexive), err_msg=f"row {i}")
    assert R[5, 5] and R[7, 7]  # self loops are cycles


def test_stored_zeros_are_edges():
    # Every stored entry is an edge, a stored 0.0 or False too (scipy.csgraph's rule).
    G = _graph(3)
    edges = sp.csr_matrix((np.ones(G.nnz), G.indices, G.indptr), shape=G.shape)
    want = kleene.transitive_closure(edges)
    for dtype in (np.float64, np.bool_):
        H = G.astype(dtype)
        H.data[::3] = 0
        assert H.nnz == G.nnz
        np.testing.assert_array_equal(kleene.transitive_closure(H), want)
        np.testing.assert_array_equal(_whole(H), want)  # the small graphs' route too
    assert want[0].sum() == _scipy_row(edges, 0, False).sum()


def test_kleene_matrix_input_and_empty_rows():
    n = N + 10
    G = sp.csr_matrix(
        (np.ones(3), ([0, 1, n - 1], [1, 2, 0])),
        shape=(n, n),
    )
    R = kleene.transitive_closure(kleene.Matrix.from_scipy(G))
    assert R.sum() == 6  # 0→1, 0→2, 1→2, n-1→0, n-1→1, n-1→2
    assert R[n - 1, 2] and not R[2].any()


def test_rows_refused_when_the_result_cannot_fit(monkeypatch):
    monkeypatch.setattr("kleene.algorithms.apsp_memory.host_memory_free", lambda: 2**30)
    n = 40_000
    G = sp.csr_matrix((np.ones(n - 1), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))
    tracemalloc.start()
    try:
        with pytest.raises(MemoryError) as e:
            kleene.transitive_closure(G)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(e.value, kleene.errors.OutOfMemory)
    msg = str(e.value)
    assert msg.startswith("transitive_closure: ") and "GiB" in msg and "bytes" in msg
    asked = int(re.search(r"; ([\d,]+) bytes", msg).group(1).replace(",", ""))
    assert n * n <= asked < 2 * n * n  # the result and the rows, not 3 bytes a pair
    fit = int(re.search(r"up to about n=(\d+) fits", msg).group(1))
    assert 20_000 < fit < n
    assert peak < 64 * 2**20  # refused before anything n×n was made
