"""What the Dask benchmarks share (bench_dask_gpu.py, bench_partitioned.py): the
clock (cold call apart, then timed calls), clusters (dask-cuda, or CPU workers with
``--cpu``), device synchronisation and release, the task stream's busy shares, and
the rows' speed-ups, summaries and errors."""

from __future__ import annotations

import os
import statistics
import sys
import time
import traceback

import numpy as np

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast off in every process

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


def timed(fn, label: str, repeats: int, warmups: int = 0, done=None, on_timed=None, on_cold=None):
    """The first (cold) call, ``warmups`` untimed calls, then ``repeats`` timed calls of
    ``fn``; ``done()`` runs inside each clock after ``fn`` (a device synchronisation).
    Each result is dropped before the next call starts (the device's memory).
    ``on_timed`` / ``on_cold``: context managers entered around the timed calls only /
    the cold call only (a task stream of each, to see what a first call pays for).
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

    with on_cold() if on_cold is not None else contextlib.nullcontext():
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


def timed_on_cluster(client, fn, label: str, repeats: int, row: dict):
    """:func:`timed` of a cluster call, its stats put in ``row`` with where the workers'
    time went (:func:`busy`) over the timed calls ("task stream") and over the cold
    one ("task stream, cold call": what a first call pays that later ones do not);
    the last result."""
    from distributed import get_task_stream

    streams: dict = {}

    def recorded(name: str):
        def enter():
            streams[name] = get_task_stream(client)
            return streams[name]

        return enter

    stats, out = timed(fn, label, repeats, on_timed=recorded("timed"), on_cold=recorded("cold"))
    row.update(stats)
    if "timed" in streams and stats["runs s"]:
        row["task stream"] = busy(streams["timed"].data, sum(stats["runs s"]))
    if "cold" in streams:
        row["task stream, cold call"] = busy(streams["cold"].data, stats["cold s"])
    return out


def busy(records: list[dict], wall: float) -> dict:
    """Where the workers' time went over the calls ``records`` (a task stream) spans:
    per worker the seconds its
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
