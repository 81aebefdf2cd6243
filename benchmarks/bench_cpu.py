"""The CPU back end against its baselines (issue 13, item 5), one run on one machine.

    PYTHONPATH=. python3 benchmarks/bench_cpu.py --out benchmarks/results/cpu_2core.json
    #   --data DIR (default ../shared/data)   --rows bfs_ny,apsp_dense,...   --quick (smoke)
    #   --row-budget 60 (s a call may take before its row stops at that one call)

Row groups (``--rows``; all by default), each side by side with its baseline in the same run:

* ``bfs_ny``: kleene.bfs on a prebuilt kleene.Matrix and on a scipy CSR (the user's path)
  vs scipy.sparse.csgraph.breadth_first_order, New York road graph (USA-road-NY.pace.gr.xz)
* ``sssp_ny``: kleene.sssp vs scipy dijkstra(indices=source), NY with integer weights 1..100
* ``sssp_p2p``: the same on p2p-Gnutella08 (SNAP)
* ``rmat``: BFS and SSSP on RMAT-18 (symmetric, weights 1..100) vs scipy and the
  python-graphblas loops of benchmarks/papers.py (skipped, with a note, when not importable)
* ``apsp_dense``: kleene.apsp(D) on dense n = 1024, 2048 float64 vs scipy floyd_warshall
* ``apsp_sparse``: kleene.apsp (auto) on rome99, facebook and the first 3,000 vertices of
  p2p-Gnutella08, with and without predecessors, vs scipy shortest_path (method auto)
* ``closure``: transitive_closure on p2p-Gnutella08: time, and peak memory (the peak RSS
  of a subprocess over that of one that did the same set-up) against the result's bytes
* ``primitives``: masked mxv (pull), vxm (push) from a sparse vector, sparse mxm on RMAT-18,
  kleene vs python-graphblas, and vs scipy where it has the product (plus_times)

Every timed call: one warm-up call (it absorbs Numba compilation; its time is the "first
call s" column), then the minimum ("ms") and median of 3 calls. A call that takes longer
than ``--row-budget`` seconds is not repeated: its row records that one call. Each group
runs in a fresh subprocess (by default with an empty Numba cache, so "first call s" holds
the compilation) whose rows stream back as they finish; a group past its time limit is
killed and its unfinished rows say so. Progress goes to stderr. Writes JSON (rows,
environment, conventions), a markdown table beside it, and a plot of each row's ratio to
its baseline with the target marked.

``--replot RESULTS.json`` redraws the plot of a results file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import environment, host_facts, main_or_replot, write_results  # noqa: E402
from cpu_harness import run_child  # noqa: E402
from cpu_inputs import (  # noqa: E402
    DATA,
    FILES,
    GB_NOTE,
    GROUPS,
    MB,
    SOURCE_SEED,
    T_APSP_DENSE,
    T_APSP_SPARSE,
    T_BFS_CSR,
    T_BFS_M,
    T_CLOSURE_MEM,
    T_CLOSURE_S,
    T_PRIM,
    T_SSSP,
    CpuGroup,
    gb_dense,
    gb_matrix,
    gb_vector,
    graphblas_or_none,
    induced_subgraph,
    kleene_api,
    pick_sources,
    read_graph,
    rmat_graph,
    sizes,
    with_weights,
)
from cpu_report import CONVENTIONS, plot, write_markdown  # noqa: E402


def _same(a, b) -> bool:
    return bool(np.allclose(np.asarray(a, np.float64), np.asarray(b, np.float64)))


def _bfs_levels(S, s):
    """Hop counts from scipy's BFS order and tree (untimed, for the checks)."""
    from scipy.sparse.csgraph import breadth_first_order

    order, pred = breadth_first_order(S, s, return_predecessors=True)
    lv = np.full(S.shape[0], -1, np.int64)
    lv[s] = 0
    for v in order[1:]:  # a parent comes before its children in BFS order
        lv[v] = lv[pred[v]] + 1
    return lv


