"""BFS and SSSP benchmark (issue targets): RMAT scale-22 BFS in GTEPS, New York road BFS,
SSSP on RMAT 22 and on the NY road topology, with scipy on the host CPU beside them.

    PYTHONPATH=. python3 benchmarks/bench_paths.py --scale 22 --data .data \
        --out benchmarks/results/paths_h100.json
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bar_plot, cpu_time, gpu_time, write_results  # noqa: E402

import kleene  # noqa: E402


def _rmat_graph(scale: int, seed: int, device: str):
    """Undirected Graph500 RMAT, uniform weights in [1, 100) (built on ``device``)."""
    from kleene.generators.rmat import rmat

    src, dst = rmat(scale, 16, seed=seed, device=device)
    xp = kleene.Matrix.from_dense(np.zeros((1, 1))).to(device).xp
    # float64: the distances' type, so sssp does not convert the graph per call
    w = xp.random.RandomState(seed).uniform(1.0, 100.0, src.size)
    src, dst, w = xp.concatenate([src, dst]), xp.concatenate([dst, src]), xp.concatenate([w, w])
    return kleene.Matrix.from_edges(src, dst, w, 1 << scale, dup="min")


def _time(fn, device, repeat):
    return (gpu_time if device == "gpu" else cpu_time)(fn, warmup=1, repeat=repeat)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument(
        "--data", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data")
    )
    ap.add_argument("--device", default="gpu" if kleene.gpu_available() else "cpu")
    ap.add_argument("--out", default="benchmarks/results/paths.json")
    args = ap.parse_args(argv)
    rows = []
    dev = args.device
    from scipy.sparse.csgraph import breadth_first_order, dijkstra

    # --- RMAT: BFS GTEPS over random reached sources, SSSP time ---
    t0 = time.perf_counter()
    Ad = _rmat_graph(args.scale, seed=1, device=dev)
    S = Ad.to_scipy()
    took = time.perf_counter() - t0
    print(f"rmat {args.scale}: n={Ad.nrows} nnz={Ad.nvals} built in {took:.1f}s")
    A = Ad
    deg = np.diff(S.indptr)
    rng = np.random.default_rng(7)
    sources = rng.choice(np.flatnonzero(deg > 0), args.sources, replace=False)
    undirected_edges = A.nvals / 2
    teps = []
    for s in sources:
        r = _time(lambda s=s: kleene.bfs(Ad, int(s)), dev, 3)
        teps.append(undirected_edges / (r["median_ms"] / 1e3) / 1e9)
    rows.append({"task": f"BFS rmat{args.scale}", "device": dev, "edges": undirected_edges,
                 "GTEPS_median": float(np.median(teps))})  # fmt: skip
    r = cpu_time(
        lambda: breadth_first_order(S, int(sources[0]), return_predecessors=False), repeat=3
    )
    gteps = undirected_edges / (r["median_ms"] / 1e3) / 1e9
    rows.append({"task": f"BFS rmat{args.scale}", "device": "scipy (host CPU)",
                 "ms": r["median_ms"], "GTEPS_median": gteps})  # fmt: skip
    r = _time(lambda: kleene.sssp(Ad, int(sources[0])), dev, 3)
    rows.append({"task": f"SSSP rmat{args.scale}", "device": dev, "ms": r["median_ms"]})
    r = cpu_time(lambda: dijkstra(S, indices=int(sources[0])), repeat=2)
    rows.append(
        {"task": f"SSSP rmat{args.scale}", "device": "scipy (host CPU)", "ms": r["median_ms"]}
    )
    for row in rows:
        print(row, flush=True)

    # --- New York road network ---
    ny = Path(args.data) / "USA-road-NY.pace.gr.xz"
    if ny.exists():
        G = kleene.io.read(ny)
        S = G.to_scipy()
        Gd = G.to(dev)
        r = _time(lambda: kleene.bfs(Gd, 0), dev, 5)
        depth = int(kleene.bfs(Gd, 0).max())
        rows.append({"task": "BFS NY road", "device": dev, "ms": r["median_ms"], "levels": depth,
                     "us_per_level": 1e3 * r["median_ms"] / depth})  # fmt: skip
        if dev == "gpu":  # the same search composed of separate operations (per-level syncs)
            from kleene.algorithms.breadth_first import _bfs_single

            r = _time(lambda: _bfs_single(Gd, 0, "auto", False), dev, 1)
            ms = r["median_ms"]
            rows.append({"task": "BFS NY road", "device": "gpu, composed ops", "ms": ms,
                         "us_per_level": 1e3 * ms / depth})  # fmt: skip
        r = cpu_time(lambda: breadth_first_order(S, 0, return_predecessors=False), repeat=5)
        rows.append({"task": "BFS NY road", "device": "scipy (host CPU)", "ms": r["median_ms"]})
        rows_, cols_, _ = G.to_coo()
        w = np.random.default_rng(3).integers(1, 1000, rows_.size).astype(np.float64)
        W = kleene.Matrix.from_edges(rows_, cols_, w, G.nrows)
        Wd = W.to(dev)
        r = _time(lambda: kleene.sssp(Wd, 0), dev, 3)
        rows.append({"task": "SSSP NY road", "device": dev, "ms": r["median_ms"]})
        r = cpu_time(lambda: dijkstra(W.to_scipy(), indices=0), repeat=3)
        rows.append({"task": "SSSP NY road", "device": "scipy (host CPU)", "ms": r["median_ms"]})
    else:
        print(f"no {ny}: road rows skipped", file=sys.stderr)
    for row in rows:
        print(row, flush=True)
    write_results(args.out, "bfs_sssp", rows)
    plot(rows, Path(args.out).with_suffix(".png"))


def plot(rows: list[dict], path: Path) -> None:
    """Milliseconds per task and device (RMAT BFS from its GTEPS), log scale."""
    groups: dict[str, dict[str, float]] = {}
    for r in rows:
        ms = r.get("ms")
        if ms is None and "GTEPS_median" in r and "edges" in r:
            ms = r["edges"] / (r["GTEPS_median"] * 1e9) * 1e3
        if ms is not None:
            groups.setdefault(r["task"], {})[r["device"]] = ms
    bar_plot(path, groups, "time (ms, log)", "kleene BFS / SSSP against scipy")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--replot":  # a plot from a results JSON
        import json

        res = json.loads(Path(sys.argv[2]).read_text())
        plot(res["rows"], Path(sys.argv[2]).with_suffix(".png"))
    else:
        main()
