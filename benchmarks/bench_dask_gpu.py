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
    (each block copied to its worker's host memory). Both ends are recorded: "call
    s" (apsp returned) and the runs (after the persist: the issue's measure, used
    for the speed-ups); "speed-up, call only" divides by the former;
  - ``--apsp-all-gpus`` sizes run on the largest GPU count only, without a baseline
    (the one-GPU closure does not fit in core): T steps/s, checked by ``--reference``;
- 128-source SSSP on the symmetric RMAT graph of bench_ingest (``--scale``, 0 skips):
  - baseline: ``kleene.sssp(M_gpu, sources)`` in this process on the graph as a
    CuPy Matrix, result on the GPU;
  - cluster: ``H = load_graph(client, csr)`` once (timed, not in the runs), then
    ``R = sssp_on_dask(client, H, sources, as_dask_array=True)`` (every batch finished
    on the workers when it returns: "call s") + ``c.persist(R)`` + ``wait(R)``;
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
import ast
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast off in every process

from common import write_results  # noqa: E402

import kleene  # noqa: E402

SEED = 7


def say(*a) -> None:
    print(*a, file=sys.stderr, flush=True)


def array_module(cpu: bool):
    if cpu:
        return np
    import cupy

    return cupy


def sync(cpu: bool) -> None:
    """Wait for this process's GPU work (the clock must not stop before it ends)."""
    if not cpu:
        import cupy

        cupy.cuda.Device().synchronize()


def free_device(cpu: bool) -> None:
    """Give this process's cached GPU memory back (a cluster worker uses GPU 0 next)."""
    import gc

    gc.collect()
    kleene.engine.release_replays()  # the closure's replay buffers (n² each)
    if not cpu:
        import cupy

        cupy.cuda.Device().synchronize()
        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()


def block_weights(n: int, b: int, i: int, j: int, cpu: bool = False, seed: int = SEED):
    """Chunk (i, j) of the complete graph's weights: uniform [0, 1) float32 from a
    generator seeded per chunk (the same numbers in any process, on any GPU; NumPy's
    generator with ``cpu``)."""
    h, w = min(b, n - i * b), min(b, n - j * b)
    s = seed * 1_000_003 + i * 65_537 + j
    if cpu:
        return np.random.RandomState(s % 2**32).random_sample((h, w)).astype(np.float32)
    import cupy

    return cupy.random.RandomState(s).random_sample((h, w), dtype=cupy.float32)


