"""NetworkX's own implementations against ``backend="kleene"`` (issue 14), on the CPU
(and the GPU with --device gpu): BFS, Dijkstra and all-pairs on a road graph and an
RMAT graph, the conversion to kleene's graph timed separately.

    PYTHONPATH=. python3 benchmarks/bench_nx.py --out benchmarks/results/nx_2core.json

Each call is timed on a graph converted once beforehand (``kleene.nx.convert_from_nx``),
as a user who converts once and calls many times sees it; the conversion is its own row.
Minimum of ``--repeat`` calls after a warm-up (NetworkX's calls are slow: one call where
a call exceeds ``--row-budget`` seconds). Results (dicts of distances) are checked equal.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import markdown_table, write_results  # noqa: E402

import kleene  # noqa: E402


def _road(data: Path, seed: int = 3):
    """NY road graph, undirected, integer weights 1..100 (as bench_cpu.py)."""
    import networkx as nx

    A = kleene.io.read(data / "USA-road-NY.pace.gr.xz")
    r, c, _ = A.to_coo()
    w = np.random.default_rng(seed).integers(1, 101, r.size)
    G = nx.Graph()
    G.add_weighted_edges_from(zip(r.tolist(), c.tolist(), w.tolist(), strict=True))
    return "NY road", G


def _rmat(scale: int, seed: int = 1):
    import networkx as nx

    src, dst = kleene.generators.rmat(scale, 16, seed=seed)
    w = np.random.default_rng(seed).integers(1, 101, src.size)
    G = nx.Graph()
    G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist(), strict=True))
    G.remove_edges_from(nx.selfloop_edges(G))
    return f"RMAT-{scale}", G


def _time(fn, repeat: int, budget: float):
    t = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t
    times = [first]
    if first < budget:
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    return out, min(times) * 1e3, len(times)


def main(argv=None) -> None:
    import networkx as nx

    from kleene.nx import convert_from_nx

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--apsp-nodes", type=int, default=2000, help="all-pairs on this many nodes")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--row-budget", type=float, default=20.0)
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--out", default="benchmarks/results/nx_2core.json")
    args = ap.parse_args(argv)
    nx.config.warnings_to_ignore.add("cache")
    nx.config.backends.kleene.device = args.device
    graphs = []
    if (Path(args.data) / "USA-road-NY.pace.gr.xz").exists():
        graphs.append(_road(Path(args.data)))
    else:
        print(f"no USA-road-NY.pace.gr.xz in {args.data}: road rows skipped", file=sys.stderr)
    graphs.append(_rmat(args.scale))
    rows = []
    for name, G in graphs:
        s = next(iter(G.nodes))
        t = time.perf_counter()
        KG = convert_from_nx(G, edge_attrs={"weight": 1})
        conv = (time.perf_counter() - t) * 1e3
        rows.append(
            {
                "graph": name,
                "nodes": G.number_of_nodes(),
                "edges": G.number_of_edges(),
                "task": "convert_from_nx",
                "networkx ms": None,
                "kleene ms": conv,
            }
        )
        small = G.subgraph(list(G.nodes)[: args.apsp_nodes]).copy()
        KS = convert_from_nx(small, edge_attrs={"weight": 1})
        tasks = [
            ("BFS lengths", lambda g, s=s: nx.single_source_shortest_path_length(g, s), G, KG),
            (
                "Dijkstra lengths",
                lambda g, s=s: nx.single_source_dijkstra_path_length(g, s, weight="weight"),
                G,
                KG,
            ),
            (
                f"all-pairs Dijkstra lengths ({small.number_of_nodes()} nodes)",
                lambda g: dict(nx.all_pairs_dijkstra_path_length(g, weight="weight")),
                small,
                KS,
            ),
        ]
        for task, call, g_nx, g_k in tasks:
            print(f"[{name}] {task} ...", file=sys.stderr, flush=True)
            want, nx_ms, _ = _time(lambda c=call, g=g_nx: c(g), args.repeat, args.row_budget)
            got, k_ms, runs = _time(lambda c=call, g=g_k: c(g), args.repeat, args.row_budget)
            same = _same(want, got)
            rows.append(
                {
                    "graph": name,
                    "nodes": g_nx.number_of_nodes(),
                    "edges": g_nx.number_of_edges(),
                    "task": task,
                    "networkx ms": nx_ms,
                    "kleene ms": k_ms,
                    "speedup": nx_ms / k_ms,
                    "runs": runs,
                    "same answer": same,
                }
            )
            print(
                f"    networkx {nx_ms:.1f} ms, kleene {k_ms:.1f} ms, same: {same}", file=sys.stderr
            )
    write_results(args.out, "networkx_backend", rows, {"device": args.device})
    print(markdown_table(rows, "networkx vs backend='kleene'"))


def _same(a, b) -> bool:
    if isinstance(a, dict) and a and isinstance(next(iter(a.values())), dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-9 * max(1, abs(a[k])) for k in a)


if __name__ == "__main__":
    main()
