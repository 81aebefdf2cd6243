"""Out-of-core APSP (issue 15, item 1): the n×n result in host memory, tiles streamed
through the GPU (kleene/algorithms/apsp_out_of_core.py, kleene/backends/cuda/tile_stream.py).

    PYTHONPATH=. python3 benchmarks/bench_out_of_core.py \
        --out benchmarks/results/out_of_core_h100.json                 # n = 32768 rows
    PYTHONPATH=. python3 benchmarks/bench_out_of_core.py --sizes 131072 --repeats 1 \
        --out benchmarks/results/out_of_core_131072_h100.json         # 68.7 GB in host memory
    PYTHONPATH=. python3 benchmarks/bench_out_of_core.py --form dense \
        --out benchmarks/results/out_of_core_dense_h100.json           # a CuPy array
    PYTHONPATH=. python3 benchmarks/bench_out_of_core.py --form host --sizes 65536 \
        --limit-gib 8 --repeats 1 --out benchmarks/results/out_of_core_host_h100.json
    PYTHONPATH=. python3 benchmarks/bench_out_of_core.py --quick      # CPU smoke run

Rows per n: the in-core call ``kleene.apsp(G)`` (its result stays on the device) when
the result fits in GPU memory, and ``kleene.apsp(G, memory_limit=f × result bytes)``
(``--fraction``, default ¼: the issue's target ≤ 1.3× in-core); for an n whose result
does not fit in GPU memory, ``kleene.apsp(G)`` itself, which goes out of core with the
default limit (80% of the free GPU memory; target ≥ 9 T steps/s at n = 131072).

The graph: a random digraph on the device, ``--degree`` edges per vertex plus the cycle
0 → 1 → … → n-1 → 0 (strongly connected: every pair gets a finite distance), float32
weights uniform in [1, 100). APSP is n³ min-plus steps whatever the edges.

Timing: wall clock of the public call with a device synchronize before and after (the
out-of-core result ends in host memory, which the call waits for), median of
``--repeats`` after ``--warmup`` calls on a fresh graph each; a warm-up on n = 4096
compiles the kernels first. T steps/s = n³ / time. Beside it: the tile side and count
the call chose, whether the result was page-locked (direct copies) or not (staged), and
the call's CuPy pool peak (``used_bytes()`` high-water mark through a wrapped allocator,
as bench_ingest.py measures it). Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import write_results  # noqa: E402

import kleene  # noqa: E402
from kleene.algorithms import apsp_out_of_core as ooc  # noqa: E402

GIB = 2**30
WEIGHTS = (1.0, 100.0)
TARGET_RATIO = 1.3  # out of core with a quarter of the result, against in core
TARGET_RATE = 9.0  # T steps/s at n = 131072
TARGET_HOST = 1.5  # a host graph through the GPU with a memory_limit, against in core


def _log(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def _xp(device: str):
    if device == "gpu":
        import cupy

        return cupy
    return np


def _sync(device: str) -> None:
    if device == "gpu":
        import cupy

        cupy.cuda.Device().synchronize()


def graph(n: int, degree: int, seed: int, device: str, form: str = "matrix"):
    """The benchmark's digraph (see the module docstring), built on ``device``, in the
    input ``form``: a kleene Matrix, a dense array on ``device`` (inf = no edge), or a
    dense NumPy array ("host")."""
    if form != "matrix":
        dense = graph(n, degree, seed, device).to_dense()
        return dense.get() if form == "host" and device == "gpu" else dense
    xp = _xp(device)
    rs = xp.random.RandomState(seed)
    m = n * degree
    src = xp.concatenate([rs.randint(0, n, m), xp.arange(n)])
    dst = xp.concatenate([rs.randint(0, n, m), (xp.arange(n) + 1) % n])
    w = rs.uniform(WEIGHTS[0], WEIGHTS[1], m + n).astype(np.float32)
    return kleene.Matrix.from_edges(src, dst, w, n, dup="min")


class PoolPeak:
    """CuPy's pool high-water mark over a call (a no-op on the CPU)."""

    def __init__(self, device: str):
        self.on = device == "gpu"
        if self.on:
            import cupy

            self.cp, self.pool = cupy, cupy.get_default_memory_pool()

    def __enter__(self):
        self.base = self.peak = self.pool.used_bytes() if self.on else 0
        if self.on:
            self.cp.cuda.set_allocator(self._malloc)
        return self

    def _malloc(self, nbytes):
        mem = self.pool.malloc(nbytes)
        self.peak = max(self.peak, self.pool.used_bytes())
        return mem

    def __exit__(self, *exc):
        if self.on:
            self.cp.cuda.set_allocator(self.pool.malloc)

    def gib(self):
        return (self.peak - self.base) / GIB if self.on else "n/a"


