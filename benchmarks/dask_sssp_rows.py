"""bench_dask_gpu.py's SSSP rows: 128 sources on the symmetric RMAT graph of
bench_ingest, kleene.sssp in one process on one GPU against load_graph +
sssp_on_dask on the cluster."""

from __future__ import annotations

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

        label = f"sssp {k} sources on {gpus} GPU"
        R = timed_on_cluster(client, call, label, args.sssp_repeats, row)
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
