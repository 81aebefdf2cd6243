"""The bit-packed Boolean closure on the CPU (kleene.backends.cpu.bool_closure, Numba)
against its composed form and against scipy.

``bool_closure_rows`` (CSR in) and the back end's ``closure_dense`` for the Boolean
semiring (dense in, in place) must give the unique Boolean closure: the composed
Floyd-Warshall of ``closure_generic`` (the NumPy reference path) exactly, and
scipy's reachability (finite unweighted shortest paths, breadth-first orders).
``kleene.transitive_closure`` with the fused closure (its CPU "auto" path) is
checked against the same with the fused closure removed from the back end (the
composed form runs), and against the existing dense methods. Random graphs
(Hypothesis), graphs with large strongly connected components, self loops, empty
graphs, n around multiples of 64, strided views, and p2p-Gnutella08 (n = 6,301),
with its work counted and its peak memory measured. Skipped without Numba.
"""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import breadth_first_order, connected_components, shortest_path

pytest.importorskip("numba", reason="the fused CPU closures are compiled with numba")

from graph_data import graphs, load_scipy  # noqa: E402

import kleene  # noqa: E402
import kleene.backends.cpu as cpu_backend  # noqa: E402
from kleene.backends import cpu
from kleene.backends import generic_closure as closure_generic  # noqa: E402
from kleene.backends.cpu import bool_closure as bc  # noqa: E402
from kleene.backends.cpu import closure as cc  # noqa: E402
from kleene.semiring import SEMIRINGS, lor_land  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# ---- references ------------------------------------------------------------------------


def scipy_reach(g, reflexive: bool) -> np.ndarray:
    """Reachability by scipy: finite unweighted distances (reflexive), or, for paths of
    one or more edges, the rows of the successors' reflexive reachability ORed."""
    n = g.shape[0]
    if n == 0:
        return np.zeros((0, 0), dtype=bool)
    star = np.isfinite(shortest_path(sp.csr_matrix(g), unweighted=True))
    if reflexive:
        return star
    return (pattern(g) @ star.astype(np.float64)) > 0


def pattern(g) -> sp.csr_matrix:
    """The edges of a scipy matrix as ones (stored zeros are edges, as in scipy.csgraph)."""
    c = sp.csr_matrix(g)
    return sp.csr_matrix((np.ones(c.indices.size), c.indices, c.indptr), shape=c.shape)


def composed(a: np.ndarray, one: bool = True) -> np.ndarray:
    """The NumPy reference: closure_generic's Floyd-Warshall over lor_land."""
    out = a.copy()
    closure_generic.closure_dense(cpu, lor_land, out, one)
    return out


def csr_with_duplicates(raw: sp.coo_matrix):
    """(indptr, indices) of a COO pattern keeping its duplicate edges, unsorted rows."""
    n = raw.shape[0]
    order = np.argsort(raw.row, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(raw.row, minlength=n), out=indptr[1:])
    return indptr, raw.col[order].astype(np.int32)


def rows(a: np.ndarray):
    g = sp.csr_matrix(a)
    return g.indptr, g.indices


def sccs(n: int, sizes, rng, extra: float = 0.0) -> np.ndarray:
    """Components of the given sizes (a shuffled cycle each), chained by random edges
    from each component to later ones, plus ``extra`` random edges a pair."""
    perm = rng.permutation(n)
    a = np.zeros((n, n), dtype=bool)
    groups = np.split(perm, np.cumsum(sizes)[:-1])
    for grp in groups:
        if grp.size > 1:
            a[grp, np.roll(grp, 1)] = True
    for i in range(len(groups) - 1):
        j = int(rng.integers(i + 1, len(groups)))
        a[rng.choice(groups[i]), rng.choice(groups[j])] = True
    a |= rng.random((n, n)) < extra
    return a


# ---- the primitives against scipy and the composed form --------------------------------