def _free(device: str) -> None:
    gc.collect()
    if device == "gpu":
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()


class Tiles:
    """The tile side of the out-of-core call inside the block (None: in core), and the
    seconds of its phases: allocating the host result (page-locking it, where it is),
    building D there, and the streamed closure (the device synchronized after it)."""

    PHASES = {
        "solve": None,
        "host_empty": "alloc s",
        "build": "build s",
        "stream_closure": "stream s",
    }

    def __enter__(self):
        self.real = {name: getattr(ooc, name) for name in self.PHASES}
        self.tile, self.seconds = None, {}
        for name, label in self.PHASES.items():
            setattr(ooc, name, self._spy(name, label))
        return self

    def _spy(self, name, label):
        real = self.real[name]

        def spy(*args, **kwargs):
            if name == "solve":
                self.tile = args[3]
            t0 = time.perf_counter()
            out = real(*args, **kwargs)
            if label:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - t0
            return out

        return spy

    def __exit__(self, *exc):
        for name, real in self.real.items():
            setattr(ooc, name, real)


def _call(G, limit, device: str):
    """(seconds, pool peak GiB, Tiles record, result) of one apsp call, synchronized."""
    _sync(device)
    on = {"device": device} if isinstance(G, np.ndarray) else {}  # a host graph, computed there
    with PoolPeak(device) as peak, Tiles() as tiles:
        t0 = time.perf_counter()
        out = kleene.apsp(G, memory_limit=limit, **on)
        _sync(device)
        seconds = time.perf_counter() - t0
    return seconds, peak.gib(), tiles, out


