"""Sparse all-pairs rows of bench_apsp.py (issue 12): real sparse graphs, with
predecessors, kleene's sparse methods and ``auto`` beside SciPy's ``shortest_path``
on the same host in the same run.

Each kleene row is the public call on a scipy CSR of the graph's weights, moved to
the device first for ``--device gpu`` (a cupyx CSR, as a user passes it), median
wall time with a device sync, after one warm-up. SciPy runs Dijkstra
(``method="D"``) with ``return_predecessors=True`` on one core of the host.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

import kleene

# (label, file in the data folder, directed): rome99 is a directed road graph of
# 3,353 vertices; facebook_combined a 4,039-vertex SNAP graph (undirected).
GRAPHS = (
    ("rome99", "rome99.gr", True),
    ("facebook (SNAP)", "facebook_combined.txt.gz", False),
)
METHODS = ("repeated-sssp", "johnson", "auto")


def _wall_ms(fn, device: str, repeat: int) -> tuple[float, int]:
    sync = (lambda: None) if device == "cpu" else _cupy_sync()
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append(1e3 * (time.perf_counter() - t))
    return statistics.median(times), len(times)


def _cupy_sync():
    import cupy

    return cupy.cuda.Device().synchronize


def _graph(data: Path, name: str, directed: bool):
    """A float64 scipy CSR of positive weights (unit where the file has none)."""
    G = kleene.io.read(data / name, directed=directed)
    S = G.to_scipy().astype(np.float64).tocsr()
    if G.dtype == np.bool_:
        S.data[:] = 1.0
    return S


def rows(data: Path, device: str, repeat: int = 3) -> list[dict]:
    """One row per (graph, method), SciPy's first; skips graphs whose file is absent."""
    from scipy.sparse.csgraph import shortest_path

    out = []
    for label, name, directed in GRAPHS:
        if not (data / name).exists():
            print(f"no {name} in {data}: {label} rows skipped", file=sys.stderr)
            continue
        S = _graph(data, name, directed)
        n, base = S.shape[0], {"graph": label, "n": S.shape[0], "edges": int(S.nnz)}
        print(f"[{label}] scipy shortest_path(D, predecessors) ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        want_d, want_p = shortest_path(S, method="D", return_predecessors=True)
        scipy_ms = 1e3 * (time.perf_counter() - t)
        out.append({**base, "call": "scipy shortest_path(D) (host CPU, 1 core)", "ms": scipy_ms})
        G = S
        if device == "gpu":
            import cupyx.scipy.sparse as cps

            G = cps.csr_matrix(S)
        for method in METHODS:
            print(f"[{label}] kleene.apsp({method}, predecessors) ...", file=sys.stderr, flush=True)

            def call(method=method, G=G):
                return kleene.apsp(G, method=method, return_predecessors=True)

            ms, runs = _wall_ms(call, device, repeat)
            d, p = call()
            d = kleene.ops.to_host(d)
            same = bool(np.allclose(d, want_d, rtol=1e-9, atol=0, equal_nan=False))
            out.append({**base, "call": f"kleene.apsp({method}, predecessors) ({device})",
                        "ms": ms, "runs": runs, "x SciPy": scipy_ms / ms,
                        "target": ">= 4x SciPy", "same distances": same})  # fmt: skip
            print(f"    {ms:.1f} ms ({scipy_ms / ms:.1f}x SciPy), same: {same}", file=sys.stderr)
        del want_p, n
    return out
