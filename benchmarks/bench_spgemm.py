"""Sparse products on the GPU beside cuSPARSE (cupyx): the unmasked product and the
masked triangle count (issue 42, item 1).

    PYTHONPATH=. python3 benchmarks/bench_spgemm.py --out $OUT/spgemm.json
    #   --scales 14 16   --repeat 5   --device gpu|cpu (cpu: kleene and SciPy, a smoke run)

Graphs: RMAT-s (edge factor 16, ``kleene.generators.rmat``, seed 0), symmetrised,
duplicates and self loops dropped, unit weights; L its strict lower triangle.

Rows, each the median of ``--repeat`` runs after a warm-up, host clock around the call
and a device synchronisation (what a user waits for):

- ``mxm(A, A, plus_times)`` beside cupyx ``A @ A``; checked: the same number of
  entries and the same row sums (1e-9 relative). Where the expansion product cannot
  fit, kleene raises OutOfMemory naming the bytes: the row says so.
- triangles: ``reduce(mxm(L, L, plus_pair, mask=L.S))`` (plus_pair: each product one,
  int64) beside cupyx ``(L @ L).multiply(L).sum()``; checked: equal counts. The row
  also times kleene's unmasked path (the primitive left out) for the same count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import wall_time, write_results  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import kleene  # noqa: E402
from kleene.errors import OutOfMemory  # noqa: E402
from kleene.semiring import monoid  # noqa: E402

_ONE = kleene.BinaryOp(
    "one", lambda x, y: np.ones_like(x), "x * 0 + 1", typing="first", scalar="x * 0 + 1"
)
PLUS_PAIR = kleene.Semiring(monoid.plus, _ONE, name="plus_pair_int")


def graph(scale: int):
    n = 1 << scale
    src, dst = kleene.generators.rmat(scale, 16, seed=0)
    a = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr()
    a = ((a + a.T) > 0).astype(np.float64).tocsr()
    a.setdiag(0)
    a.eliminate_zeros()
    a.sort_indices()
    low = sp.tril(a, -1).tocsr()
    low.sort_indices()
    return a, low


def _row(name, scale, kl, ref, ref_name, **extra):
    row = {"row": name, "scale": scale, "kleene ms": kl, f"{ref_name} ms": ref}
    if isinstance(kl, float) and isinstance(ref, float):
        row["ratio"] = round(kl / ref, 3)
    row.update(extra)
    return row


def run(scale: int, device: str, repeat: int) -> list[dict]:
    a, low = graph(scale)
    rows = []
    if device == "gpu":
        import cupy
        import cupyx.scipy.sparse as csp

        ref_a, ref_l = csp.csr_matrix(a), csp.csr_matrix(low)
        ref_name = "cupyx"
        to_host = cupy.asnumpy
    else:
        ref_a, ref_l = a, low
        ref_name = "scipy"
        to_host = np.asarray
    A = kleene.Matrix.from_scipy(a).to(device)
    L = kleene.Matrix.from_scipy(low.astype(np.int64)).to(device)

    # ---- unmasked plus_times ----
    try:
        ref_c = ref_a @ ref_a
        ref_t = wall_time(lambda: ref_a @ ref_a, device=device, repeat=repeat)["median_ms"]
    except Exception as e:  # cuSPARSE: insufficient resources
        ref_c, ref_t = None, f"{type(e).__name__}: {str(e)[:80]}"
    try:
        C = kleene.mxm(A, A, "plus_times")
        checked = None
        if ref_c is not None:
            ok_nnz = C.nvals == int(ref_c.nnz)
            sums = to_host(kleene.reduce(C, "plus", axis=1).to_dense(missing=0))
            want = to_host(ref_c.sum(axis=1)).ravel()
            checked = ok_nnz and bool(np.allclose(sums, want, rtol=1e-9))
        nnz_c = C.nvals
        del C
        t = wall_time(lambda: kleene.mxm(A, A, "plus_times"), device=device, repeat=repeat)
        kl = t["median_ms"]
    except OutOfMemory as e:
        kl, checked, nnz_c = f"OutOfMemory: {e}", None, None
    rows.append(
        _row(
            "mxm(A, A, plus_times)",
            scale,
            kl,
            ref_t,
            ref_name,
            nnz_a=int(a.nnz),
            nnz_c=nnz_c,
            checked=checked,
        )
    )
    del ref_c

    # ---- masked triangle count ----
    def kl_tc():
        return int(kleene.reduce(kleene.mxm(L, L, PLUS_PAIR, mask=L.S), "plus"))

    def ref_tc():
        return int(round(float((ref_l @ ref_l).multiply(ref_l).sum())))

    want = ref_tc()
    got = kl_tc()
    ref_t = wall_time(ref_tc, device=device, repeat=repeat)["median_ms"]
    kl = wall_time(kl_tc, device=device, repeat=repeat)["median_ms"]
    be = kleene.backends.device.backend(A.xp)
    saved = be.mxm_masked
    try:  # the unmasked path, for the same count
        be.mxm_masked = None
        old_ok = kl_tc() == want
        old = wall_time(kl_tc, device=device, repeat=repeat)["median_ms"]
    except OutOfMemory as e:
        old_ok, old = None, f"OutOfMemory: {e}"
    finally:
        be.mxm_masked = saved
    rows.append(
        _row(
            "triangles: reduce(mxm(L, L, plus_pair, mask=L.S))",
            scale,
            kl,
            ref_t,
            ref_name,
            triangles=want,
            checked=got == want,
            unmasked_path_ms=old,
            unmasked_checked=old_ok,
            nnz_l=int(low.nnz),
        )
    )
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[14, 16])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--device", choices=["gpu", "cpu"], default="gpu")
    p.add_argument("--out", default=None, help="JSON path (a markdown table beside it)")
    args = p.parse_args()
    rows = []
    for s in args.scales:
        for r in run(s, args.device, args.repeat):
            print(r, flush=True)
            rows.append(r)
            if args.out:  # after each row: a later failure keeps the rows before it
                write_results(args.out, "bench_spgemm", rows)


if __name__ == "__main__":
    main()
