"""The papers' tables, re-run side by side: kleene GPU / kleene CPU / scipy.sparse.csgraph /
python-graphblas / networkx on the same fresh seeded graph per row, each "where it finishes".

    PYTHONPATH=. python3 benchmarks/papers.py --preset quick              # seconds, any CPU
    PYTHONPATH=. python3 benchmarks/papers.py --preset full --tables buluc,katz \
        --out benchmarks/results/papers_h100.json                        # the papers' sizes

Tables (see benchmarks/paper_tables.md): harish (Harish & Narayanan 2007, Figs. 4-7 and
Table 1), pathak (Pathak et al., BFS/SSSP/APSP graphs 1 and 5), katz (Katz & Kider 2008
Table 1, blocked FW), singh (Singh et al. Tables 1-2, SNAP graphs), buluc (Buluç et al. 2010
Tables 1-2, iterative vs recursive APSP).

Every tool gets ``--budget`` seconds per row. A tool that ran over it (or whose time,
extrapolated from the last size, would be more than twice it) is not run at larger sizes of
the same series: the cell says so. Each kleene result (and each baseline's) is compared with
scipy's (BFS hop counts and Dijkstra distances; sampled Dijkstra rows for APSP) before it is
timed. Writes JSON, a markdown table per paper beside it, and a log-log PNG per table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import cpu_time, environment, gpu_time, log_log_plot, markdown_table  # noqa: E402

import kleene  # noqa: E402
from kleene.generators import erdos_renyi, geometric_graph, random_graph, scale_free_graph

TABLES = ("harish", "pathak", "katz", "singh", "buluc")
DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
GROWTH = {"BFS": 1.0, "SSSP": 1.0, "APSP": 3.0}  # time ~ n**growth, for skipping ahead
OVER = "skipped (over budget at smaller size)"


# ----------------------------------------------------------------------------- row specs
@dataclass
class Case:
    """One row: a graph (built fresh from ``seed``), a task, the tools' kleene methods."""

    table: str
    what: str  # the paper's table / figure and graph
    task: str  # BFS | SSSP | APSP
    n: int
    build: object  # (seed) -> kleene.Matrix on the CPU, or None when data is missing
    methods: tuple = ("auto",)
    paper: str = ""
    note: str = ""
    series: str = field(default="")

    def __post_init__(self):
        self.series = self.series or f"{self.table}/{self.what}/{self.task}"


def _weighted_file(name: str, data: Path, weights=(1, 100)):
    """A SNAP / DIMACS file as a weighted kleene Matrix (random integer weights when the
    file has none), or None when the file is not in the data directory."""
    for cand in (data / name, data / f"{name}.gz", data / f"{name}.xz"):
        if cand.exists():
            path = cand
            break
    else:
        return None

    def build(seed):
        G = kleene.io.read(path)
        if G.dtype != np.bool_ and "pace" not in path.name:
            return G
        r, c, _ = G.to_coo()
        w = np.random.default_rng(seed).integers(weights[0], weights[1] + 1, r.size)
        return kleene.Matrix.from_edges(r, c, w.astype(np.float32), G.nrows)

    return build


