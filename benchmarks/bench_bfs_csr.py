"""BFS from a SciPy CSR on the CPU against scipy's breadth_first_order (issue 40, item 2).

    PYTHONPATH=. python3 benchmarks/bench_bfs_csr.py --out benchmarks/results/bfs_csr_cpu.json
    #   --data DIR (default ../shared/data)   --rounds 9   --quick (small graphs, smoke)

Per graph and call (levels; ``return_predecessors=True``; ``directed=False``), three
timings taken in the same rounds, alternating so that load on a shared machine hits
them alike: ``kleene.bfs(csr, s)`` (the user's path: the CSR converted per call),
``kleene.bfs(M, s)`` on a kleene Matrix built once (warm: its first calls have built
what it keeps, e.g. a transpose), and ``scipy.sparse.csgraph.breadth_first_order(csr,
s)`` with the same ``directed`` and ``return_predecessors``. Every callable is called
once before the rounds (Numba compiles on the first call). "ms" is the best of the
rounds, "med" the median; the ratio is kleene-from-CSR best over scipy best. Each
result is checked: levels equal scipy's hop counts; parents are one level up and
joined by an edge (scipy may pick another parent: kleene takes the smallest).

Graphs: the New York road graph (USA-road-NY), a 1000 x 1000 grid (1 M vertices, a
road stand-in for USA-road-FLA), p2p-Gnutella08 and facebook (SNAP; edges as stored
in the files: directed), symmetric RMAT-15 and RMAT-18 (social; the first near
email-Enron's size) and a directed RMAT-17 (each drawn edge kept in one direction:
stand-in for soc-Slashdot0902's kind). CSR values are float64 ones, as a user's graph
would come.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import host_facts, write_results  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
SOURCE = 0
TARGET = 1.5  # issue 40: kleene.bfs(csr) <= 1.5 x scipy's breadth_first_order


def _csr(M) -> sp.csr_matrix:
    """A kleene Matrix's pattern as a canonical float64 scipy CSR (values 1)."""
    S = M.to_scipy().tocsr()
    S = sp.csr_matrix((np.ones(S.nnz), S.indices, S.indptr), shape=S.shape)
    S.sort_indices()
    return S


