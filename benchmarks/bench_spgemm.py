"""Sparse products on the GPU beside cuSPARSE (cupyx): the unmasked product and the
masked triangle count (issue 42, item 1).

    PYTHONPATH=. python3 benchmarks/bench_spgemm.py --out $OUT/spgemm.json
    #   --scales 14 16   --repeat 5   --device gpu|cpu (cpu: kleene and SciPy, a smoke run)

Graphs: RMAT-s (edge factor 16, ``kleene.generators.rmat``, seed 0), symmetrised,
duplicates and self loops dropped, unit weights; L its strict lower triangle.

Rows, each the median of ``--repeat`` runs after a warm-up, host clock around the call
and a device synchronisation (what a user waits for):

- ``mxm(A, A, plus_times)`` beside cupyx ``A @ A``; checked: the same number of
  entries and the same row sums (1e-9 relative). Where the product cannot fit, kleene
  raises OutOfMemory naming the bytes: the row says so. ``expansion_ms``: the same
  product with the back end's ``mxm_sparse`` left out (expand, sort, reduce), up to
  ``--expansion-max`` scale.
- ``mxm(A, A, min_plus)`` and ``mxm(A, A, user plus_times)`` (a user-defined semiring
  with the same expressions as plus_times, compiled apart) beside the same cupyx
  ``A @ A`` (cuSPARSE has no min_plus); checked: min_plus has the pattern of A @ A and
  every value 2 (unit weights: the shortest two-step path), the user semiring gives
  plus_times's bits.
- ``--phases``: each bin's kernel time in one product (synchronised apart).
- Scales from ``--once-from`` on (RMAT-18) run each product once, without a warm-up
  (the first call includes compiling), kleene before cupyx.
- triangles: ``reduce(mxm(L, L, plus_pair, mask=L.S))`` (plus_pair: each product one,
  int64) beside cupyx ``(L @ L).multiply(L).sum()``; checked: equal counts. The row
  also times kleene's unmasked path (the primitive left out) for the same count.
"""

from __future__ import annotations

import argparse
import sys
import time
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
USER_PLUS_TIMES = kleene.Semiring(
    kleene.Monoid(kleene.BinaryOp("user_plus", np.add, "x + y", scalar="x + y"), 0.0),
    kleene.BinaryOp("user_times", np.multiply, "x * y", scalar="x * y"),
    name="user_plus_times",
)


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


def _release(device: str) -> None:
    """Give the device pool's free blocks back (a large product next needs them)."""
    if device == "gpu":
        import gc

        import cupy

        gc.collect()
        cupy.get_default_memory_pool().free_all_blocks()


def phases(scale: int, sr="plus_times") -> dict:
    """Where one GPU product's time goes: each bin's kernel (synchronised apart, so the
    side stream's overlap is not counted) and the rest (plan, scans, the move)."""
    import cupy

    from kleene.backends.cuda import spgemm

    a, _ = graph(scale)
    A = kleene.Matrix.from_scipy(a).to("gpu")
    kleene.mxm(A, A, sr)  # compiled, pool warm
    times: dict = {}
    real = spgemm._Product._launch

    def spy(self, count, place, *args):
        for b in self.bins:
            saved, self.bins = self.bins, [b]
            cupy.cuda.Device().synchronize()
            t0 = time.perf_counter()
            real(self, count, place, *args)
            cupy.cuda.Device().synchronize()
            key = f"{'count ' if count else ''}{b[0]} {b[1]} ({b[2].size} items)"
            times[key] = round(times.get(key, 0.0) + 1e3 * (time.perf_counter() - t0), 3)
            self.bins = saved

    spgemm._Product._launch = spy
    try:
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        kleene.mxm(A, A, sr)
        cupy.cuda.Device().synchronize()
        total = 1e3 * (time.perf_counter() - t0)
    finally:
        spgemm._Product._launch = real
    return {"row": f"phases of mxm(A, A, {sr})", "scale": scale, "total ms": total, **times}