def dense_graph(n: int, b: int, cpu: bool = False):
    """The complete graph as a dask.array of lazily drawn chunks (CuPy; NumPy with cpu)."""
    import dask
    import dask.array as da

    meta = array_module(cpu).empty((0, 0), dtype=np.float32)
    nb = -(-n // b)
    size = [min(b, n - s) for s in range(0, n, b)]
    draw = dask.delayed(block_weights, pure=True)
    return da.block(
        [
            [
                da.from_delayed(
                    draw(n, b, i, j, cpu), (size[i], size[j]), dtype=np.float32, meta=meta
                )
                for j in range(nb)
            ]
            for i in range(nb)
        ]
    )


def assemble(n: int, b: int, cpu: bool):
    """The whole graph in this process's device memory, from the same chunks."""
    xp = array_module(cpu)
    A = xp.empty((n, n), dtype=np.float32)
    nb = -(-n // b)
    for i in range(nb):
        for j in range(nb):
            A[i * b : i * b + b, j * b : j * b + b] = block_weights(n, b, i, j, cpu)
    sync(cpu)
    return A


def sample_rows(n: int) -> list[int]:
    return sorted({0, 1, n // 3, n // 2 + 1, n - 1})


def apsp_reference_rows(n: int, b: int, rows: list[int], cpu: bool):
    """Rows of the closure computed here: D_s ← D_s ⊕ D_s ⊗ A to a fixed point (A's
    diagonal counted as 0), A's block rows drawn again each pass."""
    from kleene import Matrix
    from kleene.engine import mxm_accumulate

    xp = array_module(cpu)
    nb = -(-n // b)

    def block_row(k):
        return xp.concatenate([block_weights(n, b, k, j, cpu) for j in range(nb)], axis=1)

    D = xp.empty((len(rows), n), dtype=np.float32)
    for t, r in enumerate(rows):
        D[t] = block_row(r // b)[r % b]
        D[t, r] = 0
    for sweep in range(200):
        new = Matrix.from_dense(D.copy(), missing=None)
        for k in range(nb):
            lo, hi = k * b, min(n, k * b + b)
            Ak = block_row(k)
            Ak[xp.arange(hi - lo), xp.arange(lo, hi)] = 0
            mxm_accumulate(
                Matrix.from_dense(xp.ascontiguousarray(D[:, lo:hi]), missing=None),
                Matrix.from_dense(Ak, missing=None),
                new,
                "min_plus",
            )
            del Ak
        nd = new.to_dense()
        if bool((nd == D).all()):
            return kleene.backends.to_host(D), sweep
        D = nd
    raise AssertionError("reference rows did not converge in 200 sweeps")


def timed(fn, label: str, repeats: int, warmups: int = 0, done=None, on_timed=None):
    """The first (cold) call, ``warmups`` untimed calls, then ``repeats`` timed calls of
    ``fn``; ``done()`` runs inside each clock after ``fn`` (a device synchronisation).
    Each result is dropped before the next call starts (the device's memory).
    ``on_timed``: a context manager entered around the timed calls only.
    Returns ({cold s, runs s, best s, median s}, the last result)."""
    import contextlib

    def once(r: int, kind: str):
        t0 = time.perf_counter()
        out = fn()
        if done is not None:
            done()
        dt = time.perf_counter() - t0
        say(f"  {label}: call {r} {dt:.3f} s ({kind})")
        return dt, out

    cold, out = once(1, "cold")
    for r in range(warmups):
        out = None
        once(2 + r, "warm-up")
    times = []
    with on_timed() if on_timed is not None else contextlib.nullcontext():
        for r in range(repeats):
            out = None
            dt, out = once(2 + warmups + r, "timed")
            times.append(dt)
    stats = {"cold s": cold, "runs s": times}
    if times:
        stats.update({"best s": min(times), "median s": statistics.median(times)})
    return stats, out


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


def cluster(gpus: int, cpu: bool):
    from distributed import Client

    if cpu:
        from distributed import LocalCluster

        c = LocalCluster(n_workers=gpus, threads_per_worker=1, dashboard_address=":0")
    else:
        from dask_cuda import LocalCUDACluster

        c = LocalCUDACluster(
            CUDA_VISIBLE_DEVICES=",".join(str(g) for g in range(gpus)),
            protocol="tcp",
            dashboard_address=":0",
        )
    return c, Client(c)


def settled(client, R):
    """``R`` persisted on the workers and waited for; an errored chunk raises here."""
    from distributed import futures_of, wait

    R = client.persist(R)
    wait(R)
    bad = [f for f in futures_of(R) if f.status == "error"]
    if bad:
        bad[0].result()  # raises the task's exception
    return R


def speedups(row: dict, base: dict | None) -> None:
    """Baseline time / this row's, best by best and median by median."""
    if not base or "best s" not in base or "best s" not in row:
        return
    row["speed-up vs in-process (best)"] = base["best s"] / row["best s"]
    row["speed-up vs in-process (median)"] = base["median s"] / row["median s"]
    if row.get("call s"):
        row["speed-up vs in-process, call only (best)"] = base["best s"] / min(row["call s"])


def summary(row: dict) -> str:
    """One line of a row: its name, sizes, times and speed-ups, check, error."""
    keep = ("n", "gpus", "block", "cold s", "best s", "median s", "T steps/s")
    keep += ("speed-up vs in-process (best)", "speed-up vs in-process (median)")
    keep += ("speed-up vs in-process, call only (best)", "ok", "ok reference", "error")
    fmt = lambda v: f"{v:.3f}" if isinstance(v, float) else str(v)  # noqa: E731
    return f"{row['row']}: " + ", ".join(f"{k} {fmt(row[k])}" for k in keep if k in row)


def error_row(row: dict, e: BaseException) -> dict:
    row["error"] = f"{type(e).__name__}: {e}"
    say(f"  !! {row['row']} failed: {row['error']}")
    traceback.print_exc(file=sys.stderr)
    return row


# ---- APSP ------------------------------------------------------------------------


def apsp_baseline(n: int, b: int, args) -> tuple[dict, np.ndarray | None]:
    """kleene.apsp(array) in this process on GPU 0: (row, the sampled result rows)."""
    row = {"row": "apsp fp32 dense, in-process baseline", "n": n, "gpus": 1}
    row["call"] = "kleene.apsp(cupy_array), one process" + (" (cpu)" if args.cpu else "")
    rows = sample_rows(n)
    want = None
    A = R = None
    try:
        t0 = time.perf_counter()
        A = assemble(n, b, args.cpu)
        row["assemble s"] = time.perf_counter() - t0
        stats, R = timed(
            lambda: kleene.apsp(A),
            f"apsp fp32 n={n} in-process",
            args.apsp_repeats,
            args.baseline_warmups,
            done=lambda: sync(args.cpu),
        )
        row.update(stats)
        row["T steps/s"] = n**3 / row["best s"] / 1e12
        row["result"] = f"{type(R).__module__}.{type(R).__name__}"  # NumPy: went out of core
        xp = array_module(args.cpu) if type(R).__module__.startswith("cupy") else np
        want = kleene.backends.to_host(R[xp.asarray(rows)])
    except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
        error_row(row, e)
    finally:
        A = R = None  # noqa: F841 (frees the device memory now)
        free_device(args.cpu)
    say("  -> " + summary(row))
    return row, want


def placement(client, G, workers: list[str]) -> dict:
    """Where the persisted chunks are: how many lie off the worker that owns their block."""
    from kleene.distributed.closure_grid import worker_grid

    pr, pc = worker_grid(len(workers))
    off = total = 0
    for key, holders in client.who_has(G).items():
        k = ast.literal_eval(key) if isinstance(key, str) else key
        i, j = int(k[1]), int(k[2])
        total += 1
        off += workers[(i % pr) * pc + (j % pc)] not in holders
    return {"chunks": total, "chunks off their block's owner": off}


def on_owners(client, n: int, b: int, workers: list[str], cpu: bool):
    """The graph as a dask.array whose chunks are futures, each drawn on the worker
    that owns its block in the closure's 2-D block-cyclic layout (pr × pc workers)."""
    import dask.array as da

    from kleene.distributed.closure_grid import worker_grid

    pr, pc = worker_grid(len(workers))
    meta = array_module(cpu).empty((0, 0), dtype=np.float32)
    nb = -(-n // b)
    size = [min(b, n - s) for s in range(0, n, b)]
    grid = [
        [
            da.from_delayed(
                client.submit(
                    block_weights,
                    n,
                    b,
                    i,
                    j,
                    cpu,
                    workers=[workers[(i % pr) * pc + (j % pc)]],
                    allow_other_workers=False,
                    pure=False,
                ),
                (size[i], size[j]),
                dtype=np.float32,
                meta=meta,
            )
            for j in range(nb)
        ]
        for i in range(nb)
    ]
    return da.block(grid)


def apsp_dask_row(client, gpus: int, n: int, b: int, repeats: int, base, want, args) -> dict:
    """The cluster's row for n; ``b``: the graph's chunk side, the baseline's and the
    largest cluster's block (passed as ``block_size`` only where this cluster's
    default block differs, so that every row closes the same graph)."""
    from distributed import get_task_stream, wait

    from kleene.distributed import default_block_size, device_ipc

    kw = {} if default_block_size(n, gpus) == b else {"block_size": b}
    extra = " (one-worker cluster: an extra row, not the baseline)" if gpus == 1 else ""
    row = {"row": "apsp fp32 dense, dask" + extra, "n": n, "gpus": gpus, "block": b}
    if kw:
        row["block_size passed"] = b
    G = R = None
    try:
        workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
        ipc = False if args.cpu else device_ipc.enabled(client, workers)
        row["blocks between workers"] = (
            "CUDA IPC" if ipc else "Dask comm (TCP)" if gpus > 1 else "none (one worker)"
        )
        if gpus > 1 and not args.cpu:
            row["ipc decision"] = device_ipc.last_reason
            if not ipc and args.require_ipc:
                raise RuntimeError(f"no CUDA IPC between the workers: {device_ipc.last_reason}")
        t0 = time.perf_counter()
        if args.placement == "owners":
            G = on_owners(client, n, b, workers, args.cpu)
            wait(G)
            row["input placement"] = "each chunk drawn on its block's owner"
        else:
            G = client.persist(dense_graph(n, b, args.cpu))  # where the scheduler puts it
            wait(G)
            try:
                row["input placement"] = placement(client, G, workers)
            except Exception as e:  # noqa: BLE001 (a diagnostic only)
                row["input placement"] = f"unknown ({type(e).__name__}: {e})"
        row["input persisted s (untimed)"] = time.perf_counter() - t0
        calls: list[float] = []

        def call():
            t0 = time.perf_counter()
            R = kleene.apsp(G, client=client, **kw)  # every block computed and checked
            calls.append(time.perf_counter() - t0)
            return settled(client, R)  # the measure: the result persisted too

        stream = None

        def on_timed():
            nonlocal stream
            stream = get_task_stream(client)
            return stream

        stats, R = timed(call, f"apsp fp32 n={n} on {gpus} GPU", repeats, on_timed=on_timed)
        row.update(stats)
        row["call s"] = calls[1:]  # apsp returned (the timed runs, before their persists)
        row["cold call s"] = calls[0]
        if "best s" in row:
            row["T steps/s"] = n**3 / row["best s"] / 1e12
        speedups(row, base)
        if stream is not None and row["runs s"]:
            row["task stream"] = busy(stream.data, sum(row["runs s"]))
        if not args.no_check:
            rows = sample_rows(n)
            # (CuPy rows where G's chunks are CuPy: apsp leaves the result on the GPUs)
            got = kleene.backends.to_host(client.compute(R[rows], sync=True))
            if want is not None:
                err = float(np.max(np.abs(got - want)))
                row["check vs baseline"] = f"rows {rows}: max |diff| {err:.2e}"
                row["ok"] = bool(np.allclose(got, want, rtol=1e-5, atol=1e-6))
                say(f"  check vs baseline: {row['check vs baseline']} ok={row['ok']}")
            else:
                row["check vs baseline"] = "no baseline at this n (--reference checks)"
            if args.reference:
                t0 = time.perf_counter()
                ref, sweeps = apsp_reference_rows(n, b, rows, args.cpu)
                err = float(np.max(np.abs(got - ref)))
                row["check vs reference"] = f"rows {rows}: max |diff| {err:.2e} ({sweeps} sweeps)"
                row["ok reference"] = bool(np.allclose(got, ref, rtol=1e-5, atol=1e-6))
                took = time.perf_counter() - t0
                say(f"  reference check in {took:.1f} s: ok={row['ok reference']}")
    except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
        error_row(row, e)
    finally:
        G = R = None  # noqa: F841 (frees the workers' memory now)
    say("  -> " + summary(row))
    return row


# ---- SSSP ------------------------------------------------------------------------


def sssp_graph(args):
    """(host CSR, the CuPy Matrix (or host one with cpu), sorted sources)."""
    from bench_ingest import build_graph

    t0 = time.perf_counter()
    g, _cand, _facts = build_graph(args.scale, "cpu" if args.cpu else "gpu")
    M = kleene.Matrix.from_scipy(g)
    csr = g if args.cpu else g.get()
    del g
    rng = np.random.default_rng(SEED)
    sources = np.sort(rng.choice(np.flatnonzero(np.diff(csr.indptr)), args.sources, replace=False))
    say(f"RMAT-{args.scale}: n={csr.shape[0]} nnz={csr.nnz} in {time.perf_counter() - t0:.1f} s")
    return csr, M, sources


def sssp_picks(k: int) -> list[int]:
    return sorted({0, k // 2, k - 1})


def sssp_baseline(M, csr, sources, args) -> tuple[dict, np.ndarray | None]:
    k = len(sources)
    row = {
        "row": f"sssp {k} sources, in-process baseline",
        "n": csr.shape[0],
        "nnz": csr.nnz,
        "gpus": 1,
        "call": "kleene.sssp(M_gpu, sources), one process" + (" (cpu)" if args.cpu else ""),
    }
    want = out = None
    try:
        stats, out = timed(
            lambda: kleene.sssp(M, sources),
            f"sssp {k} sources in-process",
            args.sssp_repeats,
            args.baseline_warmups,
            done=lambda: sync(args.cpu),
        )
        row.update(stats)
        xp = array_module(args.cpu) if type(out).__module__.startswith("cupy") else np
        want = kleene.backends.to_host(out[xp.asarray(sssp_picks(k))])
    except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
        error_row(row, e)
    finally:
        del out
        free_device(args.cpu)
    say("  -> " + summary(row))
    return row, want


def sssp_dask_rows(client, gpus: int, csr, sources, base, want, args) -> list[dict]:
    from kleene.distributed import load_graph, sssp_on_dask

    k = len(sources)
    picks = sssp_picks(k)
    extra = " (one-worker cluster: an extra row, not the baseline)" if gpus == 1 else ""
    row = {
        "row": f"sssp {k} sources, dask, loaded graph, dask.array result" + extra,
        "n": csr.shape[0],
        "nnz": csr.nnz,
        "gpus": gpus,
    }
    rows = [row]
    H = R = None
    try:
        t0 = time.perf_counter()
        H = load_graph(client, csr)
        row["load_graph s (untimed)"] = time.perf_counter() - t0
        say(f"  load_graph {row['load_graph s (untimed)']:.2f} s")
        calls: list[float] = []

        def call():
            t0 = time.perf_counter()
            R = sssp_on_dask(client, H, sources, as_dask_array=True)  # batches done on return
            calls.append(time.perf_counter() - t0)
            return settled(client, R)

        stats, R = timed(call, f"sssp {k} sources on {gpus} GPU", args.sssp_repeats)
        row.update(stats)
        row["call s"] = calls[1:]
        row["cold call s"] = calls[0]
        speedups(row, base)
        if want is not None and not args.no_check:
            got = kleene.backends.to_host(client.compute(R[picks], sync=True))
            row["check"] = f"rows {picks} vs in-process baseline"
            row["ok"] = bool(np.allclose(got, want, rtol=1e-6))
    except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
        error_row(row, e)
    finally:
        del R
        if H is not None:
            H.release()
    if args.gather:
        row2 = {
            "row": f"sssp {k} sources from a host CSR, NumPy result (one call)" + extra,
            "n": csr.shape[0],
            "nnz": csr.nnz,
            "gpus": gpus,
        }
        rows.append(row2)
        out = None
        try:
            stats, out = timed(
                lambda: kleene.sssp(csr, sources, client=client), "sssp, NumPy back", 0
            )
            row2.update(stats)
            if want is not None and not args.no_check:
                row2["ok"] = bool(np.allclose(out[picks], want, rtol=1e-6))
        except Exception as e:  # noqa: BLE001 (the row records it; the run goes on)
            error_row(row2, e)
        finally:
            del out
    for r in rows:
        say("  -> " + summary(r))
    return rows


# ---- the run ---------------------------------------------------------------------


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
        default=[131072],
        help="n run on the largest GPU count only, no baseline",
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
