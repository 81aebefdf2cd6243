"""Triangle counting (issue 42): kleene's compiled kernels beside their peers.

    PYTHONPATH=. python3 benchmarks/bench_triangles.py --device gpu --out $OUT/tc_gpu.json
    #   --scales 14 16 18 20 22   --repeat 5
    python benchmarks/bench_triangles.py --device cpu --out benchmarks/results/tc_cpu.json
    #   --graphs social road   --repeat 7

GPU: RMAT-s (edge factor 16, ``kleene.generators.rmat`` on the device), both
directions, self loops dropped, duplicates merged, unit float32 weights: a
``kleene.Matrix`` on the GPU, as ``.gl``'s GAP timings build it. Rows:
``kleene.triangle_count(A)`` (the compiled kernel), ``kleene.triangles(A)`` (per
vertex), ``triangle_count(A, fused=False)`` (the composed masked product) and cupyx
``(L @ L).multiply(L).sum()`` on L = tril(A), each the median of ``--repeat`` calls
after a warm-up, host clock around the call and a device sync (what a user waits
for); cupyx out of memory is recorded as such. Every count is checked against the
compiled one. ``kernel G=<g>`` rows time the back end's kernel alone on the CSR
arrays with g lanes per edge (how the lane rule was chosen).

CPU: SNAP ego-Facebook (``social``) and DIMACS USA-road-NY (``road``) from
``../shared/data`` or ``$KLEENE_DATA``, simple undirected patterns. kleene gets the
SciPy CSR (converted inside the call) and a ``kleene.Matrix`` (built before the
clock, as each peer gets its own graph object): igraph (``list_triangles``,
``transitivity_local_undirected``), NetworKit (``TriangleEdgeScore``,
``LocalClusteringCoefficient``) and graphblas-algorithms (``triangles``). All calls
interleaved, round after round, in one process; each row is the best of
``--repeat`` rounds (and the median); counts are checked against SciPy's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import write_results  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import kleene  # noqa: E402


def _median_ms(fn, sync, repeat: int, limit_s: float = 20.0):
    """(result, first_ms, median_ms, min_ms): one warm-up (its time kept), then up to
    ``repeat`` calls while they fit in ``limit_s``."""
    t0 = time.perf_counter()
    out = fn()
    sync()
    first = 1e3 * (time.perf_counter() - t0)
    times = []
    for _ in range(repeat):
        if sum(times) / 1e3 + first / 1e3 > limit_s:
            break
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(1e3 * (time.perf_counter() - t0))
    if not times:
        times = [first]
    return out, round(first, 3), round(float(np.median(times)), 3), round(min(times), 3)


# ------------------------------------------------------------------------------ GPU


def gpu_graph(scale: int):
    import cupy

    n = 1 << scale
    src, dst = kleene.generators.rmat(scale, 16, undirected=True, device="gpu")
    keep = src != dst
    w = cupy.ones(int(keep.sum()), dtype=cupy.float32)
    A = kleene.Matrix.from_edges(src[keep], dst[keep], w, n=n, ncols=n)
    return kleene.ops.symmetrize(A)


def _composed(A) -> int:
    return kleene.triangle_count(A, fused=False)


def gpu_rows(scale: int, repeat: int, log) -> list[dict]:
    import cupy
    import cupyx.scipy.sparse as csp

    sync = cupy.cuda.Device().synchronize
    A = gpu_graph(scale)
    sync()
    rows = []
    base = {"scale": scale, "n": A.nrows, "nnz": A.nvals}

    def row(name, fn, check=None):
        try:
            out, first, med, low = _median_ms(fn, sync, repeat)
        except Exception as e:  # OutOfMemory (cupyx), or a failure: recorded
            r = {**base, "row": name, "error": f"{type(e).__name__}: {str(e)[:160]}"}
        else:
            r = {**base, "row": name, "first_ms": first, "median_ms": med, "min_ms": low}
            if check is not None:
                r["check"] = "ok" if check(out) else "MISMATCH"
        rows.append(r)
        log(r)
        cupy.get_default_memory_pool().free_all_blocks()
        return r

    # the reference: the composed masked product (the compiled kernel's twin), or,
    # where that is slow, the compiled count itself (cupyx's is checked against it)
    ref = {}
    if scale <= 20:
        row("triangle_count fused=False", lambda: ref.setdefault("c", _composed(A)))
    ref.setdefault("c", None)

    def same(c):
        if ref["c"] is None:
            ref["c"] = int(c)
        return int(c) == ref["c"]

    row("kleene.triangle_count", lambda: kleene.triangle_count(A), same)
    count = ref["c"]
    row("kleene.triangles", lambda: kleene.triangles(A), lambda t: int(t.sum()) == 3 * count)
    rr, cc, _ = A.to_coo()
    _kernel_rows(A, rr, cc, count, row)
    # float64 ones: the products' sums are exact integers (float32's stop at 2**24)
    L = csp.csr_matrix((cupy.ones(int(rr.size), dtype=cupy.float64), (rr, cc)), shape=A.shape)
    del rr, cc
    L = csp.tril(L, -1).tocsr()
    L.sort_indices()
    row(
        "cupyx (L@L).multiply(L).sum()",
        lambda: int((L @ L).multiply(L).sum()),
        lambda c: c == count,
    )
    return rows


def _kernel_rows(A, rr, cc, count, row) -> None:
    """The back end's kernel alone on A's CSR arrays, with each lane count."""
    import cupy

    from kleene.backends import backend
    from kleene.backends.cuda.analytics import triangles as gpu_tc

    ptr = cupy.searchsorted(rr, cupy.arange(A.nrows + 1, dtype=rr.dtype))
    idx = cc.astype(cupy.int32)
    kernel = backend(cupy).triangle_count
    rule = gpu_tc._lanes
    chosen = rule(int(idx.size), A.nrows)
    try:
        for g in (1, 2, 4, 8, 16, 32):
            gpu_tc._lanes = lambda nnz, n, g=g: g
            row(
                f"kernel G={g}" + (" (rule)" if g == chosen else ""),
                lambda: kernel(ptr, idx, A.nrows),
                lambda c: c == count,
            )
    finally:
        gpu_tc._lanes = rule


# ------------------------------------------------------------------------------ CPU


def cpu_graph(name: str) -> sp.csr_matrix:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gap

    A = gap.graph(name, 0)
    A.data[:] = 1.0
    return A


def cpu_rows(name: str, repeat: int, log) -> list[dict]:
    import gap

    A = cpu_graph(name)
    M = kleene.Matrix.from_scipy(A)
    L = sp.tril(A, -1).tocsr()
    count = int((L @ L).multiply(L).sum())
    calls = {
        "kleene.triangle_count(scipy)": ("kleene", "count", lambda: kleene.triangle_count(A)),
        "kleene.triangle_count(Matrix)": ("kleene", "count", lambda: kleene.triangle_count(M)),
        "kleene.triangles(scipy)": ("kleene", "per vertex", lambda: kleene.triangles(A)),
        "kleene.triangles(Matrix)": ("kleene", "per vertex", lambda: kleene.triangles(M)),
    }
    checks = {
        "count": lambda c: int(c) == count,
        "per vertex": lambda t: int(np.asarray(t).sum()) == 3 * count,
    }
    try:
        ig = gap._igraph(A)
        calls["igraph list_triangles"] = ("peer", "count", lambda: len(ig.list_triangles()))
        calls["igraph transitivity_local_undirected"] = (
            "peer",
            "per vertex",
            lambda: ig.transitivity_local_undirected(mode="zero"),
        )
    except ImportError as e:
        log({"graph": name, "igraph": str(e)})
    try:
        import networkit as nk

        g = gap._networkit(A)
        calls["NetworKit TriangleEdgeScore"] = (
            "peer",
            "count",
            lambda: round(sum(nk.sparsification.TriangleEdgeScore(g).run().scores()) / 3),
        )
        calls["NetworKit LocalClusteringCoefficient"] = (
            "peer",
            "per vertex",
            lambda: nk.centrality.LocalClusteringCoefficient(g).run().scores(),
        )
    except ImportError as e:
        log({"graph": name, "networkit": str(e)})
    try:
        import graphblas_algorithms as ga

        gb = gap._graphblas(A)
        calls["graphblas-algorithms triangles"] = (
            "peer",
            "per vertex",
            lambda: ga.triangles(gb).to_dense(fill_value=0),
        )
    except ImportError as e:
        log({"graph": name, "graphblas-algorithms": str(e)})
    results = {}
    for key, (_, kind, fn) in calls.items():  # warm-up, and the answers checked
        out = fn()
        if kind == "count" or key.startswith(("kleene", "graphblas")):
            results[key] = "ok" if checks[kind](out) else "MISMATCH"
    times = {key: [] for key in calls}
    for _ in range(repeat):
        for key, (_, _, fn) in calls.items():
            t0 = time.perf_counter()
            fn()
            times[key].append(1e3 * (time.perf_counter() - t0))
    rows = []
    for key, (who, kind, _) in calls.items():
        r = {
            "graph": name,
            "n": A.shape[0],
            "nnz": A.nnz,
            "row": key,
            "who": who,
            "kind": kind,
            "best_ms": round(min(times[key]), 3),
            "median_ms": round(float(np.median(times[key])), 3),
        }
        if key in results:
            r["check"] = results[key]
        rows.append(r)
        log(r)
    peers = [r for r in rows if r["who"] == "peer"]
    if peers:
        best = min(peers, key=lambda r: r["best_ms"])
        for r in rows:
            if r["who"] == "kleene":
                r["best peer"] = best["row"]
                r["ratio to best peer"] = round(r["best_ms"] / best["best_ms"], 3)
    return rows


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--scales", type=int, nargs="*", default=[14, 16, 18, 20, 22])
    p.add_argument("--graphs", nargs="*", default=["social", "road"])
    p.add_argument("--repeat", type=int, default=None)
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)

    def log(r):
        print(r, flush=True)

    rows = []
    if a.device == "gpu":
        for s in a.scales:
            rows += gpu_rows(s, a.repeat or 5, log)
    else:
        for g in a.graphs:
            rows += cpu_rows(g, a.repeat or 7, log)
    if a.out:
        write_results(a.out, f"triangles_{a.device}", rows)


if __name__ == "__main__":
    main()
