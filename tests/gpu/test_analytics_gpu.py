"""kleene.pagerank and kleene.connected_components on GPU graphs.

A graph on the GPU must give CuPy results equal to the CPU's and to the references:
PageRank within 1e-9 in L1 of the CPU answer (the same operations; sums may run in
another order), with personalization and dangling vectors given as CuPy arrays;
weak components (the compiled Afforest kernel, and the composed FastSV) with SciPy's
labels; strong components (trimming and colouring sweeps) with SciPy's partition
numbered by smallest vertex (cupyx's numbering), SciPy's own labels with
``numbering="scipy"`` (the host search), the same bits on every run, and a graph too
deep for the sweeps handed to the host search; composed (``fused=False``), SciPy's
partition. Skipped without CuPy or a GPU.
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


def _by_smallest(labels):
    """The partition of ``labels``, its parts numbered in the order of their smallest
    vertex (written apart from the library's renumbering)."""
    seen: dict[int, int] = {}
    return np.array([seen.setdefault(int(v), len(seen)) for v in labels], dtype=np.int32)


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


def _pull_chunks_of(lengths):
    from kleene.backends.cuda.analytics.pagerank import pull_chunks

    ptr = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    got = cupy.asnumpy(pull_chunks(cupy.asarray(ptr), lengths.size, int(ptr[-1]))).reshape(-1, 4)
    return ptr, got


@pytest.mark.parametrize("layout", ["hubs", "empty-tail", "empty-head", "all-empty", "one-row"])
def test_pagerank_pull_chunks_cover_the_rows_with_bounded_work(layout):
    from kleene.backends.cuda.analytics.pagerank import _LIMIT, _PULL_CHUNK

    rng = np.random.default_rng(11)
    lengths = rng.integers(0, 30, 20000)
    if layout == "hubs":
        lengths[rng.choice(20000, 40, replace=False)] = rng.integers(_LIMIT - 5, 4 * _LIMIT, 40)
    elif layout == "empty-tail":  # a degree-sorted graph: every empty row at the end
        lengths = np.sort(np.r_[lengths[:5000], np.zeros(60000, int)])[::-1].copy()
        lengths[:3] = 5 * _LIMIT
    elif layout == "empty-head":
        lengths = np.r_[np.zeros(50000, int), lengths]
    elif layout == "all-empty":
        lengths = np.zeros(3000, int)
    else:
        lengths = np.array([3 * _LIMIT])
    ptr, chunks = _pull_chunks_of(lengths)
    r0, r1, lo, hi = chunks.T
    n = lengths.size
    # the chunks tile the rows in order, each holding at most CHUNK of them
    assert r0[0] == 0 and r1[-1] == n and np.array_equal(r1[:-1], r0[1:])
    assert np.all(r1 >= r0) and np.all(r1 - r0 <= _PULL_CHUNK)
    # and gathers its rows' entries, up to the start of a last row too long for it
    assert np.array_equal(lo, ptr[r0])
    last_long = (r1 > r0) & (ptr[r1] - ptr[np.maximum(r1 - 1, 0)] > _LIMIT)
    assert np.array_equal(hi, np.where(last_long, ptr[np.maximum(r1 - 1, 0)], ptr[r1]))
    assert np.all(hi - lo <= _PULL_CHUNK + _LIMIT)
    # a row too long for a chunk is its chunk's last (the segment kernels take it)
    for row in np.flatnonzero(lengths > _LIMIT):
        b = np.searchsorted(r1, row, side="right")
        assert r0[b] <= row == r1[b] - 1, row


def test_pagerank_with_empty_rows_at_the_end_and_many_check_blocks():
    # a degree-sorted RMAT graph (its empty rows together at the end), large enough
    # that the L1 change is summed by several blocks of the check
    from kleene.backends import backend
    from kleene.backends.cuda.analytics.pagerank import _CHECK_SPAN, _PULL_CHUNK

    src, dst = kleene.generators.rmat(17, 16, seed=8, undirected=True)
    keep = src != dst
    n = 1 << 18  # twice the vertices the edges reach
    G = sp.csr_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n))
    G.sum_duplicates()
    order = np.argsort(-np.diff(G.indptr), kind="stable")
    G = G[order][:, order].tocsr()
    G.sort_indices()
    assert (G.nnz + n) // _PULL_CHUNK > _CHECK_SPAN
    assert np.diff(G.indptr)[-(n // 2) :].max() == 0
    u = np.full(n, 1.0 / n)
    want, k = backend(np).pagerank(G.indptr, G.indices, None, n, u, u, u, 0.85, 1e-9, 200)
    ptr, idx, uu = cupy.asarray(G.indptr), cupy.asarray(G.indices), cupy.asarray(u)
    gpu = backend(cupy).pagerank
    args = (ptr, idx, None, n, uu, uu, uu, 0.85, 1e-9, 200)
    got, k_gpu = gpu(*args, transposed=(ptr, idx, None))
    # the step the host's iteration stops at, and its vector
    assert k_gpu == k > 5
    assert float(np.abs(cupy.asnumpy(got) - want).sum()) < 1e-9
    for _ in range(3):  # the check's blocks finish in any order, the total has one
        again, k_again = gpu(*args, transposed=(ptr, idx, None))
        assert k_again == k and cupy.array_equal(again, got)


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_components_agree(G):
    A = _gpu(G)
    for directed, connection in [(False, "weak"), (True, "weak"), (True, "strong")]:
        k, labels = scipy_cc(G, directed=directed, connection=connection)
        k2, labels2 = kleene.connected_components(A, directed=directed, connection=connection)
        assert isinstance(labels2, cupy.ndarray) and labels2.dtype == np.int32
        assert k2 == k
        got = cupy.asnumpy(labels2)
        assert _same_partition(got, labels)
        if directed and connection == "strong":
            # the GPU's numbering: by smallest vertex; SciPy's (1.18 on: Tarjan's search
            # over the rows in stored order; up to 1.17: Pearce's) on request
            np.testing.assert_array_equal(got, _by_smallest(labels))
            for _ in range(2):
                again = kleene.connected_components(A, directed=True, connection="strong")[1]
                np.testing.assert_array_equal(cupy.asnumpy(again), got)
            k4, labels4 = kleene.engine.strong_components(A, numbering="scipy")
            assert k4 == k
            np.testing.assert_array_equal(cupy.asnumpy(labels4), labels)
        else:
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


def test_long_rows_lists_the_hubs_in_row_order():
    from kleene.backends.cuda.analytics.components import long_rows

    rng = np.random.default_rng(5)
    lengths = rng.integers(0, 40, 5000)
    lengths[rng.choice(5000, 60, replace=False)] = rng.integers(41, 400, 60)
    lengths[-1] = 41  # the last row long: it writes the total
    ptr = np.zeros(5001, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    rows, starts, seg_row, total = long_rows(cupy.asarray(ptr), 40, 16)
    want = np.flatnonzero(lengths > 40)
    counts = -(-lengths[want] // 16)
    np.testing.assert_array_equal(cupy.asnumpy(rows), want)
    np.testing.assert_array_equal(cupy.asnumpy(starts), np.r_[0, np.cumsum(counts)])
    assert total == counts.sum()
    np.testing.assert_array_equal(cupy.asnumpy(seg_row), np.repeat(np.arange(want.size), counts))
    assert long_rows(cupy.asarray(ptr), 400, 16) is None


@pytest.mark.parametrize("symmetric", [True, False])
def test_weak_components_of_hubs_split_in_segments(symmetric):
    from kleene.backends.cuda.analytics.components import components_weak

    # a long path (the giant component) beside stars whose centres have rows of 2049
    # and 7000 entries (one and four segments), and the 7000-star's leaves also
    # joined by a second hub's 2500-entry row to a few pairs: linking those rows
    # is what joins each star, so a segment skipped or linked twice shows
    path = np.arange(20_000)
    star1 = 20_000 + np.arange(2050)  # centre star1[0]
    star2 = star1[-1] + 1 + np.arange(7001)
    pairs = star2[-1] + 1 + np.arange(0, 200, 2)
    n = int(pairs[-1]) + 2
    src = np.r_[path[:-1], np.full(2049, star1[0]), np.full(7000, star2[0])]
    dst = np.r_[path[1:], star1[1:], star2[1:]]
    src = np.r_[src, np.full(2500, star2[5]), pairs]
    dst = np.r_[dst, np.r_[star2[-2400:], pairs[:100] + 1], pairs + 1]
    G = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    if symmetric:
        G = G + G.T
    G = G.tocsr()
    G.sum_duplicates()
    k, want = scipy_cc(G, directed=False)
    ptr, idx = cupy.asarray(G.indptr, dtype=np.int64), cupy.asarray(G.indices)
    first = None
    for _ in range(4):
        count, labels = components_weak(ptr, idx, n, symmetric=symmetric)
        assert count == k
        got = cupy.asnumpy(labels)
        np.testing.assert_array_equal(got, want)
        if first is not None:
            np.testing.assert_array_equal(got, first)
        first = got
    count, labels = kleene.connected_components(_gpu(G), directed=False)
    assert count == k
    np.testing.assert_array_equal(cupy.asnumpy(labels), want)


def _rmat(scale, seed):
    src, dst = kleene.generators.rmat(scale, 8, seed=seed)
    n = 1 << scale
    return sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))


@pytest.mark.parametrize("seed", [1, 2])
def test_strong_colouring_on_rmat_graphs_repeats_bit_for_bit(seed):
    # directed R-MAT: one large component among many small ones and singletons, hubs
    # with rows long enough for every lane count
    G = _rmat(12, seed)
    G.sum_duplicates()
    k, want = scipy_cc(G, connection="strong")
    A = _gpu(G)
    first = None
    for _ in range(4):
        count, labels = kleene.engine.strong_components(A)
        assert count == k
        got = cupy.asnumpy(labels)
        if first is None:
            first = got
            np.testing.assert_array_equal(got, _by_smallest(want))
        np.testing.assert_array_equal(got, first)


def test_strong_colouring_of_hubs_split_in_segments():
    # hub 0: 3000 out-edges (segments of its row in both sweeps and the trim), 1500 back;
    # hub 3001: 2000 in-edges from a cycle's vertices and 600 out to them
    n = 4000
    src = np.r_[np.zeros(3000, int), np.arange(1, 1501), np.arange(3002, 4000), [3999]]
    dst = np.r_[np.arange(1, 3001), np.zeros(1500, int), np.arange(3003, 4001) % 4000, [3002]]
    src = np.r_[src, np.arange(2000, 4000), np.full(600, 3001)]
    dst = np.r_[dst, np.full(2000, 3001), np.arange(3100, 3700)]
    G = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    G.sum_duplicates()
    k, want = scipy_cc(G, connection="strong")
    for _ in range(3):
        count, labels = kleene.connected_components(_gpu(G), connection="strong")
        assert count == k
        np.testing.assert_array_equal(cupy.asnumpy(labels), _by_smallest(want))


def test_strong_colouring_budget_and_the_host_search():
    from kleene.backends.cuda.analytics.strong import strong_colouring

    # a directed cycle of 3000 vertices with a tail: one component needs ~3000 sweeps
    n = 3200
    src = np.r_[np.arange(3000), np.arange(3000, n - 1)]
    dst = np.r_[(np.arange(3000) + 1) % 3000, np.arange(3001, n)]
    G = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    k, want = scipy_cc(G, connection="strong")
    A = _gpu(G)
    ptr, idx = cupy.asarray(G.indptr, dtype=np.int64), cupy.asarray(G.indices)
    assert strong_colouring(ptr, idx, n, sweeps=64) is None  # past its budget
    count, labels = strong_colouring(ptr, idx, n, sweeps=100_000)
    assert count == k
    np.testing.assert_array_equal(cupy.asnumpy(labels), _by_smallest(want))
    count, labels = kleene.connected_components(A, connection="strong")  # host fallback
    assert count == k
    np.testing.assert_array_equal(cupy.asnumpy(labels), _by_smallest(want))


def test_strong_components_of_symmetric_and_empty_gpu_graphs():
    G = _rmat(10, 3)
    G = (G + G.T).tocsr()  # symmetric: the strong components are the weak ones
    k, want = scipy_cc(G, connection="strong")
    count, labels = kleene.connected_components(_gpu(G), connection="strong")
    assert count == k
    np.testing.assert_array_equal(cupy.asnumpy(labels), want)  # SciPy's own labels
    count, labels = kleene.connected_components(_gpu(sp.csr_matrix((5, 5))), connection="strong")
    assert count == 5 and cupy.asnumpy(labels).tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(kleene.errors.InvalidValue, match="numbering"):
        kleene.engine.strong_components(_gpu(G), numbering="tarjan")


def test_components_if_symmetric_reads_both_in_one_wait():
    from kleene.backends.cuda.analytics.components import components_if_symmetric
    from kleene.backends.cuda.structure import symmetry_sums

    D = _rmat(11, 4)
    D.sum_duplicates()
    S = (D + D.T).tocsr()
    for G, symmetric in ((S, True), (D, False)):
        ptr, idx = cupy.asarray(G.indptr, dtype=np.int64), cupy.asarray(G.indices)
        assert (symmetry_sums(ptr, idx, None, 11)[0] == 0) is symmetric
        first = None
        for _ in range(3):
            got = components_if_symmetric(ptr, idx, G.shape[0], salt=11)
            if not symmetric:
                assert got == (False, None, None)
                continue
            k, want = scipy_cc(G, directed=False)
            assert got[0] is True and got[1] == k
            labels = cupy.asnumpy(got[2])
            np.testing.assert_array_equal(labels, want)
            if first is not None:
                np.testing.assert_array_equal(labels, first)
            first = labels
    empty = cupy.zeros(4, dtype=np.int64)
    symmetric, count, labels = components_if_symmetric(empty, empty[:0], 3, salt=1)
    assert symmetric and count == 3 and cupy.asnumpy(labels).tolist() == [0, 1, 2]
    # the engine caches the verdict on the matrix and answers as SciPy does either way
    for G in (S, D):
        A = _gpu(G)
        k, want = scipy_cc(G, connection="strong")
        count, labels = kleene.engine.strong_components(A)
        assert count == k
        np.testing.assert_array_equal(cupy.asnumpy(labels), _by_smallest(want))
        assert A.known("pattern_symmetric") is (G is S)


def test_symmetry_sums_over_chunks_rows_and_batches():
    from kleene.backends.cuda.structure import symmetry_sums

    # rows of every length around a warp's chunk (1024 entries) and a lane's batch,
    # long runs of empty rows (the warp's row search), one entry off the mirror
    rng = np.random.default_rng(9)
    n = 30_000
    lengths = rng.choice(
        [0, 0, 0, 1, 3, 31, 33, 257, 1500],
        n,
        p=[0.5, 0.2, 0.1, 0.1, 0.04, 0.03, 0.02, 0.009, 0.001],
    )
    src = np.repeat(np.arange(n), lengths)
    dst = rng.integers(0, n, src.size)
    G = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    S = (G + G.T).tocsr()
    S.sum_duplicates()
    ptr, idx = cupy.asarray(S.indptr, dtype=np.int64), cupy.asarray(S.indices)
    vals = cupy.asarray(S.data)
    assert symmetry_sums(ptr, idx, None, 3)[0] == 0
    stats = {}
    assert symmetry_sums(ptr, idx, vals, 3, stats)[:2] == (0, 0)
    assert stats["least"] == S.data.min() and stats["greatest"] == S.data.max()
    assert stats["positive_count"] == S.nnz
    idx2 = idx.copy()
    rows = np.repeat(np.arange(n), np.diff(S.indptr))
    off = np.flatnonzero(S.indices != rows)
    k = int(off[off.size // 2])  # an entry off the diagonal (its own mirror there)
    idx2[k] = (idx2[k] + 1) % n  # one entry moved: no longer its mirror's
    assert symmetry_sums(ptr, idx2, None, 3)[0] != 0
    vals2 = vals.copy()
    vals2[k] += 1.0  # the pattern still symmetric, a value not
    pattern, weighted, _ = symmetry_sums(ptr, idx, vals2, 3)
    assert pattern == 0 and weighted != 0
    # the sums themselves, bit for bit: what tests/symmetry_fingerprint.py adds in NumPy
    from symmetry_fingerprint import fingerprint

    moved = cupy.asnumpy(idx2)
    assert symmetry_sums(ptr, idx2, None, 3)[0] == fingerprint(S.indptr, moved, 3)[0]
    assert (pattern, weighted) == fingerprint(S.indptr, S.indices, 3, cupy.asnumpy(vals2))
    G2 = sp.csr_matrix((cupy.asnumpy(vals2), moved, S.indptr), shape=S.shape)
    want = fingerprint(G2.indptr, G2.indices, 3, G2.data)
    assert symmetry_sums(ptr, idx2, vals2, 3)[:2] == want


def test_pagerank_reads_when_the_rate_says_the_change_is_below_the_limit():
    from kleene.backends.cuda.analytics.pagerank import _MAX_CHUNK, steps_to_go

    assert steps_to_go(1e-3, 1e-2, 2e-4, 2) == 1  # 1e-4 after one more step
    assert steps_to_go(1e-3, 1e-2, 0.9e-5, 2) == 3  # 1e-6 < 0.9e-5 after three
    assert steps_to_go(1e-3, 2e-3, 1e-4, 2) == 4  # 1/16 of it after four halvings
    assert steps_to_go(1e-3, 1e-3, 1e-4, 2) == 4  # no decrease: twice the last batch
    assert steps_to_go(1e-3, 0.0, 1e-4, 16) == _MAX_CHUNK  # (capped)
    assert steps_to_go(float("nan"), 1.0, 1e-4, 2) == 4
    assert steps_to_go(1.0, 1.0 + 1e-12, 1e-300, 2) == _MAX_CHUNK  # slow: capped
    assert steps_to_go(1e-5, 1e-3, 1e-4, 2) == 1  # (already below: at least one)


def test_component_numbering_over_many_tiles():
    from kleene.backends.cuda.analytics.components import components_weak, numbered_roots

    # more vertices than 1024 tiles of 256 (a tile then scans several chunks), and
    # mostly singletons: roots in every tile, counted across tiles in order
    rng = np.random.default_rng(12)
    n = 300_001
    src, dst = rng.integers(0, n, (2, 60_000))
    G = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    G = (G + G.T).tocsr()
    k, want = scipy_cc(G, directed=False)
    ptr, idx = cupy.asarray(G.indptr, dtype=np.int64), cupy.asarray(G.indices)
    for symmetric in (True, False):
        count, labels = components_weak(ptr, idx, n, symmetric=symmetric)
        assert count == k
        np.testing.assert_array_equal(cupy.asnumpy(labels), want)
    roots = cupy.arange(n, dtype=np.int32)  # every vertex its own root
    count, labels = numbered_roots(roots, n)
    assert count == n and bool((labels == roots).all())