@settings(max_examples=60)
@given(data=graphs(max_n=40))
def test_rows_match_scipy_and_the_composed_form(data):
    ref_g, raw, n = data
    indptr, indices = csr_with_duplicates(raw)
    for reflexive in (False, True):
        got = bc.bool_closure_rows(indptr, indices, n, reflexive=reflexive)
        assert got.dtype == np.bool_ and got.shape == (n, n)
        np.testing.assert_array_equal(got, scipy_reach(ref_g, reflexive))
    a = pattern(ref_g).toarray() != 0  # explicit zeros are edges
    for one in (True, False):
        got = a.copy()
        cpu_backend.closure_dense(lor_land, got, one)
        np.testing.assert_array_equal(got, composed(a, one))


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 127, 128, 129, 200, 300])
@pytest.mark.parametrize("density", [0.0, 0.004, 0.03, 0.3])
def test_sizes_around_word_multiples(n, density):
    """Rows of n bits end in a partial word unless n is a multiple of 64."""
    rng = np.random.default_rng(n * 1000 + int(density * 1000))
    a = rng.random((n, n)) < density
    want = composed(a)
    np.testing.assert_array_equal(bc.bool_closure_rows(*rows(a), n, reflexive=True), want)
    np.testing.assert_array_equal(bc.bool_closure_rows(*rows(a), n), composed(a, False))
    got = a.copy()
    cpu_backend.closure_dense(lor_land, got, True)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "sizes",
    [[300], [150, 150], [1, 200, 1, 98], [64] * 5, [1] * 10 + [250, 40], [7] * 43],
    ids=["one", "two", "with-singletons", "word-sized", "tail", "many-small"],
)
@pytest.mark.parametrize("extra", [0.0, 0.002])
def test_large_strongly_connected_components(sizes, extra):
    n = sum(sizes)
    rng = np.random.default_rng(n + len(sizes))
    a = sccs(n, sizes, rng, extra)
    want = scipy_reach(sp.csr_matrix(a), False)
    np.testing.assert_array_equal(bc.bool_closure_rows(*rows(a), n), want)
    np.testing.assert_array_equal(want, composed(a, False))
    ncomp, label = connected_components(sp.csr_matrix(a), connection="strong")
    for c in range(ncomp):  # every member of a component has the same row
        member = np.flatnonzero(label == c)
        assert (want[member] == want[member[0]]).all()


def test_self_loops_and_the_diagonal():
    """R[i, i] (paths of one or more edges) is True exactly on a cycle: a self loop or
    a component of two or more vertices."""
    n = 130
    a = np.zeros((n, n), dtype=bool)
    a[np.arange(n - 1), np.arange(1, n)] = True  # a path 0 → 1 → … → n-1
    a[5, 5] = a[70, 70] = True  # two self loops on it
    a[100, 90] = True  # a cycle 90 → … → 100 → 90
    got = bc.bool_closure_rows(*rows(a), n)
    diag = np.zeros(n, dtype=bool)
    diag[[5, 70]] = True
    diag[90:101] = True
    np.testing.assert_array_equal(np.diagonal(got), diag)
    np.testing.assert_array_equal(got, scipy_reach(sp.csr_matrix(a), False))
    assert got[0, n - 1] and not got[n - 1, 0] and got[95, 90] and not got[95, 89]


def test_empty_graphs():
    assert bc.bool_closure_rows(np.zeros(1, np.int64), np.zeros(0, np.int32), 0).shape == (0, 0)
    for n in (1, 64, 65, 500):
        empty = np.zeros(n + 1, np.int64), np.zeros(0, np.int32)
        assert not bc.bool_closure_rows(*empty, n).any()
        np.testing.assert_array_equal(bc.bool_closure_rows(*empty, n, reflexive=True), np.eye(n))
        a = np.zeros((n, n), dtype=bool)
        cpu_backend.closure_dense(lor_land, a, True)
        np.testing.assert_array_equal(a, np.eye(n, dtype=bool))
    z = np.zeros((0, 0), dtype=bool)
    cpu_backend.closure_dense(lor_land, z, True)
    assert kleene.transitive_closure(sp.csr_matrix((0, 0))).shape == (0, 0)
    assert not kleene.transitive_closure(sp.csr_matrix((70, 70))).any()


def test_out_and_argument_checks():
    a = np.random.default_rng(3).random((100, 100)) < 0.02
    big = np.ones((120, 110), dtype=bool)
    view = big[10:110, 5:105]  # a strided view of a larger array
    got = bc.bool_closure_rows(*rows(a), 100, out=view)
    assert got is view and big[:10].all() and big[:, :5].all() and big[:, 105:].all()
    np.testing.assert_array_equal(view, composed(a, False))
    with pytest.raises(ValueError, match="out must be"):
        bc.bool_closure_rows(*rows(a), 100, out=np.zeros((100, 100), dtype=np.uint8))
    with pytest.raises(ValueError, match="not a CSR"):
        bc.bool_closure_rows(np.array([0, 1]), np.array([0]), 3)
    with pytest.raises(ValueError, match="never decrease"):
        bc.bool_closure_rows(np.array([0, 2, 1]), np.array([0, 1]), 2)
    with pytest.raises(IndexError, match="out of range"):
        bc.bool_closure_rows(np.array([0, 1, 1]), np.array([2]), 2)


