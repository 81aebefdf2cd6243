"""kleene on Dask across GPUs (issue 16): one dask-cuda worker per GPU, 1 GPU vs all.

Rows (wall time of the public call, the result computed on the workers, median after
a warm-up; every answer checked on sampled rows against kleene in this process on
one GPU, an independent path: dense min-plus products iterated to a fixed point for
APSP, the in-process multi-source SSSP for SSSP):

- fp32 dense APSP ``kleene.apsp(G, client=client)``, G a dask.array of the complete
  graph with uniform [0, 1) weights whose b × b chunks are drawn on the workers
  (CuPy), result a dask.array left on the workers (no n² through the client);
- 128-source SSSP on the symmetric RMAT graph of bench_ingest:
  ``kleene.distributed.sssp_on_dask(client, H, sources, as_dask_array=True)`` on a
  graph loaded once (``load_graph``), and ``kleene.sssp(csr, sources,
  client=client)`` from a host CSR with NumPy results gathered (what the plain call
  costs: the graph shipped, 128 × n float64 back to the client).

    NCCL_NVLS_ENABLE=0 PYTHONPATH=.:/tmp/site python3 benchmarks/bench_dask_gpu.py \\
        --gpus 1 2 --apsp 65536 --apsp-all-gpus 131072 --scale 24 \\
        --out benchmarks/results/dask_h200x2.json

``--quick`` runs small sizes (a smoke test of the harness on any GPU host).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast off in every process

from common import write_results  # noqa: E402

import kleene  # noqa: E402

SEED = 7


def say(*a) -> None:
    print(*a, file=sys.stderr, flush=True)


def block_weights(n: int, b: int, i: int, j: int, seed: int = SEED):
    """Chunk (i, j) of the complete graph's weights: uniform [0, 1) float32 from a
    CuPy generator seeded per chunk (the same numbers in any process, on any GPU)."""
    import cupy

    h, w = min(b, n - i * b), min(b, n - j * b)
    rs = cupy.random.RandomState(seed * 1_000_003 + i * 65_537 + j)
    return rs.random_sample((h, w), dtype=cupy.float32)


def dense_graph(n: int, b: int):
    """The complete graph as a dask.array of lazily drawn CuPy chunks."""
    import cupy
    import dask
    import dask.array as da

    meta = cupy.empty((0, 0), dtype=cupy.float32)
    nb = -(-n // b)
    size = [min(b, n - s) for s in range(0, n, b)]
    draw = dask.delayed(block_weights, pure=True)
    return da.block(
        [
            [
                da.from_delayed(draw(n, b, i, j), (size[i], size[j]), dtype=np.float32, meta=meta)
                for j in range(nb)
            ]
            for i in range(nb)
        ]
    )


def apsp_reference_rows(n: int, b: int, rows: list[int]):
    """Rows of the closure computed here on one GPU: D_s ← D_s ⊕ D_s ⊗ A to a fixed
    point (A's diagonal counted as 0), A's block rows drawn again each pass."""
    import cupy

    from kleene import Matrix
    from kleene.engine import mxm_accumulate

    nb = -(-n // b)

    def block_row(k):
        return cupy.concatenate([block_weights(n, b, k, j) for j in range(nb)], axis=1)

    D = cupy.empty((len(rows), n), dtype=cupy.float32)
    for t, r in enumerate(rows):
        D[t] = block_row(r // b)[r % b]
        D[t, r] = 0
    for sweep in range(200):
        new = Matrix.from_dense(D.copy(), missing=None)
        for k in range(nb):
            lo, hi = k * b, min(n, k * b + b)
            Ak = block_row(k)
            Ak[cupy.arange(hi - lo), cupy.arange(lo, hi)] = 0
            mxm_accumulate(
                Matrix.from_dense(cupy.ascontiguousarray(D[:, lo:hi]), missing=None),
                Matrix.from_dense(Ak, missing=None),
                new,
                "min_plus",
            )
            del Ak
        nd = new.to_dense()
        if bool((nd == D).all()):
            return cupy.asnumpy(D), sweep
        D = nd
    raise AssertionError("reference rows did not converge in 200 sweeps")


def measure(fn, repeats: int, warmup: int, label: str):
    """(median s, all timed s, last result)."""
    times, out = [], None
    for r in range(warmup + repeats):
        out = None  # the last result goes before the next run (workers' memory)
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        say(
            f"  {label}: run {r + 1}/{warmup + repeats} {dt:.3f} s"
            + (" (warm-up)" if r < warmup else "")
        )
        if r >= warmup:
            times.append(dt)
    return statistics.median(times), times, out


def busy(records: list[dict], wall: float) -> dict:
    """Where the workers' time went over all timed runs: per worker the seconds its
    tasks computed (launch to return; GPU work is asynchronous, so a task that waits
    for its inputs' kernels counts them) and received data, per task kind the compute
    seconds, as fractions of the wall time."""
    per: dict = {}
    kinds: dict = {}
    for r in records:
        w = per.setdefault(r.get("worker", "?"), {"compute s": 0.0, "transfer s": 0.0})
        key = str(r.get("key", ""))
        kind = key.split("-")[2] if key.startswith("kleene-apsp-") else key.split("-")[0]
        for part in ("-export", "-fetch-", "-drop"):
            kind = part.strip("-") if part in key else kind
        for ss in r.get("startstops", ()):
            dt = ss["stop"] - ss["start"]
            if ss["action"] == "compute":
                w["compute s"] += dt
                kinds[kind] = kinds.get(kind, 0.0) + dt
            elif ss["action"] == "transfer":
                w["transfer s"] += dt
    for w in per.values():
        w["compute share"] = w["compute s"] / wall if wall else None
    return {"wall s": wall, "workers": per, "compute s by kind": kinds}


def cluster(gpus: int):
    from dask_cuda import LocalCUDACluster
    from distributed import Client

    c = LocalCUDACluster(
        CUDA_VISIBLE_DEVICES=",".join(str(g) for g in range(gpus)),
        protocol="tcp",
        dashboard_address=":0",
    )
    return c, Client(c)


def apsp_row(client, gpus: int, n: int, repeats: int, check: bool, require_ipc: bool) -> dict:
    from kleene.distributed import default_block_size, device_ipc

    b = default_block_size(n, gpus)
    workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
    ipc = device_ipc.enabled(client, workers)
    if gpus > 1 and not ipc and require_ipc:
        raise SystemExit(f"no CUDA IPC between the workers: {device_ipc.last_reason}")
    label = f"apsp fp32 n={n} on {gpus} GPU"
    from distributed import get_task_stream

    with get_task_stream(client) as stream:
        med, times, R = measure(
            lambda: kleene.apsp(dense_graph(n, b), client=client), repeats, 0, label
        )
    row = {
        "row": "apsp fp32 dense",
        "n": n,
        "gpus": gpus,
        "block": b,
        "median s": med,
        "runs s": times,
        "T steps/s": n**3 / med / 1e12,
        "blocks between workers": "CUDA IPC"
        if ipc
        else "Dask comm (TCP)"
        if gpus > 1
        else "none (one worker)",
    }
    if gpus > 1:
        row["ipc decision"] = device_ipc.last_reason
    row["task stream"] = busy(stream.data, sum(times))
    if check:
        rows = sorted({0, 1, n // 3, n // 2 + 1, n - 1})
        t0 = time.perf_counter()
        got = R[rows].compute()
        want, sweeps = apsp_reference_rows(n, b, rows)
        err = float(np.max(np.abs(got - want)))
        row.update(
            check=f"rows {rows}: max |diff| {err:.2e} ({sweeps} sweeps)",
            ok=bool(np.allclose(got, want, rtol=1e-5, atol=1e-6)),
        )
        say(f"  check {row['check']} in {time.perf_counter() - t0:.1f} s")
    del R
    say(f"  -> {row}")
    return row


def sssp_rows(client, gpus: int, csr, M_gpu, sources, repeats: int, gather: bool) -> list[dict]:
    from kleene.distributed import load_graph, sssp_on_dask

    t0 = time.perf_counter()
    H = load_graph(client, csr)
    load_s = time.perf_counter() - t0
    say(f"  load_graph {load_s:.2f} s")
    k = len(sources)
    label = f"sssp {k} sources on {gpus} GPU"
    med, times, R = measure(
        lambda: sssp_on_dask(client, H, sources, as_dask_array=True), repeats, 1, label
    )
    picks = [0, k // 2, k - 1]
    got = R[picks].compute()
    want = kleene.backends.to_host(kleene.sssp(M_gpu, [int(sources[p]) for p in picks]))
    ok = bool(np.allclose(got, want, rtol=1e-6, equal_nan=False))
    rows = [
        {
            "row": f"sssp {k} sources, loaded graph, dask.array result",
            "n": csr.shape[0],
            "nnz": csr.nnz,
            "gpus": gpus,
            "median s": med,
            "runs s": times,
            "load_graph s": load_s,
            "check": f"rows {picks} vs in-process GPU",
            "ok": ok,
        }
    ]
    del R
    H.release()
    if gather:
        med2, times2, out = measure(
            lambda: kleene.sssp(csr, sources, client=client),
            1,
            0,
            f"sssp {k} sources from a host CSR, NumPy back",
        )
        ok2 = bool(np.allclose(out[picks], want, rtol=1e-6))
        rows.append(
            {
                "row": f"sssp {k} sources from a host CSR, NumPy result",
                "n": csr.shape[0],
                "nnz": csr.nnz,
                "gpus": gpus,
                "median s": med2,
                "runs s": times2,
                "ok": ok2,
            }
        )
        del out
    for r in rows:
        say(f"  -> {r}")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--apsp", type=int, nargs="*", default=[65536], help="n on every GPU count")
    ap.add_argument(
        "--apsp-all-gpus",
        type=int,
        nargs="*",
        default=[131072],
        help="n run on the largest GPU count only",
    )
    ap.add_argument("--apsp-repeats", type=int, default=3)
    ap.add_argument("--scale", type=int, default=24, help="RMAT scale of the SSSP graph")
    ap.add_argument("--sources", type=int, default=128)
    ap.add_argument("--sssp-repeats", type=int, default=5)
    ap.add_argument("--gather", action="store_true", help="also time the plain call (NumPy back)")
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument(
        "--require-ipc", action="store_true", help="stop if blocks cannot go GPU to GPU by CUDA IPC"
    )
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    ap.add_argument("--out", default="benchmarks/results/dask_gpu.json")
    args = ap.parse_args()
    if args.quick:
        args.apsp, args.apsp_all_gpus, args.scale, args.sources = [4096], [6144], 16, 16
    import cupy
    from bench_ingest import build_graph

    rows: list[dict] = []
    meta = {
        "gpus visible": cupy.cuda.runtime.getDeviceCount(),
        "NCCL_NVLS_ENABLE": os.environ.get("NCCL_NVLS_ENABLE"),
    }

    def save():
        write_results(args.out, "kleene on Dask, one dask-cuda worker per GPU", rows, meta)

    csr = M_gpu = sources = None
    if args.scale:
        t0 = time.perf_counter()
        g, _cand, _facts = build_graph(args.scale, "gpu")
        M_gpu = kleene.Matrix.from_scipy(g)
        csr = g.get()
        del g
        cupy.get_default_memory_pool().free_all_blocks()  # GPU 0 is a worker's too
        rng = np.random.default_rng(SEED)
        sources = np.sort(
            rng.choice(np.flatnonzero(np.diff(csr.indptr)), args.sources, replace=False)
        )
        took = time.perf_counter() - t0
        say(f"RMAT-{args.scale}: n={csr.shape[0]} nnz={csr.nnz} in {took:.1f} s")
    for gpus in args.gpus:
        say(f"== {gpus} GPU worker(s)")
        t0 = time.perf_counter()
        cl, client = cluster(gpus)
        say(f"  cluster up in {time.perf_counter() - t0:.1f} s")
        try:
            t0 = time.perf_counter()
            kleene.apsp(dense_graph(2048, 512), client=client).compute()  # compile on workers
            say(f"  warm-up apsp in {time.perf_counter() - t0:.1f} s")
            sizes = list(args.apsp) + (list(args.apsp_all_gpus) if gpus == max(args.gpus) else [])
            for n in sizes:
                rows.append(
                    apsp_row(
                        client,
                        gpus,
                        n,
                        1 if n in args.apsp_all_gpus else args.apsp_repeats,
                        not args.no_check,
                        args.require_ipc,
                    )
                )
                save()
            if csr is not None:
                rows.extend(
                    sssp_rows(client, gpus, csr, M_gpu, sources, args.sssp_repeats, args.gather)
                )
                save()
        finally:
            client.close()
            cl.close()
    by = {(r["row"], r.get("n")): {} for r in rows}
    for r in rows:
        by[r["row"], r.get("n")][r["gpus"]] = r["median s"]
    for (name, n), t in by.items():
        if len(t) > 1:
            lo, hi = min(t), max(t)
            meta.setdefault("speedups", []).append(
                {"row": name, "n": n, f"{hi} vs {lo} GPU": t[lo] / t[hi]}
            )
    save()
    say(f"wrote {args.out}: {meta.get('speedups')}")


if __name__ == "__main__":
    main()
