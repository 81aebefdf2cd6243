"""BFS and SSSP benchmark (issue targets): RMAT scale-22 BFS in GTEPS and SSSP, and road
graphs (New York from DIMACS/PACE, and a generated ~1 M-vertex road-like grid with ~2,100
levels), with SciPy (and python-graphblas) on the host CPU in the same run.

    PYTHONPATH=. python3 benchmarks/bench_paths.py --scale 22 --data .data \
        --out benchmarks/results/paths_h100.json

Road rows, every one from vertex 0: BFS, SSSP, and SSSP with ``return_predecessors=True``.
Their ``ms`` is the public call on the graph as a user holds it (a scipy CSR with
``--device cpu``, a cupyx.scipy.sparse CSR already on the GPU with ``--device gpu``: the
headline); ``ms prebuilt Matrix`` is the same call on a ``kleene.Matrix`` built beforehand.
BFS rows give the depth (``levels``) and µs per level; SSSP+preds rows the ratio to SSSP
without predecessors. Every kleene result is checked against SciPy (``check``).
``--road-size N`` sets the generated graph (``road_graph(isqrt(N))``: about 0.95 N
vertices); 0 skips it. ``--replot RESULTS.json`` redraws the plot of a results file.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import bar_plot, cpu_time, gpu_time, main_or_replot, write_results  # noqa: E402
from papers import _gb_bfs, _gb_sssp  # noqa: E402

import kleene  # noqa: E402

# crossings of the generated road grid: 1024² (994,671 vertices, 2,100 levels) on the GPU;
# 512² (247,771 vertices, 1,045 levels) keeps a 2-core CPU run short
ROAD_SIZE = {"gpu": 1 << 20, "cpu": 1 << 18}


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
    return gb.Matrix.from_coo(
        c.row,
        c.col,
        c.data.astype(np.float64),
        nrows=S.shape[0],
        ncols=S.shape[1],
        dup_op=gb.binary.min,
    )


def _baselines(rows, task, S, src, gb_fn, repeat, preds=False):
    """scipy (and python-graphblas where installed and ``gb_fn`` given) on the host CPU."""
    from scipy.sparse.csgraph import breadth_first_order, dijkstra

    if task.startswith("BFS"):
        r = cpu_time(lambda: breadth_first_order(S, src, return_predecessors=False), repeat=repeat)
    else:
        r = cpu_time(lambda: dijkstra(S, indices=src, return_predecessors=preds), repeat=repeat)
    rows.append({"task": task, "device": "scipy (host CPU)", "ms": r["median_ms"]})
    G = _graphblas(S) if gb_fn is not None else None
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
    ap.add_argument(
        "--road-size",
        type=int,
        default=None,
        help="crossings of the generated road grid (0: skip its rows); default "
        f"{ROAD_SIZE['gpu']} with the GPU, {ROAD_SIZE['cpu']} on the CPU",
    )
    ap.add_argument("--repeat", type=int, default=5, help="timed calls per road-graph figure")
    ap.add_argument("--no-graphblas", action="store_true", help="leave python-graphblas out")
    args = ap.parse_args(argv)
    rows = []
    dev = args.device

    gb = None if args.no_graphblas else (_gb_bfs, _gb_sssp)
    _rmat_rows(rows, args, dev, gb)

    # --- road graphs: New York (DIMACS/PACE file) and a generated ~1 M-vertex one ---
    graphs = {}

    def save():  # after each graph, so a run cut short by a time limit keeps its rows
        write_results(args.out, "bfs_sssp", rows, extra={"road graphs": graphs})

    save()
    ny = Path(args.data) / "USA-road-NY.pace.gr.xz"
    if ny.exists():
        t0 = time.perf_counter()
        G = kleene.io.read(ny)
        r_, c_, _ = G.to_coo()
        w = np.random.default_rng(3).integers(1, 1000, r_.size).astype(np.float64)
        S = kleene.Matrix.from_edges(r_, c_, w, G.nrows).to_scipy()
        graphs["NY road"] = {"file": ny.name, "read_s": time.perf_counter() - t0}
        _road_rows(rows, "NY road", S, dev, args, graphs["NY road"], composed=dev == "gpu")
        save()
    else:
        print(f"no {ny}: New York rows skipped", file=sys.stderr)
    road_size = args.road_size if args.road_size is not None else ROAD_SIZE[dev]
    side = math.isqrt(road_size)
    if side >= 2:
        from kleene.generators import road_graph

        t0 = time.perf_counter()
        S = road_graph(side, seed=0).to_scipy().astype(np.float64)
        name = f"road:{side}x{side}"
        graphs[name] = {
            "generator": f"kleene.generators.road_graph({side}, seed=0)",
            "generate_s": time.perf_counter() - t0,
        }
        print(f"{name}: n={S.shape[0]} nnz={S.nnz} built in {graphs[name]['generate_s']:.2f}s")
        _road_rows(rows, name, S, dev, args, graphs[name])
    else:
        print("--road-size below 4: generated road rows skipped", file=sys.stderr)
    _speedups(rows, dev)
    save()
    plot(rows, Path(args.out).with_suffix(".png"))


def _rmat_rows(rows, args, dev, gb) -> None:
    """RMAT: BFS GTEPS over random reached sources, SSSP time with and without
    predecessors (the graph freed on return)."""
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
    rows.append(
        {
            "task": f"BFS rmat{args.scale}",
            "device": dev,
            "edges": undirected_edges,
            "GTEPS_median": float(np.median(teps)),
        }
    )
    s0 = int(sources[0])
    _baselines(rows, f"BFS rmat{args.scale}", S, s0, gb and gb[0], 3)
    for r in rows[1:]:
        r["edges"] = undirected_edges
        r["GTEPS_median"] = undirected_edges / (r["ms"] / 1e3) / 1e9
    r = _time(lambda: kleene.sssp(Ad, s0), dev, 3)
    rows.append({"task": f"SSSP rmat{args.scale}", "device": dev, "ms": r["median_ms"]})
    _baselines(rows, f"SSSP rmat{args.scale}", S, s0, gb and gb[1], 2)
    p = _time(lambda: kleene.sssp(Ad, s0, return_predecessors=True), dev, 3)
    rows.append(
        {
            "task": f"SSSP+preds rmat{args.scale}",
            "device": dev,
            "ms": p["median_ms"],
            "x without preds": p["median_ms"] / r["median_ms"],
        }
    )
    _baselines(rows, f"SSSP+preds rmat{args.scale}", S, s0, None, 2, preds=True)
    for row in rows:
        print(row, flush=True)


def _user_csr(S, dev: str):
    """The graph as a user hands it in: the scipy CSR itself on the CPU, a cupyx CSR
    (already on the GPU) with the GPU."""
    if dev != "gpu":
        return S
    import cupyx.scipy.sparse as csp

    return csp.csr_matrix(S)


def _host(a) -> np.ndarray:
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _edge_weights(S, rows, cols) -> np.ndarray:
    """S[rows[i], cols[i]] for canonical CSR ``S`` (vectorised: one key search)."""
    n = np.int64(S.shape[1])
    rows, cols = rows.astype(np.int64), cols.astype(np.int64)
    keys = np.repeat(np.arange(S.shape[0], dtype=np.int64), np.diff(S.indptr)) * n + S.indices
    pos = np.minimum(np.searchsorted(keys, rows * n + cols), keys.size - 1)
    return np.where(keys[pos] == rows * n + cols, S.data[pos], np.nan)


def _preds_ok(S, dist, pred, src: int) -> bool:
    """Every reached vertex but the source has a predecessor on a shortest path."""
    v = np.flatnonzero(np.isfinite(dist) & (np.arange(dist.size) != src))
    p = pred[v]
    if (p < 0).any() or pred[src] != -1:
        return False
    return bool(np.allclose(dist[p] + _edge_weights(S, p, v), dist[v], rtol=1e-9))


def _road_rows(rows, name, S, dev, args, facts, composed=False) -> None:
    """BFS, SSSP and SSSP with predecessors from vertex 0 of road graph ``S`` (scipy CSR,
    float64 weights): kleene's public call on the user's CSR (the headline ``ms``) and on a
    prebuilt Matrix beside it, checked against SciPy, which is timed in the same run."""
    from scipy.sparse.csgraph import dijkstra, shortest_path

    printed = len(rows)
    gb = None if args.no_graphblas else (_gb_bfs, _gb_sssp)
    U = _user_csr(S, dev)
    M = kleene.Matrix.from_scipy(S).to(dev)
    ref_levels = shortest_path(S, unweighted=True, indices=0)
    ref_levels = np.where(np.isinf(ref_levels), -1, ref_levels).astype(np.int64)
    depth = int(ref_levels.max())
    facts.update(vertices=S.shape[0], edges=int(S.nnz), levels=depth)
    base = {"input": "cupyx CSR" if dev == "gpu" else "scipy CSR", "levels": depth}

    def both(call, repeat):
        user = _time(lambda: call(U), dev, repeat)["median_ms"]
        built = _time(lambda: call(M), dev, repeat)["median_ms"]
        return user, built

    bfs = lambda G: kleene.bfs(G, 0)  # noqa: E731
    ok = np.array_equal(_host(bfs(U)), ref_levels) and np.array_equal(_host(bfs(M)), ref_levels)
    user, built = both(bfs, args.repeat)
    rows.append(
        {
            "task": f"BFS {name}",
            "device": dev,
            **base,
            "ms": user,
            "ms prebuilt Matrix": built,
            "us_per_level": 1e3 * user / depth,
            "us_per_level prebuilt": 1e3 * built / depth,
            "check": "OK" if ok else "MISMATCH",
        }
    )
    if composed:  # the same search as separate operations (per-level syncs): what fusion saves
        ms = _time(lambda: kleene.engine.frontier_bfs(M, 0, fused=False), dev, 1)["median_ms"]
        rows.append(
            {
                "task": f"BFS {name}",
                "device": f"{dev}, composed ops",
                "levels": depth,
                "ms prebuilt Matrix": ms,
                "us_per_level prebuilt": 1e3 * ms / depth,
            }
        )
    _baselines(rows, f"BFS {name}", S, 0, gb and gb[0], args.repeat)

    ref = dijkstra(S, indices=0)
    sssp = lambda G: kleene.sssp(G, 0)  # noqa: E731
    ok = all(np.allclose(_host(sssp(G)), ref, rtol=1e-9) for G in (U, M))
    plain = both(sssp, args.repeat)
    rows.append(
        {
            "task": f"SSSP {name}",
            "device": dev,
            **base,
            "ms": plain[0],
            "ms prebuilt Matrix": plain[1],
            "check": "OK" if ok else "MISMATCH",
        }
    )
    _baselines(rows, f"SSSP {name}", S, 0, gb and gb[1], args.repeat)

    preds = lambda G: kleene.sssp(G, 0, return_predecessors=True)  # noqa: E731
    ok = True
    for G in (U, M):
        d, p = (_host(x) for x in preds(G))
        ok = ok and np.allclose(d, ref, rtol=1e-9) and _preds_ok(S, d, p, 0)
    user, built = both(preds, args.repeat)
    rows.append(
        {
            "task": f"SSSP+preds {name}",
            "device": dev,
            **base,
            "ms": user,
            "ms prebuilt Matrix": built,
            "x without preds": user / plain[0],
            "x without preds, prebuilt": built / plain[1],
            "check": "OK" if ok else "MISMATCH",
        }
    )
    _baselines(rows, f"SSSP+preds {name}", S, 0, None, args.repeat, preds=True)
    for row in rows[printed:]:
        print(row, flush=True)


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
        if r.get("ms prebuilt Matrix") is not None:
            groups.setdefault(r["task"], {})[f"{r['device']}, prebuilt Matrix"] = r[
                "ms prebuilt Matrix"
            ]
    bar_plot(path, groups, "time (ms, log)", "kleene BFS / SSSP against scipy")


if __name__ == "__main__":
    main_or_replot(main, plot)
