"""APSP benchmark: the shape of Buluç et al. Table 1 (iterative vs recursive, n = 512…8192)
and Katz & Kider Table 1 (blocked FW), kleene GPU/CPU beside scipy on the host CPU.

    PYTHONPATH=. python3 benchmarks/bench_apsp.py --sizes 1024 2048 4096 8192 16384 \
        --methods auto recursive blocked --scipy-max 0 --out benchmarks/results/apsp_dense_h100.json

Without ``--out`` each mode writes its own fixed file under benchmarks/results/
(``apsp``, ``apsp_sparse``, ``boolean``, ``frontiers``: .json, .md and for some a .png),
overwriting its previous result.

Dense random graphs (every pair an edge, fp32 weights in [1, 100)), fresh per run.
Each method runs while its last time stayed under ``--budget`` seconds. ``--full``
stores every pair (inf on the diagonal, no bitmap): 4 bytes a pair, the input form
whose n = 65536 closure fits an 80 GB GPU in core (a bitmap Matrix takes 5, and its
copy while the graph is drawn 9 more).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import cpu_time, log_log_plot, wall_time, write_results  # noqa: E402

import kleene  # noqa: E402
from kleene.generators.dense import erdos_renyi  # noqa: E402


def full_weights(n: int, seed: int, device: str):
    """A complete digraph's weights as an array on ``device``: uniform fp32 in [1, 100),
    the diagonal inf (no self-loop; inf = no edge), drawn in place: n² floats."""
    if device == "gpu":
        import cupy as xp
    else:
        import numpy as xp
    w = xp.random.default_rng(seed).random((n, n), dtype=xp.float32)
    w *= 99.0
    w += 1.0
    xp.fill_diagonal(w, xp.inf)
    return w


def full_graph(n: int, seed: int, device: str) -> kleene.Matrix:
    """``full_weights`` as a dense Matrix that stores every pair."""
    return kleene.Matrix.from_dense(full_weights(n, seed, device), missing=None, copy=False)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192])
    ap.add_argument("--methods", nargs="+", default=["recursive", "blocked", "floyd-warshall"])
    ap.add_argument("--device", default="gpu" if kleene.gpu_available() else "cpu")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds a method may take")
    ap.add_argument("--block", type=int, default=None)
    ap.add_argument("--scipy-max", type=int, default=2048)
    ap.add_argument("--out", default=None, help="default: benchmarks/results/<mode>.json")
    ap.add_argument(
        "--full",
        action="store_true",
        help="graphs with every pair stored (Matrix.from_dense(missing=None))",
    )
    ap.add_argument(
        "--array",
        action="store_true",
        help="pass the graph as the array itself (CuPy on the GPU; inf = no edge), as "
        "--full draws it: what the call does to take an array is timed with it",
    )
    ap.add_argument("--repeat", type=int, default=5, help="timed calls per row (GPU)")
    ap.add_argument(
        "--sparse",
        action="store_true",
        help="the sparse rows instead (apsp_sparse_rows.py): real graphs from --data, "
        "with predecessors, beside SciPy",
    )
    ap.add_argument(
        "--data", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data")
    )
    ap.add_argument(
        "--boolean",
        action="store_true",
        help="the Boolean rows instead (boolean_rows.py): transitive closure on "
        "tensor cores, CUDA-core and min-plus paths, int8 GEMM rate (GPU)",
    )
    ap.add_argument(
        "--frontiers",
        action="store_true",
        help="multi-source BFS rows (boolean_rows.frontier_rows): dense frontiers "
        "on tensor cores against the sparse MS-BFS kernels (GPU)",
    )
    args = ap.parse_args(argv)
    if args.out is None:  # one fixed file per mode: a run replaces its own mode's result
        mode = next((m for m in ("boolean", "frontiers", "sparse") if getattr(args, m)), "")
        name = {"sparse": "apsp_sparse", "": "apsp"}.get(mode, mode)
        args.out = f"benchmarks/results/{name}.json"
    if args.boolean:
        from boolean_rows import plot as boolean_plot
        from boolean_rows import rows as boolean_rows

        rows = boolean_rows(args.sizes, args.budget)
        write_results(args.out, "transitive closure (Boolean semiring)", rows)
        boolean_plot(rows, Path(args.out).with_suffix(".png"))
        return
    if args.frontiers:
        from boolean_rows import frontier_rows

        write_results(args.out, "multi-source BFS: dense frontiers vs sparse", frontier_rows())
        return
    if args.sparse:
        from apsp_sparse_rows import rows as sparse_rows

        rows = sparse_rows(Path(args.data), args.device)
        write_results(args.out, "apsp_sparse", rows)
        return

    rows, alive = [], set(args.methods) | {"scipy-fw", "scipy-dijkstra"}
    for n in args.sizes:
        seed = iter(range(10**6))

        def fresh(n=n, seed=seed):
            if args.array:
                return (full_weights(n, next(seed), args.device),)
            if args.full:
                return (full_graph(n, next(seed), args.device),)
            return (erdos_renyi(n, 1.0, seed=next(seed), device=args.device),)

        for method in args.methods:
            if method not in alive:
                continue

            def run(A, method=method):
                return kleene.apsp(A, method=method, block_size=args.block)

            t0 = time.perf_counter()
            if args.device == "gpu":  # the public call's wall time with a device sync
                r = wall_time(run, device="gpu", setup=fresh, warmup=1, repeat=args.repeat)
            else:
                r = cpu_time(run, setup=fresh, warmup=1, repeat=3)
            if time.perf_counter() - t0 > args.budget:
                alive.discard(method)
            steps = float(n) ** 3
            rate = steps / r["median_ms"] / 1e9
            form = ", array" if args.array else ", every pair stored" if args.full else ""
            label = f"kleene {method} ({args.device}{form})"
            rows.append({"n": n, "method": label, "ms": r["median_ms"], "Tsteps_per_s": rate})
            print(rows[-1], flush=True)
        if n <= args.scipy_max:
            from scipy.sparse.csgraph import dijkstra, floyd_warshall

            a = erdos_renyi(n, 1.0, seed=1).to_dense()
            for name, fn in (("scipy-fw", floyd_warshall), ("scipy-dijkstra", dijkstra)):
                if name not in alive:
                    continue
                t0 = time.perf_counter()
                r = cpu_time(lambda fn=fn, a=a: fn(a), warmup=0, repeat=1)
                if time.perf_counter() - t0 > args.budget:
                    alive.discard(name)
                rows.append(
                    {
                        "n": n,
                        "method": f"{name} (host CPU)",
                        "ms": r["median_ms"],
                        "Tsteps_per_s": float(n) ** 3 / r["median_ms"] / 1e9,
                    }
                )
                print(rows[-1], flush=True)
    write_results(args.out, "apsp", rows)
    series = {}
    for r in rows:
        series.setdefault(r["method"], ([], []))
        series[r["method"]][0].append(r["n"])
        series[r["method"]][1].append(r["ms"] / 1e3)
    log_log_plot(Path(args.out).with_suffix(".png"), series, "n", "seconds", "APSP, dense fp32")


if __name__ == "__main__":
    main()
