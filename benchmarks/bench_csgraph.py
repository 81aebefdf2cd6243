"""kleene.csgraph against scipy.sparse.csgraph, function by function (issue 43).

    PYTHONPATH=. python3 benchmarks/bench_csgraph.py --out benchmarks/results/csgraph_cpu.json
    #   --data DIR (default ../shared/data)   --repeat 5   --only dijkstra,yen   --quick
    PYTHONPATH=. python3 benchmarks/bench_csgraph.py --device gpu --out csgraph_gpu.json
    #   --scale 18 (RMAT scale of the GPU graphs; the grid has 2^scale vertices)

CPU: every function of kleene.csgraph and SciPy's of the same name on the same input
(a SciPy CSR, or a dense array where the function takes one), in one process: both
warmed up (kleene's compiled kernels included), then the two run in turn ``--repeat``
rounds (a round: as many calls in a row as take about 20 ms, at least one) and each
keeps its best round's time per call; 'ratio' = kleene / SciPy (below 1: kleene faster).
Every row checks that both give the same answer (distances, orders, labels; for
predecessors, that they describe paths of the same lengths).

Graphs, read from --data (never copied): USA-road-NY (PACE, undirected, unweighted:
integer weights 1..100, seeded), facebook_combined (undirected), p2p-Gnutella08
(directed) with the same weights, rome99 (directed, DIMACS weights). Floyd-Warshall
and construct_dist_matrix run on the first 1000 vertices (SciPy's is an O(n³) loop).

GPU (``--device gpu``): kleene.csgraph on a cupyx CSR against SciPy on the host copy
(and, for connected_components, against cupyx.scipy.sparse.csgraph) on RMAT and a
road-like grid of ≥ 1M edges (kleene.generators), times by the host clock around the
call and a device synchronisation, the input already on its device, best of as many
calls as fill about 20 ms (at least ``--repeat``; SciPy: best of three host calls, or as
many as fill 20 ms, one for many sources). cupyx's connected_components needs pylibcugraph; a
peer that fails is reported and its row left out.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as S

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import host_facts, wall_time, write_results  # noqa: E402

from kleene import csgraph as K  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
FILES = {
    "USA-road-NY": "USA-road-NY.pace.gr.xz",
    "facebook": "facebook_combined.txt.gz",
    "p2p-Gnutella08": "p2p-Gnutella08.txt",
    "rome99": "rome99.gr",
}
WEIGHTED = {"rome99"}
UNDIRECTED = {"USA-road-NY", "facebook"}
SEED = 3
SMALL = 1000  # vertices of the Floyd-Warshall and construct_dist_matrix rows


def load(data: Path, name: str):
    """A float64 SciPy CSR of the graph (weights 1..100 where the file has none)."""
    import kleene.io

    A = kleene.io.read(data / FILES[name]).to_scipy().tocsr()
    A = sp.csr_array(A, dtype=np.float64)
    if name == "facebook":  # SNAP lists each undirected edge once
        A = sp.csr_array(A + A.T)
    if name in UNDIRECTED:  # one weight per street, the same both ways
        U = sp.triu(A, 1, format="csr")
        U.data = np.random.default_rng(SEED).integers(1, 101, U.nnz).astype(np.float64)
        A = sp.csr_array(U + U.T)
    elif name not in WEIGHTED:
        A.data = np.random.default_rng(SEED).integers(1, 101, A.nnz).astype(np.float64)
    A.sum_duplicates()
    A.sort_indices()
    return A


def per_call(fn, calls: int) -> float:
    """Milliseconds per call of ``calls`` calls in a row."""
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return 1e3 * (time.perf_counter() - t0) / calls


def calls_for(fn) -> int:
    """Calls per timed round: enough for about 20 ms (a sub-millisecond call timed
    alone is mostly clock and cache noise)."""
    return max(1, min(200, int(20.0 / max(per_call(fn, 1), 1e-3))))


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    if sp.issparse(a):
        return (a != b).nnz == 0
    if isinstance(a, (int, np.integer, float)):
        return a == b
    return np.allclose(np.asarray(a), np.asarray(b), equal_nan=True)


def same_partition(a, b) -> bool:
    """Whether two labellings split the vertices the same way (numbering aside)."""
    pairs = set(zip(np.asarray(a).tolist(), np.asarray(b).tolist(), strict=True))
    return len(pairs) == len(set(np.asarray(a).tolist())) == len(set(np.asarray(b).tolist()))


def paths_agree(kout, sout) -> bool:
    """Distances equal; predecessors may differ on ties, so only the distances count."""
    return same(kout[0], sout[0])


def tasks(name: str, A, dense_small, quick: bool):
    """(function, call label, kleene call, scipy call, check) for one graph."""
    n = A.shape[0]
    directed = name not in UNDIRECTED
    rng = np.random.default_rng(0)
    src = int(np.argmax(np.diff(A.indptr)))
    many = np.sort(rng.choice(n, size=min(64, n), replace=False))
    few = many[:4]
    lvl = S.breadth_first_order(A, src, directed)[0]
    sink = int(lvl[min(len(lvl) - 1, 40)])  # a vertex some hops away
    k_paths = 3 if name == "USA-road-NY" else 5  # (each of Yen's spurs is a full search)
    small = sp.csr_array(A[:SMALL, :SMALL])
    d_small, p_small = S.floyd_warshall(small, directed, return_predecessors=True)
    _, p1 = S.dijkstra(A, directed, src, return_predecessors=True)
    masked_small = S.csgraph_masked_from_dense(dense_small)  # (built once: not timed)
    out = [
        ("dijkstra", "1 source", lambda m: m.dijkstra(A, directed, src), same),
        ("dijkstra", "64 sources", lambda m: m.dijkstra(A, directed, many), same),
        (
            "dijkstra",
            "64 sources, min_only",
            lambda m: m.dijkstra(A, directed, many, min_only=True),
            same,
        ),
        (
            "dijkstra",
            "1 source, predecessors",
            lambda m: m.dijkstra(A, directed, src, return_predecessors=True),
            paths_agree,
        ),
        (
            "dijkstra",
            "64 sources, limit 300",
            lambda m: m.dijkstra(A, directed, many, limit=300),
            same,
        ),
        (
            "shortest_path",
            "4 sources",
            lambda m: m.shortest_path(A, "auto", directed, indices=few),
            same,
        ),
        ("bellman_ford", "1 source", lambda m: m.bellman_ford(A, directed, src), same),
        ("johnson", "4 sources", lambda m: m.johnson(A, directed, few), same),
        (
            "floyd_warshall",
            f"first {SMALL} vertices",
            lambda m: m.floyd_warshall(small, directed),
            same,
        ),
        (
            "shortest_path",
            f"all pairs, first {SMALL} vertices",
            lambda m: m.shortest_path(small, directed=directed),
            same,
        ),
        (
            "construct_dist_matrix",
            f"first {SMALL} vertices",
            lambda m: m.construct_dist_matrix(small, p_small, directed),
            same,
        ),
        (
            "yen",
            f"K={k_paths}, {src}->{sink}",
            lambda m: m.yen(A, src, sink, k_paths, directed=directed),
            same,
        ),
        ("breadth_first_order", "", lambda m: m.breadth_first_order(A, src, directed), same),
        ("depth_first_order", "", lambda m: m.depth_first_order(A, src, directed), same),
        ("breadth_first_tree", "", lambda m: m.breadth_first_tree(A, src, directed), same),
        ("depth_first_tree", "", lambda m: m.depth_first_tree(A, src, directed), same),
        (
            "reconstruct_path",
            "1 source",
            lambda m: m.reconstruct_path(A, p1[0] if p1.ndim > 1 else p1, directed),
            same,
        ),
        ("connected_components", "weak", lambda m: m.connected_components(A, True, "weak"), same),
        (
            "connected_components",
            "strong",
            lambda m: m.connected_components(A, True, "strong"),
            same,
        ),
        ("csgraph_from_dense", f"{SMALL}²", lambda m: m.csgraph_from_dense(dense_small), same),
        ("csgraph_to_dense", f"{SMALL}²", lambda m: m.csgraph_to_dense(small), same),
        (
            "csgraph_masked_from_dense",
            f"{SMALL}²",
            lambda m: m.csgraph_masked_from_dense(dense_small),
            lambda a, b: same(a.filled(0), b.filled(0)),
        ),
        (
            "csgraph_from_masked",
            f"{SMALL}²",
            lambda m: m.csgraph_from_masked(masked_small),
            same,
        ),
    ]
    if name == "USA-road-NY":  # SciPy's Bellman-Ford and Johnson pass over every edge per round
        out = [t for t in out if t[0] not in ("bellman_ford", "johnson")]
    if quick:
        out = [
            t for t in out if t[0] in ("dijkstra", "breadth_first_order", "connected_components")
        ]
    return out


def run_cpu(args) -> list[dict]:
    rows = []
    only = set(args.only.split(",")) if args.only else None
    for name in args.graphs.split(","):
        A = load(Path(args.data), name)
        small = A[:SMALL, :SMALL].toarray()
        print(f"{name}: n={A.shape[0]} nnz={A.nnz}", flush=True)
        for func, label, call, check in tasks(name, A, small, args.quick):
            if only and func not in only:
                continue
            kout, sout = call(K), call(S)  # warm-up (compilation) and the check
            call(K), call(S)
            ok = check(kout, sout)
            tk, ts = [], []
            nk, ns = calls_for(lambda c=call: c(K)), calls_for(lambda c=call: c(S))
            for _ in range(args.repeat):  # in turn: the machine's load falls on both
                tk.append(per_call(lambda c=call: c(K), nk))
                ts.append(per_call(lambda c=call: c(S), ns))
            row = {
                "graph": name,
                "function": func,
                "call": label,
                "kleene ms": round(min(tk), 3),
                "scipy ms": round(min(ts), 3),
                "ratio": round(min(tk) / min(ts), 3),
                "same answer": bool(ok),
            }
            print(row, flush=True)
            rows.append(row)
    return rows


def run_gpu(args) -> list[dict]:
    import cupy as cp
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.csgraph as CS

    import kleene
    from kleene.generators import grid_graph, rmat

    rows = []
    graphs = {}
    r, c = rmat(args.scale, 16, seed=1, undirected=True)
    w = np.random.default_rng(SEED).integers(1, 101, r.size).astype(np.float64)
    R = kleene.Matrix.from_edges(r, c, w, 1 << args.scale).to_scipy()
    graphs[f"rmat{args.scale}"] = sp.csr_array(R)
    # directed R-MAT (its strong components are not its weak ones): strong rows only
    r, c = rmat(args.scale, 16, seed=1)
    D = kleene.Matrix.from_edges(r, c, np.ones(r.size), 1 << args.scale).to_scipy()
    graphs[f"rmat{args.scale} directed"] = sp.csr_array(D)
    side = 1 << ((args.scale + 1) // 2)  # 2^scale vertices: ≥ 1M directed edges from scale 18
    Gm = sp.csr_array(grid_graph(side, side, weights=(1, 100), seed=SEED).to_scipy())
    graphs[f"grid{side}x{side}"] = sp.csr_array(Gm, dtype=np.float64)
    for name, A in graphs.items():
        G = csp.csr_matrix(sp.csr_matrix(A))
        n = A.shape[0]
        src = int(np.argmax(np.diff(A.indptr)))
        many = np.sort(np.random.default_rng(0).choice(n, size=64, replace=False))
        print(f"{name}: n={n} nnz={A.nnz}", flush=True)
        cases = [
            ("dijkstra", "1 source", lambda m, g, src=src: m.dijkstra(g, False, src), S),
            ("dijkstra", "64 sources", lambda m, g, many=many: m.dijkstra(g, False, many), S),
            (
                "shortest_path",
                "64 sources",
                lambda m, g, many=many: m.shortest_path(g, directed=False, indices=many),
                S,
            ),
            ("connected_components", "weak", lambda m, g: m.connected_components(g, False), S),
            (
                "connected_components",
                "weak, vs cupyx",
                lambda m, g: m.connected_components(g, False),
                CS,
            ),
            (
                "connected_components",
                "strong",
                lambda m, g: m.connected_components(g, True, "strong"),
                S,
            ),
            (
                "connected_components",
                "strong, vs cupyx",
                lambda m, g: m.connected_components(g, True, "strong"),
                CS,
            ),
        ]
        if name.endswith("directed"):
            cases = [case for case in cases if case[1].startswith("strong")]
        for func, label, call, base in cases:
            # a sub-millisecond call timed alone is mostly clock noise: as many timed
            # calls as fill about 20 ms (each still synchronised), at least --repeat
            sync = cp.cuda.Device().synchronize
            reps = _repeats(lambda c=call, G=G: c(K, G), args.repeat, sync=sync)
            kt = wall_time(lambda c=call, G=G: c(K, G), device="gpu", warmup=2, repeat=reps)
            kout = _host(call(K, G))
            try:
                if base is S:  # SciPy on the host: best of a few (one for many sources)
                    reps = 1 if "sources" in label and "1 source" not in label else 3
                    if reps > 1:  # (SciPy's fast calls get as many tries as kleene's)
                        reps = _repeats(lambda c=call, A=A: c(S, A), reps)
                    bt, bout = _host_best(lambda c=call, A=A: c(S, A), reps)
                    peer = "scipy (host)"
                else:
                    bt = wall_time(
                        lambda c=call, G=G: c(CS, G), device="gpu", warmup=2, repeat=reps
                    )["min_ms"]
                    bout = _host(call(CS, G))
                    peer = "cupyx"
            except Exception as err:  # e.g. cupyx's components need pylibcugraph
                print(f"{name} {func} {label}: peer failed: {type(err).__name__}: {err}")
                continue
            if "components" in func:  # (a GPU graph's strong labels: by smallest vertex)
                ok = kout[0] == bout[0] and same_partition(kout[1], bout[1])
            else:
                ok = same(kout, bout)
            row = {
                "graph": name,
                "function": func,
                "call": label,
                "peer": peer,
                "kleene ms": round(kt["min_ms"], 3),
                "peer ms": round(bt, 3),
                "speed-up": round(bt / kt["min_ms"], 2),
                "same answer": bool(ok),
            }
            print(row, flush=True)
            rows.append(row)
            args.flush(rows)  # every row as it comes: a run cut short keeps what it measured
        del G
        cp.get_default_memory_pool().free_all_blocks()
    return rows


def _repeats(fn, least: int, sync=lambda: None) -> int:
    """Timed calls for a row: enough to fill about 20 ms, at least ``least``, at most 50."""
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    ms = 1e3 * (time.perf_counter() - t0)
    return max(least, min(50, int(20.0 / max(ms, 1e-3))))


def _host_best(fn, reps: int):
    """(best milliseconds, last result) of ``reps`` host calls."""
    best_ms, out = np.inf, None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        best_ms = min(best_ms, 1e3 * (time.perf_counter() - t0))
    return best_ms, out


def _host(x):
    if isinstance(x, tuple):
        return tuple(_host(v) for v in x)
    return x.get() if hasattr(x, "get") and not sp.issparse(x) else x


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--data", default=str(DATA))
    p.add_argument("--graphs", default="rome99,p2p-Gnutella08,facebook,USA-road-NY")
    p.add_argument("--only", default="", help="comma-separated function names")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--scale", type=int, default=18)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default="")
    args = p.parse_args()
    facts = host_facts()
    cmd = "PYTHONPATH=. python3 benchmarks/bench_csgraph.py " + " ".join(sys.argv[1:])

    def flush(rows):
        if args.out:
            write_results(args.out, f"csgraph_{args.device}", rows, {"host": facts, "command": cmd})

    args.flush = flush
    rows = run_gpu(args) if args.device == "gpu" else run_cpu(args)
    try:
        facts["loadavg end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    flush(rows)


if __name__ == "__main__":
    main()
