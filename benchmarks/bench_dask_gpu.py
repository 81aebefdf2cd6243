"""kleene on Dask across GPUs (issues 16, 44): one dask-cuda worker per GPU against the
best one-GPU path, kleene in one process on one GPU of the same machine.

Every row's first call is reported on its own ("cold s"); then (in-process baseline
only) ``--baseline-warmups`` untimed calls; then the timed calls ("runs s"), of which
the best and the median are kept. Speed-ups divide the in-process baseline's time by
the cluster's, best by best and median by median. Every answer is checked on sampled
rows against the baseline's rows (max |diff| and ``np.allclose(rtol=1e-5, atol=1e-6)``
for APSP; ``rtol=1e-6`` for SSSP); ``--reference`` adds, for APSP, an independent
check (dense min-plus products iterated to a fixed point in this process).

- fp32 dense APSP of the complete graph with uniform [0, 1) weights, drawn as b × b
  chunks from per-chunk seeds (``block_weights``; b = ``default_block_size(n, G)``
  for the largest GPU count G, every row of one n closing the same graph):
  - baseline: the whole n × n CuPy array assembled from the same chunks on GPU 0,
    ``kleene.apsp(cupy_array)`` in this process, the device synchronised after each
    call; everything freed before a cluster starts (a worker then uses GPU 0);
  - cluster: ``LocalCUDACluster`` with one worker per GPU, ``kleene.distributed.warm``
    on every worker, the graph as a dask.array (``dense_graph``: ``dask.delayed``
    chunks) persisted where the scheduler puts it (the row records how many chunks
    lie off the worker that owns their block; ``--placement owners`` draws each
    chunk on its owner) and waited for before any clock starts; timed
    ``R = kleene.apsp(G, client=c)`` then ``R = c.persist(R)`` + ``wait(R)``. apsp
    returns once every block is computed and the diagonal checked on the workers
    (the blocks on their GPUs); the persist then runs the result's own chunk tasks
    (the graph's chunks are CuPy, so the result's stay on the GPUs; NumPy chunks
    would each be copied to its worker's host). Both ends are recorded: "call
    s" (apsp returned) and the runs (after the persist: the issue's measure, used
    for the speed-ups); "speed-up, call only" divides by the former;
  - ``--apsp-all-gpus N ...``: sizes run on the largest GPU count only (none by
    default), without a baseline (the one-GPU closure does not fit in core): T steps/s,
    checked by ``--reference``;
- 128-source SSSP on the symmetric RMAT graph of bench_ingest (``--scale``, 0 skips):
  - baseline: ``kleene.sssp(M_gpu, sources)`` in this process on the graph as a
    CuPy Matrix, result on the GPU;
  - cluster: ``H = load_graph(client, csr)`` once (timed, not in the runs), then
    ``R = sssp_on_dask(client, H, sources, as_dask_array=True)`` (every batch finished
    on the workers when it returns: "call s") + ``c.persist(R)`` + ``wait(R)``, the
    rows CuPy chunks left on the GPUs (the graph is on every worker's GPU);
  - ``--gather``: also one plain call ``kleene.sssp(csr, sources, client=c)`` from the
    host CSR with NumPy back (the graph shipped, 128 × n float64 to the client).

A ``1`` in ``--gpus`` adds one-worker-cluster rows, labelled so: an extra, never the
baseline. A row that fails records its error and the run goes on; each cluster is
closed in a ``finally``.

    NCCL_NVLS_ENABLE=0 PYTHONPATH=.:/tmp/site python3 benchmarks/bench_dask_gpu.py \\
        --gpus 2 --apsp 65536 --apsp-all-gpus --scale 0 --require-ipc \\
        --out benchmarks/results/dask_h200x2.json
    NCCL_NVLS_ENABLE=0 PYTHONPATH=.:/tmp/site python3 benchmarks/bench_dask_gpu.py \\
        --gpus 2 --apsp --apsp-all-gpus --scale 24 --out benchmarks/results/dask_sssp.json

``--quick`` runs small sizes through every path (a smoke test of the harness on any
GPU host); ``--cpu`` runs the same harness on CPU workers (``LocalCluster``, NumPy
chunks) on a machine without a GPU: a check of the harness, not a measurement.
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
from dask_apsp_rows import apsp_baseline, apsp_dask_row  # noqa: E402
from dask_harness import cluster, error_row, free_device, say  # noqa: E402
from dask_sssp_rows import sssp_baseline, sssp_dask_rows, sssp_graph  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--gpus",
        type=int,
        nargs="+",
        default=[1, 2],
        help="cluster sizes (1: an extra one-worker-cluster row; the baseline is in-process)",
    )
    ap.add_argument("--apsp", type=int, nargs="*", default=[65536], help="n with a baseline")
    ap.add_argument(
        "--apsp-all-gpus",
        type=int,
        nargs="*",
        default=[],
        help="n run on the largest GPU count only, no baseline (none unless given: "
        "n = 131072 takes minutes)",
    )
    ap.add_argument("--apsp-repeats", type=int, default=3, help="timed calls after the cold one")
    ap.add_argument("--apsp-all-gpus-repeats", type=int, default=1)
    ap.add_argument(
        "--baseline-warmups",
        type=int,
        default=1,
        help="untimed in-process calls between the cold one and the timed ones",
    )
    ap.add_argument("--scale", type=int, default=24, help="RMAT scale of the SSSP graph (0: none)")
    ap.add_argument("--sources", type=int, default=128)
    ap.add_argument("--sssp-repeats", type=int, default=3)
    ap.add_argument("--gather", action="store_true", help="also time the plain call (NumPy back)")
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument(
        "--reference",
        action="store_true",
        help="also check APSP rows against an independent in-process fixed point (slow)",
    )
    ap.add_argument(
        "--require-ipc",
        action="store_true",
        help="fail the multi-GPU APSP rows if blocks cannot go GPU to GPU by CUDA IPC",
    )
    ap.add_argument(
        "--placement",
        choices=("scheduler", "owners"),
        default="scheduler",
        help="where the APSP input is persisted: where Dask's scheduler puts its chunks "
        "(the issue's 'anywhere'), or each chunk on the worker that will own its block",
    )
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    ap.add_argument(
        "--cpu", action="store_true", help="CPU workers and NumPy: a harness check without a GPU"
    )
    ap.add_argument("--out", default="benchmarks/results/dask_gpu.json")
    args = ap.parse_args(argv)
    if args.quick:
        args.apsp, args.apsp_all_gpus = [4096], [6144]
        args.scale = 16 if args.scale else 0
        args.sources = min(args.sources, 16)
    if args.cpu and args.quick:
        args.apsp, args.apsp_all_gpus = [768], [1024]
        args.scale = 10 if args.scale else 0
    from kleene.distributed import default_block_size, warm

    rows: list[dict] = []
    meta: dict = {"NCCL_NVLS_ENABLE": os.environ.get("NCCL_NVLS_ENABLE"), "clusters": {}}
    if not args.cpu:
        import cupy

        meta["gpus visible"] = cupy.cuda.runtime.getDeviceCount()

    def save():
        write_results(args.out, "kleene on Dask, one dask-cuda worker per GPU", rows, meta)

    top = max(args.gpus)
    dask_gpus = sorted({g for g in args.gpus if g >= 1}, reverse=True)  # 2 before the extra 1

    # Baselines first, in this process on GPU 0, each freed before any cluster starts.
    base_apsp: dict[int, tuple[dict, np.ndarray | None]] = {}
    for n in args.apsp:
        say(f"== baseline: apsp n={n} in-process")
        base_apsp[n] = apsp_baseline(n, default_block_size(n, top), args)
        rows.append(base_apsp[n][0])
        save()
    csr = sources = None
    base_sssp: tuple[dict | None, np.ndarray | None] = (None, None)
    if args.scale:
        say(f"== baseline: sssp RMAT-{args.scale} in-process")
        M = None
        try:
            csr, M, sources = sssp_graph(args)
            base_sssp = sssp_baseline(M, csr, sources, args)
            rows.append(base_sssp[0])
        except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
            rows.append(error_row({"row": f"sssp RMAT-{args.scale} graph"}, e))
        finally:
            del M
            free_device(args.cpu)
        save()

    for gpus in dask_gpus:
        say(f"== {gpus} {'CPU' if args.cpu else 'GPU'} worker(s)")
        cl = client = None
        info: dict = {}
        meta["clusters"][str(gpus)] = info
        try:
            t0 = time.perf_counter()
            cl, client = cluster(gpus, args.cpu)
            info["up s"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            info["warm s by worker"] = warm(client, semiring="min_plus", dtype=np.float32)
            info["warm s"] = time.perf_counter() - t0
            say(f"  cluster up in {info['up s']:.1f} s, warm in {info['warm s']:.1f} s")
            sizes = [(n, args.apsp_repeats) for n in args.apsp]
            if gpus == top:
                sizes += [(n, args.apsp_all_gpus_repeats) for n in args.apsp_all_gpus]
            for n, repeats in sizes:
                base, want = base_apsp.get(n, (None, None))
                b = default_block_size(n, top)
                rows.append(apsp_dask_row(client, gpus, n, b, repeats, base, want, args))
                save()
            if csr is not None and sources is not None:
                rows.extend(sssp_dask_rows(client, gpus, csr, sources, *base_sssp, args))
                save()
        except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
            rows.append(error_row({"row": f"cluster of {gpus}", "gpus": gpus}, e))
        finally:
            if client is not None:
                client.close()
            if cl is not None:
                cl.close()
    meta["speedups"] = [
        {
            "row": r["row"],
            "n": r.get("n"),
            "gpus": r["gpus"],
            "best": r["speed-up vs in-process (best)"],
            "median": r["speed-up vs in-process (median)"],
            "call only, best": r.get("speed-up vs in-process, call only (best)"),
        }
        for r in rows
        if "speed-up vs in-process (best)" in r
    ]
    save()
    say(f"wrote {args.out}")
    for s in meta["speedups"]:
        say(f"  {s}")


if __name__ == "__main__":
    main()
