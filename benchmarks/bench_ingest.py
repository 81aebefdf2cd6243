"""GPU end to end on the user's path (issue 11): kleene.bfs / kleene.sssp called on a
cupyx.scipy.sparse CSR matrix and on a prebuilt kleene.Matrix, RMAT scales 22, 24, 25.

    PYTHONPATH=. python3 benchmarks/bench_ingest.py --out benchmarks/results/ingest_h100.json

Every row is the median wall time (host clock, a device sync before and after) of one
public call, after one warm-up call, over ``--repeats`` fresh calls (fewer where a call is
slower than ``--row-budget`` allows); a fresh random source (among vertices with out-degree
> 0) every call. Beside the time: the call's peak GPU memory (CuPy memory-pool high-water,
through a wrapped pool allocator), the input CSR's bytes and their ratio. A row that runs
out of memory is recorded as "out of memory: ..." and the run goes on; a row whose result
alone would not fit in the free GPU memory is skipped with the reason.

The graph: kleene.generators.rmat (Graph500 parameters, edge factor 16) drawn on the device,
every edge stored both ways, duplicates merged (self loops kept), as a canonical CSR with
int32 indices and float32 weights uniform in [1, 64) (a hash of the vertex pair: the
weight of i-j equals that of j-i). Only the CSR stays on the device.

``--device cpu`` is a smoke run on small scales: scipy.sparse CSR, no memory figures.
``--replot RESULTS.json`` redraws the plot of a results file.
"""

from __future__ import annotations

import time

_T_START = time.perf_counter()

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import main_or_replot, markdown_table, save_figure, write_results  # noqa: E402

import kleene  # noqa: E402

_T_IMPORTED = time.perf_counter()

EDGE_FACTOR = 16
GRAPH_SEED = 1
SOURCE_SEED = 7
WEIGHTS = (1.0, 64.0)
GIB = 2**30
CHUNK = 1 << 26  # entries per pass when deriving indices and weights from the sorted keys
TIME = "median ms"  # the column every row has: a number, or why there is none


# ---------------------------------------------------------------------------------------
# the graph
# ---------------------------------------------------------------------------------------


def _xp(device: str):
    if device == "gpu":
        import cupy

        return cupy
    return np


def _host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _pair_weights(xp, rows, cols):
    """float32 weights in [1, 64) from a splitmix64 hash of the unordered pair {row, col}."""
    u64 = np.uint64
    lo = xp.minimum(rows, cols).astype(u64)
    hi = xp.maximum(rows, cols).astype(u64)
    z = (lo << u64(32)) | hi
    z ^= u64(0x9E3779B97F4A7C15 ^ GRAPH_SEED)
    z = (z ^ (z >> u64(30))) * u64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> u64(27))) * u64(0x94D049BB133111EB)
    z ^= z >> u64(31)
    unit = (z >> u64(40)).astype(np.float64) * (1.0 / (1 << 24))  # 24 bits: [0, 1)
    lo_w, hi_w = WEIGHTS
    return (lo_w + (hi_w - lo_w) * unit).astype(np.float32)  # stays below 64 in float32