def run(
    scale: int, device: str, repeat: int, once_from: int = 18, expansion_max: int = 14
) -> list[dict]:
    a, low = graph(scale)
    rows = []
    if device == "gpu":
        import cupy
        import cupyx.scipy.sparse as csp

        ref_a, ref_l = csp.csr_matrix(a), csp.csr_matrix(low)
        ref_name = "cupyx"
        to_host = cupy.asnumpy
        sync = cupy.cuda.Device().synchronize
    else:
        ref_a, ref_l = a, low
        ref_name = "scipy"
        to_host = np.asarray
        sync = lambda: None  # noqa: E731
    A = kleene.Matrix.from_scipy(a).to(device)
    L = kleene.Matrix.from_scipy(low.astype(np.int64)).to(device)

    # ---- unmasked products ----
    once = scale >= once_from
    rep = 1 if once else repeat
    warm = 0 if once else 1

    def timed(fn):
        return wall_time(fn, device=device, warmup=warm, repeat=rep)["median_ms"]

    be = kleene.backends.device.backend(A.xp)

    def reference():
        try:
            t0 = time.perf_counter()
            c = ref_a @ ref_a
            sync()
            t = 1e3 * (time.perf_counter() - t0) if once else timed(lambda: ref_a @ ref_a)
            return c, t
        except Exception as e:  # cuSPARSE: insufficient resources, or out of memory
            return None, f"{type(e).__name__}: {str(e)[:80]}"

    ref_c, ref_t = (None, None) if once else reference()  # large: after kleene's
    semirings = [("plus_times", "plus_times")]
    if not once:
        semirings += [("min_plus", "min_plus"), ("user plus_times", USER_PLUS_TIMES)]
    measured = {}
    for name, sr in semirings:
        checked = None
        try:
            t0 = time.perf_counter()
            C = kleene.mxm(A, A, sr)
            sync()
            kl = 1e3 * (time.perf_counter() - t0)
            if not once:
                kl = timed(lambda sr=sr: kleene.mxm(A, A, sr))
            nnz_c = C.nvals
            keys_r, _, vals = C.to_coo()
            # the result's fingerprint: each product's result is let go before the next
            fingerprint = (nnz_c, float(keys_r.sum()), float(vals.astype(np.float64).sum()))
            if ref_c is not None and name == "plus_times":
                sums = to_host(kleene.reduce(C, "plus", axis=1).to_dense(missing=0))
                want = to_host(ref_c.sum(axis=1)).ravel()
                checked = nnz_c == int(ref_c.nnz) and bool(np.allclose(sums, want, rtol=1e-9))
            elif ref_c is not None and name == "min_plus":  # unit weights: every value 2
                checked = nnz_c == int(ref_c.nnz) and bool((vals == 2).all())
            elif name == "user plus_times" and "plus_times" in measured:
                checked = fingerprint == measured["plus_times"][2]
            del C, keys_r, vals
        except OutOfMemory as e:
            kl, nnz_c, fingerprint = f"OutOfMemory: {e}", None, None
        measured[name] = (kl, nnz_c, fingerprint, checked)
        _release(device)
    if once:
        ref_c, ref_t = reference()
        if ref_c is not None:
            measured["plus_times"] = (*measured["plus_times"][:3], None)
    expansion = None
    if scale <= expansion_max and device == "gpu":
        saved = be.mxm_sparse
        try:
            be.mxm_sparse = None
            expansion = timed(lambda: kleene.mxm(A, A, "plus_times"))
        except OutOfMemory as e:
            expansion = f"OutOfMemory: {str(e)[:80]}"
        finally:
            be.mxm_sparse = saved
    for name, _ in semirings:
        kl, nnz_c, _, checked = measured[name]
        extra = {"nnz_a": int(a.nnz)} if name == "plus_times" else {}
        if name == "plus_times":
            if once and ref_c is not None:  # the result was let go: its size is checked
                checked = nnz_c == int(ref_c.nnz)
            extra["expansion_ms"] = expansion
        row = _row(f"mxm(A, A, {name})", scale, kl, ref_t, ref_name, nnz_c=nnz_c, checked=checked)
        row.update(extra)
        rows.append(row)
    del ref_c
    _release(device)
    if once:
        return rows

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
    p.add_argument("--once-from", type=int, default=18, help="scales run once, no warm-up")
    p.add_argument("--expansion-max", type=int, default=14, help="largest scale timed without")
    p.add_argument("--phases", action="store_true", help="also each bin's kernel time")
    p.add_argument("--out", default=None, help="JSON path (a markdown table beside it)")
    args = p.parse_args()
    rows = []
    for s in args.scales:
        more = [phases(s)] if args.phases and args.device == "gpu" and s < args.once_from else []
        for r in run(s, args.device, args.repeat, args.once_from, args.expansion_max) + more:
            print(r, flush=True)
            rows.append(r)
            if args.out:  # after each row: a later failure keeps the rows before it
                write_results(args.out, "bench_spgemm", rows)


if __name__ == "__main__":
    main()