def _row(n: int, mode: str, limit, args, device: str, form: str = "matrix") -> dict:
    """Time one configuration: warm-up calls, then the median of ``--repeats``."""
    times, peaks, pinned = [], [], None
    runs = args.warmup + args.repeats
    for r in range(runs):
        G = graph(n, args.degree, seed=100 * n + r, device=device, form=form)
        try:
            seconds, peak, tiles, out = _call(G, limit, device)
        except MemoryError as e:
            return {"n": n, "mode": mode, "median s": f"out of memory: {e}"}
        if r >= args.warmup:
            times.append(seconds)
            peaks.append(peak)
        if isinstance(out, np.ndarray) and device == "gpu":
            from kleene.backends.cuda.tile_stream import is_pinned

            pinned = is_pinned(out)
        del G, out
        _free(device)
        _log(f"  n={n} {mode}: run {r + 1}/{runs} {seconds:.3f} s")
    med = statistics.median(times)
    row = {
        "n": n,
        "mode": mode,
        "input": form,
        "median s": med,
        "min s": min(times),
        "runs": len(times),
        "T steps/s": float(n) ** 3 / med / 1e12,
        "pool peak GiB": peaks[-1],
    }
    if tiles.tile is not None:
        cap, tile = ooc.device_limit(limit, device == "gpu"), tiles.tile
        host = {True: "pinned (direct)", False: "pageable (staged)", None: "host (CPU)"}[pinned]
        row.update(
            {
                "memory_limit GiB": cap / GIB,
                "tile": tile,
                "tiles a side": -(-n // tile),
                "host result": host,
                **tiles.seconds,
            }
        )
    elif mode != "in-core":
        row["note"] = "ran in core"
    return row


def _fits_in_core(n: int, device: str) -> bool:
    from kleene.algorithms.apsp_memory import need_for as _need

    return _need("apsp", n, "recursive", False, np.float32, _xp(device)).fits()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[32768])
    ap.add_argument(
        "--fraction", type=float, default=0.25, help="memory_limit as a share of the result's bytes"
    )
    ap.add_argument(
        "--limit-gib", type=float, default=None, help="memory_limit in GiB (instead of --fraction)"
    )
    ap.add_argument(
        "--form",
        choices=("matrix", "dense", "host"),
        default="matrix",
        help="the input: a kleene Matrix on the device, a dense array there (inf = no "
        "edge), or a dense NumPy array computed on the device (device=); the in-core "
        "baseline of 'host' is the dense array on the GPU",
    )
    ap.add_argument("--degree", type=int, default=16, help="random edges per vertex")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--device", default="gpu" if kleene.gpu_available() else "cpu")
    ap.add_argument("--quick", action="store_true", help="CPU smoke run: n = 256, 512")
    ap.add_argument(
        "--pin-share",
        type=float,
        default=ooc.PIN_SHARE,
        help="page-lock a result up to this share of the free host memory "
        "(0: never; staged copies)",
    )
    ap.add_argument("--out", default="benchmarks/results/out_of_core.json")
    args = ap.parse_args(argv)
    if args.quick:
        args.device, args.sizes, args.repeats, args.warmup = "cpu", [256, 512], 1, 0
    device = args.device
    ooc.PIN_SHARE = args.pin_share
    _log(f"bench_out_of_core on {device}: sizes {args.sizes}")
    warm = 128 if args.quick else 4096  # compile the kernels: tiles of a quarter of n
    reserve = ooc.GPU_RESERVE if device == "gpu" else 0
    kleene.apsp(
        graph(warm, args.degree, 0, device),
        memory_limit=ooc.working_set_bytes(warm, warm // 4, 4, False, reserve),
    )
    rows = []
    for n in args.sizes:
        result = 4 * n * n
        if _fits_in_core(n, device):
            base_form = "dense" if args.form == "host" and device == "gpu" else args.form
            base = _row(n, "in-core", None, args, device, base_form)
            rows.append(base)
            _log(rows[-1])
            if args.limit_gib is not None:
                limit, what = int(args.limit_gib * GIB), f"{args.limit_gib:g} GiB"
            else:
                limit = max(1, int(args.fraction * result))
                what = f"{args.fraction:g} of the result"
            row = _row(n, f"out-of-core, memory_limit = {what}", limit, args, device, args.form)
            if isinstance(base["median s"], float) and isinstance(row["median s"], float):
                row["x in-core"] = row["median s"] / base["median s"]
                target = TARGET_HOST if args.form == "host" else TARGET_RATIO
                row["target"] = f"<= {target}x in-core"
        else:
            row = _row(n, "out-of-core (auto, default limit)", None, args, device)
            row["target"] = f">= {TARGET_RATE} T steps/s"
        rows.append(row)
        _log(rows[-1])
    extra = {
        "device": device,
        "sizes": args.sizes,
        "degree": args.degree,
        "pin share": args.pin_share,
        "conventions": {
            "graph": f"random digraph, {args.degree} edges a vertex + a "
            "Hamiltonian cycle, float32 weights uniform in [1, 100)",
            "time": "wall clock of kleene.apsp, device synchronized before "
            "and after; median of the repeats after warm-up",
            "T steps/s": "n^3 / time / 1e12",
            "pool peak GiB": "CuPy pool used_bytes() high-water mark over "
            "the call, minus what was held before (the graph)",
            "alloc/build/stream s": "out of core, the last run: allocating "
            "(page-locking) the host result, building D in it, the streamed "
            "closure up to its last tile queued (a few products then still "
            "run; the call's time waits for them)",
        },
    }
    write_results(args.out, "out_of_core", rows, extra)
    _log(f"wrote {args.out} and {Path(args.out).with_suffix('.md')}")


if __name__ == "__main__":
    main()