# ---------------------------------------------------------------------------------------
# the groups
# ---------------------------------------------------------------------------------------


def _bfs_baselines(g: CpuGroup, S, s, with_gb: bool, target=None):
    from scipy.sparse.csgraph import breadth_first_order

    out = [
        (
            "scipy breadth_first_order",
            lambda: breadth_first_order(S, s, return_predecessors=False),
            target,
        )
    ]
    if with_gb:
        out.append(_gb_baseline(g, "bfs", S, s))
    return out


def _gb_baseline(g: CpuGroup, task, S, s):
    if g.gb is None:
        return ("python-graphblas", GB_NOTE, None)
    from papers import _gb_bfs, _gb_sssp

    G = gb_matrix(g.gb, S)
    fn = _gb_bfs if task == "bfs" else _gb_sssp
    return (
        "python-graphblas " + ("BFS loop" if task == "bfs" else "Bellman-Ford loop"),
        lambda: fn(G, s),
        None,
    )


def _check_bfs(S, s):
    ref = _bfs_levels(S, s)

    def check(kout, bout, name):
        return np.array_equal(np.asarray(kout), ref)

    return check


def _check_sssp(kout, bout, name):
    return _same(kout, bout)


def group_bfs_ny(g: CpuGroup):
    kleene = kleene_api()
    G = induced_subgraph(read_graph(g.data, "ny"), g.size["ny_vertices"])
    S = G.to_scipy().astype(np.float64)  # what scipy reads without a conversion per call
    g.fact("NY", {"n": G.nrows, "nnz": G.nvals})
    check = _check_bfs(S, 0)
    g.compare(
        "BFS NY, prebuilt Matrix",
        "kleene.bfs(M, 0)",
        lambda: kleene.bfs(G, 0),
        _bfs_baselines(g, S, 0, False, T_BFS_M),
        check,
    )
    g.compare(
        "BFS NY, from a scipy CSR",
        "kleene.bfs(csr, 0)",
        lambda: kleene.bfs(S, 0),
        _bfs_baselines(g, S, 0, False, T_BFS_CSR),
        check,
    )


def group_sssp_ny(g: CpuGroup):
    from scipy.sparse.csgraph import dijkstra

    kleene = kleene_api()
    W = with_weights(induced_subgraph(read_graph(g.data, "ny"), g.size["ny_vertices"]))
    S = W.to_scipy()
    g.fact("NY weighted", {"n": W.nrows, "nnz": W.nvals})
    g.compare(
        "SSSP NY, weights 1..100",
        "kleene.sssp(M, 0)",
        lambda: kleene.sssp(W, 0),
        [("scipy dijkstra", lambda: dijkstra(S, indices=0), T_SSSP)],
        _check_sssp,
    )


def group_sssp_p2p(g: CpuGroup):
    from scipy.sparse.csgraph import dijkstra

    kleene = kleene_api()
    W = with_weights(read_graph(g.data, "p2p"))
    S = W.to_scipy()
    g.fact("p2p-Gnutella08 weighted", {"n": W.nrows, "nnz": W.nvals})
    g.compare(
        "SSSP p2p-Gnutella08, weights 1..100",
        "kleene.sssp(M, 0)",
        lambda: kleene.sssp(W, 0),
        [("scipy dijkstra", lambda: dijkstra(S, indices=0), T_SSSP)],
        _check_sssp,
    )