def test_closure_dense_on_views_in_place():
    """Block views, every other row/column, transposes (Fortran order): in place."""
    rng = np.random.default_rng(4)
    base = rng.random((260, 260)) < 0.01
    for view in (lambda x: x[3:203, 50:250], lambda x: x[::2, 1::2], lambda x: x.T):
        big = base.copy()
        v = view(big)
        want = composed(v)
        outside = big.copy()
        outside_mask = np.ones_like(big)
        view(outside_mask)[...] = False
        cpu_backend.closure_dense(lor_land, v, True)
        np.testing.assert_array_equal(v, want)
        np.testing.assert_array_equal(big[outside_mask], outside[outside_mask])


def test_other_cases_run_the_byte_kernels(monkeypatch):
    """Predecessors, other semirings and dtypes, read-only arrays: cpu/closure.py's
    kernels (and through them the composed forms), as before."""
    calls = []
    real = cc.closure_dense

    def spy(*args):
        calls.append(args[0].name)
        return real(*args)

    monkeypatch.setattr(bc, "_byte_closure_dense", spy)
    rng = np.random.default_rng(5)
    a = rng.random((20, 20)) < 0.1
    got, pred = a.copy(), np.where(a, np.arange(20)[:, None], -1).astype(np.int64)
    want, wpred = a.copy(), pred.copy()
    bc.closure_dense(lor_land, got, True, pred)
    closure_generic.closure_dense(cpu, lor_land, want, True, wpred)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(pred, wpred)
    d = np.where(a, 1.0, np.inf)
    bc.closure_dense(SEMIRINGS["min_plus"], d, 0.0)
    np.testing.assert_array_equal(np.isfinite(d), composed(a))
    ro = a.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError):  # read-only: the composed form writes, as before
        bc.closure_dense(lor_land, ro, True)
    assert calls == ["lor_land", "min_plus", "lor_land"]
    calls.clear()
    b = a.copy()
    bc.closure_dense(lor_land, b, True)  # the Boolean case never reaches the byte kernels
    assert calls == []


def test_the_back_end_exports_the_bit_packed_closure():
    assert cpu_backend.closure_dense is bc.closure_dense
    assert cpu_backend.bool_closure_rows is bc.bool_closure_rows
    assert "bool_closure_rows" in cpu_backend.__all__


