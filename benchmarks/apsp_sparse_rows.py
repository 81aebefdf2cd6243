"""Sparse all-pairs rows of bench_apsp.py (issue 12): real and generated sparse graphs,
with predecessors, kleene's sparse methods, the dense blocked closure and ``auto``
beside SciPy's ``shortest_path`` on the same host in the same run — the data behind
``auto``'s choice between the dense closure and batched SSSP on the GPU.

Each kleene row is the public call on a scipy CSR of the graph's weights, moved to
the device first for ``--device gpu`` (a cupyx CSR, as a user passes it), median
wall time with a device sync, after one warm-up. SciPy runs Dijkstra
(``method="D"``) with ``return_predecessors=True`` on one core of the host; past
``SCIPY_ALL`` vertices on a sample of sources, scaled to all n (marked "estimated").
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from common import wall_time

import kleene

# (label, file in the data folder or a generator spec, directed): rome99 is a directed
# road graph of 3,353 vertices; facebook_combined a 4,039-vertex SNAP graph
# (undirected); road:RxC the generated road-like grids (kleene.generators.road_graph).
GRAPHS = (
    ("rome99", "rome99.gr", True),
    ("facebook (SNAP)", "facebook_combined.txt.gz", False),
    ("road 64x64", "road:64x64", False),
    ("road 128x128", "road:128x128", False),
)
METHODS = ("repeated-sssp", "johnson", "blocked", "auto")
SCIPY_ALL = 5000  # larger graphs: SciPy on SCIPY_SAMPLE sources, scaled to n
SCIPY_SAMPLE = 512


def _graph(data: Path, name: str, directed: bool):
    """A float64 scipy CSR of positive weights (unit where the file has none; the
    generated graphs get integer weights in [1, 100) drawn with seed 5)."""
    if name.startswith("road:"):
        G = kleene.generators.from_spec(name)
        S = G.to_scipy().astype(np.float64).tocsr()
        S.data = np.random.default_rng(5).integers(1, 100, S.nnz).astype(np.float64)
        return S.maximum(S.T).tocsr()  # one weight per street, both ways
    G = kleene.io.read(data / name, directed=directed)
    S = G.to_scipy().astype(np.float64).tocsr()
    if G.dtype == np.bool_:
        S.data[:] = 1.0
    return S


def _scipy(S):
    """(ms, distances or None, estimated?): SciPy's Dijkstra with predecessors."""
    from scipy.sparse.csgraph import shortest_path

    n = S.shape[0]
    if n <= SCIPY_ALL:
        t = time.perf_counter()
        d, _ = shortest_path(S, method="D", return_predecessors=True)
        return 1e3 * (time.perf_counter() - t), d, False
    idx = np.random.default_rng(0).choice(n, SCIPY_SAMPLE, replace=False)
    t = time.perf_counter()
    shortest_path(S, method="D", return_predecessors=True, indices=idx)
    return 1e3 * (time.perf_counter() - t) * n / SCIPY_SAMPLE, None, True


def rows(data: Path, device: str, repeat: int = 3, max_n: int | None = None) -> list[dict]:
    """One row per (graph, method), SciPy's first; skips graphs whose file is absent and
    those above ``max_n`` vertices (default: all on the GPU, 5,000 on the CPU, where the
    dense closure of road 128x128 alone takes minutes)."""
    max_n = max_n if max_n is not None else (SCIPY_ALL if device == "cpu" else None)
    out = []
    for label, name, directed in GRAPHS:
        if not name.startswith("road:") and not (data / name).exists():
            print(f"no {name} in {data}: {label} rows skipped", file=sys.stderr)
            continue
        S = _graph(data, name, directed)
        if max_n is not None and S.shape[0] > max_n:
            print(f"{label}: n={S.shape[0]} > {max_n}, skipped", file=sys.stderr)
            continue
        base = {"graph": label, "n": S.shape[0], "edges": int(S.nnz)}
        print(
            f"[{label}] n={S.shape[0]} scipy shortest_path(D, predecessors) ...",
            file=sys.stderr,
            flush=True,
        )
        scipy_ms, want_d, estimated = _scipy(S)
        call = "scipy shortest_path(D) (host CPU, 1 core)" + (", estimated" if estimated else "")
        out.append({**base, "call": call, "ms": scipy_ms})
        G = S
        if device == "gpu":
            import cupyx.scipy.sparse as cps

            G = cps.csr_matrix(S)
        for method in METHODS:
            print(f"[{label}] kleene.apsp({method}, predecessors) ...", file=sys.stderr, flush=True)

            def call(method=method, G=G):
                return kleene.apsp(G, method=method, return_predecessors=True)

            try:
                t = wall_time(call, device=device, repeat=repeat)
                ms, runs = t["median_ms"], t["runs"]
            except MemoryError as e:
                out.append(
                    {
                        **base,
                        "call": f"kleene.apsp({method}, predecessors) ({device})",
                        "ms": None,
                        "note": f"MemoryError: {str(e)[:120]}",
                    }
                )
                continue
            row = {
                **base,
                "call": f"kleene.apsp({method}, predecessors) ({device})",
                "ms": ms,
                "runs": runs,
                "x SciPy": scipy_ms / ms,
                "target": ">= 4x SciPy",
            }
            if want_d is not None:
                d = kleene.backends.to_host(call()[0])
                row["same distances"] = bool(np.allclose(d, want_d, rtol=1e-9, atol=0))
            out.append(row)
            print(f"    {ms:.1f} ms ({scipy_ms / ms:.1f}x SciPy)", file=sys.stderr)
    return out
