"""A graph stored across GPU workers (issue 44, item 5): BFS, SSSP and PageRank on
row blocks (``kleene.distributed.partition_graph(..., device="gpu")``), one dask-cuda
worker per GPU, against the best one-GPU path, kleene in one process.

- graph: the symmetric RMAT graph of bench_ingest (``--scale``, edge factor 16,
  float32 weights), built on GPU 0 and copied to the host (a user's SciPy CSR);
- baseline: ``kleene.bfs`` / ``kleene.sssp`` / ``kleene.pagerank`` on the graph as a
  CuPy ``Matrix`` in this process, the device synchronised inside each clock; freed
  before any cluster starts (a worker then uses GPU 0);
- cluster rows, for each count in ``--gpus``: ``kleene.distributed.warm(client,
  algorithms=("partitioned",))`` once the cluster is up (timed apart; ``--no-warm``
  leaves it out, to see what it saves), ``H = partition_graph(client, csr,
  device="gpu")`` once (timed apart: the blocks' trip to the workers), then
  ``bfs_partitioned(H, s)``, ``sssp_partitioned(H, s)`` and ``pagerank_partitioned(H)``
  (its Aᵀ blocks made before the clock by ``H.in_blocks(True)``, timed apart: a
  transpose on the client, sent, for a directed graph; A's own blocks for
  ``--undirected``). The answers come back as NumPy arrays on the client, as the
  functions return them.

Every row: the first call apart ("cold s"), then ``--repeats`` timed calls (best and
median kept); ratios divide the in-process time by the row's, best by best. Answers
are checked against the in-process ones: BFS levels equal, SSSP distances and PageRank
to ``rtol=1e-6`` / ``atol=1e-12``. PageRank uses ``tol = 1e-4 / n`` (an L1 change
below 1e-4, GAP's criterion, in NetworkX's ``n * tol`` form). A call that would start
after ``--budget`` seconds is skipped and the row says so.

    NCCL_NVLS_ENABLE=0 PYTHONPATH=.:/tmp/site python3 benchmarks/bench_partitioned.py \\
        --scale 25 --gpus 1 2 --out benchmarks/results/partitioned_rmat25.json

``--cpu`` runs the same harness on CPU workers (``LocalCluster``, blocks on the CPU,
in-process baseline on the CPU) at a small scale: a check of the harness, not a
measurement.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast off in every process

from common import write_results  # noqa: E402
from dask_harness import cluster, error_row, free_device, say, sync, timed  # noqa: E402

import kleene  # noqa: E402

SEED = 11
ALGORITHMS = ("bfs", "pagerank", "sssp")  # SSSP's rounds are the longest: last


def graph(scale: int, cpu: bool):
    """(host CSR, the in-process Matrix on the GPU (or the CPU), a source vertex)."""
    from bench_ingest import build_graph

    t0 = time.perf_counter()
    g, _cand, _facts = build_graph(scale, "cpu" if cpu else "gpu")
    M = kleene.Matrix.from_scipy(g)
    csr = g if cpu else g.get()
    del g
    rng = np.random.default_rng(SEED)
    source = int(rng.choice(np.flatnonzero(np.diff(csr.indptr))))
    say(f"RMAT-{scale}: n={csr.shape[0]} nnz={csr.nnz} in {time.perf_counter() - t0:.1f} s")
    return csr, M, source


def host(a) -> np.ndarray:
    return kleene.backends.to_host(a)


def agree(name: str, got: np.ndarray, want: np.ndarray) -> bool:
    if name == "bfs":
        return bool(np.array_equal(got, want))
    return bool(np.allclose(got, want, rtol=1e-6, atol=1e-12))


class Clock:
    """Skips the calls that would start past the budget (seconds since the run began)."""

    def __init__(self, budget: float):
        self.t0, self.budget = time.perf_counter(), budget

    def left(self) -> bool:
        return time.perf_counter() - self.t0 < self.budget


def run_rows(rows: list, config: dict, calls: dict, want, args, clock, done, save):
    """One row per algorithm of ``config`` (cold call, timed calls, check) appended to
    ``rows`` and saved; the answers ({name: NumPy array}) returned."""
    answers = {}
    for name, fn in calls.items():
        if name not in args.algorithms:
            continue
        row = {**config, "algorithm": name}
        rows.append(row)
        if not clock.left():
            row["skipped"] = f"past the run's budget of {args.budget:.0f} s"
            say(f"  {config['row']}: {name} skipped (budget)")
            continue
        out = None
        try:
            stats, out = timed(fn, f"{name} ({config['row']})", args.repeats, done=done)
            row.update(stats)
            answers[name] = host(out)
            if want is not None and name in want:
                row["ok"] = agree(name, answers[name], want[name])
        except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
            error_row(row, e)
        del out
        save()
    return answers


def ratios(rows: list, base: dict) -> None:
    """In-process best / the row's best, for each cluster row."""
    for r in rows:
        b = base.get(r["algorithm"])
        if r["gpus"] and "best s" in r and b is not None and "best s" in b:
            r["vs in-process (best)"] = b["best s"] / r["best s"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2], help="cluster sizes")
    ap.add_argument("--repeats", type=int, default=2, help="timed calls after the cold one")
    ap.add_argument("--budget", type=float, default=480.0, help="no call starts past it (s)")
    ap.add_argument("--algorithms", nargs="+", choices=ALGORITHMS, default=list(ALGORITHMS))
    ap.add_argument("--cpu", action="store_true", help="CPU workers: a harness check")
    ap.add_argument("--no-warm", action="store_true", help="no kleene.distributed.warm")
    ap.add_argument(
        "--undirected",
        action="store_true",
        help="partition_graph(..., directed=False): the graph is symmetric, so PageRank "
        "takes Aᵀ's rows from the workers' own",
    )
    ap.add_argument("--out", default="benchmarks/results/partitioned.json")
    args = ap.parse_args(argv)
    from kleene.distributed import (
        bfs_partitioned,
        pagerank_partitioned,
        partition_graph,
        sssp_partitioned,
        warm,
    )

    clock = Clock(args.budget)
    device = "cpu" if args.cpu else "gpu"
    done = lambda: sync(args.cpu)  # noqa: E731
    rows: list[dict] = []
    meta: dict = {
        "scale": args.scale,
        "repeats": args.repeats,
        "warm": not args.no_warm,
        "partition_graph directed": not args.undirected,
    }

    def save():
        write_results(args.out, "A graph across GPU workers: row blocks", rows, meta)

    csr, M, source = graph(args.scale, args.cpu)
    n = csr.shape[0]
    tol = 1e-4 / n
    meta.update({"n": n, "nnz": int(csr.nnz), "source": source, "pagerank tol": tol})
    config = {"row": "kleene in process, one " + device.upper(), "gpus": 0}
    try:
        want = run_rows(
            rows,
            config,
            {
                "bfs": lambda: kleene.bfs(M, source),
                "pagerank": lambda: kleene.pagerank(M, tol=tol),
                "sssp": lambda: kleene.sssp(M, source),
            },
            None,
            args,
            clock,
            done,
            save,
        )
    finally:
        M = None  # the device's copy goes before any worker takes GPU 0
        free_device(args.cpu)
    base = {r["algorithm"]: r for r in rows}
    save()
    for gpus in args.gpus:
        config = {"row": f"partitioned, {gpus} {device.upper()} worker(s)", "gpus": gpus}
        cl = client = H = None
        if not clock.left():  # (partitioning alone takes a while at large scales)
            rows.append({**config, "skipped": f"past the run's budget of {args.budget:.0f} s"})
            save()
            continue
        try:
            cl, client = cluster(gpus, args.cpu)
            if not args.no_warm:
                t0 = time.perf_counter()
                warm(client, dtype=csr.dtype, algorithms=("partitioned",))
                config["warm s (untimed)"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            H = partition_graph(client, csr, device=device, directed=not args.undirected)
            config["partition s (untimed)"] = time.perf_counter() - t0
            config["entries per worker"] = [
                int(csr.indptr[H.bounds[k + 1]] - csr.indptr[H.bounds[k]]) for k in range(gpus)
            ]
            say(f"== {config['row']}: partitioned in {config['partition s (untimed)']:.1f} s")
            if "pagerank" in args.algorithms:  # PageRank's Aᵀ blocks, before the clock
                t0 = time.perf_counter()
                H.in_blocks(True)
                config["pagerank Aᵀ s (untimed)"] = time.perf_counter() - t0
            run_rows(
                rows,
                config,
                {
                    "bfs": lambda H=H: bfs_partitioned(H, source),
                    "pagerank": lambda H=H: pagerank_partitioned(H, tol=tol),
                    "sssp": lambda H=H: sssp_partitioned(H, source),
                },
                want,
                args,
                clock,
                None,
                save,
            )
        except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
            rows.append(error_row(dict(config), e))
        finally:
            if H is not None:
                H.release()
            if client is not None:
                client.close()
            if cl is not None:
                cl.close()
        ratios(rows, base)
        save()
    say(f"wrote {args.out}")
    for r in rows:
        if "best s" in r:
            x = r.get("vs in-process (best)")
            say(
                f"  {r['row']}: {r['algorithm']} best {r['best s']:.3f} s"
                + (f" ({x:.3f}×)" if x else "")
            )


if __name__ == "__main__":
    main()