def build_graph(scale: int, device: str, seed: int = GRAPH_SEED):
    """(csr, facts): the symmetric RMAT graph as a scipy / cupyx CSR matrix on ``device``.

    Memory on the device, at most about 16 bytes per stored entry at once after the edge
    list is drawn (int64 sort keys, then int32 indices and float32 weights from them).
    """
    from kleene.generators.rmat import rmat

    xp = _xp(device)
    n = 1 << scale
    t0 = time.perf_counter()
    src, dst = rmat(scale, EDGE_FACTOR, seed=seed, device=device)  # int64, directed draws
    m = src.size
    keys = xp.empty(2 * m, dtype=np.int64)  # row << scale | col, both directions
    xp.left_shift(src, scale, out=keys[:m])
    keys[:m] |= dst
    xp.left_shift(dst, scale, out=keys[m:])
    keys[m:] |= src
    del src, dst
    keys.sort()
    keep = xp.empty(keys.size, dtype=bool)
    keep[:1] = True
    xp.not_equal(keys[1:], keys[:-1], out=keep[1:])
    keys = keys[keep]
    del keep
    nnz = int(keys.size)
    if nnz >= 2**31:
        raise ValueError(f"RMAT-{scale}: {nnz} entries do not fit int32 CSR row pointers")
    indptr = xp.searchsorted(keys, xp.arange(n + 1, dtype=np.int64) << scale).astype(np.int32)
    indices = xp.empty(nnz, dtype=np.int32)
    data = xp.empty(nnz, dtype=np.float32)
    mask = np.int64(n - 1)
    for lo in range(0, nnz, CHUNK):
        k = keys[lo : lo + CHUNK]
        rows, cols = k >> scale, k & mask
        indices[lo : lo + CHUNK] = cols.astype(np.int32)
        data[lo : lo + CHUNK] = _pair_weights(xp, rows, cols)
        del k, rows, cols
    del keys
    if device == "gpu":
        import cupyx.scipy.sparse as csp

        csr = csp.csr_matrix((data, indices, indptr), shape=(n, n))
    else:
        import scipy.sparse as sp

        csr = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    if not csr.has_canonical_format:  # computes the flag once (kleene reads it)
        raise AssertionError("the built CSR is not canonical")
    del data, indices, indptr
    candidates = _host(xp.flatnonzero(xp.diff(csr.indptr) > 0))
    _sync(device)
    facts = {
        "scale": scale,
        "n": n,
        "nnz": nnz,
        "undirected edges (nnz/2)": nnz / 2,
        "drawn edges": m,
        "vertices with out-degree > 0": int(candidates.size),
        "csr bytes": csr_bytes(csr),
        "csr dtypes": f"indptr {csr.indptr.dtype}, indices {csr.indices.dtype}, "
        f"data {csr.data.dtype}",
        "build s": time.perf_counter() - t0,
    }
    return csr, candidates, facts


def csr_bytes(csr) -> int:
    return int(csr.indptr.nbytes + csr.indices.nbytes + csr.data.nbytes)


def _sync(device: str) -> None:
    if device == "gpu":
        import cupy

        cupy.cuda.Device().synchronize()


# ---------------------------------------------------------------------------------------
# memory: a pool allocator that records the high-water mark
# ---------------------------------------------------------------------------------------


class PoolWatch:
    """CuPy's default pool behind ``cupy.cuda.set_allocator``, recording ``used_bytes()``'s
    maximum (taken right after each allocation, which is where it can rise)."""

    def __init__(self, device: str):
        self.on = device == "gpu"
        self.peak = 0
        if self.on:
            import cupy

            self.cp = cupy
            self.pool = cupy.get_default_memory_pool()
            cupy.cuda.set_allocator(self._malloc)

    def _malloc(self, nbytes):
        mem = self.pool.malloc(nbytes)
        used = self.pool.used_bytes()
        if used > self.peak:
            self.peak = used
        return mem

    def used(self) -> int:
        return self.pool.used_bytes() if self.on else 0

    def reset(self) -> int:
        """Start a row: the high-water mark restarts at what is held now (returned)."""
        self.peak = self.used()
        return self.peak

    def free(self) -> None:
        gc.collect()
        if self.on:
            self.pool.free_all_blocks()

    def free_bytes(self) -> int:
        """Device memory free now (after returning the pool's cached blocks)."""
        self.free()
        return int(self.cp.cuda.runtime.memGetInfo()[0]) if self.on else 1 << 62

    def close(self) -> None:
        if self.on:
            self.cp.cuda.set_allocator(self.pool.malloc)


def _is_oom(e: BaseException) -> bool:
    if isinstance(e, MemoryError):  # thrust's bad_alloc arrives as MemoryError
        return True
    try:
        import cupy

        if isinstance(e, cupy.cuda.memory.OutOfMemoryError):
            return True
    except ImportError:
        pass
    text = str(e).lower()
    return "out of memory" in text or "alloc_failed" in text or "memoryallocation" in text


# ---------------------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------------------


