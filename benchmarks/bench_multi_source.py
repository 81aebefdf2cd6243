"""Multi-source BFS and SSSP on the CPU against SciPy, igraph and NetworKit (issue 40, item 1).

For each graph and k sources (evenly spread ids), in one process, warm (each
call once before timing, so Numba's compiles are out), best and median of
``--repeat`` runs, every contender timed in turn within each repeat:

- ``kleene.bfs(G, sources)`` / ``kleene.sssp(G, sources)`` from a prebuilt
  ``kleene.Matrix`` and from the SciPy CSR a user holds;
- the same as a loop of k single-source calls (the rule: k sources never cost
  more than k single-source calls);
- SciPy ``shortest_path(unweighted=True, indices=...)`` / ``dijkstra(indices=...)``,
  igraph ``Graph.distances(source=..., weights=...)``, NetworKit ``SPSP``.

Each peer's answers are checked against kleene's (unreachable = -1 / inf). Peers
that are not installed are left out (``pip install igraph networkit``).
Prints a table; writes JSON and markdown to benchmarks/results/multi_source_cpu.*.

Usage: python benchmarks/bench_multi_source.py [--k 64] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra, shortest_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import host_facts, markdown_table, write_results  # noqa: E402

import kleene  # noqa: E402
import kleene.generators  # noqa: E402
import kleene.io  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
GRAPHS = {  # name: (loader, kind)
    "USA-road-NY": (lambda: kleene.io.read(DATA / "USA-road-NY.pace.gr.xz"), "road"),
    "grid 700x700": (lambda: kleene.generators.from_spec("grid:700x700", seed=1), "road"),
    "facebook": (lambda: kleene.io.read(DATA / "facebook_combined.txt.gz"), "social"),
    "rmat-17": (lambda: kleene.generators.from_spec("rmat:17", seed=1), "social"),
}


def _peers(csr: sp.csr_matrix, weighted: bool):
    """{name: fn(sources) -> (k, n) float distances, inf unreachable} of installed peers."""
    peers = {}
    if weighted:
        peers["scipy"] = lambda s: dijkstra(csr, indices=s)
    else:
        peers["scipy"] = lambda s: shortest_path(csr, unweighted=True, indices=s)
    coo = csr.tocoo()
    try:
        import igraph

        g = igraph.Graph(
            n=csr.shape[0], edges=np.column_stack([coo.row, coo.col]).tolist(), directed=True
        )
        w = coo.data.tolist() if weighted else None

        def distances(s):
            return np.asarray(g.distances(source=list(map(int, s)), weights=w, mode="out"), float)

        peers["igraph"] = distances
    except ImportError:
        pass
    try:
        import networkit as nk

        nk.setNumberOfThreads(2)
        G = nk.Graph(csr.shape[0], weighted=weighted, directed=True)
        G.addEdges((coo.data.astype(float), (coo.row, coo.col)) if weighted else (coo.row, coo.col))

        def spsp(s):
            alg = nk.distance.SPSP(G, list(map(int, s)))
            alg.run()
            d = np.asarray(alg.getDistances(), float)
            d[d > 1e300] = np.inf  # NetworKit's "unreachable" is DBL_MAX
            return d

        peers["networkit"] = spsp
    except ImportError:
        pass
    return peers


def _time(fns: dict, repeat: int) -> dict:
    """{name: [seconds]}: each fn once to warm up, then ``repeat`` rounds, all in turn."""
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return times


def run(name: str, M: kleene.Matrix, kind: str, k: int, repeat: int, task: str) -> dict:
    weighted = task == "sssp"
    if not weighted:
        M = M.pattern() if hasattr(M, "pattern") else M
    csr = M.to_scipy().tocsr()
    if weighted:
        csr.data = np.abs(csr.data).astype(np.float64) + 1.0  # positive weights
        M = kleene.Matrix.from_scipy(csr)
    n = M.nrows
    sources = np.linspace(0, n - 1, k).astype(np.int64)
    call = kleene.sssp if weighted else kleene.bfs
    ours = call(M, sources)
    want = np.where(ours < 0, np.inf, ours).astype(float)
    fns = {
        "kleene Matrix": lambda: call(M, sources),
        "kleene CSR": lambda: call(csr, sources),
        "k single calls": lambda: [call(M, int(s)) for s in sources],
    }
    peers = _peers(csr, weighted)
    for peer, fn in peers.items():
        got = fn(sources)
        if not np.allclose(got, want, equal_nan=False):
            raise AssertionError(f"{peer} disagrees with kleene on {name} ({task})")
        fns[peer] = lambda fn=fn: fn(sources)
    times = _time(fns, repeat)
    best = {p: min(t) * 1e3 for p, t in times.items()}
    med = {p: statistics.median(t) * 1e3 for p, t in times.items()}
    best_peer = min(peers, key=lambda p: best[p])
    row = {"graph": name, "kind": kind, "task": task, "n": n, "edges": M.nvals, "k": k}
    for p in fns:
        row[f"{p} ms"] = round(best[p], 1)
    row["best peer"] = best_peer
    row["kleene/best peer"] = round(best["kleene Matrix"] / best[best_peer], 3)
    row["kleene CSR/best peer"] = round(best["kleene CSR"] / best[best_peer], 3)
    row["kleene/k single"] = round(best["kleene Matrix"] / best["k single calls"], 3)
    row["medians ms"] = {p: round(v, 1) for p, v in med.items()}
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small graphs only (a smoke run)")
    default_out = Path(__file__).parent / "results" / "multi_source_cpu.json"
    ap.add_argument("--out", default=str(default_out))
    args = ap.parse_args()
    rows = []
    for name, (load, kind) in GRAPHS.items():
        if args.quick and name not in ("facebook",):
            continue
        M = load()
        for task in ("bfs", "sssp"):
            row = run(name, M, kind, args.k, args.repeat, task)
            print({k: v for k, v in row.items() if k != "medians ms"}, flush=True)
            rows.append(row)
    table = [{k: v for k, v in r.items() if k != "medians ms"} for r in rows]
    print(markdown_table(table, title=f"multi-source BFS/SSSP, {args.k} sources, CPU"))
    if not args.quick:
        write_results(args.out, "multi-source BFS/SSSP on the CPU", rows, {"host": host_facts()})


if __name__ == "__main__":
    main()