def group_rmat(g: CpuGroup):
    from scipy.sparse.csgraph import dijkstra

    kleene = kleene_api()
    scale = g.size["rmat_scale"]
    t0 = time.perf_counter()
    A = rmat_graph(scale, g.scratch)
    S = A.to_scipy()
    g.fact(f"RMAT-{scale}", {"n": A.nrows, "nnz": A.nvals, "build s": time.perf_counter() - t0})
    s = int(pick_sources(S, 1)[0])
    g.compare(
        f"BFS RMAT-{scale}",
        f"kleene.bfs(M, {s})",
        lambda: kleene.bfs(A, s),
        _bfs_baselines(g, S, s, True),
        _check_bfs(S, s),
    )
    g.compare(
        f"SSSP RMAT-{scale}, weights 1..100",
        f"kleene.sssp(M, {s})",
        lambda: kleene.sssp(A, s),
        [("scipy dijkstra", lambda: dijkstra(S, indices=s), None), _gb_baseline(g, "sssp", S, s)],
        _check_sssp,
    )


def group_apsp_dense(g: CpuGroup):
    from scipy.sparse.csgraph import floyd_warshall

    kleene = kleene_api()
    for n in g.size["apsp_n"]:
        D = np.random.default_rng(n).uniform(1.0, 100.0, (n, n))  # every pair an edge
        g.compare(
            f"APSP dense n = {n}",
            "kleene.apsp(D)",
            lambda D=D: kleene.apsp(D),
            [("scipy floyd_warshall", lambda D=D: floyd_warshall(D), T_APSP_DENSE)],
            lambda k, b, _: _same(k, b),
        )


def group_apsp_sparse(g: CpuGroup):
    from scipy.sparse.csgraph import shortest_path

    kleene = kleene_api()
    k = g.size["sparse_vertices"]

    def first(key, m, **kw):  # the subgraph of vertices 0..m-1
        return induced_subgraph(read_graph(g.data, key, **kw), m)

    graphs = [
        ("rome99", "rome", lambda: first("rome", k).astype(np.float64)),
        ("facebook", "facebook", lambda: with_weights(first("facebook", k, directed=False))),
        (
            f"p2p-Gnutella08[:{g.size['p2p_sub']}]",
            "p2p",
            lambda: with_weights(first("p2p", g.size["p2p_sub"])),
        ),
    ]
    for label, key, build in graphs:
        if not (g.data / FILES[key]).exists():
            for tag in ("", ", predecessors"):
                g.skip(
                    f"APSP auto {label}{tag}",
                    f"{FILES[key]} not in {g.data}",
                    ("scipy shortest_path (auto)",),
                )
            continue
        W = build()
        S = W.to_scipy()
        g.fact(label, {"n": W.nrows, "nnz": W.nvals})
        for preds in (False, True):
            tag = ", predecessors" if preds else ""
            g.compare(
                f"APSP auto {label}{tag}",
                f"kleene.apsp(M{', return_predecessors=True' if preds else ''})",
                lambda W=W, p=preds: kleene.apsp(W, return_predecessors=p),
                [
                    (
                        "scipy shortest_path (auto)",
                        lambda S=S, p=preds: shortest_path(S, method="auto", return_predecessors=p),
                        T_APSP_SPARSE,
                    )
                ],
                lambda a, b, _: _same(
                    a[0] if isinstance(a, tuple) else a, b[0] if isinstance(b, tuple) else b
                ),
            )


def _closure_graph(g_data: Path, quick: bool):
    return induced_subgraph(read_graph(g_data, "p2p"), sizes(quick)["closure_vertices"])