class Runner:
    def __init__(self, device: str, repeats: int, row_budget: float):
        self.device, self.repeats, self.row_budget = device, repeats, row_budget
        self.watch = PoolWatch(device)

    def row(self, scale, key, call, fn, draw, csr_b, need=0, note=None) -> dict:
        """Time ``fn(*draw())``: one warm-up, then up to ``repeats`` calls (median)."""
        row = {"scale": scale, "key": key, "call": call, TIME: None, "min ms": None, "runs": 0}
        print(f"[RMAT-{scale}] {call} ...", file=sys.stderr, flush=True)
        t_row = time.perf_counter()
        free = self.watch.free_bytes()
        if self.watch.on and need > free:
            row[TIME] = (
                f"skipped: its result alone needs {need / GIB:.1f} GiB, {free / GIB:.1f} GiB free"
            )
            self._memory(row, None, None, csr_b)
            print(f"    {row[TIME]}", file=sys.stderr, flush=True)
            return row
        base = self.watch.reset()
        times, failure = [], None
        try:
            runs = self.repeats
            i = 0
            while i <= runs:
                args = draw()
                _sync(self.device)
                t0 = time.perf_counter()
                out = fn(*args)
                _sync(self.device)
                dt = time.perf_counter() - t0
                del out, args
                if i == 0 and dt > self.row_budget:  # too slow to repeat: the one call
                    times.append(dt)
                    note = f"{note}; " if note else ""
                    note += "one call (the warm-up) only: it took longer than --row-budget"
                    break
                if i == 0:  # the warm-up: fewer repeats where one call is slow
                    runs = max(1, min(self.repeats, int(self.row_budget / max(dt, 1e-9))))
                else:
                    times.append(dt)
                i += 1
        except Exception as e:  # a failed row is a result; the run goes on
            failure = ("out of memory: " if _is_oom(e) else f"error: {type(e).__name__}: ") + (
                str(e).splitlines()[0] if str(e) else type(e).__name__
            )
            if not _is_oom(e):
                traceback.print_exc(file=sys.stderr)
        peak = self.watch.peak
        self.watch.free()
        if failure is not None:
            row[TIME] = failure
        elif times:
            row.update({TIME: 1e3 * statistics.median(times), "min ms": 1e3 * min(times)})
            row["runs"] = len(times)
        self._memory(row, peak, base, csr_b)
        if note:
            row["note"] = note
        took = time.perf_counter() - t_row
        shown = f"{row[TIME]:.3f} ms" if isinstance(row[TIME], float) else row[TIME]
        print(f"    {shown} ({row['runs']} runs, {took:.1f} s)", file=sys.stderr, flush=True)
        return row

    def _memory(self, row, peak, base, csr_b):
        row["CSR GiB"] = csr_b / GIB
        if not self.watch.on or peak is None:
            na = "n/a" if not self.watch.on else "-"
            row.update({"call peak GiB": na, "pool peak GiB": na, "call peak / CSR": na})
            return
        row["call peak GiB"] = (peak - base) / GIB
        row["pool peak GiB"] = peak / GIB
        row["call peak / CSR"] = (peak - base) / csr_b


def _sources(rng, candidates, k=None):
    if k is None:
        return int(rng.choice(candidates))
    return [int(s) for s in rng.choice(candidates, size=k, replace=False)]