def _harish(p: str, data: Path) -> list[Case]:
    sizes = [10_000, 100_000] if p == "quick" else [1_000_000, 2_000_000, 5_000_000, 10_000_000]
    apsp = [256, 512] if p == "quick" else [1024, 2048, 4096, 8192, 16384]
    cases = []
    for task in ("BFS", "SSSP"):
        for n in sizes:
            cases.append(
                Case(
                    "harish",
                    "Fig. 4 random, deg 6, w 1-10",
                    task,
                    n,
                    lambda s, n=n: random_graph(n, 6, seed=s),
                    paper="GPU BFS 20-50x, SSSP ~70x over their CPU",
                )
            )
        for n in sizes:
            cases.append(
                Case(
                    "harish",
                    "Fig. 5 scale-free, deg 6, hubs 1000",
                    task,
                    n,
                    lambda s, n=n: scale_free_graph(n, 6, seed=s),
                    paper="slower than random graphs (hub loops)",
                )
            )
    fig7_n = 10_000 if p == "quick" else 100_000
    degrees = [6, 25, 100] if p == "quick" else [6, 12, 25, 50, 100, 200, 400]
    for task in ("BFS", "SSSP"):
        for deg in degrees:
            cases.append(
                Case(
                    "harish",
                    f"Fig. 7 random n={fig7_n}, deg {deg}",
                    task,
                    fig7_n,
                    lambda s, deg=deg: random_graph(fig7_n, deg, seed=s),
                    paper="time grows about linearly with the degree",
                    series=f"harish/Fig. 7/{task}",
                )
            )
    for n in apsp:
        cases.append(
            Case(
                "harish",
                "Fig. 6 APSP random, deg 6",
                "APSP",
                n,
                lambda s, n=n: random_graph(n, 6, seed=s),
                methods=("repeated-sssp", "floyd-warshall"),
                paper="APSP-by-SSSP 17x, FW 3x over their CPU",
            )
        )
    road = (
        [("rome99.gr", "Table 1 stand-in: DIMACS Rome", "")]
        if p == "quick"
        else [("USA-road-NY.pace.gr", "Table 1 New York road", "NY")]
    )
    ref = {
        "NY": {
            "BFS": "CPU 313.117 ms, GPU 126.04 ms (8800GTX)",
            "SSSP": "CPU 1649.85 ms, GPU 760.14 ms (8800GTX)",
        }
    }
    for fname, what, key in road:
        build = _weighted_file(fname, data, weights=(1, 300_000))
        for task in ("BFS", "SSSP"):
            cases.append(
                Case(
                    "harish",
                    what,
                    task,
                    0,
                    build,
                    paper=ref.get(key, {}).get(task, ""),
                    note="" if build else f"{fname} not in {data}",
                )
            )
    return cases


