"""Cold first calls on the GPU: what compiling kernels adds to a fresh process.

Each case runs in its own subprocess with an empty CuPy kernel cache (``CUPY_CACHE_DIR``,
which also holds kleene's lowered kernel names), an empty driver JIT cache
(``CUDA_CACHE_PATH``) and an empty kleene CPU cache (``KLEENE_CACHE_DIR``), after the
CUDA context exists: the first call (cold), then the same call again (warm, best of
``--repeat``) in that process, and every module compiled in each phase with its time and
the kleene line that asked for it (CuPy's ``cupy.cuda.compiler._compile_module_with_cache``
is wrapped: NVRTC, the module load and the cache write, or a load from the disk cache).
``--second`` runs each case again in a new process on the caches the first one filled.

The bfs/sssp inputs are built on the CPU and moved to the GPU inside the timed call
(``G.to("gpu")``), as a user's first call would; apsp takes a dense CuPy array
(``erdos_renyi``'s values, uploaded before the clock starts).

    python3 benchmarks/bench_cold_start.py                       # the default cases
    python3 benchmarks/bench_cold_start.py --cases bfs_rmat apsp_4096 --out cold.json
    python3 benchmarks/bench_cold_start.py --second --probe 4    # + a later process; threads
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent
CASES = ("bfs_rmat", "sssp_rmat", "bfs_road", "sssp_road", "apsp_4096", "apsp_16384")
RMAT_SCALE = 18
ROAD_ROWS = 1024

# ---------------------------------------------------------------- instrumentation

_events: list[dict] = []
_phase = ["setup"]
_T0 = time.perf_counter()


def _label(source: str, kwargs: dict) -> str:
    names = kwargs.get("name_expressions")
    if names:
        names = list(names)
        return names[0] + (f" (+{len(names) - 1})" if len(names) > 1 else "")
    found = re.findall(r"__global__\s+void\s+(\w+)", source)
    return ",".join(found[:3]) or f"<{len(source)} chars>"


def _caller() -> str:
    """The innermost kleene frame that led to a compile (file:line), outside this script."""
    for f in reversed(traceback.extract_stack()[:-2]):
        if "/kleene/" in f.filename and "/jit.py" not in f.filename:
            return f"{Path(f.filename).name}:{f.lineno}"
    return ""


def instrument() -> None:
    """Wrap CuPy's compile path to log every module compiled (or loaded from disk)."""
    from cupy.cuda import compiler

    outer = compiler._compile_module_with_cache

    def timed_outer(source, *args, **kwargs):
        t = time.perf_counter()
        try:
            return outer(source, *args, **kwargs)
        finally:
            end = time.perf_counter()
            _events.append(
                {
                    "phase": _phase[0],
                    "kernel": _label(source, kwargs),
                    "start_s": round(t - _T0, 4),
                    "seconds": round(end - t, 4),
                    "thread": threading.current_thread().name,
                    "caller": _caller(),
                    "chars": len(source),
                }
            )

    compiler._compile_module_with_cache = timed_outer


# ---------------------------------------------------------------- child: one case


def _inputs(case: str):
    """(function to time, description) for ``case``; the input is built here, untimed."""
    import cupy
    import numpy as np

    import kleene
    from kleene.generators import rmat, road_graph

    algo, graph = case.split("_", 1)
    if algo == "apsp":  # erdos_renyi(n, 1.0)'s kind of matrix, built by row blocks
        n = int(graph)
        rng = np.random.default_rng(1)
        a = cupy.empty((n, n), dtype=np.float32)
        for r in range(0, n, 2048):
            block = rng.random((min(2048, n - r), n), dtype=np.float32) * 99 + 1
            block[np.arange(len(block)), np.arange(r, r + len(block))] = np.inf
            a[r : r + len(block)].set(block)
        return (lambda: kleene.apsp(a)), f"dense complete n={n} float32, inf diagonal"
    if graph == "rmat":
        src, dst = rmat(RMAT_SCALE, 16, seed=1)
        w = np.random.default_rng(1).uniform(1, 100, len(src)).astype(np.float32)
        G = kleene.Matrix.from_edges(src, dst, w, n=1 << RMAT_SCALE)
        desc = f"rmat scale {RMAT_SCALE} x16"
    else:
        G = road_graph(ROAD_ROWS, seed=1)
        desc = f"road_graph({ROAD_ROWS})"
    desc += f", n={G.shape[0]}, nvals={G.nvals}"
    fn = getattr(kleene, algo)
    return (lambda: fn(G.to("gpu"), 0)), desc