def graphs(data: Path, quick: bool) -> dict:
    import kleene
    from kleene.generators import from_spec, rmat

    out = {}
    for name, file in (
        ("USA-road-NY", "USA-road-NY.pace.gr.xz"),
        ("p2p-Gnutella08", "p2p-Gnutella08.txt"),
        ("facebook", "facebook_combined.txt.gz"),
    ):
        if (data / file).exists() and not (quick and name == "USA-road-NY"):
            out[name] = _csr(kleene.io.read(data / file))
        else:
            print(f"skipped {name}: {data / file} not found", file=sys.stderr)
    side, scales, dscale = (100, (10, 12), 11) if quick else (1000, (15, 18), 17)
    out[f"grid {side}x{side}"] = _csr(from_spec(f"grid:{side}x{side}"))
    for scale in scales:
        out[f"rmat-{scale} symmetric"] = _csr(from_spec(f"rmat:{scale}"))
    src, dst = rmat(dscale, 16, seed=2)
    keep = src != dst
    d = sp.csr_matrix(
        (np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(1 << dscale, 1 << dscale)
    )
    d.sum_duplicates()
    d.data[:] = 1.0
    out[f"rmat-{dscale} directed"] = d
    return out


def levels_from_scipy(S, s, directed) -> np.ndarray:
    order, pred = breadth_first_order(S, s, directed=directed, return_predecessors=True)
    lv = np.full(S.shape[0], -1, np.int64)
    lv[s] = 0
    for v in order[1:]:  # a parent comes before its children in BFS order
        lv[v] = lv[pred[v]] + 1
    return lv


def check(S, s, directed, out, pred: bool) -> bool:
    ref = levels_from_scipy(S, s, directed)
    lv, par = out if pred else (out, None)
    if not np.array_equal(np.asarray(lv), ref):
        return False
    if par is None:
        return True
    G = S if directed else (S + S.T).tocsr()
    v = np.flatnonzero(ref > 0)
    p = np.asarray(par)[v]
    if (p < 0).any() or not np.array_equal(ref[p], ref[v] - 1):
        return False
    return bool(np.all(np.asarray(G[p, v]).ravel() != 0))


def time_alternating(fns: dict, rounds: int) -> dict:
    """{name: (best ms, median ms)}: every fn once untimed, then ``rounds`` rounds of
    one call each, in turn."""
    for fn in fns.values():
        fn()
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[k].append(1e3 * (time.perf_counter() - t0))
    return {k: (min(v), statistics.median(v)) for k, v in times.items()}


CALLS = {  # name: (kleene.bfs keywords, directed, return_predecessors)
    "levels": ({}, True, False),
    "predecessors": ({"return_predecessors": True}, True, True),
    "directed=False": ({"directed": False}, False, False),
}


def run(data: Path, rounds: int, quick: bool, only: list[str]) -> list[dict]:
    import kleene

    rows = []
    for name, S in graphs(data, quick).items():
        if only and not any(part in name for part in only):
            continue
        n, nnz = S.shape[0], S.nnz
        for call, (kw, directed, pred) in CALLS.items():
            M = kleene.Matrix.from_scipy(S)  # built once: what a prebuilt Matrix keeps
            fns = {
                "csr": lambda S=S, kw=kw: kleene.bfs(S, SOURCE, **kw),
                "prebuilt": lambda M=M, kw=kw: kleene.bfs(M, SOURCE, **kw),
                "scipy": lambda S=S, d=directed, p=pred: breadth_first_order(
                    S, SOURCE, directed=d, return_predecessors=p
                ),
            }
            fns["prebuilt"]()  # a second warm call: a Matrix's second search may build Aᵀ
            t = time_alternating(fns, rounds)
            ok = all(check(S, SOURCE, directed, fns[k](), pred) for k in ("csr", "prebuilt"))
            row = {
                "graph": name,
                "n": n,
                "nnz": nnz,
                "call": call,
                "kleene csr ms": t["csr"][0],
                "kleene csr med": t["csr"][1],
                "kleene prebuilt ms": t["prebuilt"][0],
                "kleene prebuilt med": t["prebuilt"][1],
                "scipy ms": t["scipy"][0],
                "scipy med": t["scipy"][1],
                "csr / scipy": t["csr"][0] / t["scipy"][0],
                "prebuilt / scipy": t["prebuilt"][0] / t["scipy"][0],
                "check": "ok" if ok else "MISMATCH",
            }
            rows.append(row)
            print(
                f"{name:22s} {n:>9d} {nnz:>9d} {call:15s} csr {row['kleene csr ms']:8.3f}"
                f"  prebuilt {row['kleene prebuilt ms']:8.3f}  scipy {row['scipy ms']:8.3f}"
                f"  ratio {row['csr / scipy']:5.2f}  {row['check']}",
                flush=True,
            )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "bfs_csr_cpu.json"))
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--quick", action="store_true", help="small graphs (a smoke run)")
    ap.add_argument("--graphs", default="", help="comma-separated parts of graph names to run")
    args = ap.parse_args()
    import kleene

    print(f"kleene from {Path(kleene.__file__).parent}", file=sys.stderr)
    facts = host_facts()
    rows = run(Path(args.data), args.rounds, args.quick, [g for g in args.graphs.split(",") if g])
    facts["loadavg end"] = host_facts()["loadavg start"]
    write_results(
        args.out,
        "BFS from a SciPy CSR, CPU",
        rows,
        {
            "host": facts,
            "source": SOURCE,
            "rounds": args.rounds,
            "target ratio": TARGET,
            "conventions": "ms = best of the rounds, med = median; the three timings of a row "
            "alternate within each round; every callable called once first",
        },
    )
    if any(r["check"] != "ok" for r in rows):
        sys.exit("a kleene result differs from scipy's")


if __name__ == "__main__":
    main()