def group_closure(g: CpuGroup, args):
    from scipy.sparse.csgraph import breadth_first_order

    kleene = kleene_api()
    G = _closure_graph(g.data, g.quick)
    S = G.to_scipy()
    n = G.nrows
    g.fact("closure graph", {"n": n, "nnz": G.nvals})
    rows = [int(i) for i in pick_sources(S, 3)]

    def check(R, _b, _name):  # a few rows against scipy's BFS (the diagonal aside)
        for i in rows:
            reach = np.zeros(n, bool)
            reach[breadth_first_order(S, i, return_predecessors=False)] = True
            got = np.asarray(R[i], bool).copy()
            got[i] = reach[i] = False
            if not np.array_equal(got, reach):
                return False
        return True

    task = f"transitive_closure p2p-Gnutella08{'' if n == 6301 else f'[:{n}]'} (n = {n})"
    g.compare(
        task + ": time",
        "kleene.transitive_closure(M)",
        lambda: kleene.transitive_closure(G),
        [
            (
                f"{T_CLOSURE_S:g} s (the target itself)",
                1e3 * T_CLOSURE_S,
                (1.0, f"<= {T_CLOSURE_S:g} s"),
            )
        ],
        check,
    )
    g.begin(task + ": peak memory")
    g.log(f"{task}: peak memory (two subprocesses) ...")
    mem = _memory_rows(args)
    row = {
        "group": g.name,
        "task": task + ": peak memory",
        "kleene call": "kleene.transitive_closure(M), fresh subprocess",
        **mem,
        "baseline": "the result's bytes (n x n bool)",
    }
    if mem.get("kleene MB") is not None:
        factor, extra = T_CLOSURE_MEM
        # judged on the larger of the two estimates (see CONVENTIONS["memory"])
        worst = max(mem["kleene MB"], mem["peak over pre-call RSS MB"])
        row["ratio"] = worst / mem["baseline MB"]
        row["target"] = f"<= {factor:g}x result + {extra / MB:g} MB"
        row["target ratio"] = factor + extra / (mem["baseline MB"] * MB)
        row["meets"] = "yes" if row["ratio"] <= row["target ratio"] else "no"
        g.log(
            f"    peak {mem['kleene MB']:.1f} MB over the set-up child's "
            f"({mem['peak over pre-call RSS MB']:.1f} MB over the RSS before the call), "
            f"result {mem['baseline MB']:.1f} MB: {row['meets']}"
        )
    else:
        row.update({"ratio": None, "meets": "-"})
        g.log(f"    {mem.get('note')}")
    g.emit(row)


# Runs each command given (a JSON list in argv[1]) in turn and prints, after each, its
# output and getrusage(RUSAGE_CHILDREN).ru_maxrss. A small process of its own: a child's
# ru_maxrss starts at the RSS high-water mark of the process that spawned it (exec
# records the old address space's), so the group's process, holding graphs and
# results, would put a floor under both figures.
_LAUNCHER = """
import json, resource, subprocess, sys
out = []
for cmd in json.loads(sys.argv[1]):
    p = subprocess.run(cmd, capture_output=True, text=True)
    out.append({"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr[-4000:],
                "maxrss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss})
print("LAUNCHER " + json.dumps(out))
"""


def _memory_rows(args) -> dict:
    """Peak RSS of a subprocess that runs the closure, over that of one that does the same
    set-up (imports, graph, a small closure to load the kernels) without it: read as
    getrusage(RUSAGE_CHILDREN).ru_maxrss after each (the largest child so far), in a small
    launcher process. A first set-up run beforehand fills the Numba cache, so neither
    measured subprocess compiles."""
    base = [sys.executable, str(Path(__file__).resolve()), "--mem-child", "--data", args.data]
    base += ["--quick"] if args.quick else []
    limit = max(600, 10 * args.row_budget)
    setup, call = base + ["--mem-mode", "setup"], base + ["--mem-mode", "call"]
    try:
        prime = subprocess.run(setup, capture_output=True, text=True, timeout=limit)
        if prime.returncode:
            tail = (prime.stderr.strip().splitlines() or ["no output"])[-1]
            return {"kleene MB": None, "note": f"memory subprocess failed: {tail}"}
        p = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, json.dumps([setup, call])],
            capture_output=True,
            text=True,
            timeout=2 * limit,
        )
    except subprocess.TimeoutExpired:
        return {"kleene MB": None, "note": f"memory subprocesses ran past {limit:g} s"}
    line = next((x for x in p.stdout.splitlines() if x.startswith("LAUNCHER ")), None)
    if p.returncode or line is None:
        tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
        return {"kleene MB": None, "note": f"memory launcher failed: {tail}"}
    runs = json.loads(line[len("LAUNCHER ") :])
    for r in runs:
        if r["rc"]:
            tail = (r["stderr"].strip().splitlines() or ["no output"])[-1]
            return {"kleene MB": None, "note": f"memory subprocess failed: {tail}"}
    out = [
        json.loads(next(x for x in r["stdout"].splitlines() if x.startswith("MEM "))[4:])
        for r in runs
    ]
    kib = 1024  # ru_maxrss is in KiB on Linux
    setup_peak, call_peak = runs[0]["maxrss"] * kib, runs[1]["maxrss"] * kib
    return {
        "kleene MB": (call_peak - setup_peak) / MB,
        "baseline MB": out[1]["result bytes"] / MB,
        "kleene ms": out[1]["call ms"],
        "runs": 1,
        "peak over pre-call RSS MB": (call_peak - out[1]["rss before"]) / MB,
        "peak RSS MB (call child)": call_peak / MB,
        "peak RSS MB (set-up child)": setup_peak / MB,
        "RSS MB before the call": out[1]["rss before"] / MB,
    }