def _pathak(p: str, data: Path) -> list[Case]:
    quick = p == "quick"
    g1 = 500 if quick else 2700
    g5 = 30_000 if quick else 16_777_214
    cases = []
    for task in ("BFS", "SSSP"):
        cases.append(
            Case(
                "pathak",
                "Graph 1 random dense",
                task,
                g1,
                lambda s: random_graph(g1, g1 // 4, weights=(1, 100), seed=s),
                paper="speedup 3.9x over sequential (P100)",
            )
        )
        cases.append(
            Case(
                "pathak",
                "Graph 5 geometric, deg 16",
                task,
                g5,
                lambda s: geometric_graph(g5, 16.0, seed=s),
                paper="speedup 94.4x over sequential (P100)",
            )
        )
    methods = ("floyd-warshall", "blocked", "repeated-sssp")
    apsp = [
        ("Graph 1 APSP random p=0.25", 300 if quick else 2700, 0.248),
        ("Graph 5 APSP random p=0.015", 500 if quick else 7500, 0.0149),
    ]
    for what, n, prob in apsp:
        cases.append(
            Case(
                "pathak",
                what,
                "APSP",
                n,
                lambda s, n=n, prob=prob: erdos_renyi(n, prob, seed=s),
                methods=methods,
                paper="BFW 500-4000x over sequential",
            )
        )
    if not quick:
        build = _weighted_file("facebook_combined.txt", data)
        cases.append(
            Case(
                "pathak",
                "Graph 2 APSP facebook",
                "APSP",
                4039,
                build,
                methods=methods,
                note="" if build else "facebook_combined.txt missing",
            )
        )
    return cases


KATZ = {
    64: ("0.0014 s", "0.00029 s"),
    128: ("0.0025 s", "0.0018 s"),
    256: ("0.0077 s", "0.0097 s"),
    512: ("0.0349 s", "0.0644 s"),
    1024: ("0.2301 s", "0.578 s"),
    2048: ("1.7356 s", "5.114 s"),
    4096: ("13.72 s", "na"),
    9216: ("158.69 s", "na"),
    10240: ("216.4 s", "na"),
    11264: ("1015.7 s", "na"),
}


def _katz(p: str, data: Path) -> list[Case]:
    sizes = [64, 128, 256] if p == "quick" else sorted(KATZ)
    return [
        Case(
            "katz",
            "Table 1 blocked FW, dense",
            "APSP",
            n,
            lambda s, n=n: erdos_renyi(n, 1.0, seed=s),
            methods=("blocked",),
            paper=(f"SM-GPU {KATZ[n][0]}, tuned CPU {KATZ[n][1]}" if n in KATZ else ""),
        )
        for n in sizes
    ]


SINGH = {
    "p2p-Gnutella08.txt": "PEBA 1.08 ms, SPBFA 60 ms",
    "p2p-Gnutella05.txt": "PEBA 1.2 ms, SPBFA 137 ms",
    "p2p-Gnutella04.txt": "PEBA 1.22 ms, SPBFA 173 ms",
    "p2p-Gnutella25.txt": "PEBA 1.35 ms, SPBFA 641 ms",
    "p2p-Gnutella30.txt": "PEBA 2.1 ms, SPBFA 860 ms",
    "roadNet-PA.txt": "PNBA 155 ms, PEBA 615 ms, H_PA 384 ms",
    "roadNet-TX.txt": "PNBA 248 ms, PEBA 820 ms, H_PA 551 ms",
    "roadNet-CA.txt": "PNBA 398 ms, PEBA 1022 ms, H_PA 711 ms",
}


def _singh(p: str, data: Path) -> list[Case]:
    names = ["p2p-Gnutella08.txt"] if p == "quick" else list(SINGH)
    cases = []
    for name in names:
        build = _weighted_file(name, data)
        table = "Table 2" if name.startswith("p2p") else "Table 1"
        cases.append(
            Case(
                "singh",
                f"{table} {name.split('.')[0]}",
                "SSSP",
                0,
                build,
                methods=("bellman-ford", "delta-stepping"),
                paper=SINGH[name],
                note="" if build else f"{name} not in data dir",
            )
        )
    return cases


BULUC = {
    512: ("251", "16.2", "6.43", "3.1x / 48.1x / 121.4x"),
    1024: ("2420", "100", "24.4", "3.0x / 73.4x / 301.5x"),
    2048: ("46000", "746", "141", "1.3x / 79.6x / 420.7x"),
    4096: ("413000", "5880", "1010", "1.2x / 81.5x / 473.2x"),
    8192: ("5470000", "55700", "7870", "0.7x / 67.7x / 479.3x"),
}


def _buluc(p: str, data: Path) -> list[Case]:
    sizes = [128, 256, 512] if p == "quick" else sorted(BULUC)

    def ref(n):
        if n not in BULUC:
            return ""
        it, rec, opt, speed = BULUC[n]
        return f"8800 Ultra ms: iter {it}, rec {rec}, rec-opt {opt}; speedup {speed}"

    return [
        Case(
            "buluc",
            "Table 1 iterative vs recursive, dense",
            "APSP",
            n,
            lambda s, n=n: erdos_renyi(n, 1.0, seed=s),
            methods=("floyd-warshall", "recursive"),
            paper=ref(n),
        )
        for n in sizes
    ]


BUILDERS = {"harish": _harish, "pathak": _pathak, "katz": _katz, "singh": _singh, "buluc": _buluc}


# ----------------------------------------------------------------------------- the tools
def _hops(S, s):
    from scipy.sparse.csgraph import dijkstra

    d = dijkstra(S, indices=s, unweighted=True)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def _reference(case: Case, S, src, rows):
    """scipy's answer: BFS hop counts / Dijkstra distances / sampled Dijkstra APSP rows."""
    from scipy.sparse.csgraph import dijkstra

    if case.task == "BFS":
        return _hops(S, src)
    if case.task == "SSSP":
        return dijkstra(S, indices=src)
    return dijkstra(S, indices=rows)


def _same(task, got, ref, rows) -> bool:
    got = np.asarray(got.get() if hasattr(got, "get") else got)
    if task == "APSP":
        got = got[rows] if got.shape[0] != len(rows) else got
    if task == "BFS":
        return got.shape == ref.shape and bool(np.array_equal(got, ref))
    return got.shape == ref.shape and bool(np.allclose(got, ref, rtol=1e-5, atol=1e-6))


def _gb_bfs(A, s):
    import graphblas as gb

    n = A.nrows
    levels = gb.Vector(gb.dtypes.INT64, n)
    levels[s] = 0
    q = gb.Vector(gb.dtypes.BOOL, n)
    q[s] = True
    k = 0
    while q.nvals:
        k += 1
        q(~levels.S, replace=True) << gb.semiring.any_pair(q @ A)
        levels(q.S) << k
    out = np.full(n, -1, np.int64)
    i, v = levels.to_coo()
    out[i] = v
    return out


def _gb_sssp(A, s):
    import graphblas as gb

    n = A.nrows
    d = gb.Vector(gb.dtypes.FP64, n)
    d[s] = 0.0
    front = d.dup()
    for _ in range(n):
        new = gb.Vector(gb.dtypes.FP64, n)
        new << gb.semiring.min_plus(front @ A)
        better = gb.Vector(gb.dtypes.BOOL, n)
        better << gb.binary.lt(new & d)  # improved where both exist
        new_only = gb.Vector(gb.dtypes.FP64, n)
        new_only(~d.S) << new  # newly reached
        front = gb.Vector(gb.dtypes.FP64, n)
        front(better.V) << new
        front(new_only.S) << new_only
        if not front.nvals:
            break
        d(front.S) << front
    out = np.full(n, np.inf)
    i, v = d.to_coo()
    out[i] = v
    return out


def _tools(case: Case, G, S, devices, src, rows, nx_max):
    """[(column, runner | skip reason, on_gpu)] for one row."""
    from scipy.sparse import csgraph

    tools = []
    for dev in devices:
        Gd = G.to(dev)
        for m in case.methods:
            name = f"kleene {dev}" + ("" if m == "auto" else f" {m}")
            if case.task == "BFS":
                fn = lambda Gd=Gd: kleene.bfs(Gd, src)  # noqa: E731
            elif case.task == "SSSP":
                fn = lambda Gd=Gd, m=m: kleene.sssp(Gd, src, method=m)  # noqa: E731
            else:
                fn = lambda Gd=Gd, m=m: kleene.apsp(Gd, method=m)  # noqa: E731
            tools.append((name, fn, dev == "gpu"))
    if case.task == "BFS":
        bfo = csgraph.breadth_first_order
        tools.append(("scipy", lambda: bfo(S, src, return_predecessors=False), False))
    elif case.task == "SSSP":
        tools.append(("scipy", lambda: csgraph.dijkstra(S, indices=src), False))
    else:
        if G.format == "dense":
            dense = G.to_dense()
            tools.append(("scipy floyd_warshall", lambda: csgraph.floyd_warshall(dense), False))
        tools.append(("scipy dijkstra", lambda: csgraph.dijkstra(S), False))
        if G.format != "dense":
            tools.append(("scipy johnson", lambda: csgraph.johnson(S), False))
    try:
        import graphblas as gb

        if case.task == "APSP":
            tools.append(("graphblas", "n/a (BFS/SSSP only)", False))
        else:
            r, c, v = G.to_coo()
            A = gb.Matrix.from_coo(
                r, c, np.asarray(v, np.float64), nrows=G.nrows, ncols=G.ncols, dup_op=gb.binary.min
            )
            fn = (lambda: _gb_bfs(A, src)) if case.task == "BFS" else (lambda: _gb_sssp(A, src))
            tools.append(("graphblas", fn, False))
    except ImportError:
        tools.append(("graphblas", "n/a (python-graphblas not installed)", False))
    try:
        import networkx as nx

        if S.shape[0] > (nx_max if case.task != "APSP" else min(nx_max, 1024)):
            tools.append(("networkx", "skipped (too large for networkx)", False))
        elif case.task == "APSP":
            dense = G.to_dense()
            W = np.where(np.isinf(dense), 0, dense)
            NX = nx.from_numpy_array(W, create_using=nx.DiGraph)
            tools.append(("networkx", lambda: nx.floyd_warshall_numpy(NX)[rows], False))
        else:
            NX = nx.from_scipy_sparse_array(S, create_using=nx.DiGraph)

            def run_nx(task=case.task):
                f = nx.single_source_shortest_path_length
                if task == "SSSP":
                    f = nx.single_source_dijkstra_path_length
                d = f(NX, src)
                out = np.full(S.shape[0], -1 if task == "BFS" else np.inf)
                out[list(d)] = list(d.values())
                return out

            tools.append(("networkx", run_nx, False))
    except ImportError:
        tools.append(("networkx", "n/a (networkx not installed)", False))
    return tools


# ----------------------------------------------------------------------------- running
def _measure(fn, gpu: bool, budget: float, repeat: int):
    """(first result, timing dict, over budget?) — the first call is the checked one."""
    sync = (lambda: __import__("cupy").cuda.Device().synchronize()) if gpu else (lambda: None)
    if gpu:  # an untimed first call: kernels a row needs compile on first use
        fn()
        sync()
    t0 = time.perf_counter()
    out = fn()
    sync()
    first = time.perf_counter() - t0
    if first > budget / 2:
        return out, {"median_ms": 1e3 * first, "min_ms": 1e3 * first, "runs": 1}, first > budget
    reps = int(max(1, min(repeat, budget / 2 / max(first, 1e-6))))
    t0 = time.perf_counter()
    if gpu:
        r = gpu_time(fn, warmup=1, repeat=reps)
    else:
        r = cpu_time(fn, warmup=0, repeat=reps, budget_s=budget / 2)
    return out, r, first + time.perf_counter() - t0 > budget


def run_case(case: Case, i: int, total: int, devices, budget, repeat, nx_max, state) -> dict:
    row = {"table": case.table, "case": case.what, "task": case.task}
    t_row = time.perf_counter()
    if case.build is None:
        row.update(n="", edges="", check="n/a", paper=case.paper, note=case.note)
        print(f"[{i}/{total}] {case.table} {case.what} {case.task}: {case.note}", flush=True)
        return row
    seed = 1000 + i  # fresh graph per row, reproducible
    G = case.build(seed)
    S = G.to_scipy()
    n = G.nrows
    row.update(n=n, edges=int(S.nnz))
    rng = np.random.default_rng(seed)
    deg = np.diff(S.indptr)
    src = int(rng.choice(np.flatnonzero(deg > 0))) if S.nnz else 0
    rows = np.sort(rng.choice(n, min(n, 8), replace=False))
    ref = _reference(case, S, src, rows)
    if case.task != "APSP":
        reached = int(np.count_nonzero(ref >= 0) if case.task == "BFS" else np.isfinite(ref).sum())
        row["reached"] = reached
    checks, cells = {}, []
    for name, fn, gpu in _tools(case, G, S, devices, src, rows, nx_max):
        key = (case.series, name)
        col = f"{name} ms"
        if isinstance(fn, str):
            row[col] = fn
            continue
        if key in state["over"]:
            row[col] = OVER
            cells.append(f"{name}: skipped")
            continue
        last = state["last"].get(key)
        if last:
            pred = last[1] * (n / max(last[0], 1)) ** GROWTH[case.task]
            if pred > 2 * budget:
                row[col] = f"skipped (predicted {pred:.0f} s from n={last[0]}, budget {budget:g} s)"
                cells.append(f"{name}: skipped")
                continue
        try:
            out, r, over = _measure(fn, gpu, budget, repeat)
        except Exception as e:  # a tool that cannot run this row (memory, dtype, ...)
            row[col] = f"failed ({type(e).__name__}: {str(e)[:80]})"
            cells.append(f"{name}: failed")
            if name.startswith("kleene"):
                checks[name] = "FAILED"
            continue
        if name == "scipy" and case.task == "BFS":  # a visit order: compare the reached set
            ok = np.array_equal(np.sort(out), np.flatnonzero(ref >= 0))
        else:
            ok = _same(case.task, out, ref, rows)
        checks[name] = "OK" if ok else "MISMATCH"
        row[col] = r["median_ms"]
        row.setdefault("runs", {})[name] = r["runs"]
        state["last"][key] = (n, r["median_ms"] / 1e3)
        if over:
            state["over"].add(key)
        cells.append(f"{name} {r['median_ms']:.3g} ms{'' if ok else ' MISMATCH'}")
    bad = [k for k, v in checks.items() if v != "OK"]
    row["check"] = "OK" if not bad else "; ".join(f"{k}: {checks[k]}" for k in bad)
    row["checks"] = checks
    row["paper"] = case.paper
    if case.note:
        row["note"] = case.note
    dt = time.perf_counter() - t_row
    print(
        f"[{i}/{total}] {case.table} {case.what} {case.task} n={n} m={S.nnz}: "
        f"{', '.join(cells)} | check {row['check']} ({dt:.1f} s)",
        flush=True,
    )
    return row


PRESETS = {
    "quick": {"budget": 5.0, "repeat": 3, "nx_max": 100_000},
    "full": {"budget": 120.0, "repeat": 5, "nx_max": 200_000},
}


def _devices(choice: str) -> list[str]:
    gpu = kleene.gpu_available()
    if choice in ("gpu", "gpu-only") and not gpu:
        raise SystemExit(f"--device {choice}: no GPU (CuPy + CUDA) available")
    if choice == "cpu":
        return ["cpu"]
    if choice == "gpu":
        return ["gpu", "cpu"]
    if choice == "gpu-only":  # leave kleene's CPU back end out (long rows)
        return ["gpu"]
    return ["gpu", "cpu"] if gpu else ["cpu"]


def _flat(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in ("runs", "checks", "table")}


def write_outputs(out: Path, rows: list[dict], meta: dict, plots: bool = True) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"benchmark": "papers", "environment": environment(), **meta, "rows": rows}
    out.write_text(json.dumps(doc, indent=2, default=float) + "\n")
    parts = [f"# kleene: the papers' tables ({meta['preset']} preset, device {meta['device']})"]
    for t in meta["tables"]:
        sub = [_flat(r) for r in rows if r["table"] == t]
        parts.append(markdown_table(sub, title=f"{t}: {TITLES[t]}"))
        series: dict = {}
        for r in rows:
            if r["table"] != t or not isinstance(r.get("n"), int):
                continue
            for k, v in r.items():
                if k.endswith(" ms") and isinstance(v, float):
                    s = series.setdefault(f"{r['task']} {r['case'][:18]}: {k[:-3]}", ([], []))
                    s[0].append(r["n"])
                    s[1].append(v / 1e3)
        if plots and any(len(x) > 1 for x, _ in series.values()):
            png = out.with_name(f"{out.stem}_{t}.png")
            log_log_plot(
                png,
                {k: v for k, v in series.items() if len(v[0]) > 1},
                "vertices n",
                "seconds",
                f"{t}: {TITLES[t]}",
            )
    out.with_suffix(".md").write_text("\n\n".join(parts) + "\n")