def test_kleene_cpu_numpy_leaves_it_out():
    """KLEENE_CPU=numpy: no fused closures, and transitive_closure runs the composed form."""
    code = (
        "import numpy as np, kleene, kleene.backends.cpu as c\n"
        "assert c.bool_closure_rows is None and c.closure_dense is None\n"
        "a = np.zeros((70, 70), bool); a[np.arange(69), np.arange(1, 70)] = True\n"
        "a[69, 60] = True\n"
        "R = kleene.transitive_closure(a)\n"
        "print(int(R.sum()), int(np.trace(R)))\n"
    )
    env = {**os.environ, "KLEENE_CPU": "numpy", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    a = np.zeros((70, 70), bool)
    a[np.arange(69), np.arange(1, 70)] = True
    a[69, 60] = True
    R = kleene.transitive_closure(a)
    assert out.stdout.split() == [str(int(R.sum())), str(int(np.trace(R)))]


def test_docstring_examples():
    assert doctest.testmod(bc).failed == 0


# ---- kleene.transitive_closure on it ---------------------------------------------------


@pytest.fixture
def counted(monkeypatch):
    """Counts the back end's closure_dense calls (the op layer looks it up by name)."""
    calls = []
    real = cpu_backend.closure_dense

    def count(*args):
        calls.append(args[1].shape)
        return real(*args)

    monkeypatch.setattr(cpu_backend, "closure_dense", count)
    return calls


@settings(max_examples=40)
@given(data=graphs(max_n=30), reflexive=st.booleans(), directed=st.booleans())
def test_transitive_closure_matches_scipy_and_the_dense_methods(counted, data, reflexive, directed):
    ref_g, raw, n = data
    g = pattern(ref_g) if directed else pattern(ref_g) + pattern(ref_g).T
    want = scipy_reach(g, reflexive)
    got = kleene.transitive_closure(raw, reflexive=reflexive, directed=directed)
    np.testing.assert_array_equal(got, want)
    assert counted[-1:] == [(n, n)]  # one closure of the whole matrix
    for method in ("recursive", "blocked"):
        other = kleene.transitive_closure(
            raw, reflexive=reflexive, directed=directed, method=method
        )
        np.testing.assert_array_equal(other, want)


def test_transitive_closure_fused_equals_composed(monkeypatch):
    """The same graphs with the fused closure removed from the back end: the composed
    Floyd-Warshall (the reference) gives the same result."""
    rng = np.random.default_rng(6)
    graphs_ = [sccs(190, [60, 1, 1, 80, 48], rng, 0.003), rng.random((150, 150)) < 0.02]
    fused = [kleene.transitive_closure(a, reflexive=r) for a in graphs_ for r in (False, True)]
    monkeypatch.delattr(cpu_backend, "closure_dense")
    plain = [kleene.transitive_closure(a, reflexive=r) for a in graphs_ for r in (False, True)]
    for f, p in zip(fused, plain, strict=True):
        np.testing.assert_array_equal(f, p)


def test_transitive_closure_memory_need_is_the_whole_closure():
    from kleene.algorithms.apsp_memory import check_fits

    need = check_fits(6301, np.bool_, False, np, method="closure", what="transitive_closure")
    assert need.per_pair == 3 and need.method == "closure"


def test_gnutella08_fast_and_within_memory(monkeypatch):
    """p2p-Gnutella08 (6,301 vertices, one component of 2,068): rows checked against
    scipy's breadth-first orders, the diagonal against its strong components, and a
    peak under 3x the result's bytes + 100 MB (tracemalloc sees NumPy's arrays; the
    kernel's two bit matrices, n²/8 bytes each, are added by hand: Numba allocates
    them itself). "Fast" is checked by the work done, not by a clock (which fails on
    a loaded machine): one bit-packed SCC closure of the whole graph, with one row per
    strong component (read from the CSR: above 2,048 vertices), and neither the byte
    kernels nor the composed Floyd-Warshall (n³ work each) reached."""
    g = load_scipy("p2p-Gnutella08.txt")
    n = g.shape[0]
    kleene.transitive_closure(g[:200, :200])  # compiled (or loaded from cache) first
    closures, real_bits, real_csr = [], bc._closure_bits, bc._closure_csr

    def count_bits(adj, size):
        reach, comp = real_bits(adj, size)
        closures.append((adj.shape, size, reach.shape))
        return reach, comp

    def count_csr(ptr, idx, size):  # the sparse route: the CSR read as it is
        reach, comp = real_csr(ptr, idx, size)
        closures.append(("csr", size, reach.shape))
        return reach, comp

    def n_cubed(*args, **kwargs):
        raise AssertionError("the Boolean closure fell back to an n³ closure")

    monkeypatch.setattr(bc, "_closure_bits", count_bits)
    monkeypatch.setattr(bc, "_closure_csr", count_csr)
    monkeypatch.setattr(bc, "_byte_closure_dense", n_cubed)
    monkeypatch.setattr(closure_generic, "closure_dense", n_cubed)
    tracemalloc.start()
    R = kleene.transitive_closure(g)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak + 2 * n * n // 8 <= 3 * R.nbytes + 100 * 2**20, peak
    assert R.shape == (n, n) and R.dtype == np.bool_
    ncomp, label = connected_components(g, connection="strong")
    words = -(-n // 64)
    assert closures == [("csr", n, (ncomp, words))]  # one pass, a row per component
    size = np.bincount(label)
    loops = pattern(g).diagonal() != 0
    np.testing.assert_array_equal(np.diagonal(R), (size[label] > 1) | loops)
    rng = np.random.default_rng(7)
    for i in rng.choice(n, 60, replace=False):
        want = np.zeros(n, dtype=bool)
        want[breadth_first_order(g, int(i), return_predecessors=False)] = True
        want[i] = R[i, i]
        np.testing.assert_array_equal(R[i], want)
    counts = R.sum(axis=1)
    for c in range(ncomp):  # a component's members share their row
        assert np.ptp(counts[label == c]) == 0
