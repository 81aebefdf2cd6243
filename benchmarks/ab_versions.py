"""Time kleene versions side by side on one machine: the road and RMAT rows of issue 12.

    PYTHONPATH=. python3 benchmarks/ab_versions.py 6c3f74d HEAD --rounds 3 --rmat \
        --out /tmp/ab.json

A comparison of two trees is a decision, not a result to keep: write it outside the
repository and put its one-line outcome in benchmarks/results/HISTORY.md.

Each git revision's ``kleene`` package is exported (``git archive``) to its own folder and
timed in its own process (``PYTHONPATH`` = that folder; the benchmark code is this file's,
the same for all). Processes run one revision after another, the revisions interleaved
for ``--rounds`` rounds, and a figure is the median over rounds of each process's median
of ``--repeat`` calls after two warm-ups, wall time with a device sync. GPU near-far and
road BFS times differ by up to 35 % between cards of one kind (docs/benchmarks.md), so compare
versions only within one run of this script.

Rows: ``kleene.bfs(G, 0)``, ``kleene.sssp(G, 0)`` and ``kleene.sssp(G, 0,
return_predecessors=True)`` on New York (``USA-road-NY.pace.gr.xz`` under ``--data``,
weights 1..999 seed 3; skipped without the file) and ``road_graph(--road-side)``, each
from the user's CSR ("U": a cupyx CSR on the GPU, scipy on the CPU) and a prebuilt
Matrix ("M"); with ``--rmat`` the RMAT graph of bench_paths at ``--scale`` (prebuilt).
``--device cpu`` times the CPU back end (the smoke test's mode).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _export(rev: str, root: Path, repo: Path) -> Path:
    """``kleene`` at git revision ``rev`` under ``root/<rev>``."""
    dest = root / rev.replace("/", "_")
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", rev, "kleene"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def _worker(args) -> dict:
    """One revision's figures (this process imports the kleene on PYTHONPATH)."""
    import numpy as np

    import kleene
    from kleene.generators import road_graph

    sys.path.insert(0, str(HERE))
    from common import wall_time

    if args.device == "gpu":
        import cupyx.scipy.sparse as csp

    def med(f, k):
        return round(wall_time(f, device=args.device, warmup=2, repeat=k)["median_ms"], 4)

    graphs = {}
    ny = Path(args.data) / "USA-road-NY.pace.gr.xz"
    if ny.exists():
        G = kleene.io.read(ny)
        r, c, _ = G.to_coo()
        w = np.random.default_rng(3).integers(1, 1000, r.size).astype(np.float64)
        graphs["NY"] = kleene.Matrix.from_edges(r, c, w, G.nrows).to_scipy()
    graphs["road"] = road_graph(args.road_side, seed=0).to_scipy().astype(np.float64)
    out = {}
    for name, S in graphs.items():
        M = kleene.Matrix.from_scipy(S).to(args.device)
        U = csp.csr_matrix(S) if args.device == "gpu" else S
        for label, G in (("M", M), ("U", U)):
            out[f"{name} bfs {label}"] = med(lambda G=G: kleene.bfs(G, 0), args.repeat)
            out[f"{name} sssp {label}"] = med(lambda G=G: kleene.sssp(G, 0), args.repeat)
            out[f"{name} preds {label}"] = med(
                lambda G=G: kleene.sssp(G, 0, return_predecessors=True), args.repeat
            )
    if args.rmat:
        from bench_paths import _rmat_graph

        R = _rmat_graph(args.scale, seed=1, device=args.device)
        out["rmat bfs M"] = med(lambda: kleene.bfs(R, 0), args.repeat)
        out["rmat sssp M"] = med(lambda: kleene.sssp(R, 0), args.repeat)
        out["rmat preds M"] = med(lambda: kleene.sssp(R, 0, return_predecessors=True), args.repeat)
    return {"module": str(Path(kleene.__file__).resolve().parent), "figures": out}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("revs", nargs="*", help="git revisions to compare (HEAD, a hash, a tag)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=11, help="timed calls per figure")
    ap.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--data", default=os.environ.get("KLEENE_DATA", "../shared/data"))
    ap.add_argument("--road-side", type=int, default=1024, help="road_graph(side)")
    ap.add_argument("--rmat", action="store_true", help="also RMAT at --scale (prebuilt)")
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--out", default=None, help="JSON results (environment, rows, medians)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print("RESULT " + json.dumps(_worker(args)), flush=True)
        return
    if not args.revs:
        ap.error("name at least one git revision")
    repo = HERE.parent
    worker = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        "--device",
        args.device,
        "--data",
        str(Path(args.data).resolve()),
        "--road-side",
        str(args.road_side),
        "--repeat",
        str(args.repeat),
        "--scale",
        str(args.scale),
    ]
    if args.rmat:
        worker.append("--rmat")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trees = {rev: _export(rev, Path(tmp), repo) for rev in args.revs}
        for r in range(args.rounds):
            for rev, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=str(tree))
                p = subprocess.run(worker, env=env, capture_output=True, text=True, cwd=repo)
                found = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
                if p.returncode or not found:
                    raise SystemExit(f"ab_versions: {rev} failed:\n{p.stderr[-3000:]}")
                res = json.loads(found[0][7:])
                if Path(res["module"]) != (tree / "kleene").resolve():
                    raise SystemExit(f"ab_versions: {rev} imported kleene from {res['module']}")
                rows.append({"rev": rev, "round": r, **res["figures"]})
                print(f"round {r} {rev}: done", file=sys.stderr, flush=True)
    keys = [k for k in rows[0] if k not in ("rev", "round")]
    medians = {
        rev: {k: statistics.median(x[k] for x in rows if x["rev"] == rev) for k in keys}
        for rev in args.revs
    }
    print("median over rounds, ms")
    print("rev".ljust(14) + "".join(k.rjust(14) for k in keys))
    for rev, m in medians.items():
        print(rev[:13].ljust(14) + "".join(f"{m[k]:14.3f}" for k in keys))
    if args.out:
        sys.path.insert(0, str(HERE))
        from common import environment

        doc = {
            "benchmark": "ab_versions",
            "environment": environment(),
            "args": vars(args),
            "rows": rows,
            "medians": medians,
        }
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