def run_scale(scale: int, runner: Runner) -> tuple[list[dict], dict]:
    dev = runner.device
    print(f"[RMAT-{scale}] building on {dev} ...", file=sys.stderr, flush=True)
    runner.watch.reset()
    csr, cand, facts = build_graph(scale, dev)
    facts["build peak GiB"] = runner.watch.peak / GIB if runner.watch.on else "n/a"
    runner.watch.free()
    n, nnz, C = facts["n"], facts["nnz"], facts["csr bytes"]
    print(
        f"[RMAT-{scale}] n={n} nnz={nnz} CSR {C / GIB:.2f} GiB, built in {facts['build s']:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    rng = np.random.default_rng(SOURCE_SEED + scale)
    one = lambda: (_sources(rng, cand),)  # noqa: E731
    many = lambda k: lambda: (_sources(rng, cand, min(k, cand.size)),)  # noqa: E731
    rows = []

    def add(key, call, fn, draw, need=0, note=None):
        rows.append(runner.row(scale, key, call, fn, draw, C, need, note))
        return rows[-1]

    # A lower bound of what a call allocates, only to skip rows that cannot fit: its result
    # (k x n int64 levels or float64 distances; from_scipy: a copy of the CSR). Anything
    # tried that does not fit is recorded as out of memory.
    def out(k=1):
        return 8 * k * n

    # --- the user's cupyx (or scipy) CSR, straight in -----------------------------------
    add("bfs_csr", "kleene.bfs(csr, s)", lambda s: kleene.bfs(csr, s), one, out())
    add(
        "bfs_csr_undirected",
        "kleene.bfs(csr, s, directed=False)",
        lambda s: kleene.bfs(csr, s, directed=False),
        one,
        out(),
    )
    add("sssp_csr", "kleene.sssp(csr, s)", lambda s: kleene.sssp(csr, s), one, out())
    add(
        "sssp_csr_undirected",
        "kleene.sssp(csr, s, directed=False)",
        lambda s: kleene.sssp(csr, s, directed=False),
        one,
        out(),
    )
    add("bfs_csr_4", "kleene.bfs(csr, [4 sources])", lambda s: kleene.bfs(csr, s), many(4), out(4))
    add(
        "from_scipy",
        "kleene.Matrix.from_scipy(csr)",
        lambda: kleene.Matrix.from_scipy(csr),
        lambda: (),
        C,
    )

    # --- a prebuilt kleene.Matrix --------------------------------------------------------
    M = kleene.Matrix.from_scipy(csr)
    r = add("bfs_M", "kleene.bfs(M, s)", lambda s: kleene.bfs(M, s), one, out())
    if isinstance(r[TIME], float):
        r["GTEPS (nnz/2)"] = nnz / 2 / (r[TIME] / 1e3) / 1e9
        r["GTEPS (nnz)"] = nnz / (r[TIME] / 1e3) / 1e9
    bfs1 = r[TIME]
    r = add("sssp_M", "kleene.sssp(M, s)", lambda s: kleene.sssp(M, s), one, out())
    sssp1 = r[TIME]
    for key, fn, one_t, target in (
        ("bfs_M_64", kleene.bfs, bfs1, 8),
        ("sssp_M_64", kleene.sssp, sssp1, 16),
    ):
        call = f"kleene.{fn.__name__}(M, [64 sources])"
        r = add(key, call, lambda s, fn=fn: fn(M, s), many(64), out(64))
        r["target"] = f"<= {target}x one source"
        if isinstance(r[TIME], float) and isinstance(one_t, float):
            r["x one source"] = r[TIME] / one_t
            r["meets target"] = "yes" if r[TIME] / one_t <= target else "no"
    return rows, facts  # csr and M go with this frame


def first_call_row(scale, runner: Runner, csr_b) -> dict:
    """``from_scipy`` + ``bfs`` first in a fresh Python process (the second of two runs, so
    the disk kernel cache is warm), against warm calls in that same process."""
    key, call = "first_call", "first Matrix.from_scipy(csr) + bfs(M, s), fresh process"
    print(f"[RMAT-{scale}] {call} (2 subprocesses) ...", file=sys.stderr, flush=True)
    row = {"scale": scale, "key": key, "call": call, TIME: None, "runs": 1}
    runner.watch.free()
    root = str(Path(kleene.__file__).resolve().parents[1])
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    )
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--first-call-child",
        "--scales",
        str(scale),
        "--device",
        runner.device,
    ]
    results = []
    for _ in range(2):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        line = next((x for x in p.stdout.splitlines()[::-1] if x.startswith("CHILD ")), None)
        if p.returncode or line is None:
            tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
            row[TIME] = f"error: subprocess exit {p.returncode}: {tail}"
            if "out of memory" in p.stderr.lower():
                row[TIME] = f"out of memory: subprocess: {tail}"
            print(f"    {row[TIME]}", file=sys.stderr, flush=True)
            row["CSR GiB"] = csr_b / GIB
            return row
        results.append(dict(json.loads(line[len("CHILD ") :]), wall=wall))
    first, second = results
    warm = second["warm s"]
    row.update(
        {
            TIME: 1e3 * second["first s"],
            "warm ms (same process)": 1e3 * warm,
            "first over warm s": second["first s"] - warm,
            "first ms, 1st subprocess": 1e3 * first["first s"],
            "import kleene s": second["import s"],
            "process wall s": second["wall"],
            "CSR GiB": csr_b / GIB,
            "call peak GiB": second["peak"] / GIB if runner.watch.on else "n/a",
            "call peak / CSR": second["peak"] / csr_b if runner.watch.on else "n/a",
        }
    )
    print(f"    first {row[TIME]:.1f} ms, warm {1e3 * warm:.1f} ms", file=sys.stderr, flush=True)
    return row


