"""Core CUDA primitives against the H100's ceilings.

(1) min_plus ``mxm_dense`` (fp32 and int32, n = 4096 and 8192) and the fused
    accumulate ``mxm_dense_acc`` APSP uses (C ⊕= A⊗B, and in place on views,
    B ⊕= A⊗B): time and min-plus steps per second (n**3 / t) as a fraction of the
    measured register-resident ceiling, 14.4 T steps/s in fp32.
(2) min_plus ``mxv_pull`` on an RMAT graph (scale 20, edge factor 16, Graph500
    a=.57 b=.19 c=.19, uniform float32 weights): time and effective bandwidth over
    the bytes minimally moved (indptr, indices, values and u read once, w written
    once) as a fraction of the 2.96 TB/s device copy. ``vxm_push`` from a sparse
    frontier is timed beside it.

CUDA events, after warm-up, medians over repeats, fresh random values each
repeat. Prints a table and writes JSON (device, versions, date, figures):

    PYTHONPATH=. python3 benchmarks/bench_core.py --out benchmarks/results/core_h100.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import gpu_time, markdown_table, write_results  # noqa: E402

MINPLUS_CEILING = 14.4e12  # fp32 FADD+FMNMX steps/s, register resident (H100)
INT_CEILING = 15.9e12  # int32 VIADDMNMX steps/s
COPY_CEILING = 2.96e12  # device-to-device copy, bytes read + written per second


def _check_rows(a, b, c, rows) -> None:
    """Spot-check rows of a min-plus product against NumPy (exact for these values)."""
    import cupy as cp

    bh = cp.asnumpy(b)
    for i in rows:
        want = np.min(cp.asnumpy(a[i])[:, None] + bh, axis=0)
        got = cp.asnumpy(c[i])
        if not np.array_equal(got, want):
            bad = int(np.flatnonzero(got != want)[0])
            raise AssertionError(f"mxm_dense row {i} col {bad}: {got[bad]} != {want[bad]}")


MXM_FORMS = {
    "plain": "mxm_dense min_plus",  # C = A min.+ B
    "acc": "mxm_dense_acc min_plus C ⊕= A⊗B",  # fused accumulate (APSP's products)
    "inplace": "mxm_dense_acc in place B ⊕= A⊗B",  # R-Kleene's A12 ← A12 ⊕ A11 A12 views
}


def bench_mxm(n: int, dtype, repeat: int, label: str = "", form: str = "plain") -> dict:
    import cupy as cp

    from kleene.backends import cuda
    from kleene.semiring import min_plus

    d = np.dtype(dtype)

    def rand(shape):
        if d.kind == "f":
            return cp.random.random(shape, dtype=d) * 100
        return cp.random.randint(0, 1 << 20, shape, dtype=d)

    def fresh():
        if form == "inplace":  # A and B side by side in one (n, 2n) matrix
            m = rand((n, 2 * n))
            return m[:, :n], m[:, n:], m[:, n:]
        return rand((n, n)), rand((n, n)), rand((n, n))

    def run(a, b, c):
        if form == "plain":
            return cuda.mxm_dense(min_plus, a, b, d)
        cuda.mxm_dense_acc(min_plus, a, b, c)
        return c

    a, b, c = fresh()
    if form == "plain":
        _check_rows(a, b, run(a, b, c), [0, n // 3, n - 1])
    elif form == "acc":  # C ⊕ A⊗B = the plain product where C is larger everywhere
        c[...] = 1 << 22 if d.kind != "f" else np.inf
        _check_rows(a, b, run(a, b, c), [0, n // 3, n - 1])
    t = gpu_time(run, warmup=2, repeat=repeat, setup=fresh)
    ms = t["median_ms"]
    rate = n**3 / (ms * 1e-3)
    return {
        "case": f"{label}{MXM_FORMS[form]} {d.name} n={n}",
        "median_ms": ms,
        "min_ms": t["min_ms"],
        "T_steps_per_s": rate / 1e12,
        "frac_of_14.4T": rate / MINPLUS_CEILING,
        "frac_of_own_ceiling": rate / (MINPLUS_CEILING if d.kind == "f" else INT_CEILING),
    }


def rmat_csr(scale: int, edge_factor: int, seed: int = 0):
    """CSR (indptr int64, indices int32, float32 weights) of a deduplicated RMAT graph."""
    import cupy as cp

    from kleene.generators import rmat

    src, dst = rmat(scale, edge_factor, seed=seed)
    n = 1 << scale
    keys = cp.unique(cp.asarray(src) * n + cp.asarray(dst))
    rows, cols = keys // n, keys % n
    indptr = cp.searchsorted(rows, cp.arange(n + 1, dtype=np.int64)).astype(np.int64)
    vals = cp.random.random(keys.size, dtype=np.float32)
    return indptr, cols.astype(np.int32), vals


def bench_mxv(scale: int, edge_factor: int, repeat: int, sweep: bool) -> list[dict]:
    import cupy as cp

    from kleene.backends import cuda
    from kleene.backends.cuda import sparse
    from kleene.semiring import min_plus

    indptr, indices, vals = rmat_csr(scale, edge_factor)
    n = indptr.size - 1
    nnz = int(indices.size)
    f32 = np.dtype(np.float32)

    def fresh_u():
        return (cp.random.random(n, dtype=f32) * 100,)

    def pull(u):
        return cuda.mxv_pull(min_plus, indptr, indices, vals, u, None, None, f32)

    # correctness spot check against the CPU primitive on a few rows' worth
    (u,) = fresh_u()
    w, wp = pull(u)
    from kleene.backends import cpu

    ih, xh, vh, uh = (cp.asnumpy(x) for x in (indptr, indices, vals, u))
    want, wantp = cpu.mxv_pull(min_plus, ih, xh, vh, uh, None, None, f32)
    assert np.array_equal(cp.asnumpy(w), want) and np.array_equal(cp.asnumpy(wp), wantp)

    bytes_moved = indptr.nbytes + indices.nbytes + vals.nbytes + 4 * n + 4 * n
    rows = []

    def row(label: str, t: dict) -> dict:
        ms = t["median_ms"]
        bw = bytes_moved / (ms * 1e-3)
        return {
            "case": label,
            "median_ms": ms,
            "min_ms": t["min_ms"],
            "nnz": nnz,
            "GB_per_s": bw / 1e9,
            "frac_of_2.96TB/s": bw / COPY_CEILING,
        }

    t = gpu_time(pull, warmup=3, repeat=repeat, setup=fresh_u)
    rows.append(row(f"mxv_pull min_plus f32 RMAT-{scale} ef{edge_factor}", t))
    t = graph_time(pull, fresh_u, repeat)
    if t:
        rows.append(row("  same, CUDA-graph replay (no host gaps)", t))
    if sweep:  # lanes per row and tier thresholds, overriding the defaults
        saved = sparse.group_size, sparse._SHORT_ROUNDS, sparse._HUGE
        try:
            for gsize in (1, 2, 4, 8):
                for rounds in (4, 8):
                    for huge in (1024, 4096):
                        sparse.group_size = lambda mean, gsize=gsize: gsize
                        sparse._SHORT_ROUNDS, sparse._HUGE = rounds, huge
                        t = gpu_time(pull, warmup=2, repeat=repeat, setup=fresh_u)
                        rows.append(row(f"  (sweep) G={gsize} rounds={rounds} huge={huge}", t))
        finally:
            sparse.group_size, sparse._SHORT_ROUNDS, sparse._HUGE = saved

    # push from a sparse frontier: 1% of the vertices
    rng = np.random.default_rng(1)
    frontier = cp.asarray(np.sort(rng.choice(n, n // 100, replace=False)).astype(np.int64))

    def fresh_uv():
        return (cp.random.random(frontier.size, dtype=f32) * 100,)

    def push(uv):
        return cuda.vxm_push(min_plus, indptr, indices, vals, frontier, uv, None, n, f32)

    t = gpu_time(push, warmup=3, repeat=repeat, setup=fresh_uv)
    rows.append(
        {
            "case": f"vxm_push min_plus f32 RMAT-{scale}, 1% frontier",
            "median_ms": t["median_ms"],
            "min_ms": t["min_ms"],
        }
    )
    t = graph_time(push, fresh_uv, repeat)
    if t:
        rows.append(
            {
                "case": "  same, CUDA-graph replay (no host gaps)",
                "median_ms": t["median_ms"],
                "min_ms": t["min_ms"],
            }
        )
    return rows


def graph_time(fn, setup, repeat: int) -> dict | None:
    """Median ms of ``fn`` captured once in a CUDA graph and replayed (GPU time only).

    The gap to the plain timing is host overhead (Python, CuPy, launches).
    Returns None where capture is not possible.
    """
    import statistics

    import cupy as cp

    args = setup()
    stream = cp.cuda.Stream(non_blocking=True)
    try:
        with stream:
            fn(*args)  # warm the memory pool on this stream
            stream.synchronize()
            stream.begin_capture()
            fn(*args)
            graph = stream.end_capture()
            times = []
            for _ in range(repeat + 2):
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record(stream)
                graph.launch(stream)
                stop.record(stream)
                stop.synchronize()
                times.append(cp.cuda.get_elapsed_time(start, stop))
    except Exception as e:  # capture unsupported for some call in fn
        print(f"graph capture failed: {type(e).__name__}: {e}", file=sys.stderr)
        return None
    times = times[2:]
    return {"median_ms": statistics.median(times), "min_ms": min(times)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="benchmarks/results/core_h100.json")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--forms", default="plain,acc,inplace", help=f"of {','.join(MXM_FORMS)}")
    ap.add_argument("--no-mxv", action="store_true", help="only the dense products")
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--sweep", action="store_true", help="also time mxv_pull per group size")
    ap.add_argument("--mxm-sweep", action="store_true", help="also time other tile shapes")
    args = ap.parse_args(argv)

    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        for form in args.forms.split(","):
            for dtype in (np.float32, np.int32):
                rep = args.repeat if n <= 4096 else max(3, args.repeat // 2)
                rows.append(bench_mxm(n, dtype, rep, form=form))
                print(rows[-1], flush=True)
    if args.mxm_sweep:
        from kleene.backends.cuda import dense

        for cfg in (dict(BK=8), dict(BK=16, MIN_BLOCKS=1)):
            dense.CONFIG_OVERRIDE = cfg
            for dtype in (np.float32, np.int32):
                rows.append(bench_mxm(4096, dtype, args.repeat, label=f"  (sweep {cfg}) "))
                print(rows[-1], flush=True)
        dense.CONFIG_OVERRIDE = None
    if not args.no_mxv:
        rows += bench_mxv(args.scale, args.edge_factor, args.repeat, args.sweep)
    print(markdown_table(rows, title="kleene core CUDA primitives"))
    write_results(
        args.out,
        "core",
        rows,
        extra={
            "ceilings": {
                "minplus_fp32_steps_per_s": MINPLUS_CEILING,
                "minplus_int32_steps_per_s": INT_CEILING,
                "device_copy_bytes_per_s": COPY_CEILING,
            }
        },
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