def child(case: str, repeat: int) -> dict:
    t = time.perf_counter()
    import cupy

    import kleene  # noqa: F401

    import_s = time.perf_counter() - t
    instrument()
    t = time.perf_counter()
    cupy.cuda.runtime.free(0)  # the CUDA context, outside the cold call
    context_s = time.perf_counter() - t
    fn, desc = _inputs(case)
    sync = cupy.cuda.Device().synchronize
    sync()

    def timed(phase: str):
        _phase[0] = phase
        sync()
        t = time.perf_counter()
        out = fn()
        sync()
        return time.perf_counter() - t, out

    cold, first = timed("cold")
    warm = []
    for _ in range(repeat):
        s, out = timed("warm")
        warm.append(s)
    _phase[0] = "check"
    first = first[0] if isinstance(first, tuple) else first
    out = out[0] if isinstance(out, tuple) else out
    same = bool(cupy.array_equal(cupy.asarray(first), cupy.asarray(out)))
    cold_events = [e for e in _events if e["phase"] == "cold"]
    return {
        "case": case,
        "input": desc,
        "cold_s": round(cold, 4),
        "warm_s": round(min(warm), 4),
        "over_warm_s": round(cold - min(warm), 4),
        "modules_compiled_cold": len(cold_events),
        "compile_s_cold": round(sum(e["seconds"] for e in cold_events), 4),
        "modules_compiled_warm": sum(e["phase"] == "warm" for e in _events),
        "import_s": round(import_s, 3),
        "context_s": round(context_s, 3),
        "cold_equals_warm": same,
        "compiles": _events,
    }


# ---------------------------------------------------------------- probe: threads


def probe(workers: int) -> dict:
    """Compile ``workers`` distinct kernels (the dense mxm of as many semirings, float32)
    serially, in threads and in spawned processes, each way with its own empty cache and
    its own source text: does NVRTC through CuPy compile in parallel in threads?"""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    import cupy
    import numpy as np

    from kleene.backends.cuda import codegen, jit
    from kleene.semiring import SEMIRINGS

    instrument()
    cupy.cuda.runtime.free(0)
    f = np.dtype(np.float32)
    specs = [
        codegen.mxm_spec(sr, f, f, sr.mul.result_dtype(f, f))
        for sr in SEMIRINGS.values()
        if f in sr.dtypes
    ][:workers]
    out = {"kernels": [str(s.key[1])[:60] for s in specs], "workers": len(specs)}
    for how in ("serial", "threads", "processes"):
        os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"cold-{how}-")
        jobs = [(codegen.render(s) + f"\n// probe {how}\n", s.names[:1]) for s in specs]
        t = time.perf_counter()
        if how == "serial":
            for job in jobs:
                jit.load_unit(*job)
        elif how == "threads":
            with ThreadPoolExecutor(len(jobs)) as pool:
                list(pool.map(lambda job: jit.load_unit(*job), jobs))
        else:
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(len(jobs), mp_context=ctx) as pool:
                errors = [e for e in pool.map(jit._compile_job, jobs) if e]
            assert not errors, errors
        out[f"{how}_s"] = round(time.perf_counter() - t, 3)
    out["compiles"] = _events
    return out


# ---------------------------------------------------------------- parent


def run_child(args: list[str], caches: dict | None = None) -> tuple[dict, dict]:
    """Run this script's child mode; ``caches`` (env entries) None: fresh empty ones.
    Returns (the child's row, the caches it used)."""
    if caches is None:
        caches = {
            "CUPY_CACHE_DIR": tempfile.mkdtemp(prefix="cold-cupy-"),
            "KLEENE_CACHE_DIR": tempfile.mkdtemp(prefix="cold-kleene-"),
            "CUDA_CACHE_PATH": tempfile.mkdtemp(prefix="cold-cuda-"),  # the driver's JIT cache
        }
    env = {**os.environ, **caches}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        return {"case": " ".join(args), "error": r.stderr[-3000:]}, caches
    return json.loads(r.stdout.strip().splitlines()[-1]), caches


def _report(row: dict, label: str) -> None:
    if "error" in row:
        print(f"{row['case']} ({label}): FAILED\n{row['error']}", flush=True)
        return
    print(
        f"{row['case']:11s} {label:6s} cold {row['cold_s']:7.3f} s  warm {row['warm_s']:7.3f} s"
        f"  over {row['over_warm_s']:6.3f} s  {row['modules_compiled_cold']:3d} modules "
        f"{row['compile_s_cold']:6.3f} s  {row['input']}",
        flush=True,
    )
    if label == "fresh":
        for e in sorted(row["compiles"], key=lambda e: -e["seconds"])[:6]:
            print(f"      {e['phase']:5s} {e['seconds']:6.3f} s  {e['kernel']}  ({e['caller']})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", default=list(CASES))
    ap.add_argument("--repeat", type=int, default=2, help="warm calls (best is kept)")
    ap.add_argument(
        "--probe",
        type=int,
        default=0,
        metavar="N",
        help="also compare N specialisations compiled serially/in threads",
    )
    ap.add_argument(
        "--second",
        action="store_true",
        help="also run each case in a second process on the filled caches",
    )
    ap.add_argument("--out", default=None, help="JSON file for all rows and compile logs")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-probe", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child, a.repeat)))
        return
    if a.child_probe:
        print(json.dumps(probe(a.child_probe)))
        return

    from common import environment

    rows = []
    for case in a.cases:
        args = ["--child", case, "--repeat", str(a.repeat)]
        row, caches = run_child(args)
        rows.append({"caches": "fresh", **row})
        _report(row, "fresh")
        if a.second:  # a later process on the caches the first one filled
            row, _ = run_child(args, caches)
            rows.append({"caches": "filled", **row})
            _report(row, "filled")
    extra = {}
    if a.probe:
        extra["probe"], _ = run_child(["--child-probe", str(a.probe)])
        p = extra["probe"]
        print("probe:", {k: v for k, v in p.items() if k != "compiles"})
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        doc = {"benchmark": "cold_start", "environment": environment(), "rows": rows, **extra}
        Path(a.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