TITLES = {
    "harish": "Harish & Narayanan 2007, Figs. 4-7 and Table 1",
    "pathak": "Pathak et al., BFS/SSSP/APSP graphs",
    "katz": "Katz & Kider 2008, Table 1 (blocked FW)",
    "singh": "Singh, Khare & Rasool, Tables 1-2 (SSSP on SNAP graphs)",
    "buluc": "Buluç, Gilbert & Budak 2010, Tables 1-2 (iterative vs recursive APSP)",
}


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--preset", choices=sorted(PRESETS), default="quick")
    ap.add_argument("--tables", default=",".join(TABLES), help="comma list of " + ",".join(TABLES))
    ap.add_argument(
        "--device",
        choices=("auto", "cpu", "gpu", "gpu-only"),
        default="auto",
        help="gpu: kleene on the GPU and the CPU; gpu-only: no kleene CPU",
    )
    ap.add_argument("--data", default=str(DATA), help="directory of the SNAP / DIMACS files")
    ap.add_argument("--out", default=None, help="default benchmarks/results/papers_<device>.json")
    ap.add_argument("--budget", type=float, default=None, help="seconds per tool per row")
    ap.add_argument("--tasks", default="BFS,SSSP,APSP", help="comma list: only these tasks' rows")
    ap.add_argument(
        "--max-n",
        type=int,
        default=None,
        help="leave out rows with more vertices (noted in the output)",
    )
    args = ap.parse_args(argv)
    preset = PRESETS[args.preset]
    budget = args.budget if args.budget is not None else preset["budget"]
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    unknown = set(tables) - set(TABLES)
    if unknown:
        ap.error(f"unknown tables {sorted(unknown)}; known: {', '.join(TABLES)}")
    devices = _devices(args.device)
    label = devices[0]
    out = Path(args.out or f"benchmarks/results/papers_{label}.json")
    tasks = {t.strip().upper() for t in args.tasks.split(",") if t.strip()}
    cases = [c for t in tables for c in BUILDERS[t](args.preset, Path(args.data))]
    cases = [c for c in cases if c.task in tasks]
    if args.max_n is not None:
        for c in cases:
            if c.n > args.max_n:
                c.build, c.note = None, f"left out: n > --max-n {args.max_n}"
    print(
        f"{len(cases)} rows, kleene on {'+'.join(devices)}, budget {budget:g} s per tool "
        f"per row -> {out}",
        flush=True,
    )
    if "gpu" in devices:  # compile the built-in kernels on all cores, not inside timings
        from kleene.backends.cuda import codegen, jit

        t0 = time.perf_counter()
        errors = jit.precompile(codegen.builtin_specs())
        print(
            f"precompiled the built-in kernels in {time.perf_counter() - t0:.0f} s"
            + (f" ({len(errors)} failed)" if errors else ""),
            flush=True,
        )
    state = {"over": set(), "last": {}}
    rows = []
    meta = {
        "preset": args.preset,
        "device": label,
        "budget_s": budget,
        "tables": tables,
        "tasks": sorted(tasks),
        "max_n": args.max_n,
    }
    for i, case in enumerate(cases, 1):
        rows.append(
            run_case(
                case, i, len(cases), devices, budget, preset["repeat"], preset["nx_max"], state
            )
        )
        write_outputs(out, rows, meta, plots=False)  # partial results survive a stop
    write_outputs(out, rows, meta)
    print(f"wrote {out} and {out.with_suffix('.md')}", flush=True)
    return rows


if __name__ == "__main__":
    main()