def _rss() -> int:
    """This process's resident set now, bytes (Linux /proc; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def mem_child(args) -> None:
    """A memory subprocess: the set-up, then (mode 'call') the closure on the graph."""
    kleene = kleene_api()
    G = _closure_graph(Path(args.data), args.quick)
    small = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], None, 3)
    kleene.transitive_closure(small)  # loads (or compiles) the kernels in both modes
    res = {"mode": args.mem_mode, "n": G.nrows}
    if args.mem_mode == "call":
        res["rss before"] = _rss()
        t0 = time.perf_counter()
        R = kleene.transitive_closure(G)
        res["call ms"] = 1e3 * (time.perf_counter() - t0)
        res["result bytes"] = int(np.asarray(R).nbytes)
    print("MEM " + json.dumps(res), flush=True)


def group_primitives(g: CpuGroup):
    import scipy.sparse as sp

    kleene = kleene_api()
    scale = g.size["rmat_scale"]
    A = rmat_graph(scale, g.scratch)
    S = A.to_scipy()
    n = A.nrows
    rng = np.random.default_rng(SOURCE_SEED)
    g.fact(f"RMAT-{scale}", {"n": n, "nnz": A.nvals})
    gb = g.gb
    gA = gb_matrix(gb, S) if gb is not None else None

    def gb_row(fn):
        return ("python-graphblas", GB_NOTE if gb is None else fn, T_PRIM)

    def dense_of(v, missing):
        return v.to_dense(missing=missing)

    # mxv pull, masked: w<~visited> = A min.+ u, u dense, half the vertices visited
    u = rng.uniform(0.0, 1.0, n)
    ku = kleene.Vector.from_dense(u)
    visited = np.sort(rng.choice(n, n // 2, replace=False))
    kV = kleene.Vector.from_coo(visited, np.ones(visited.size, bool), n)
    if gb is not None:
        gu = gb_vector(gb, np.arange(n), u, n)
        gV = gb.Vector.from_coo(visited, True, size=n, dtype=bool)

        def gb_masked():
            w = gb.Vector(gb.dtypes.FP64, n)
            w(~gV.S) << gb.semiring.min_plus(gA @ gu)
            return w

    def chk_min(k, b, _):
        return _same(dense_of(k, np.inf), gb_dense(b, n, np.inf))

    g.compare(
        "mxv pull, masked (min_plus; u dense, mask ~visited, 50% visited)",
        "kleene.mxv(A, u, min_plus, mask=~V.S, method='pull')",
        lambda: kleene.mxv(A, ku, "min_plus", mask=~kV.S, method="pull"),
        [gb_row(gb_masked if gb else None)],
        chk_min,
    )

    def chk_plus(k, b, name):
        b = gb_dense(b, n, 0.0) if "graphblas" in name else np.asarray(b).ravel()
        return _same(dense_of(k, 0.0), b)

    g.compare(
        "mxv pull (plus_times; u dense)",
        "kleene.mxv(A, u, plus_times, method='pull')",
        lambda: kleene.mxv(A, ku, "plus_times", method="pull"),
        [
            gb_row(lambda: gb.semiring.plus_times(gA @ gu).new() if gb else None),
            ("scipy A @ u", lambda: S @ u, None),
        ],
        chk_plus,
    )

    # vxm push from a sparse vector: 1% of the vertices
    idx = np.sort(rng.choice(n, max(1, n // 100), replace=False))
    vals = rng.uniform(0.0, 1.0, idx.size)
    kf = kleene.Vector.from_coo(idx, vals, n)
    if gb is not None:
        gf = gb_vector(gb, idx, vals, n)
    f_row = sp.csr_matrix((vals, (np.zeros(idx.size, np.int64), idx)), shape=(1, n))
    g.compare(
        "vxm push (min_plus; u sparse, 1% of n)",
        "kleene.vxm(u, A, min_plus, method='push')",
        lambda: kleene.vxm(kf, A, "min_plus", method="push"),
        [gb_row(lambda: gb.semiring.min_plus(gf @ gA).new() if gb else None)],
        chk_min,
    )

    def chk_plus_sp(k, b, name):
        b = gb_dense(b, n, 0.0) if "graphblas" in name else b.toarray().ravel()
        return _same(dense_of(k, 0.0), b)

    g.compare(
        "vxm push (plus_times; u sparse, 1% of n)",
        "kleene.vxm(u, A, plus_times, method='push')",
        lambda: kleene.vxm(kf, A, "plus_times", method="push"),
        [
            gb_row(lambda: gb.semiring.plus_times(gf @ gA).new() if gb else None),
            ("scipy u @ A (1 x n CSR)", lambda: f_row @ S, None),
        ],
        chk_plus_sp,
    )

    # sparse mxm: F = A's rows of k random vertices, F (+.x) A = those rows of A.A
    k = g.size["mxm_rows"]
    rows = np.sort(pick_sources(S, k, seed=SOURCE_SEED + 1))
    FS = S[rows].tocsr()
    F = kleene.Matrix.from_scipy(FS)
    gF = gb_matrix(gb, FS) if gb is not None else None
    flops = int(np.diff(S.indptr)[FS.indices].sum())
    g.fact("mxm", {"rows": k, "F nnz": int(FS.nnz), "multiplies": flops})

    def chk_mxm(km, b, name):
        if "graphblas" in name:
            r, c, v = b.to_coo()
            b = sp.csr_matrix((v, (r, c)), shape=(k, n)).toarray()
        else:
            b = b.toarray()
        return _same(km.to_dense(missing=0.0), b)

    g.compare(
        f"mxm (plus_times): {k} rows of A times A, {flops:,} multiplies",
        "kleene.mxm(F, A, plus_times)",
        lambda: kleene.mxm(F, A, "plus_times"),
        [
            gb_row(lambda: gb.semiring.plus_times(gF @ gA).new() if gb else None),
            ("scipy F @ A", lambda: FS @ S, None),
        ],
        chk_mxm,
    )

    def chk_mxm_min(km, b, _):
        r, c, v = b.to_coo()
        ref = np.full((k, n), np.inf)
        ref[r, c] = v
        return _same(km.to_dense(missing=np.inf), ref)

    g.compare(
        f"mxm (min_plus): {k} rows of A times A",
        "kleene.mxm(F, A, min_plus)",
        lambda: kleene.mxm(F, A, "min_plus"),
        [gb_row(lambda: gb.semiring.min_plus(gF @ gA).new() if gb else None)],
        chk_mxm_min,
    )


def run_group(name: str, args) -> None:
    """A group in this (child) process."""
    g = CpuGroup(name, args)
    missing = g.missing()
    if missing:
        g.skip(name, f"{', '.join(missing)} not in {g.data}")
        return
    if name == "closure":
        group_closure(g, args)
        return
    {
        "bfs_ny": group_bfs_ny,
        "sssp_ny": group_sssp_ny,
        "sssp_p2p": group_sssp_p2p,
        "rmat": group_rmat,
        "apsp_dense": group_apsp_dense,
        "apsp_sparse": group_apsp_sparse,
        "primitives": group_primitives,
    }[name](g)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=str(DATA), help="directory of the graph files")
    ap.add_argument("--out", default="benchmarks/results/cpu_2core.json")
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    ap.add_argument(
        "--rows",
        default=",".join(GROUPS),
        help=f"comma list of row groups, of: {', '.join(GROUPS)}",
    )
    ap.add_argument(
        "--row-budget",
        type=float,
        default=60.0,
        help="s a call may take before its row stops at that one call",
    )
    ap.add_argument("--repeat", type=int, default=3, help="timed calls after the warm-up")
    ap.add_argument(
        "--numba-cache",
        choices=("fresh", "shared"),
        default=None,
        help="fresh: an empty Numba cache per group (first call = compilation; "
        "the default), shared: the usual on-disk cache (default with --quick)",
    )
    ap.add_argument(
        "--group-timeout",
        type=float,
        default=None,
        help="s before a group's subprocess is killed (default 15 x --row-budget, at least 600)",
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--scratch", help=argparse.SUPPRESS)
    ap.add_argument("--mem-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--mem-mode", choices=("setup", "call"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.mem_child:
        mem_child(args)
        return
    if args.child:
        run_group(args.child, args)
        return
    groups = [s.strip() for s in args.rows.split(",") if s.strip()]
    bad = [s for s in groups if s not in GROUPS]
    if bad:
        ap.error(f"--rows: unknown group(s) {bad}; known: {', '.join(GROUPS)}")
    cache = args.numba_cache or ("shared" if args.quick else "fresh")
    if args.group_timeout is None:
        args.group_timeout = max(600.0, 15 * args.row_budget)
    t_start = time.perf_counter()
    env = {**environment(), **host_facts()}
    env["python-graphblas"] = getattr(graphblas_or_none(), "__version__", "not importable")
    rows, facts = [], []
    with tempfile.TemporaryDirectory(prefix="bench_cpu_") as scratch:
        for grp in groups:
            print(f"== {grp} ==", file=sys.stderr, flush=True)
            cache_dir = None
            if cache == "fresh":
                cache_dir = tempfile.mkdtemp(prefix=f"numba_{grp}_", dir=scratch)
            r, f = run_child(Path(__file__).resolve(), grp, args, scratch, cache_dir)
            rows += r
            facts += f
    took = time.perf_counter() - t_start
    out = Path(args.out)
    extra = {
        "quick": args.quick,
        "groups": groups,
        "sizes": sizes(args.quick),
        "repeat": args.repeat,
        "statistic": "min",
        "row_budget_s": args.row_budget,
        "numba cache": cache,
        "data": str(Path(args.data).resolve()),
        "graphs": facts,
        "conventions": CONVENTIONS,
        "loadavg end": [round(x, 2) for x in os.getloadavg()],
        "total_s": took,
    }
    if env["python-graphblas"] == "not importable":
        extra["python-graphblas note"] = GB_NOTE
    write_results(out, "cpu", rows, extra)
    doc = json.loads(out.read_text())
    doc["environment"].update(env)  # host facts beside common.environment()'s
    out.write_text(json.dumps(doc, indent=2, default=float) + "\n")
    write_markdown(out.with_suffix(".md"), rows, doc)
    plot(rows, out.with_suffix(".png"))
    met = [r["meets"] for r in rows if r.get("meets") in ("yes", "no")]
    print(
        f"wrote {out} (+ .md, .png) in {took:.0f} s: {met.count('yes')} of {len(met)} "
        f"targeted rows meet their target",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main_or_replot(main, plot)