def child_first_call(scale: int, device: str) -> None:
    """In a fresh process: build the graph (untimed), then time the first
    ``Matrix.from_scipy`` + ``bfs`` and three warm ones; one JSON line on stdout."""
    watch = PoolWatch(device)
    csr, cand, _ = build_graph(scale, device)
    watch.free()
    rng = np.random.default_rng(SOURCE_SEED + 1000 + scale)

    def once():
        s = _sources(rng, cand)
        _sync(device)
        t0 = time.perf_counter()
        M = kleene.Matrix.from_scipy(csr)
        lv = kleene.bfs(M, s)
        _sync(device)
        dt = time.perf_counter() - t0
        del M, lv
        return dt

    base = watch.reset()
    first = once()
    peak = watch.peak - base
    warm = statistics.median(once() for _ in range(3))
    watch.close()
    res = {"import s": _T_IMPORTED - _T_START, "first s": first, "warm s": warm, "peak": peak}
    print("CHILD " + json.dumps(res), flush=True)


# ---------------------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------------------

CONVENTIONS = {
    "time": "median wall time of the public call (host clock, device synchronize before and "
    "after), after one warm-up call; a fresh random source (out-degree > 0) every call",
    "graph": "kleene.generators.rmat (a=0.57, b=c=0.19, edge factor 16, seed 1) drawn on the "
    "device, each edge stored both ways, duplicates merged, self loops kept; canonical CSR "
    "(int32 indptr and indices)",
    "weights": "float32, uniform in [1, 64) (a hash of the unordered vertex pair, so the "
    "matrix is symmetric in weights too); BFS rows use the same matrix",
    "csr": "a cupyx.scipy.sparse.csr_matrix on the GPU (scipy.sparse with --device cpu); "
    "'CSR GiB' counts indptr + indices + data",
    "M": "kleene.Matrix.from_scipy(csr), built once before its rows (caches it keeps, such as "
    "its transpose, persist across calls as they would for a user)",
    "GTEPS": "'GTEPS (nnz/2)' counts each undirected edge once (Graph500 style: nnz/2 over the "
    "time); 'GTEPS (nnz)' counts every stored entry",
    "memory": "CuPy memory-pool high-water mark through a wrapped allocator: 'call peak GiB' is "
    "the most the row's calls held at once beyond what was allocated before the row (the CSR, "
    "M); 'pool peak GiB' includes those; 'call peak / CSR' = call peak / CSR bytes; memory "
    "outside the pool (CUDA context, modules, library handles) is not counted; 'n/a' on CPU",
    "failures": "'out of memory: ...' where a call raised an out-of-memory error; 'skipped: "
    "...' where the call's result alone would exceed the free device memory",
    "multi-source targets": "bfs(M, [64 sources]) <= 8x, sssp(M, [64 sources]) <= 16x the "
    "one-source row of the same scale",
    "first call": "the second of two fresh processes (warm disk kernel cache): first "
    "Matrix.from_scipy + bfs in that process, against the median of 3 warm repeats in it; the "
    "graph is built in the child before the timing (untimed)",
}

_SHOWN = [
    "call",
    TIME,
    "runs",
    "GTEPS (nnz/2)",
    "GTEPS (nnz)",
    "x one source",
    "target",
    "call peak GiB",
    "pool peak GiB",
    "call peak / CSR",
    "warm ms (same process)",
    "first over warm s",
    "note",
]


