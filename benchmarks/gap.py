"""The GAP Benchmark Suite's six kernels (Beamer, Asanović, Patterson) through kleene's
public calls, beside the strongest peers on the same graphs, answers checked.

    python benchmarks/gap.py --device cpu --out benchmarks/results/gap_cpu.json
    PYTHONPATH=. python3 benchmarks/gap.py --device gpu --out $OUT/gap_h100.json
    #   --graphs kron urand road social   --scale 16 (cpu) / 22 (gpu)   --repeat 3
    python benchmarks/gap.py --replot benchmarks/results/gap_cpu.json

Kernels: BFS and SSSP from one source (a seeded random vertex with edges), PageRank
(damping 0.85, tolerance 1e-4), connected components, betweenness from 64 seeded
sources (unnormalised, undirected), triangle count. Graphs, all undirected:

- ``kron``: Kronecker (R-MAT, Graph500 quadrants, edge factor 16) on ``2**scale``
  vertices; ``urand``: as many uniformly random edges on as many vertices. Both get
  GAP's integer weights 1..255 for SSSP (a hash of each edge); the other kernels
  read the pattern.
- ``road``: DIMACS USA-road-NY (``../shared/data`` or ``$KLEENE_DATA``), its lengths.
- ``social``: SNAP ego-Facebook (``facebook_combined``), unit weights.

Input forms are what each user holds: kleene gets the SciPy CSR matrix (cupyx on the
GPU) and converts inside the timed call; each peer gets its own graph object, built
before the clock (igraph ``Graph``, NetworKit ``Graph``, graphblas-algorithms ``Graph``).
A GPU run also times kleene on a ``kleene.Matrix`` already on the device, and cupyx
where it has the operation (SpMV power iteration for PageRank, SpMV frontier loop for
BFS, ``(L @ L).multiply(L).sum()`` for triangles). Every time is the median of
``--repeat`` calls after one warm-up; the warm-up's own time is kept as ``first_ms``.
Answers: BFS levels, SSSP distances (1e-9), the components' partition and the
triangle count are compared exactly with kleene's; PageRank within 1e-3 (L1) of a
tolerance-1e-10 solve; betweenness within 1e-9 (relative) where the peer takes the
same sources.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import main_or_replot, write_results  # noqa: E402

KERNELS = ("bfs", "sssp", "pagerank", "cc", "bc", "tc")
BC_SOURCES = 64
# GAP's PageRank stops when the L1 change of an iteration is below 1e-4; NetworkX's
# (and kleene's) ``tol`` is per vertex (stop below n * tol), so they get 1e-4 / n
PR_TOL = 1e-4


def _data(name: str) -> Path:
    for root in (
        os.environ.get("KLEENE_DATA"),
        Path(__file__).resolve().parents[2] / "shared/data",
    ):
        if root and (Path(root) / name).exists():
            return Path(root) / name
    raise FileNotFoundError(f"{name}: not in $KLEENE_DATA nor ../shared/data")


def _symmetric(n, src, dst, w) -> sp.csr_matrix:
    """Undirected simple graph: both directions, no self-loops, duplicates merged (min)."""
    keep = src != dst
    r, c, v = np.r_[src[keep], dst[keep]], np.r_[dst[keep], src[keep]], np.r_[w[keep], w[keep]]
    order = np.lexsort((v, c, r))
    r, c, v = r[order], c[order], v[order]
    first = np.r_[True, (r[1:] != r[:-1]) | (c[1:] != c[:-1])]
    A = sp.csr_matrix((v[first], (r[first], c[first])), shape=(n, n))
    A.sort_indices()
    return A


def _synthetic(n, src, dst) -> sp.csr_matrix:
    """Undirected simple graph of the edge list with GAP's weights 1..255, drawn per
    edge {u, v} by a hash of the pair, so duplicates agree and no sort by weight is
    needed (SciPy's CSR build merges them)."""
    keep = src != dst
    r, c = np.r_[src[keep], dst[keep]], np.r_[dst[keep], src[keep]]
    A = sp.coo_matrix((np.ones(r.size, np.float32), (r, c)), shape=(n, n)).tocsr()
    A.sort_indices()
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
    cols = A.indices.astype(np.int64)
    key = (np.minimum(rows, cols) * n + np.maximum(rows, cols)).astype(np.uint64)
    key = (key ^ (key >> np.uint64(31))) * np.uint64(0x9E3779B97F4A7C15)  # splitmix-style
    A.data = (1 + (key >> np.uint64(40)) % np.uint64(255)).astype(np.float64)
    return A


def graph(name: str, scale: int) -> sp.csr_matrix:
    import kleene

    if name in ("kron", "urand"):
        n = 1 << scale
        if name == "kron":
            src, dst = kleene.generators.rmat(scale, 16, seed=1)
        else:
            src, dst = np.random.default_rng(27).integers(0, n, size=(2, 16 * n))
        return _synthetic(n, src, dst)
    if name == "road":
        A = kleene.io.read(_data("USA-road-NY.pace.gr.xz"), dtype=np.float64).to_scipy()
    elif name == "social":
        A = kleene.io.read(_data("facebook_combined.txt.gz"), directed=False, dtype=np.float64)
        A = A.to_scipy()
        A.data[:] = 1.0
    else:
        raise ValueError(f"unknown graph {name!r}")
    coo = A.tocoo()
    return _symmetric(A.shape[0], coo.row, coo.col, coo.data)


# --------------------------------------------------------------------------- peers


def _igraph(A):
    import igraph

    coo = sp.triu(A, 1).tocoo()
    g = igraph.Graph(n=A.shape[0], edges=np.c_[coo.row, coo.col].tolist(), directed=False)
    g.es["weight"] = coo.data.tolist()
    return g


def _networkit(A):
    import networkit as nk

    coo = sp.triu(A, 1).tocoo()
    g = nk.Graph(A.shape[0], weighted=True, directed=False)
    g.addEdges((coo.data, (coo.row.astype(np.uint64), coo.col.astype(np.uint64))))
    g.indexEdges()
    return g


def _graphblas(A):
    import graphblas as gb
    import graphblas_algorithms as ga

    return ga.Graph(gb.io.from_scipy_sparse(A))


def _reached(order, n):
    out = np.zeros(n, dtype=bool)
    out[order] = True
    return out


def _levels(order_layers, n):
    vids, layers = order_layers
    lv = np.full(n, -1, dtype=np.int64)
    for d in range(len(layers) - 1):
        lv[vids[layers[d] : layers[d + 1]]] = d
    return lv


def cpu_peers(A, s, S):
    """{kernel: {peer: (build, run)}}: ``build(A)`` untimed, ``run(obj)`` timed. A peer
    that is not installed fails its build: the row records the ImportError."""
    n = A.shape[0]
    P = A.copy()
    P.data[:] = 1.0
    L = sp.tril(P, -1).tocsr()

    def nk_levels(g):
        import networkit as nk

        d = np.asarray(nk.distance.BFS(g, s).run().getDistances())
        return np.where(d > n, -1, d).astype(np.int64)

    def nk_dist(g):
        import networkit as nk

        d = np.asarray(nk.distance.Dijkstra(g, s).run().getDistances())
        return np.where(d > 1e300, np.inf, d)

    def nk_cc(g):
        import networkit as nk

        cc = nk.components.ConnectedComponents(g)
        cc.run()
        return np.asarray(cc.getPartition().getVector())

    def nk_tc(g):
        import networkit as nk

        return int(round(sum(nk.sparsification.TriangleEdgeScore(g).run().scores()) / 3))

    # igraph sums the dependencies of the given sources; kleene (as NetworkX) then
    # rescales a sample of k sources by N/k, and a source's own score by N/(k-1)
    N, K = n - 1, len(S)
    scale = np.full(n, N / K)
    scale[S] = N / (K - 1)

    def ig_bc(g):
        return np.asarray(g.betweenness(directed=False, sources=S.tolist())) * scale

    return {
        "bfs": {
            "SciPy": (
                lambda _: P,
                lambda M: _reached(csgraph.breadth_first_order(M, s, False, False), n),
            ),
            "igraph": (_igraph, lambda g: _levels(g.bfs(s)[:2], n)),
            "NetworKit": (_networkit, nk_levels),
        },
        "sssp": {
            "SciPy": (lambda _: A, lambda M: csgraph.dijkstra(M, indices=s)),
            "igraph": (_igraph, lambda g: np.asarray(g.distances(s, weights="weight")[0])),
            "NetworKit": (_networkit, nk_dist),
        },
        "pagerank": {
            "igraph": (_igraph, lambda g: np.asarray(g.pagerank(damping=0.85))),
            "NetworKit": (lambda _: _networkit(P), _nk_pagerank),  # unweighted, as the rest
            "graphblas-algorithms": (
                lambda M: _graphblas(P),
                lambda G: _ga().pagerank(G, tol=PR_TOL / n).to_dense(fill_value=0.0),
            ),
        },
        "cc": {
            "SciPy": (lambda _: P, lambda M: csgraph.connected_components(M, directed=False)[1]),
            "igraph": (_igraph, lambda g: np.asarray(g.connected_components().membership)),
            "NetworKit": (_networkit, nk_cc),
        },
        "bc": {"igraph": (_igraph, ig_bc)},
        "tc": {
            "SciPy": (lambda _: L, lambda M: int((M @ M).multiply(M).sum())),
            "igraph": (_igraph, lambda g: len(g.list_triangles())),
            "NetworKit": (_networkit, nk_tc),
            "graphblas-algorithms": (
                lambda M: _graphblas(P),
                lambda G: int(_ga().triangles(G).reduce().value) // 3,
            ),
        },
    }


def _ga():
    import graphblas_algorithms

    return graphblas_algorithms


def _nk_pagerank(g):
    import networkit as nk

    sinks = nk.centrality.SinkHandling.DistributeSinks  # NetworkX's and GAP's rule
    pr = nk.centrality.PageRank(g, damp=0.85, tol=PR_TOL, distributeSinks=sinks)
    pr.norm = nk.centrality.Norm.L1_NORM
    pr.run()
    return np.asarray(pr.scores())


def kleene_calls(s, S):
    import kleene

    return {
        "bfs": lambda M: kleene.bfs(M, s, directed=False),
        "sssp": lambda M: kleene.sssp(M, s, directed=False),
        "pagerank": lambda M: kleene.pagerank(M, tol=PR_TOL / M.shape[0], weight=False),
        "cc": lambda M: kleene.connected_components(M, directed=False)[1],
        "bc": lambda M: kleene.betweenness_centrality(
            M, sources=S, directed=False, normalized=False
        ),
        "tc": lambda M: kleene.triangle_count(M),
    }


# ----------------------------------------------------------------------- checking


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _same_partition(a, b) -> bool:
    a, b = _host(a).astype(np.int64), _host(b).astype(np.int64)
    pairs = np.unique(np.c_[a, b], axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def check(kernel, ours, theirs, reference=None) -> str:
    ours, theirs = _host(ours), _host(theirs)
    if kernel == "bfs":
        if theirs.dtype == bool:  # SciPy: the reached vertices only
            ok = np.array_equal(theirs, ours >= 0)
        else:
            ok = np.array_equal(ours, theirs)
    elif kernel == "sssp":
        ok = np.allclose(ours, theirs, rtol=1e-9, atol=0)
    elif kernel == "pagerank":
        ok = float(np.abs(theirs / theirs.sum() - reference).sum()) < 1e-3
    elif kernel == "cc":
        ok = _same_partition(ours, theirs)
    elif kernel == "bc":
        ok = np.allclose(ours, theirs, rtol=1e-9, atol=1e-9)
    else:
        ok = int(ours) == int(theirs)
    return "ok" if ok else "MISMATCH"


# ------------------------------------------------------------------------- timing


def timed(fn, arg, device, repeat):
    """(result, first_ms, median_ms): one warm-up call (timed apart), then ``repeat``."""
    from common import wall_time

    sync = _sync(device)
    t0 = time.perf_counter()
    out = fn(arg)
    sync()
    first = 1e3 * (time.perf_counter() - t0)
    t = wall_time(lambda: fn(arg), device=device, warmup=0, repeat=repeat)
    return out, first, t["median_ms"]


def _sync(device):
    if device == "gpu":
        import cupy

        return cupy.cuda.Device().synchronize
    return lambda: None


def run_graph(name, A, device, repeat, kernels, log):
    import kleene

    n = A.shape[0]
    rng = np.random.default_rng(42)
    has_edges = np.flatnonzero(np.diff(A.indptr) > 0)
    s = int(rng.choice(has_edges))
    S = np.sort(rng.choice(has_edges, size=min(BC_SOURCES, has_edges.size), replace=False))
    calls = kleene_calls(s, S)
    P = A.copy()
    P.data[:] = 1.0
    reference = kleene.pagerank(P, tol=1e-10, weight=False)
    reference = _host(reference) / float(_host(reference).sum())
    inputs = {"kleene": A}
    peers = cpu_peers(A, s, S) if device == "cpu" else gpu_peers(A, s)
    if device == "gpu":
        import cupy
        import cupyx.scipy.sparse as cxs

        inputs = {"kleene": cxs.csr_matrix(A)}
        inputs["kleene (Matrix)"] = kleene.Matrix.from_scipy(inputs["kleene"])
        cupy.cuda.Device().synchronize()
    rows = []
    for kernel in kernels:
        row = {"graph": name, "n": n, "edges": A.nnz // 2, "kernel": kernel}
        ours = None
        for label, given in inputs.items():
            try:
                out, first, med = timed(calls[kernel], given, device, repeat)
            except Exception as e:  # noqa: BLE001 — the row says what went wrong
                row[f"{label} error"] = f"{type(e).__name__}: {str(e)[:160]}"
                continue
            ours = out if ours is None else ours
            row[f"{label} ms"], row[f"{label} first ms"] = round(med, 3), round(first, 1)
            if kernel == "pagerank" or label != "kleene":
                row[f"{label} check"] = check(kernel, ours, out, reference)
        best = None
        for peer, (build, run) in peers.get(kernel, {}).items():
            try:
                obj = build(A)
                out, _, med = timed(run, obj, device, repeat)
            except Exception as e:  # noqa: BLE001
                row[f"{peer} error"] = f"{type(e).__name__}: {str(e)[:160]}"
                continue
            row[f"{peer} ms"] = round(med, 3)
            if ours is not None:
                row[f"{peer} check"] = check(kernel, ours, out, reference)
            if row.get(f"{peer} check", "ok") != "ok":
                continue  # a wrong answer is no baseline, however fast
            if best is None or med < best[1]:
                best = (peer, med)
        if best is not None and row.get("kleene ms"):
            row["best peer"] = best[0]
            row["kleene / best"] = round(row["kleene ms"] / best[1], 3)
        log(row)
        rows.append(row)
    return rows


def gpu_peers(A, s):
    """cupyx where it has the operation: the matrix moves to the device untimed."""
    import cupy
    import cupyx.scipy.sparse as cxs

    n = A.shape[0]
    P = A.copy()
    P.data[:] = 1.0
    P = cxs.csr_matrix(P)

    def bfs(M):
        lv = cupy.full(n, -1, dtype=cupy.int64)
        x = cupy.zeros(n, dtype=cupy.float32)
        x[s], lv[s], d = 1, 0, 0
        while True:
            y = M @ x
            new = (y > 0) & (lv < 0)
            if not bool(new.any()):
                return lv
            d += 1
            lv[new] = d
            x = new.astype(cupy.float32)

    def pagerank(M):
        deg = cupy.asarray(M.sum(axis=1)).ravel()
        inv = cupy.where(deg > 0, 1.0 / cupy.maximum(deg, 1), 0.0)
        MT = M.T.tocsr()
        x = cupy.full(n, 1.0 / n)
        for _ in range(100):
            last = x
            x = 0.85 * (MT @ (x * inv)) + (0.85 * float(x[deg == 0].sum()) + 0.15) / n
            if float(cupy.abs(x - last).sum()) < PR_TOL:
                return x
        return x

    L = cxs.tril(P, -1).tocsr()
    return {
        "bfs": {"cupyx": (lambda _: P, bfs)},
        "pagerank": {"cupyx": (lambda _: P, pagerank)},
        "tc": {"cupyx": (lambda _: L, lambda M: int((M @ M).multiply(M).sum()))},
    }


# ---------------------------------------------------------------------------- plot


def plot(rows, path):
    """Per kernel, kleene's time over the best peer's on each graph (log; below the
    line at 1 kleene is faster). Rows without a peer are left out."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    from common import save_figure

    kernels = [k for k in KERNELS if any(r["kernel"] == k and "kleene / best" in r for r in rows)]
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    fig, ax = plt.subplots(figsize=(7, 4.2))
    width = 0.8 / max(1, len(graphs))
    for i, g in enumerate(graphs):
        pts = [
            (j, r)
            for j, k in enumerate(kernels)
            for r in rows
            if r["graph"] == g and r["kernel"] == k and "kleene / best" in r
        ]
        xs = [j + i * width for j, _ in pts]
        ax.bar(xs, [r["kleene / best"] for _, r in pts], width, label=g)
        for x, (_, r) in zip(xs, pts, strict=True):
            ax.text(
                x,
                r["kleene / best"],
                r["best peer"],
                rotation=90,
                fontsize=6,
                ha="center",
                va="bottom",
            )
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(kernels))], kernels)
    ax.set_yscale("log")
    ax.set_ylabel("kleene time / best peer's time")
    ax.set_title("GAP kernels: kleene against the fastest peer (below 1: kleene faster)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--graphs", nargs="+", default=["kron", "urand", "road", "social"])
    ap.add_argument("--kernels", nargs="+", default=list(KERNELS), choices=KERNELS)
    ap.add_argument("--scale", type=int, default=None, help="kron/urand: 2**scale vertices")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    scale = args.scale or (22 if args.device == "gpu" else 16)
    rows = []
    for name in args.graphs:
        t0 = time.perf_counter()
        A = graph(name, scale)
        print(
            f"# {name}: n={A.shape[0]:,} edges={A.nnz // 2:,} "
            f"({time.perf_counter() - t0:.1f} s to build)",
            flush=True,
        )
        rows += run_graph(
            name, A, args.device, args.repeat, args.kernels, lambda r: print(r, flush=True)
        )
        if args.out:  # after every graph: a run cut short keeps the graphs it finished
            write_results(args.out, f"gap_{args.device}", rows, {"scale": scale})
    if args.out:
        plot(rows, Path(args.out).with_suffix(".png"))


if __name__ == "__main__":
    main_or_replot(main, plot)
