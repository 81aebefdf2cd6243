"""The output side of bench_cpu.py: the JSON's conventions, the markdown tables and the
plot of kleene's time over each baseline (target marked)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from common import markdown_table, save_figure

CONVENTIONS = {
    "time": "wall time of the whole public call (host clock): one warm-up call, then 3; "
    "'kleene ms' and 'baseline ms' are the MINIMUM of the 3 (medians beside them); "
    "'ratio' = kleene ms / baseline ms (below 1: kleene faster)",
    "first call": "'first call s' is the warm-up call, the first of its kind in the group's "
    "fresh subprocess: with --numba-cache fresh (the default for full runs) it includes "
    "the Numba compilation of the kernels it is first to use; with 'shared', loading them "
    "from the on-disk cache. 'compile s (first - median)' is its excess over a warm call",
    "budget": "a call longer than --row-budget s is not repeated: its row holds that one "
    "call (runs = 1, compilation included, said in 'note')",
    "process": "each row group runs in its own subprocess; the machine's cores are shared "
    "by every tool (SciPy and python-graphblas as they run by default, kleene's Numba kernels "
    "on all cores)",
    "weights": "integer weights 1..100 (numpy default_rng seed 3), stored as float64, one "
    "per stored entry where the file has none; rome99 keeps its own (as float64); RMAT-18: "
    "one per drawn edge, both directions, duplicates merged by min (symmetric)",
    "graphs": "USA-road-NY.pace.gr.xz (undirected, both ways), p2p-Gnutella08.txt "
    "(directed), rome99.gr (directed), facebook_combined.txt.gz (read with directed=False); "
    "RMAT: kleene.generators.rmat(18, 16, seed=1), Graph500 parameters, symmetric",
    "sources": "vertex 0 on NY and Gnutella08; on RMAT a seeded random vertex of degree > 0",
    "targets": "issue 13: BFS NY prebuilt <= 1.5x scipy, from a CSR <= 2x; SSSP NY and "
    "Gnutella08 <= 3x dijkstra; APSP auto sparse <= 2x scipy shortest_path; APSP dense "
    "<= 1x floyd_warshall; transitive_closure n ~ 6,000 <= 15 s and peak <= 3x result bytes "
    "+ 100 MB; mxv / vxm / mxm <= 2x python-graphblas; '-' where the issue sets none",
    "memory": "'kleene MB': peak RSS (getrusage RUSAGE_CHILDREN ru_maxrss, read in a small "
    "launcher process) of a subprocess that reads the graph, runs a 3-vertex closure "
    "(kernels loaded from the Numba cache a first, unmeasured run filled) and then the "
    "closure, minus that of one that does the same without the last call (tracemalloc "
    "does not see Numba's allocations); 'peak over pre-call RSS MB': the first subprocess's "
    "peak minus its RSS (VmRSS) just before the call. The first can read low when the set-up had a "
    "transient peak, the second high; 'ratio' and 'meets' use the larger. 'baseline MB': "
    "the result's bytes (n x n bool); 'kleene ms': the call's time in that subprocess",
    "checks": "'check': kleene's result against the baseline's (BFS: hop counts from scipy's "
    "BFS tree; distances: allclose; closure: 3 rows against scipy BFS reachability)",
}

_SHOWN = [
    "task",
    "kleene ms",
    "first call s",
    "compile s (first - median)",
    "baseline",
    "baseline ms",
    "ratio",
    "target",
    "meets",
    "kleene MB",
    "peak over pre-call RSS MB",
    "baseline MB",
    "check",
    "note",
]


def write_markdown(path: Path, rows, doc) -> None:
    env = doc["environment"]
    lines = [
        "# kleene's CPU back end against its baselines (issue 13, item 5)",
        "",
        f"{env['date']}; {env.get('cpu count')} cores ({env.get('cpu model', env['cpu'])}), "
        f"load average {env.get('loadavg start')} at the start, "
        f"{doc.get('loadavg end')} at the end; kleene {env['kleene']}, NumPy "
        f"{env['numpy']}, SciPy {env['scipy']}, Numba {env.get('numba')}, "
        f"python-graphblas {env.get('python-graphblas')}; "
        f"{'--quick; ' if doc['quick'] else ''}Numba cache {doc['numba cache']}.",
        "",
    ]
    lines += [f"* **{k}**: {v}" for k, v in CONVENTIONS.items()]
    for grp in dict.fromkeys(r["group"] for r in rows):
        sub = [r for r in rows if r["group"] == grp]
        cols = [c for c in _SHOWN if any(r.get(c) not in (None, "") for r in sub)]
        lines += ["", markdown_table([{c: _cell(r.get(c)) for c in cols} for r in sub], title=grp)]
    path.write_text("\n".join(lines) + "\n")


def _cell(v):
    return "" if v is None else v


def plot(rows: list[dict], path: Path, title: str = "kleene CPU: time over baseline") -> None:
    """Each row's ratio to its baseline (log), the target marked where the issue sets one."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    shown = [r for r in rows if isinstance(r.get("ratio"), (int, float))]
    if not shown:
        return
    fig, ax = plt.subplots(figsize=(13, 0.32 * len(shown) + 1.8))
    ys = np.arange(len(shown))
    colors = [{"yes": "tab:green", "no": "tab:red"}.get(r.get("meets"), "tab:gray") for r in shown]
    ax.barh(ys, [r["ratio"] for r in shown], color=colors, height=0.6)
    tgt = [(y, r["target ratio"]) for y, r in zip(ys, shown, strict=True) if r.get("target ratio")]
    if tgt:
        ax.scatter(
            [t for _, t in tgt],
            [y for y, _ in tgt],
            marker="|",
            s=260,
            color="k",
            linewidths=2,
            label="target",
            zorder=3,
        )
        ax.legend(fontsize=8, loc="lower right")
    ax.axvline(1.0, color="k", lw=0.8, alpha=0.5)
    ax.set_xscale("log")
    labels = [f"{r['task']}  vs {r['baseline']}" for r in shown]
    ax.set_yticks(ys, [lb if len(lb) < 80 else lb[:77] + "..." for lb in labels], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("kleene / baseline (log; < 1: kleene faster)")
    ax.set_title(
        f"{title}\n(green: meets its target, red: misses it, grey: no target)", fontsize=10
    )
    ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
