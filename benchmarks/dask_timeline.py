"""Where a distributed APSP's GPUs idle: CUDA events recorded around every task on
each dask-cuda worker, host times beside them (one worker per GPU).

The task functions are wrapped on the workers (``instrument``, run by ``client.run``;
the client's references resolve to the wrapped ones there), so the call measured is
the public ``kleene.apsp(G, client=c)`` on a persisted dask.array of CuPy chunks.
Per worker and call it prints the products' GPU time, the idle gaps between tasks on
the stream, the part of them where the host had not yet queued the next task
("host-starved"), and the longest gaps with the task that ended each.

    NCCL_NVLS_ENABLE=0 PYTHONPATH=.:/tmp/site python3 benchmarks/dask_timeline.py \
        --n 65536 --block 8192 --gpus 2 --calls 2 --out /tmp/timeline.json

GPU workers only (CuPy events). A diagnostic: nothing here is a benchmark row.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

from dask_apsp_rows import dense_graph  # noqa: E402
from dask_harness import cluster, settled  # noqa: E402

import kleene  # noqa: E402


def instrument():
    """On a worker: wrap the closure's task functions (once) so that each records a
    CUDA event before and after it on the stream, with host times; clear the log and
    take a base event and host time together."""
    import builtins
    import time

    import cupy

    from kleene.distributed import device_ipc, tasks

    if getattr(builtins, "_KL", None) is None:
        log = []

        def wrap(mod, name):
            f = getattr(mod, name)

            def g(*a, **k):
                e0 = cupy.cuda.Event()
                e0.record()
                h0 = time.perf_counter()
                out = f(*a, **k)
                h1 = time.perf_counter()
                e1 = cupy.cuda.Event()
                e1.record()
                log.append((name, a[0] if a and isinstance(a[0], str) else "", h0, h1, e0, e1))
                return out

            g.__qualname__, g.__name__, g.__module__ = f.__qualname__, f.__name__, f.__module__
            setattr(mod, name, g)

        for n in ("star", "row", "column", "trailing", "initial", "cycle_on_diagonal"):
            wrap(tasks, n)
        for n in (
            "export",
            "fetch",
            "fetched",
            "drop",
            "export_chunk",
            "fetch_chunk",
            "fetched_chunk",
        ):
            wrap(device_ipc, n)
        builtins._KL = log
    builtins._KL.clear()
    cupy.cuda.Device().synchronize()
    base = cupy.cuda.Event()
    base.record()
    base.synchronize()
    builtins._KL_BASE = (base, time.perf_counter())
    return "ok"


def collect():
    """On a worker: the log as (task, label, host start, host end, GPU start, GPU end),
    seconds from the base."""
    import builtins

    import cupy

    cupy.cuda.Device().synchronize()
    base, hb = builtins._KL_BASE
    out = []
    for name, label, h0, h1, e0, e1 in builtins._KL:
        out.append(
            (
                name,
                label,
                h0 - hb,
                h1 - hb,
                cupy.cuda.get_elapsed_time(base, e0) / 1e3,
                cupy.cuda.get_elapsed_time(base, e1) / 1e3,
            )
        )
    return out


def analyse(recs, t_call):
    """One worker's log → products' GPU time, idle gaps, host-starved part, big gaps."""
    recs = sorted(recs, key=lambda r: r[4])
    comp = [r for r in recs if r[0] in ("star", "row", "column", "trailing")]
    busy = sum(r[5] - r[4] for r in comp)
    first, last = recs[0][4], max(r[5] for r in recs)
    idle = starved = 0.0
    big = []
    end = recs[0][5]
    for r in recs[1:]:
        gap = r[4] - end
        if gap > 0:
            idle += gap
            if r[2] > end:  # the host queued it after the GPU ran dry
                starved += min(gap, r[2] - end)
            if gap > 0.005:
                big.append((round(end, 3), round(gap * 1e3, 1), r[0], r[1][:50], round(r[2], 3)))
        end = max(end, r[5])
    kinds = {}
    for r in recs:
        k = kinds.setdefault(r[0], [0, 0.0, 0.0])
        k[0] += 1
        k[1] += r[5] - r[4]
        k[2] += r[3] - r[2]
    lead = [r[4] - r[2] for r in comp]
    return {
        "span s": last - first,
        "first gpu s": first,
        "last gpu s": last,
        "compute busy s": busy,
        "idle gaps s": idle,
        "host-starved s": starved,
        "kinds (count, gpu s, host s)": kinds,
        "gpu-after-host lead s (median, min)": (float(np.median(lead)), float(min(lead))),
        "host last task end s": max(r[3] for r in recs),
        "big gaps": big[:40],
        "call s": t_call,
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--block", type=int, default=8192)
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--calls", type=int, default=3, help="the first is the cold one")
    ap.add_argument("--out", default="dask_timeline.json")
    args = ap.parse_args(argv)
    from distributed import wait

    from kleene.distributed import warm

    cl, client = cluster(args.gpus, False)
    try:
        warm(client, semiring="min_plus", dtype=np.float32)
        print("instrument", client.run(instrument), flush=True)
        G = client.persist(dense_graph(args.n, args.block))
        wait(G)
        res = {}
        for call in range(args.calls):
            client.run(instrument)
            t0 = time.perf_counter()
            R = kleene.apsp(G, client=client, block_size=args.block)
            t1 = time.perf_counter() - t0
            R = settled(client, R)
            t2 = time.perf_counter() - t0
            recs = client.run(collect)
            print(f"call {call}: apsp {t1:.3f} s, persisted {t2:.3f} s", flush=True)
            res[call] = {w: analyse(r, t1) for w, r in recs.items()}
            for w, a in res[call].items():
                print(" ", w, {k: v for k, v in a.items() if k != "big gaps"}, flush=True)
                for g in a["big gaps"][:15]:
                    print("     gap", g, flush=True)
            res[call]["raw"] = recs
            del R
        with open(args.out, "w") as f:
            json.dump(res, f, default=str)
    finally:
        client.close()
        cl.close()


if __name__ == "__main__":
    main()
