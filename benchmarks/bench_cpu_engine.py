"""The CPU engine under kleene's products (issue 42), against python-graphblas and SciPy.

    PYTHONPATH=. python3 benchmarks/bench_cpu_engine.py --out benchmarks/results/cpu_engine.json
    #   --data DIR (default ../shared/data)   --rows mxv,mxm,min_plus,bfs,closure
    #   --repeat 7   --quick (small stand-ins, a smoke run)

Rows (each kleene call from the user's input form: a SciPy CSR converted once to a
kleene.Matrix outside the timed region; the conversion is timed on its own row):

* ``mxv``: ``kleene.mxv(A, u, plus_times)``, u a full dense vector, vs ``G.mxv(u)``
  (python-graphblas) and ``A @ u`` (SciPy)
* ``mxm``: ``kleene.mxm(A, A, plus_times)`` vs python-graphblas and ``A @ A``
* ``min_plus``: ``kleene.mxm(A, A, min_plus)`` vs python-graphblas
* ``bfs``: ``kleene.vxm(q, A, any_pair, mask=~v.S)``: q the frontier of the middle
  level of a BFS from the vertex of largest out-degree, v the vertices visited up to
  it, vs python-graphblas's ``w(~v.S, replace) << q.vxm(G, any_pair)``
* ``closure``: ``kleene.transitive_closure`` on p2p-Gnutella31 vs SciPy's strongly
  connected components and a bit-packed dynamic programme over the condensation
  (NumPy), each in a subprocess of its own: time and peak RSS over the RSS before
  the call; ``closure_slashdot``: kleene alone on soc-Slashdot0902 (one run)

Timing: every contender is warmed up, then the contenders run in turn, ``--repeat``
rounds, in one process (the machine's load falls on all alike); the row keeps each
one's best and median. 'ratio' = kleene / the best peer (below 1: kleene faster).
The mxv rows run 6 × ``--repeat`` rounds, each contender making 5 calls in a row
per round: an OpenMP runtime (SuiteSparse:GraphBLAS's; Numba's, under kleene's
dense pull) keeps its workers spinning for a while after a call, and a
sub-millisecond call made next by another library runs beside them on a core they
hold; best and median are over every call.

``--rows`` naming some rows reruns those (and the conversion rows) and keeps the
other rows of the ``--out`` file as they were ('merged' in the JSON says which were
rerun and gives each row the date of the run that measured it).

Graphs: soc-Slashdot0902, bio-CE-CX and p2p-Gnutella31 from --data where they are
there; else stand-ins of the same vertex and edge counts (said in each row's 'graph'):
Chung-Lu graphs with power-law expected degrees for the first two (bio-CE-CX's
symmetric), a uniform random digraph for p2p-Gnutella31. Weights 1..100 (float64).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import environment, host_facts, write_results  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
ROWS = ("mxv", "mxm", "min_plus", "bfs", "closure", "closure_slashdot")
# name: (files that may hold it, n, edges, symmetric, stand-in kind)
GRAPHS = {
    "soc-Slashdot0902": (["soc-Slashdot0902.txt.gz", "soc-Slashdot0902.txt"], 82168, 948464),
    "bio-CE-CX": (["bio-CE-CX.edges", "bio-CE-CX.edges.gz"], 15229, 245952),
    "p2p-Gnutella31": (["p2p-Gnutella31.txt.gz", "p2p-Gnutella31.txt"], 62586, 147892),
}
SYMMETRIC = {"bio-CE-CX"}
MXV_BURST = 5  # mxv: calls per contender per round (see the docstring's Timing)
QUICK_SCALE = 16  # --quick: stand-ins n / 16


def _finish(src, dst, n, seed, symmetric):
    """CSR with weights 1..100, no self loops or duplicates, labels shuffled."""
    keep = src != dst
    src, dst = src[keep], dst[keep]
    if symmetric:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    A = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    A.sum_duplicates()
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    A = A[perm][:, perm].tocsr()
    A.sort_indices()
    A.data = rng.integers(1, 101, A.nnz).astype(np.float64)
    return A


def stand_in(name: str, quick: bool):
    """(CSR, description) of a graph shaped like ``name``."""
    _, n, m = GRAPHS[name]
    if quick:
        n, m = n // QUICK_SCALE, m // QUICK_SCALE
    rng = np.random.default_rng(11)
    if name == "p2p-Gnutella31":
        A = _finish(rng.integers(0, n, m), rng.integers(0, n, m), n, 5, False)
        return A, f"stand-in: uniform random digraph, n={n:,}, {A.nnz:,} edges"
    symmetric = name in SYMMETRIC
    gamma = 0.5 if symmetric else 0.55  # expected degree of the i-th vertex ∝ i^-gamma
    p = np.arange(1, n + 1) ** -gamma
    p /= p.sum()
    draws = int(m * (1.06 if symmetric else 1.06))  # duplicates and loops dropped after
    A = _finish(rng.choice(n, draws, p=p), rng.choice(n, draws, p=p), n, 3, symmetric)
    kind = "symmetric Chung-Lu" if symmetric else "Chung-Lu digraph"
    return A, f"stand-in: {kind}, n={n:,}, {A.nnz:,} stored entries"


def load(name: str, data: Path, quick: bool):
    files, _, _ = GRAPHS[name]
    for f in files:
        if (data / f).exists() and not quick:
            import kleene

            A = kleene.io.read(data / f, directed=name not in SYMMETRIC, dtype=np.float64)
            S = A.to_scipy().tocsr()
            S.data = np.random.default_rng(3).integers(1, 101, S.nnz).astype(np.float64)
            return S, f"{f}: n={S.shape[0]:,}, {S.nnz:,} stored entries"
    return stand_in(name, quick)


def interleaved(contenders: dict, repeat: int, burst: int = 1) -> dict:
    """Warm each up, then ``repeat`` rounds of ``burst`` calls each in turn: best and
    median ms over all the calls."""
    for fn in contenders.values():
        fn()
    times = {k: [] for k in contenders}
    for _ in range(repeat):
        for k, fn in contenders.items():
            for _ in range(burst):
                t0 = time.perf_counter()
                fn()
                times[k].append(1e3 * (time.perf_counter() - t0))
    return {k: (min(v), statistics.median(v)) for k, v in times.items()}


def row(task, graph, result, kleene_key="kleene", **extra) -> dict:
    k_best, k_med = result[kleene_key]
    peers = {k: v for k, v in result.items() if k != kleene_key}
    best_peer = min(peers, key=lambda k: peers[k][0]) if peers else None
    r = {
        "task": task,
        "graph": graph,
        "kleene ms": round(k_best, 3),
        "kleene median ms": round(k_med, 3),
    }
    for k, (b, _) in peers.items():
        r[f"{k} ms"] = round(b, 3)
    r["best peer"] = best_peer
    r["ratio"] = round(k_best / peers[best_peer][0], 3) if peers else None
    r.update(extra)
    print(json.dumps(r), file=sys.stderr, flush=True)
    return r


def conversion_row(S, graph, repeat) -> dict:
    import graphblas as gb

    import kleene

    res = interleaved(
        {
            "kleene": lambda: kleene.Matrix.from_scipy(S),
            "graphblas": lambda: gb.io.from_scipy_sparse(S),
        },
        repeat,
    )
    return row("conversion from the SciPy CSR (outside the timed rows)", graph, res)


def products(S, graph, which, repeat, rows):
    import graphblas as gb

    import kleene
    from kleene.semiring import min_plus, plus_times

    A = kleene.Matrix.from_scipy(S)
    G = gb.io.from_scipy_sparse(S)
    n = S.shape[0]
    if "mxv" in which:
        u = np.random.default_rng(0).random(n)
        U, Ug = kleene.Vector.from_dense(u), gb.Vector.from_dense(u)
        got = kleene.mxv(A, U, plus_times).to_dense(missing=0.0)
        assert np.allclose(got, S @ u), "mxv differs from SciPy"
        res = interleaved(
            {
                "kleene": lambda: kleene.mxv(A, U, plus_times),
                "graphblas": lambda: G.mxv(Ug, gb.semiring.plus_times).new(),
                "scipy": lambda: S @ u,
            },
            6 * repeat,  # sub-millisecond calls: more rounds, the same few seconds
            burst=MXV_BURST,
        )
        rows.append(row("mxv(A, u, plus_times), u dense", graph, res))
    if "mxm" in which:
        C = kleene.mxm(A, A, plus_times)
        assert C.nvals == (S @ S).nnz, "mxm's pattern differs from SciPy's"
        res = interleaved(
            {
                "kleene": lambda: kleene.mxm(A, A, plus_times),
                "graphblas": lambda: G.mxm(G, gb.semiring.plus_times).new(),
                "scipy": lambda: S @ S,
            },
            repeat,
        )
        rows.append(row("mxm(A, A, plus_times)", graph, res, nnz_C=C.nvals))
    if "min_plus" in which:
        C = kleene.mxm(A, A, min_plus)
        Cg = G.mxm(G, gb.semiring.min_plus).new()
        assert C.nvals == Cg.nvals, "min_plus pattern differs from python-graphblas"
        res = interleaved(
            {
                "kleene": lambda: kleene.mxm(A, A, min_plus),
                "graphblas": lambda: G.mxm(G, gb.semiring.min_plus).new(),
            },
            repeat,
        )
        rows.append(row("mxm(A, A, min_plus)", graph, res, nnz_C=C.nvals))
    if "bfs" in which:
        from scipy.sparse.csgraph import breadth_first_order

        src = int(np.argmax(np.diff(S.indptr)))
        order, pred = breadth_first_order(S, src, directed=True, return_predecessors=True)
        level = np.full(n, -1)
        level[src] = 0
        for v in order[1:]:
            level[v] = level[pred[v]] + 1
        mid = int(level.max() + 1) // 2 or 1
        front = np.flatnonzero(level == mid)
        seen = np.flatnonzero((level >= 0) & (level <= mid))
        q = kleene.Vector.from_coo(front, np.ones(front.size, bool), n)
        v = kleene.Vector.from_coo(seen, np.ones(seen.size, bool), n)
        qg = gb.Vector.from_coo(front, True, size=n)
        vg = gb.Vector.from_coo(seen, True, size=n)

        def gb_level():
            w = gb.Vector(bool, n)
            w(~vg.S, replace=True) << qg.vxm(G, gb.semiring.any_pair)
            return w

        got = kleene.vxm(q, A, "any_pair", mask=~v.S)
        assert got.nvals == gb_level().nvals == int((level == mid + 1).sum())
        res = interleaved(
            {"kleene": lambda: kleene.vxm(q, A, "any_pair", mask=~v.S), "graphblas": gb_level},
            repeat * 2,
        )
        fresh = kleene.Matrix.from_scipy(S)  # no Aᵀ cached yet: the first call builds it
        t0 = time.perf_counter()
        kleene.vxm(q, fresh, "any_pair", mask=~v.S)
        first = round(1e3 * (time.perf_counter() - t0), 3)
        what = f"vxm(q, A, any_pair, mask=~visited), level {mid}: |q|={front.size:,}"
        extra = {"visited": int(seen.size), "kleene first call on a fresh A ms": first}
        rows.append(row(what, graph, res, **extra))


def scipy_closure(S):
    """Reachability by SciPy's strongly connected components and a bit-packed dynamic
    programme over the condensation, sinks first (the peer of transitive_closure)."""
    from scipy.sparse.csgraph import connected_components

    n = S.shape[0]
    ncomp, lab = connected_components(S, directed=True, connection="strong")
    coo = S.tocoo()
    cs, cd = lab[coo.row], lab[coo.col]
    cyclic = np.bincount(lab, minlength=ncomp) > 1
    cyclic[cs[coo.row == coo.col]] = True
    cross = cs != cd
    D = sp.csr_matrix((np.ones(int(cross.sum())), (cs[cross], cd[cross])), shape=(ncomp,) * 2)
    D.sum_duplicates()
    # a topological order of the condensation (Kahn), then its reverse
    indeg = np.bincount(D.indices, minlength=ncomp)
    order, stack = [], list(np.flatnonzero(indeg == 0))
    while stack:
        c = stack.pop()
        order.append(c)
        for d in D.indices[D.indptr[c] : D.indptr[c + 1]]:
            indeg[d] -= 1
            if indeg[d] == 0:
                stack.append(d)
    words = (n + 7) // 8
    members = np.zeros((ncomp, words), np.uint8)
    np.bitwise_or.at(
        members, (lab, np.arange(n) >> 3), (128 >> (np.arange(n) & 7)).astype(np.uint8)
    )
    reach = np.where(cyclic[:, None], members, 0).astype(np.uint8)
    for c in reversed(order):
        succ = D.indices[D.indptr[c] : D.indptr[c + 1]]
        if succ.size:
            reach[c] |= np.bitwise_or.reduce(reach[succ] | members[succ], axis=0)
    out = np.empty((n, n), dtype=bool)
    step = 4096
    for r in range(0, n, step):
        out[r : r + step] = np.unpackbits(reach[lab[r : r + step]], axis=1, count=n).view(bool)
    return out


def _status_bytes(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def closure_child(name: str, which: str, data: str, quick: bool) -> None:
    S, _ = load(name, Path(data), quick)
    import kleene

    fn = (lambda: kleene.transitive_closure(S)) if which == "kleene" else (lambda: scipy_closure(S))
    if which == "kleene":  # compile (or load) the kernels on a small graph first
        kleene.transitive_closure(sp.random(3000, 3000, density=2e-4, format="csr", random_state=1))
    before = _status_bytes("VmRSS")
    t0 = time.perf_counter()
    R = fn()
    dt = time.perf_counter() - t0
    peak = _status_bytes("VmHWM")  # this process's own peak (ru_maxrss survives exec)
    reached = int(np.count_nonzero(R))
    print(json.dumps({"s": dt, "peak_over_start": peak - before, "reached": reached}))


def closure_rows(name, args, rows, repeat=3, peer=True):
    graph = load(name, Path(args.data), args.quick)[1]
    runs = {"kleene": [], "scipy SCC + bit-packed DP": []} if peer else {"kleene": []}
    for _ in range(repeat):  # interleaved, a fresh process each
        for which in runs:
            cmd = [sys.executable, __file__, "--closure-child", name, which, "--data", args.data]
            p = subprocess.run(
                cmd + (["--quick"] if args.quick else []), capture_output=True, text=True
            )
            if p.returncode:
                raise RuntimeError(f"closure child {which} failed: {p.stderr[-2000:]}")
            runs[which].append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert len({r["reached"] for v in runs.values() for r in v}) == 1, "the closures differ"
    res = {
        k: (1e3 * min(r["s"] for r in v), 1e3 * statistics.median(r["s"] for r in v))
        for k, v in runs.items()
    }
    mem = {k: round(max(r["peak_over_start"] for r in v) / 1e9, 3) for k, v in runs.items()}
    n = GRAPHS[name][1] // (QUICK_SCALE if args.quick else 1)
    rows.append(
        row(
            "transitive_closure",
            graph,
            res,
            **{"peak GB": mem, "result GB (n² bool)": round(n * n / 1e9, 3)},
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "cpu_engine.json"))
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--rows", default=",".join(ROWS))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--closure-child", nargs=2, metavar=("GRAPH", "WHICH"))
    args = ap.parse_args()
    if args.closure_child:
        return closure_child(*args.closure_child, args.data, args.quick)
    which = set(args.rows.split(","))
    facts = host_facts()
    rows: list[dict] = []
    for name in ("soc-Slashdot0902", "bio-CE-CX"):
        S, graph = load(name, Path(args.data), args.quick)
        rows.append(conversion_row(S, graph, args.repeat))
        mine = which & (
            {"mxv", "mxm", "min_plus", "bfs"} if name != "bio-CE-CX" else {"mxv", "mxm"}
        )
        products(S, graph, mine, args.repeat, rows)
    if "closure" in which:
        closure_rows("p2p-Gnutella31", args, rows)
    if "closure_slashdot" in which:  # kleene alone: the result is n² bytes (6.75 GB)
        closure_rows("soc-Slashdot0902", args, rows, repeat=1, peer=False)
    facts["loadavg end"] = [round(x, 2) for x in os.getloadavg()]
    try:  # the layer under kleene's parallel kernels (known once one has run)
        import numba

        facts["numba threading layer"] = numba.threading_layer()
    except (ImportError, ValueError):
        pass
    extra = {"host": facts, "conventions": __doc__}
    if which != set(ROWS) and Path(args.out).exists():
        rows, extra["merged"] = merge(json.loads(Path(args.out).read_text()), rows, which)
    write_results(args.out, "cpu_engine", rows, extra)


def merge(old: dict, rows: list[dict], which: set) -> tuple[list[dict], dict]:
    """The rows of an earlier run with this run's rows in place of those they rerun
    (same task and graph), new ones appended: every row stays in the file. 'dates'
    gives each row the date of the run that measured it."""
    key = lambda r: f"{r['task']} | {r['graph']}"  # noqa: E731
    before, known = old["environment"]["date"], old.get("merged", {}).get("dates", {})
    dates = {key(r): known.get(key(r), before) for r in old["rows"]}
    fresh = {key(r): r for r in rows}
    out = [fresh.pop(key(r), r) for r in old["rows"]]
    out += [r for r in rows if key(r) in fresh]
    now = environment()["date"]
    dates.update({key(r): now for r in rows})
    return out, {"rerun": sorted(which), "dates": dates}


if __name__ == "__main__":
    main()
