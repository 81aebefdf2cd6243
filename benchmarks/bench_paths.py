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
from common import bar_plot, cpu_time, gpu_time, main_or_replot, write_results  # noqa: E402

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


def _graphblas(S):
    """python-graphblas (SuiteSparse) matrix of scipy ``S``, or None if not installed."""
    try:
        import graphblas as gb
    except ImportError:
        print("python-graphblas not installed: its rows are skipped", file=sys.stderr)
        return None
    c = S.tocoo()
    return gb.Matrix.from_coo(c.row, c.col, c.data.astype(np.float64), nrows=S.shape[0],
                              ncols=S.shape[1], dup_op=gb.binary.min)  # fmt: skip


def _baselines(rows, task, S, src, gb_fn, repeat):
    """scipy (and python-graphblas where installed) on the host CPU for one task."""
    from scipy.sparse.csgraph import breadth_first_order, dijkstra

    if task.startswith("BFS"):
        r = cpu_time(lambda: breadth_first_order(S, src, return_predecessors=False), repeat=repeat)
    else:
        r = cpu_time(lambda: dijkstra(S, indices=src), repeat=repeat)
    rows.append({"task": task, "device": "scipy (host CPU)", "ms": r["median_ms"]})
    G = _graphblas(S)
    if G is not None:
        r = cpu_time(lambda: gb_fn(G, src), warmup=0, repeat=1, budget_s=120)
        rows.append({"task": task, "device": "python-graphblas (host CPU)", "ms": r["median_ms"]})


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
    from papers import _gb_bfs, _gb_sssp

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
    s0 = int(sources[0])
    _baselines(rows, f"BFS rmat{args.scale}", S, s0, _gb_bfs, 3)
    for r in rows[1:]:
        r["edges"] = undirected_edges
        r["GTEPS_median"] = undirected_edges / (r["ms"] / 1e3) / 1e9
    r = _time(lambda: kleene.sssp(Ad, s0), dev, 3)
    rows.append({"task": f"SSSP rmat{args.scale}", "device": dev, "ms": r["median_ms"]})
    _baselines(rows, f"SSSP rmat{args.scale}", S, s0, _gb_sssp, 2)
    for row in rows:
        print(row, flush=True)
    printed = len(rows)

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
            r = _time(lambda: kleene.ops.frontier_bfs(Gd, 0, fused=False), dev, 1)
            ms = r["median_ms"]
            rows.append({"task": "BFS NY road", "device": "gpu, composed ops", "ms": ms,
                         "us_per_level": 1e3 * ms / depth})  # fmt: skip
        _baselines(rows, "BFS NY road", S, 0, _gb_bfs, 5)
        rows_, cols_, _ = G.to_coo()
        w = np.random.default_rng(3).integers(1, 1000, rows_.size).astype(np.float64)
        W = kleene.Matrix.from_edges(rows_, cols_, w, G.nrows)
        Wd = W.to(dev)
        r = _time(lambda: kleene.sssp(Wd, 0), dev, 3)
        rows.append({"task": "SSSP NY road", "device": dev, "ms": r["median_ms"]})
        _baselines(rows, "SSSP NY road", W.to_scipy(), 0, _gb_sssp, 3)
    else:
        print(f"no {ny}: road rows skipped", file=sys.stderr)
    for row in rows[printed:]:
        print(row, flush=True)
    _speedups(rows, dev)
    write_results(args.out, "bfs_sssp", rows)
    plot(rows, Path(args.out).with_suffix(".png"))


def _ms(r: dict) -> float | None:
    if r.get("ms") is not None:
        return r["ms"]
    if "GTEPS_median" in r and "edges" in r:
        return r["edges"] / (r["GTEPS_median"] * 1e9) * 1e3
    return None


def _speedups(rows: list[dict], dev: str) -> None:
    """Print (and record on kleene's rows) how many times faster kleene ran."""
    for r in rows:
        if r["device"] != dev:
            continue
        for b in rows:
            if b["task"] == r["task"] and "host CPU" in b["device"]:
                x = _ms(b) / _ms(r)
                r[f"speedup vs {b['device'].split(' (')[0]}"] = x
                print(f"{r['task']}: kleene {dev} {x:.1f}x faster than {b['device']}")


def plot(rows: list[dict], path: Path) -> None:
    """Milliseconds per task and device (RMAT BFS from its GTEPS), log scale."""
    groups: dict[str, dict[str, float]] = {}
    for r in rows:
        ms = _ms(r)
        if ms is not None:
            groups.setdefault(r["task"], {})[r["device"]] = ms
    bar_plot(path, groups, "time (ms, log)", "kleene BFS / SSSP against scipy")


if __name__ == "__main__":
    main_or_replot(main, plot)