def write_markdown(path: Path, rows, graphs, device: str) -> None:
    lines = [f"# kleene on the user's path (issue 11), device {device}", ""]
    lines += [f"* **{k}**: {v}" for k, v in CONVENTIONS.items()]
    for g in graphs:
        sc = [r for r in rows if r["scale"] == g["scale"]]
        cols = [c for c in _SHOWN if any(c in r for r in sc)]
        shown = [{c: r.get(c, "") for c in cols} for r in sc]
        title = (
            f"RMAT-{g['scale']}: n = {g['n']:,}, nnz = {g['nnz']:,}, CSR "
            f"{g['csr bytes'] / GIB:.2f} GiB, built in {g['build s']:.1f} s"
        )
        lines += ["", markdown_table(shown, title=title)]
    path.write_text("\n".join(lines) + "\n")


def plot(rows: list[dict], path: Path) -> None:
    """Time per row (log) and call peak / CSR bytes, one bar per scale."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    keys = list(dict.fromkeys(r["call"] for r in rows))
    scales = sorted({r["scale"] for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.45 * len(keys) + 1.5), sharey=True)
    h = 0.8 / max(1, len(scales))
    panels = [
        (axes[0], TIME, "time (ms, log)", True),
        (axes[1], "call peak / CSR", "call peak / CSR bytes", False),
    ]
    for ax, col, label, log in panels:
        for j, s in enumerate(scales):
            got = {r["call"]: r.get(col) for r in rows if r["scale"] == s}
            ys = [i + j * h for i, k in enumerate(keys) if isinstance(got.get(k), float)]
            xs = [got[k] for k in keys if isinstance(got.get(k), float)]
            ax.barh(ys, xs, h, label=f"RMAT-{s}")
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.grid(True, axis="x", which="both", alpha=0.3)
    axes[0].set_yticks([i + 0.4 - h / 2 for i in range(len(keys))], keys, fontsize=8)
    axes[0].invert_yaxis()
    axes[0].legend(fontsize=8)
    fig.suptitle("kleene BFS / SSSP on the user's path")
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


# ---------------------------------------------------------------------------------------


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scales", default="22,24,25", help="RMAT scales, comma-separated")
    ap.add_argument("--repeats", type=int, default=5, help="timed calls a row (median)")
    ap.add_argument(
        "--row-budget",
        type=float,
        default=25.0,
        help="seconds of timed calls a row may take (fewer repeats past)",
    )
    ap.add_argument(
        "--device", choices=("gpu", "cpu"), default="gpu" if kleene.gpu_available() else "cpu"
    )
    ap.add_argument("--out", default="benchmarks/results/ingest.json")
    ap.add_argument("--first-call-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",") if s.strip()]
    if args.first_call_child:
        child_first_call(scales[0], args.device)
        return
    if args.device == "gpu" and not kleene.gpu_available():
        ap.error("--device gpu: no CuPy / CUDA GPU here (use --device cpu for a smoke run)")
    t0 = time.perf_counter()
    runner = Runner(args.device, args.repeats, args.row_budget)
    rows, graphs = [], []
    try:
        for scale in scales:
            r, g = run_scale(scale, runner)
            runner.watch.free()
            # the first call in a fresh process (which builds its own copy of the graph)
            rows += [*r, first_call_row(scale, runner, g["csr bytes"])]
            graphs.append(g)
    finally:
        runner.watch.close()
    took = time.perf_counter() - t0
    out = Path(args.out)
    extra = {
        "device": args.device,
        "scales": scales,
        "repeats": args.repeats,
        "row_budget_s": args.row_budget,
        "conventions": CONVENTIONS,
        "graphs": graphs,
        "total_s": took,
    }
    write_results(out, "ingest", rows, extra)
    write_markdown(out.with_suffix(".md"), rows, graphs, args.device)
    plot(rows, out.with_suffix(".png"))
    print(f"wrote {out} (+ .md, .png) in {took:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main_or_replot(main, plot)
