"""Boolean (or, and) products on tensor cores (kleene/backends/cuda/boolean_mma.py) and the
GPU transitive closure over them, judged by the CPU: NumPy's integer product > 0 for
the products, the CPU back end's bit-packed closure and SciPy's BFS for reachability.
Shapes across the 16-element alignment and the row bands, all-false, all-true and
identity operands, in-place (aliased) accumulation as R-Kleene uses it, and the
CUDA-core path (KLEENE_BOOL_TENSOR_CORES=0) giving the same answers. Skipped without
CuPy or a GPU.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

pytestmark = pytest.mark.gpu

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_cases import gpu_missing  # noqa: E402

if gpu_missing():
    pytest.skip(gpu_missing(), allow_module_level=True)

import cupy  # noqa: E402

import kleene  # noqa: E402
from kleene.backends.cuda import boolean_mma  # noqa: E402
from kleene.engine import mxm_accumulate  # noqa: E402
from kleene.semiring import get_semiring  # noqa: E402


@pytest.fixture
def calls(monkeypatch):
    """How many products took the tensor-core path. Replayed CUDA graphs are dropped
    first: a closure replayed from an earlier test's capture calls no product."""
    kleene.engine.release_replays()
    seen = []
    real = boolean_mma.product

    def spy(a, b, c, *, accumulate):
        seen.append((a.shape, b.shape, accumulate))
        return real(a, b, c, accumulate=accumulate)

    monkeypatch.setattr(boolean_mma, "product", spy)
    return seen


def _bool(rng, shape, p):
    return rng.random(shape) < p


def _ref(a, b):
    return (a.astype(np.int64) @ b.astype(np.int64)) > 0


SHAPES = [
    (256, 256, 256),
    (1024, 512, 768),
    (4096, 1024, 64),
    (1000, 512, 512),
    (512, 300, 512),
    (513, 516, 20),
]


@pytest.mark.parametrize("m, k, n", SHAPES)
@pytest.mark.parametrize("p", [0.0, 0.002, 0.05, 1.0])
def test_product_equals_integer_product(calls, m, k, n, p):
    rng = np.random.default_rng(m + k + n)
    a, b = _bool(rng, (m, k), p), _bool(rng, (k, n), p)
    A = kleene.Matrix.from_dense(cupy.asarray(a), missing=None)
    B = kleene.Matrix.from_dense(cupy.asarray(b), missing=None)
    got = kleene.mxm(A, B, "lor_land").to_dense(missing=False)
    np.testing.assert_array_equal(cupy.asnumpy(got), _ref(a, b))
    tensor = m * n * k >= boolean_mma.MIN_STEPS and k % 4 == 0 and n % 4 == 0 and min(m, n, k) >= 16
    assert bool(calls) == tensor  # the aligned, big ones ran on the tensor cores


def test_identity_and_bands(calls, monkeypatch):
    monkeypatch.setattr(boolean_mma, "SCRATCH_BYTES", 4 * 512 * 100)  # 100-row bands
    rng = np.random.default_rng(1)
    a = _bool(rng, (1000, 512), 0.01)
    eye = np.eye(512, dtype=bool)
    c = cupy.zeros((1000, 512), dtype=bool)
    boolean_mma.product(cupy.asarray(a), cupy.asarray(eye), c, accumulate=False)
    np.testing.assert_array_equal(cupy.asnumpy(c), a)


@pytest.mark.parametrize("alias", ["none", "a", "b"])
def test_accumulate_in_place_on_block_views(calls, alias):
    """C |= A·B on views of one matrix, as R-Kleene's steps (A12 ← A11 A12: B = C;
    A21 ← A21 A11: A = C): the old values of every operand, then or-ed in."""
    rng = np.random.default_rng(7)
    n, h = 1024, 512
    d = _bool(rng, (n, n), 0.003)
    D = kleene.Matrix.from_dense(cupy.asarray(d), missing=None)
    one, two = slice(0, h), slice(h, n)
    if alias == "a":  # A21 ← A21 ⊕ A21 A11
        A, B, C = D.block(two, one), D.block(one, one), D.block(two, one)
        want = d[two, one] | _ref(d[two, one], d[one, one])
    elif alias == "b":  # A12 ← A12 ⊕ A11 A12
        A, B, C = D.block(one, one), D.block(one, two), D.block(one, two)
        want = d[one, two] | _ref(d[one, one], d[one, two])
    else:  # A22 ← A22 ⊕ A21 A12
        A, B, C = D.block(two, one), D.block(one, two), D.block(two, two)
        want = d[two, two] | _ref(d[two, one], d[one, two])
    mxm_accumulate(A, B, C, "lor_land")
    assert calls and calls[-1][2]
    np.testing.assert_array_equal(cupy.asnumpy(C.to_dense()), want)


