"""Where the time of ``kleene.bfs(cupyx_csr, s)`` goes: each step of the call timed
alone (device sync around it), medians of 5, on the RMAT graph of bench_ingest.py.

    PYTHONPATH=. python3 benchmarks/profile_ingest.py --scale 22
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ingest import build_graph  # noqa: E402

import kleene  # noqa: E402
from kleene.algorithms.graph_input import as_graph  # noqa: E402
from kleene.core import Matrix
from kleene.engine import frontier_bfs
from kleene.ops import is_symmetric  # noqa: E402


def timed(fn, repeats=5):
    import cupy

    fn()
    out = []
    for _ in range(repeats):
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        fn()
        cupy.cuda.Device().synchronize()
        out.append((time.perf_counter() - t) * 1e3)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument(
        "--detail",
        action="store_true",
        help="also the scan kernel alone and a profile of has_nan's calls (run "
        "with CUDA_LAUNCH_BLOCKING=1 so kernel time lands in the launching call)",
    )
    args = ap.parse_args()
    csr, cand, _ = build_graph(args.scale, "gpu")
    if args.detail:
        _detail(csr)
    s = int(cand[0])
    steps = {
        "bfs(csr, s)": lambda: kleene.bfs(csr, s),
        "from_scipy(copy=False)": lambda: Matrix.from_scipy(csr, copy=False),
        "has_nan (fresh)": lambda: Matrix.from_scipy(csr, copy=False).has_nan(),
        "is_symmetric pattern (fresh)": lambda: is_symmetric(
            Matrix.from_scipy(csr, copy=False), values=False
        ),
        "as_graph(pattern)": lambda: as_graph(csr, pattern=True),
    }
    M = Matrix.from_scipy(csr)
    is_symmetric(M, values=False)
    steps["frontier_bfs(M) (cached)"] = lambda: frontier_bfs(M, s)
    steps["frontier_bfs + to_dense"] = lambda: frontier_bfs(M, s)[0].to_dense(missing=-1)
    steps["bfs(M, s)"] = lambda: kleene.bfs(M, s)
    for name, fn in steps.items():
        print(f"{name:32s} {timed(fn):8.3f} ms", flush=True)


def _detail(csr) -> None:
    import cProfile
    import pstats

    import cupy

    from kleene.backends.cuda.structure import symmetry_sums

    ptr = csr.indptr.astype(cupy.int64)
    for label, vals in (("pattern", None), ("values", csr.data)):
        ms = timed(lambda v=vals: symmetry_sums(ptr, csr.indices, v, 12345))
        print(f"symmetry_sums {label:8s} (int64 indptr given) {ms:8.3f} ms", flush=True)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        Matrix.from_scipy(csr, copy=False).has_nan()
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(18)


if __name__ == "__main__":
    main()
