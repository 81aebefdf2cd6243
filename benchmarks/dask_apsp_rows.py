"""bench_dask_gpu.py's APSP rows: the dense fp32 graph drawn as b × b chunks from
per-chunk seeds, the in-process one-GPU baseline, the persisted dask.array input
(placed by the scheduler or on the blocks' owners), and the timed cluster call."""

from __future__ import annotations

import ast
import time

import numpy as np
from dask_harness import (
    SEED,
    array_module,
    error_row,
    free_device,
    say,
    settled,
    speedups,
    summary,
    sync,
    timed,
    timed_on_cluster,
)

import kleene


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
    from distributed import wait

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

        label = f"apsp fp32 n={n} on {gpus} GPU"
        R = timed_on_cluster(client, call, label, repeats, row)
        row["call s"] = calls[1:]  # apsp returned (the timed runs, before their persists)
        row["cold call s"] = calls[0]
        if "best s" in row:
            row["T steps/s"] = n**3 / row["best s"] / 1e12
        speedups(row, base)
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
