"""Betweenness centrality from 64 sampled sources: kleene beside its peers.

    python benchmarks/bench_betweenness.py --device cpu --out results.json
    PYTHONPATH=. python3 benchmarks/bench_betweenness.py --device gpu --scales 18 20 22

GPU (median of ``--repeat`` after a warm-up, device synchronised): symmetric R-MAT
graphs (edge factor 16, unit weights, self-loops dropped; built
on the device as ``.gl/gap_quick.py`` builds them), a ``kleene.Matrix`` on the GPU,
``kleene.betweenness_centrality(A, k=64, seed=1, directed=False)``; the composed twin
(``fused=False``) beside it where it fits. CPU: ego-Facebook (social) and USA-road-NY
(road) from ``--data``, unweighted, and Rome99 (a weighted road graph), 64 sources:
kleene on a ``kleene.Matrix``, igraph ``Graph.betweenness(sources=...)`` (the same
sources), NetworKit ``EstimateBetweenness(G, 64, parallel=True)`` (64 sources of its
own sampling: the same work), NetworkX ``betweenness_centrality(k=64, seed=1)``.
graphblas-algorithms has no betweenness. Every peer's graph is built before the
clock; a CPU time is the best of ``--repeat`` calls after one warm-up, all in one process,
the tools taking turns.
kleene's answers are checked against igraph's (same sources, 1e-9 relative).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

K = 64


def _best(f, repeat: int, sync=lambda: None, stat=min, warm: bool = True) -> float:
    if warm:
        f()
        sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        sync()
        times.append(time.perf_counter() - t0)
    return 1e3 * float(stat(times))


def gpu(scales, repeat: int) -> list[dict]:
    import cupy

    sync = cupy.cuda.Device().synchronize
    rows = []
    for scale in scales:
        rows.append(_gpu_row(scale, repeat, sync))
    return rows


def _gpu_row(scale: int, repeat: int, sync) -> dict:
    import cupy

    import kleene
    from kleene.generators import rmat

    src, dst = rmat(scale, 16, undirected=True, device="gpu")
    n = 1 << scale
    keep = src != dst
    ones = cupy.ones(int(keep.sum()), dtype=cupy.float32)
    A = kleene.Matrix.from_edges(src[keep], dst[keep], ones, n=n, ncols=n)
    A = kleene.ops.symmetrize(A)
    row = {"scale": scale, "n": n, "nnz": A.nvals}
    if scale <= 18:  # the answer: the CPU kernel's on a host copy
        got = kleene.betweenness_centrality(A, k=K, seed=1, directed=False)
        want = kleene.betweenness_centrality(A.to("cpu"), k=K, seed=1, directed=False)
        row["gpu = cpu kernel"] = bool(np.allclose(cupy.asnumpy(got), want, rtol=1e-9, atol=0))
    for name, kw in (("fused", {}), ("composed", {"fused": False})):
        if name == "composed" and scale > 18:
            continue
        try:
            f = lambda kw=kw: kleene.betweenness_centrality(  # noqa: E731
                A, k=K, seed=1, directed=False, **kw
            )
            row[f"{name} ms"] = round(_best(f, repeat, sync), 2)
        except Exception as e:  # report, keep going
            row[name] = f"{type(e).__name__}: {str(e)[:160]}"
    try:
        f = lambda: kleene.edge_betweenness_centrality(A, k=K, seed=1, directed=False)  # noqa: E731
        row["edge ms"] = round(_best(f, repeat, sync), 2)
    except Exception as e:
        row["edge"] = f"{type(e).__name__}: {str(e)[:160]}"
    print(row, flush=True)
    return row


def _graphs(data: Path):
    import kleene

    out = {}
    fb = data / "facebook_combined.txt.gz"
    if fb.exists():
        out["social: facebook"] = (kleene.io.read(fb), False)
    ny = data / "USA-road-NY.pace.gr.xz"
    if ny.exists():
        out["road: USA-road-NY"] = (kleene.io.read(ny), False)
    rome = data / "rome99.gr"
    if rome.exists():
        out["road: rome99 (weighted)"] = (kleene.io.read(rome), True)
    return out


def cpu(data: Path, repeat: int) -> list[dict]:

    rows = []
    for name, (M, weighted) in _graphs(data).items():
        rows.append(_cpu_row(name, M, weighted, repeat))
    return rows


def _cpu_row(name: str, M, weighted: bool, repeat: int) -> dict:
    import igraph
    import networkit as nk
    import networkx as nx

    import kleene

    S = sp.csr_matrix(M.to_scipy() if hasattr(M, "to_scipy") else M)
    S = S.maximum(S.T).tocsr()  # undirected
    n = S.shape[0]
    A = kleene.Matrix.from_scipy(S)
    weight = True if weighted else None
    wi = "weight" if weighted else None
    sources = random.Random(1).sample(range(n), K)
    row = {"graph": name, "n": n, "edges": S.nnz // 2, "threads": os.cpu_count()}
    coo = sp.triu(S).tocoo()
    g = igraph.Graph(n=n, edges=np.c_[coo.row, coo.col].tolist(), directed=False)
    g.es["weight"] = coo.data.astype(np.float64).tolist()
    G = nk.Graph(n, weighted=weighted, directed=False)
    for u, v, w in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True):
        if weighted:
            G.addEdge(u, v, float(w))
        else:
            G.addEdge(u, v)
    nk.setNumberOfThreads(os.cpu_count() or 1)
    tools = {
        "kleene": lambda: kleene.betweenness_centrality(
            A, k=K, seed=1, directed=False, normalized=False, weight=weight
        ),
        "igraph": lambda: g.betweenness(directed=False, sources=sources, weights=wi),
        "NetworKit": lambda: nk.centrality.EstimateBetweenness(G, K, False, True).run(),
    }
    got = tools["kleene"]()
    ref = np.asarray(tools["igraph"]())
    # kleene rescales the sampled sums by (n - 1) / k (NetworkX's rule without the end
    # vertices; the sources apart), igraph sums them; both halve an undirected graph's
    other = np.ones(n, dtype=bool)
    other[sources] = False
    want = ref[other] * (n - 1) / K
    row["kleene = igraph"] = bool(np.allclose(got[other], want, rtol=1e-9, atol=1e-9))
    for f in tools.values():
        f()  # warm-up
    times = {t: [] for t in tools}
    for _ in range(repeat):  # interleaved: a load that comes and goes hits every tool
        for t, f in tools.items():
            times[t].append(_best(f, 1, warm=False))
    for t in tools:
        row[f"{t} ms"] = round(min(times[t]), 2)
    if n <= 10_000 or not weighted:
        H = nx.Graph()
        H.add_nodes_from(range(n))
        H.add_weighted_edges_from(
            zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True)
        )
        row["NetworkX ms"] = round(
            _best(  # pure Python: one call, no warm-up
                lambda: nx.betweenness_centrality(H, k=K, seed=1, weight=wi, normalized=False),
                1,
                warm=False,
            ),
            1,
        )
    peers = [row[k] for k in ("igraph ms", "NetworKit ms", "NetworkX ms") if k in row]
    row["kleene / best peer"] = round(row["kleene ms"] / min(peers), 3)
    print(row, flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--scales", type=int, nargs="+", default=[18, 20, 22])
    ap.add_argument("--repeat", type=int, default=5)
    here = Path(__file__).resolve().parent
    default = os.environ.get("KLEENE_DATA", str(here.parent.parent / "shared" / "data"))
    ap.add_argument("--data", default=default)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.device == "gpu":
        rows = gpu(args.scales, args.repeat)
    else:
        rows = cpu(Path(args.data), args.repeat)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
