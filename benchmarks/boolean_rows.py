"""Boolean rows of bench_apsp.py (issue 17): transitive closure on the tensor cores.

    PYTHONPATH=. python3 benchmarks/bench_apsp.py --boolean --sizes 8192 16384 32768 65536 \\
        --out benchmarks/results/boolean_h100.json

Rows, in one run on one GPU (median wall time of the public call with a device sync,
after a warm-up, fresh random graphs each run):

- ``kleene.transitive_closure(G)`` on a random digraph with about 2 edges a vertex
  (a cupyx CSR), peak CuPy pool bytes beside the result's, every result checked
  against BFS reachability (``kleene.bfs`` levels ≥ 0) from 4 sampled sources (its
  strongly connected components condensed: ~0.37 n of them);
- the same on a random DAG (n components: the full-size closure, in topological
  order);
- the same with ``KLEENE_BOOL_TENSOR_CORES=0`` (the CUDA-core (or, and) kernels) and
  the min-plus closure ``kleene.apsp`` of the same graph, where they finish in time;
- the Boolean product ``kleene.mxm(A, B, "lor_land")`` on full dense n × n bool
  matrices against cuBLAS's int8 GEMM (int32 out) on the same sizes: T ops/s
  counting 2·n³, and the ratio.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

import kleene


def _sync():
    import cupy

    cupy.cuda.get_current_stream().synchronize()


def _timed(fn, repeat: int, warmup: int = 1, setup=None) -> tuple[float, object]:
    """(median wall seconds of fn(*setup()) with a device sync, last result); ``setup``
    (fresh data) runs untimed before each call."""
    out = None
    times = []
    for r in range(warmup + repeat):
        out = None
        args = setup() if setup else ()
        _sync()
        t0 = time.perf_counter()
        out = fn(*args)
        _sync()
        if r >= warmup:
            times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def digraph(n: int, per: float, seed: int):
    """A random digraph (cupyx CSR, bool values) with about ``per`` edges a vertex."""
    import cupy
    import cupyx.scipy.sparse as csp

    rng = cupy.random.default_rng(seed)
    m = int(per * n)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    G = csp.coo_matrix((cupy.ones(m, dtype=cupy.float32), (rows, cols)), shape=(n, n)).tocsr()
    G.sum_duplicates()
    return G


def dag(n: int, per: float, seed: int):
    """A random DAG (cupyx CSR): about ``per`` edges a vertex, each from a smaller
    index to a larger one, so every strongly connected component is one vertex."""
    import cupy
    import cupyx.scipy.sparse as csp

    rng = cupy.random.default_rng(seed)
    m = int(2 * per * n)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    up = rows < cols
    rows, cols = rows[up], cols[up]
    G = csp.coo_matrix(
        (cupy.ones(rows.size, dtype=cupy.float32), (rows, cols)), shape=(n, n)
    ).tocsr()
    G.sum_duplicates()
    return G


def _check(G, R, n: int) -> str:
    """R's rows of 4 sampled sources against BFS reachability (off the diagonal)."""
    import cupy

    picks = [0, n // 3, n // 2, n - 1]
    levels = kleene.bfs(G, picks)
    reach = levels >= 0
    for t, s in enumerate(picks):
        reach[t, s] = R[s, s]  # the diagonal is "on a cycle", which BFS levels do not say
    bad = int(cupy.count_nonzero(R[picks] != reach))
    return "OK" if bad == 0 else f"{bad} entries differ from BFS"


def _pool_peak(fn):
    """(fn(), peak device bytes of the call): CuPy pool high-water bytes above the start
    (bench_out_of_core's PoolPeak) with replayed graphs dropped first, so that a graph's
    buffer counts in the call that makes it, plus what the graph's private pool (its
    captured scratch, outside CuPy's default pool) holds after it."""
    from bench_out_of_core import GIB, PoolPeak

    from kleene.backends.cuda import graphs

    kleene.engine.release_replays()
    with PoolPeak("gpu") as peak:
        out = fn()
    private = sum(e.pool.total_bytes() for e in graphs._cache.values() if e.pool is not None)
    return out, peak.gib() * GIB + private


# The slower paths only where they finish in seconds (CUDA-core or/and: 235 ms at
# n = 8192 on an H100; the min-plus closure 43 s at 65,536).
CAP = {"cuda-core": 16384, "min-plus": 16384}


def closure_rows(sizes, budget: float) -> list[dict]:
    rows = []
    alive = {"tensor", "tensor-dag", "cuda-core", "min-plus"}
    for n in sizes:
        seeds = iter(range(1000))
        repeat = 3 if n <= 32768 else 1
        for mode in ("tensor", "tensor-dag", "cuda-core", "min-plus"):
            make = dag if mode == "tensor-dag" else digraph
            G0 = make(n, 2.0, 99)
            if mode not in alive or n > CAP.get(mode, n):
                continue
            os.environ["KLEENE_BOOL_TENSOR_CORES"] = "0" if mode == "cuda-core" else "1"

            def fresh(n=n, seeds=seeds, make=make):
                return (make(n, 2.0, next(seeds)),)

            def run(G, mode=mode):
                return kleene.apsp(G) if mode == "min-plus" else kleene.transitive_closure(G)

            try:
                t0 = time.perf_counter()
                med, _ = _timed(run, repeat, setup=fresh)
                took = time.perf_counter() - t0
            except MemoryError as e:
                rows.append({"n": n, "method": mode, "error": str(e)[:200]})
                alive.discard(mode)
                continue
            row = {
                "n": n,
                "method": {
                    "tensor": "transitive_closure (tensor cores)",
                    "tensor-dag": "transitive_closure, random DAG",
                    "cuda-core": "transitive_closure (CUDA-core or/and)",
                    "min-plus": "apsp min-plus (fp32)",
                }[mode],
                "ms": med * 1e3,
            }
            if mode.startswith("tensor"):
                R, peak = _pool_peak(lambda G0=G0: kleene.transitive_closure(G0))
                row.update(check=_check(G0, R, n), result_GiB=n * n / 2**30, peak_GiB=peak / 2**30)
                del R
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
            if took > budget:
                alive.discard(mode)
        os.environ["KLEENE_BOOL_TENSOR_CORES"] = "1"
    return rows


def gemm_rows(n: int) -> list[dict]:
    """kleene's Boolean mxm against cuBLAS int8 GEMM at n × n × n."""
    import cupy

    blas = cupy.cuda.cublas
    rng = cupy.random.default_rng(5)
    a = rng.random((n, n)) < 0.01
    b = rng.random((n, n)) < 0.01
    A = kleene.Matrix.from_dense(a, missing=None)
    B = kleene.Matrix.from_dense(b, missing=None)
    mx, _ = _timed(lambda: kleene.mxm(A, B, "lor_land"), 5)
    a8, bt8 = a.view(cupy.int8), cupy.ascontiguousarray(b.T).view(cupy.int8)
    c = cupy.empty((n, n), dtype=cupy.int32)
    one, zero = np.array(1, dtype=np.int32), np.array(0, dtype=np.int32)
    handle = cupy.cuda.device.get_cublas_handle()

    def gemm():
        blas.gemmEx(
            handle,
            1,
            0,
            n,
            n,
            n,
            one.ctypes.data,
            bt8.data.ptr,
            3,
            n,
            a8.data.ptr,
            3,
            n,
            zero.ctypes.data,
            c.data.ptr,
            10,
            n,
            72,
            -1,
        )

    g, _ = _timed(gemm, 5)
    ops = 2.0 * n**3
    return [
        {
            "n": n,
            "method": "cuBLAS int8 GEMM (TN, int32 out)",
            "ms": g * 1e3,
            "Tops": ops / g / 1e12,
        },
        {
            "n": n,
            "method": "kleene.mxm lor_land (tensor cores)",
            "ms": mx * 1e3,
            "Tops": ops / mx / 1e12,
            "share of cuBLAS": g / mx,
        },
    ]


def _random_csr(n: int, density: float, seed: int):
    import cupy
    import cupyx.scipy.sparse as csp

    rng = cupy.random.default_rng(seed)
    m = int(density * n * n)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    G = csp.coo_matrix((cupy.ones(m, dtype=cupy.float32), (r, c)), shape=(n, n)).tocsr()
    G.sum_duplicates()
    return G


def frontier_rows(
    n: int = 16384, k: int = 1024, densities=(0.001, 0.005, 0.02, 0.05, 0.2)
) -> list[dict]:
    """Multi-source BFS levels from k sources: dense frontiers on the tensor cores
    (``method="dense"``) against the sparse bit-packed MS-BFS kernels (``"push"``),
    fresh random digraphs of each density (cupyx CSR), answers compared."""
    out = []
    for i, density in enumerate(densities):
        seeds = iter(range(100 * i, 100 * i + 100))
        srcs = list(range(0, n, n // k))[:k]
        times = {}
        for method in ("dense", "push"):

            def fresh(seeds=seeds, density=density):
                return (_random_csr(n, density, next(seeds)),)

            def run(G, m=method, srcs=srcs):
                return kleene.bfs(G, srcs, method=m)

            med, _ = _timed(run, 3, setup=fresh)
            times[method] = med
        G = _random_csr(n, density, 7)
        dense, sparse = (kleene.bfs(G, srcs, method=m) for m in ("dense", "push"))
        same = bool((dense == sparse).all())
        row = {
            "n": n,
            "sources": k,
            "density": density,
            "edges": int(G.nnz),
            "dense frontiers ms": times["dense"] * 1e3,
            "sparse MS-BFS ms": times["push"] * 1e3,
            "dense / sparse": times["dense"] / times["push"],
            "same levels": same,
        }
        out.append(row)
        print(row, file=sys.stderr, flush=True)
    return out


def rows(sizes, budget: float = 60.0) -> list[dict]:
    out = closure_rows(sizes, budget)
    out += gemm_rows(16384)
    return out


def plot(rows: list[dict], path) -> None:
    """Closure time against n, one line a method (log-log), beside the results."""
    from common import log_log_plot

    series: dict[str, tuple[list, list]] = {}
    for r in rows:
        if "transitive_closure" in r["method"] or "min-plus" in r["method"]:
            if "ms" in r:
                x, y = series.setdefault(r["method"], ([], []))
                x.append(r["n"])
                y.append(r["ms"] / 1e3)
    log_log_plot(
        path,
        series,
        "n (vertices)",
        "seconds",
        "Transitive closure, random digraphs and DAGs (2 edges a vertex)",
    )