def _digraph(n: int, per: float, seed: int):
    rng = np.random.default_rng(seed)
    m = int(per * n)
    return sp.csr_matrix((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))


@pytest.mark.parametrize("n", [700, 2048, 3001])
@pytest.mark.parametrize("reflexive", [False, True])
def test_transitive_closure_equals_cpu_and_bfs(calls, monkeypatch, n, reflexive):
    from kleene.algorithms import transitive

    monkeypatch.setattr(transitive, "_closure_condensed", lambda *a: None)  # n-vertex R-Kleene
    G = _digraph(n, 2.0, seed=n)
    got = cupy.asnumpy(
        kleene.transitive_closure(cupy.asarray(G.toarray() > 0), reflexive=reflexive)
    )
    want = kleene.transitive_closure(G, reflexive=reflexive)
    np.testing.assert_array_equal(got, want)
    assert calls, "the GPU closure ran no tensor-core product"
    for s in (0, n // 2, n - 1):  # an independent judge: SciPy's BFS
        reach = np.zeros(n, dtype=bool)
        reach[breadth_first_order(G, s, return_predecessors=False)] = True
        if not reflexive:
            reach[s] = bool(got[s, s])  # s reaches itself only round a cycle
        np.testing.assert_array_equal(got[s], reach)


@pytest.mark.parametrize(
    "n, per, loops", [(3000, 2.0, 0), (2500, 3.0, 40), (1500, 1.2, 5), (4100, 2.5, 0)]
)
@pytest.mark.parametrize("reflexive", [False, True])
def test_condensed_closure_of_sparse_graphs(calls, monkeypatch, n, per, loops, reflexive):
    """A sparse graph (cupyx CSR) closes through its strongly connected components,
    in SciPy's (reverse topological) order: the same answers as the CPU closure and
    SciPy's BFS, self loops included."""
    import cupyx.scipy.sparse as csp
    from scipy.sparse.csgraph import connected_components

    from kleene.algorithms import transitive

    G = _digraph(n, per, seed=n + loops).tolil()
    for v in np.random.default_rng(loops).integers(0, n, loops):
        G[v, v] = 1.0
    G = G.tocsr()
    taken = []
    real = transitive._closure_condensed

    def spy(*args):
        reach = real(*args)
        taken.append(reach is not None)
        return reach

    monkeypatch.setattr(transitive, "_closure_condensed", spy)
    got = cupy.asnumpy(kleene.transitive_closure(csp.csr_matrix(G), reflexive=reflexive))
    np.testing.assert_array_equal(got, kleene.transitive_closure(G, reflexive=reflexive))
    count = connected_components(G, directed=True, connection="strong")[0]
    assert taken == [True] and count < n
    for s in (0, n // 3, n - 1):
        reach = np.zeros(n, dtype=bool)
        reach[breadth_first_order(G, s, return_predecessors=False)] = True
        if not reflexive:
            reach[s] = bool(got[s, s])
        np.testing.assert_array_equal(got[s], reach)


def test_dag_closes_in_topological_order_and_equals_cpu(calls):
    n = 2100
    rng = np.random.default_rng(7)
    r, c = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
    keep = r < c  # edges upward only: every component is one vertex
    G = sp.csr_matrix((np.ones(int(keep.sum())), (r[keep], c[keep])), shape=(n, n))
    import cupyx.scipy.sparse as csp

    got = cupy.asnumpy(kleene.transitive_closure(csp.csr_matrix(G)))
    np.testing.assert_array_equal(got, kleene.transitive_closure(G))
    assert calls, "the DAG's closure ran no tensor-core product"
    assert not got[np.tril_indices(n)].any()


def test_undirected_all_true_and_empty(calls):
    n = 1040
    full = cupy.ones((n, n), dtype=bool)
    assert bool(kleene.transitive_closure(full).all())
    empty = cupy.zeros((n, n), dtype=bool)
    assert not bool(kleene.transitive_closure(empty).any())
    assert bool(kleene.transitive_closure(empty, reflexive=True).diagonal().all())
    G = _digraph(n, 1.0, seed=3)
    got = kleene.transitive_closure(cupy.asarray(G.toarray() > 0), directed=False)
    np.testing.assert_array_equal(cupy.asnumpy(got), kleene.transitive_closure(G, directed=False))


def test_cuda_core_path_agrees_and_reruns_are_identical(monkeypatch):
    G = cupy.asarray(_digraph(1536, 1.5, seed=11).toarray() > 0)
    first = kleene.transitive_closure(G)
    again = kleene.transitive_closure(G)
    assert bool((first == again).all())
    monkeypatch.setenv("KLEENE_BOOL_TENSOR_CORES", "0")
    assert bool((kleene.transitive_closure(G) == first).all())


@pytest.mark.parametrize("n", [1, 5, 31, 32, 33, 127, 128, 200, 512, 700, 1100])
@pytest.mark.parametrize("p", [0.0, 0.004, 0.02, 1.0])
def test_bit_packed_closure_equals_cpu_and_generic_kernel(n, p):
    """The bit-packed (or, and) closure (kernels/bool_closure_bits.cu; blocked passes
    over it beyond 512 rows) on a strided view inside a larger matrix, against the
    CPU closure and, up to 128 rows, the generic one-block kernel; reruns identical."""
    from kleene.backends.cuda import closure as cuda_closure

    rng = np.random.default_rng(n + int(p * 1000))
    host = _bool(rng, (n + 9, n + 20), p)
    want = np.asarray(
        kleene.closure(
            kleene.Matrix.from_dense(host[3 : 3 + n, 7 : 7 + n], missing=None), "lor_land"
        ).to_dense()
    )
    runs = []
    for _ in range(2):
        big = cupy.asarray(host)
        view = big[3 : 3 + n, 7 : 7 + n]
        cuda_closure.closure_dense(get_semiring("lor_land"), view, True)
        runs.append(cupy.asnumpy(big))
        np.testing.assert_array_equal(runs[-1][3 : 3 + n, 7 : 7 + n], want)
        outside = np.ones(host.shape, dtype=bool)
        outside[3 : 3 + n, 7 : 7 + n] = False
        np.testing.assert_array_equal(runs[-1][outside], host[outside])  # untouched
    np.testing.assert_array_equal(runs[0], runs[1])
    if n <= 128:
        generic = cupy.asarray(host[3 : 3 + n, 7 : 7 + n])
        cuda_closure._one_block(get_semiring("lor_land"), generic, None, True)
        np.testing.assert_array_equal(cupy.asnumpy(generic), want)


@pytest.mark.parametrize("n, density", [(1000, 0.003), (1024, 0.02), (2000, 0.3)])
def test_dense_frontier_bfs_on_tensor_cores(calls, monkeypatch, n, density):
    """bfs(G, sources, method="dense"): (k × n) · (n × n) Boolean products on the tensor
    cores, levels equal to the sparse multi-source kernels'; "auto" takes it on a
    graph past the density threshold."""
    import cupyx.scipy.sparse as csp

    from kleene.algorithms import breadth_first, dense_frontiers

    rng = np.random.default_rng(n)
    m = int(density * n * n)
    ends = (rng.integers(0, n, m), rng.integers(0, n, m))
    G = csp.csr_matrix(sp.csr_matrix((np.ones(m), ends), shape=(n, n)))
    sources = [int(s) for s in rng.integers(0, n, 80)]
    got = kleene.bfs(G, sources, method="dense")
    assert calls, "no product ran on the tensor cores"
    want = kleene.bfs(G, sources, method="push")  # the sparse MS-BFS kernels
    np.testing.assert_array_equal(cupy.asnumpy(got), cupy.asnumpy(want))
    assert bool((kleene.bfs(G, sources, method="dense") == got).all())  # reruns identical
    seen = []
    real = breadth_first.levels_dense
    monkeypatch.setattr(breadth_first, "levels_dense", lambda A, s: seen.append(1) or real(A, s))
    kleene.bfs(G, sources)
    # well clear of the threshold either way (duplicate edges thin the 0.3 graph a bit)
    assert bool(seen) == (density >= 2 * dense_frontiers.DENSE_MIN_DENSITY)


@pytest.mark.parametrize("dtype", [np.bool_, np.float32, np.int64])
@pytest.mark.parametrize("n, c", [(1, 1), (37, 5), (1000, 1000), (2049, 300)])
def test_gather_square_equals_numpy_indexing(dtype, n, c):
    """gather_square (kernels/gather_square.cu): out = C[idx][:, idx], repeats allowed,
    from a strided square view."""
    from kleene.backends.cuda.gather import gather_square

    rng = np.random.default_rng(n + c)
    big = (rng.random((c + 3, c + 8)) * 100).astype(dtype)
    idx = rng.integers(0, c, n).astype(np.int32)
    src = cupy.asarray(big)[2 : 2 + c, 5 : 5 + c]
    got = cupy.asnumpy(gather_square(src, cupy.asarray(idx)))
    np.testing.assert_array_equal(got, big[2 : 2 + c, 5 : 5 + c][idx][:, idx])
