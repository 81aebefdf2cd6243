"""The built-in demo: path problems on a generated road-like graph and on a real graph
(Zachary's karate club, shipped in ``kleene.datasets``), checked against SciPy.

``python -m kleene demo`` builds a seeded, weighted 2-D grid (a small road network
with a few closed road segments and some long "highway" shortcuts), then solves

* single-source shortest paths: a min_plus ``vxm`` relaxation loop, once with a
  frontier of changed vertices (Harish & Narayanan's mask) and once as plain
  Bellman-Ford with ``accum=min``, and the library's ``kleene.sssp``;
* widest (bottleneck) paths: the same loop over max_min;
* BFS levels: ``any_pair`` (sparse frontier, push) and ``lor_land`` (Boolean
  frontier, pull through ``mxv`` on the transpose), each with a complemented
  visited mask and ``replace``, and the library's ``kleene.bfs``;

* all-pairs shortest paths with ``kleene.apsp``;

every one written with kleene operations only. On the karate club it runs the
canned BFS, SSSP and APSP (with predecessors: every reconstructed path is
walked edge by edge). Each answer is checked against ``scipy.sparse.csgraph``
(or, for widest paths, against thresholded reachability computed by SciPy).

Every task runs twice and the table shows the second call (SciPy's too): the first
call of a kernel compiles it (Numba on the CPU, CuPy on the GPU; both keep it on
disk, so a later run only loads it), far more than the call itself on these
small graphs. What the first calls cost beyond the timed ones is
reported on its own line under the table, never left out.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

import kleene
from kleene.errors import InvalidValue

from ._info import __version__, gpu_info
from .progress import one_time_seconds, watch_compiles
from .semiring import binary

DEFAULT_SIDE = 24
DEFAULT_SEED = 20071218  # HiPC 2007, where Harish & Narayanan ran BFS/SSSP on a GPU


# ---- the built-in example graph ---------------------------------------------
@dataclass(frozen=True)
class RoadGraph:
    """A directed road-like graph: ``src[e] -> dst[e]`` with a travel time and a capacity."""

    side: int
    src: np.ndarray  # int64
    dst: np.ndarray  # int64
    travel_time: np.ndarray  # float64, > 0
    capacity: np.ndarray  # float64, whole numbers 1..12 (lanes x 100 vehicles/h, say)
    n_shortcuts: int

    @property
    def n(self) -> int:
        return self.side * self.side

    @property
    def n_edges(self) -> int:
        return int(self.src.size)

    def scipy(self, weights: np.ndarray) -> sp.csr_matrix:
        """The graph as a SciPy CSR matrix with ``weights`` as stored values."""
        return sp.csr_matrix((weights, (self.src, self.dst)), shape=(self.n, self.n))


def road_graph(side: int = DEFAULT_SIDE, *, seed: int = DEFAULT_SEED, shortcuts=None) -> RoadGraph:
    """A deterministic road-like graph on a ``side`` x ``side`` grid.

    Neighbouring intersections are joined by two one-way edges with their own
    travel times (1 to 10, noisy); about 8% of the segments are closed; ``shortcuts``
    (default ``side * side // 40``) random highways join far-apart intersections
    with a travel time of 0.6 x their grid distance. Capacities are whole numbers
    1..12. The same ``side`` and ``seed`` always give the same graph.
    """
    if side < 2:
        raise InvalidValue(f"side must be at least 2, got {side}")
    rng = np.random.default_rng(seed)
    n = side * side
    vid = np.arange(n, dtype=np.int64).reshape(side, side)
    a = np.concatenate([vid[:, :-1].ravel(), vid[:-1, :].ravel()])  # right and down
    b = np.concatenate([vid[:, 1:].ravel(), vid[1:, :].ravel()])
    open_ = rng.random(a.size) >= 0.08
    a, b = a[open_], b[open_]
    src, dst = np.concatenate([a, b]), np.concatenate([b, a])  # both directions
    base = np.concatenate([rng.uniform(1.0, 10.0, a.size)] * 2)
    travel = np.round(base * rng.uniform(0.9, 1.1, src.size), 2)

    k = n // 40 if shortcuts is None else int(shortcuts)
    hs, hd = rng.integers(0, n, k), rng.integers(0, n, k)
    keep = hs != hd
    hs, hd = hs[keep], hd[keep]
    grid_dist = np.abs(hs // side - hd // side) + np.abs(hs % side - hd % side)
    h_time = np.round(0.6 * 5.5 * grid_dist, 2)  # 5.5 = mean segment time
    src = np.concatenate([src, hs, hd])
    dst = np.concatenate([dst, hd, hs])
    travel = np.concatenate([travel, h_time, h_time])

    # One edge per (src, dst): keep the first (a shortcut never replaces a street).
    _, first = np.unique(src * n + dst, return_index=True)
    first.sort()
    src, dst, travel = src[first], dst[first], travel[first]
    capacity = rng.integers(1, 13, src.size).astype(np.float64)
    return RoadGraph(side, src, dst, travel, capacity, int(keep.sum()))


# ---- the algorithms, written with kleene operations only ---------------------
# Each returns (result as a dense NumPy array, number of iterations).


def sssp_frontier(A: kleene.Matrix, source: int):
    """min_plus relaxation from the vertices whose distance changed last round."""
    n = A.nrows
    d = kleene.Vector.from_coo([source], [0.0], n).to(A.device)
    frontier = d.dup()
    iters = 0
    while frontier.nvals:
        iters += 1
        t = kleene.vxm(frontier, A, "min_plus")  # tentative distances through the frontier
        improved = kleene.ewise_add(d, t, binary.min)
        unchanged = kleene.ewise_mult(improved, d, binary.eq)  # True where nothing changed
        frontier = kleene.apply(improved, "identity", mask=~unchanged.V)
        d = improved
    return _host(d.to_dense()), iters


def sssp_bellman_ford(A: kleene.Matrix, source: int):
    """Plain Bellman-Ford: d = d min (d min.+ A), written into d with accum=min."""
    n = A.nrows
    d = kleene.Vector.from_coo([source], [0.0], n).to(A.device)
    for iters in range(1, n + 1):
        before = d.dup()
        kleene.vxm(d, A, kleene.semiring.min_plus, accum=binary.min, out=d)
        if d.isequal(before):
            return _host(d.to_dense()), iters
    raise kleene.NegativeCycleError("distances still fall after n rounds")


def widest_paths(C: kleene.Matrix, source: int):
    """Bottleneck widths over max_min: w = w max (w max.min C) until nothing changes."""
    n = C.nrows
    w = kleene.Vector.from_coo([source], [np.inf], n).to(C.device)
    iters = 0
    while True:
        iters += 1
        before = w.dup()
        kleene.vxm(w, C, "max_min", accum=binary.max, out=w)
        if w.isequal(before):
            return _host(w.to_dense(missing=-np.inf)), iters


def bfs_any_pair(A: kleene.Matrix, source: int):
    """Level-synchronous BFS, push: frontier <~levels.S, replace> = frontier any.pair A."""
    n = A.nrows
    levels = kleene.Vector.from_coo([source], [0], n, dtype=np.int64).to(A.device)
    frontier = kleene.Vector.from_coo([source], [True], n).to(A.device)
    depth = 0
    while frontier.nvals:
        depth += 1
        # unvisited successors only; replace drops the old frontier's entries
        kleene.vxm(frontier, A, "any_pair", mask=~levels.S, replace=True, out=frontier)
        kleene.assign(levels, depth, mask=frontier.S)  # levels<frontier.S> = depth
    return _host(levels.to_dense(missing=-1)), depth


def bfs_lor_land(AT: kleene.Matrix, source: int):
    """Level-synchronous BFS, pull: visit i if some in-neighbour k is in the frontier."""
    n = AT.nrows
    visited = kleene.Vector.from_coo([source], [True], n).to(AT.device)
    levels = kleene.Vector.from_coo([source], [0], n, dtype=np.int64).to(AT.device)
    frontier = visited.dup()
    depth = 0
    while frontier.nvals:
        depth += 1
        kleene.mxv(AT, frontier, "lor_land", mask=~visited.S, replace=True, out=frontier)
        kleene.assign(visited, True, mask=frontier.S)
        kleene.assign(levels, depth, mask=frontier.S)
    return _host(levels.to_dense(missing=-1)), depth


def canned_sssp(A: kleene.Matrix, source: int):
    """The library's own ``kleene.sssp`` (itself a composition of operations)."""
    return _host(kleene.sssp(A, source, method="delta-stepping")), None


def canned_bfs(A: kleene.Matrix, source: int):
    """The library's own ``kleene.bfs``, switching between push and pull per level."""
    return _host(kleene.bfs(A, source, method="direction-optimizing")), None


def canned_apsp(A: kleene.Matrix, source: int):
    """The library's own ``kleene.apsp`` (the method "auto" picks)."""
    return _host(kleene.apsp(A)), None


def _host(a) -> np.ndarray:
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


# ---- independent checks (SciPy) ---------------------------------------------
def check_sssp(g: RoadGraph, source: int, dist: np.ndarray) -> tuple[bool, str]:
    ref = csgraph.dijkstra(g.scipy(g.travel_time), indices=source)
    return _compare(dist, ref, "dijkstra")


def check_apsp(g: RoadGraph, source: int, dist: np.ndarray) -> tuple[bool, str]:
    return _compare(dist, csgraph.shortest_path(g.scipy(g.travel_time)), "shortest_path")


def check_widest(g: RoadGraph, source: int, width: np.ndarray) -> tuple[bool, str]:
    """width(v) is the largest c such that v is reachable over edges of capacity >= c."""
    ref = np.full(g.n, -np.inf)
    for c in np.unique(g.capacity):  # ascending: later (wider) thresholds overwrite
        keep = g.capacity >= c
        sub = sp.csr_matrix(
            (np.ones(int(keep.sum())), (g.src[keep], g.dst[keep])), shape=(g.n, g.n)
        )
        reached = csgraph.breadth_first_order(sub, source, return_predecessors=False)
        ref[reached] = c
    ref[source] = np.inf  # the empty path has unbounded width
    return _compare(width, ref, "thresholded breadth_first_order")


def check_bfs(g: RoadGraph, source: int, levels: np.ndarray) -> tuple[bool, str]:
    hops = csgraph.dijkstra(g.scipy(np.ones(g.n_edges)), indices=source, unweighted=True)
    ref = np.where(np.isinf(hops), -1, hops).astype(np.int64)
    reached = np.sort(csgraph.breadth_first_order(g.scipy(np.ones(g.n_edges)), source, True, False))
    if not np.array_equal(np.flatnonzero(levels >= 0), reached):
        return False, "reached set differs from breadth_first_order"
    return _compare(levels, ref, "breadth_first_order + unweighted dijkstra")


def _compare(got: np.ndarray, ref: np.ndarray, what: str) -> tuple[bool, str]:
    got = np.asarray(got)
    if got.shape != ref.shape:
        return False, f"shape {got.shape} != {ref.shape}"
    same_inf = np.array_equal(np.isinf(got), np.isinf(ref)) and np.array_equal(
        np.sign(got[np.isinf(got)]), np.sign(ref[np.isinf(ref)])
    )
    finite = np.isfinite(ref)
    err = float(np.max(np.abs(got[finite] - ref[finite]), initial=0.0))
    ok = same_inf and err <= 1e-9 * max(1.0, float(np.max(np.abs(ref[finite]), initial=1.0)))
    if ok:
        return True, f"= {what}"
    bad = int(np.sum(~np.isclose(got, ref, rtol=0, atol=1e-9) & ~(got == ref)))
    return False, f"{bad} of {ref.size} differ from {what} (max |err| {err:.3g})"


# ---- the run ----------------------------------------------------------------
@dataclass
class Row:
    task: str
    method: str
    device: str
    iters: int | None  # None: the canned algorithm does not report rounds
    seconds: float  # a warm call: its kernels compiled and loaded (_warm_timed)
    ref_seconds: float
    ok: bool
    note: str
    once_seconds: float = 0.0  # the calls before, beyond the timed: compiling, loading


def _timed(fn: Callable, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def _warm_timed(fn: Callable, *args, most: int = 4):
    """``fn(*args)`` timed warm: ``(result, seconds, once)``, where ``once`` is what the
    calls before the timed one took beyond as many timed calls. The first call is
    never the timed one (it compiles its kernels, or loads them from the disk cache,
    which Numba does not announce); a call that compiled something (a kernel only a
    later call uses) is not either, up to ``most`` calls."""
    _, spent = _timed(fn, *args)
    for k in range(1, most):
        before = one_time_seconds()
        out, secs = _timed(fn, *args)
        if one_time_seconds() == before or k == most - 1:
            return out, secs, max(0.0, spent - k * secs)
        spent += secs
    raise AssertionError("unreachable: most >= 2")


def run_demo(
    device: str = "cpu",
    *,
    side: int = DEFAULT_SIDE,
    seed: int = DEFAULT_SEED,
    source: int = 0,
    out=None,
) -> list[Row]:
    """Run every task on ``device`` and return the table rows (printing them to ``out``)."""
    out = sys.stdout if out is None else out
    watch_compiles()  # one_time_seconds() counts Numba's compiles: see _warm_timed
    compiled = one_time_seconds()
    g = road_graph(side, seed=seed)
    if not 0 <= source < g.n:
        raise InvalidValue(f"source must be a vertex 0..{g.n - 1}, got {source}")
    A = kleene.Matrix.from_edges(g.src, g.dst, g.travel_time, n=g.n).to(device)
    C = kleene.Matrix.from_edges(g.src, g.dst, g.capacity, n=g.n).to(device)
    P = kleene.Matrix.from_edges(g.src, g.dst, n=g.n).to(device)  # Boolean pattern
    PT = kleene.transpose(P)

    print(
        f"kleene {__version__} demo: road-like {side}x{side} grid, {g.n} vertices, "
        f"{g.n_edges} directed edges ({g.n_shortcuts} two-way shortcuts), seed {seed}, "
        f"source {source}, device {device}; then the karate club (real: Zachary 1977, "
        "34 members, 78 ties, length = 1 / tie strength), from the instructor (0)",
        file=out,
    )

    def dijkstra():
        return csgraph.dijkstra(g.scipy(g.travel_time), indices=source)

    def bfs_order():
        return csgraph.breadth_first_order(g.scipy(g.capacity), source)

    def thresholds():
        return check_widest(g, source, np.zeros(g.n))

    def all_pairs():
        return csgraph.shortest_path(g.scipy(g.travel_time))

    tasks = [
        ("sssp", "min_plus vxm, changed-vertex frontier", sssp_frontier, A, check_sssp, dijkstra),
        (
            "sssp",
            "min_plus vxm, accum=min (Bellman-Ford)",
            sssp_bellman_ford,
            A,
            check_sssp,
            dijkstra,
        ),
        ("sssp", "kleene.sssp, delta-stepping", canned_sssp, A, check_sssp, dijkstra),
        ("widest path", "max_min vxm, accum=max", widest_paths, C, check_widest, thresholds),
        (
            "bfs levels",
            "any_pair vxm, mask=~levels.S, replace",
            bfs_any_pair,
            P,
            check_bfs,
            bfs_order,
        ),
        (
            "bfs levels",
            "lor_land mxv(A.T), mask=~visited.S, replace",
            bfs_lor_land,
            PT,
            check_bfs,
            bfs_order,
        ),
        ("bfs levels", "kleene.bfs, direction-optimizing", canned_bfs, P, check_bfs, bfs_order),
        ("apsp", "kleene.apsp (auto)", canned_apsp, A, check_apsp, all_pairs),
    ]
    rows = []
    for task, method, fn, M, check, ref in tasks:
        (result, iters), secs, once = _warm_timed(fn, M, source)
        ref()  # SciPy warmed up alike
        _, ref_secs = _timed(ref)
        ok, note = check(g, source, result)
        rows.append(Row(task, method, device, iters, secs, ref_secs, ok, note, once))
    rows += _karate_rows(device)
    print_table(rows, out)
    print(first_calls_line(rows, device, one_time_seconds() - compiled), file=out)
    failed = [r for r in rows if not r.ok]
    if failed:
        print(f"{len(failed)} of {len(rows)} checks FAILED", file=out)
    else:
        print(f"all {len(rows)} checks OK", file=out)
    return rows


def _karate_rows(device: str) -> list[Row]:
    """BFS, SSSP and APSP with paths on Zachary's karate club, checked against SciPy."""
    from .datasets import karate_club

    K = karate_club(device=device)
    r, c, w = K.to("cpu").to_coo()
    S = sp.csr_matrix((w, (r, c)), shape=K.shape)
    length = {(int(a), int(b)): float(x) for a, b, x in zip(r, c, w, strict=True)}

    def apsp_paths():
        dist, pred = (_host(x) for x in kleene.apsp(K, return_predecessors=True))
        return dist, pred

    def check_paths(got) -> tuple[bool, str]:
        dist, pred = got
        ok, note = _compare(dist, csgraph.shortest_path(S), "shortest_path")
        for i in range(K.nrows):  # every path exists edge by edge and weighs its distance
            for j in range(K.nrows):
                path = kleene.reconstruct_path(pred, i, j)
                total = sum(length[e] for e in zip(path, path[1:], strict=False))
                if path[0] != i or path[-1] != j or abs(total - dist[i, j]) > 1e-9:
                    return False, f"path {i}->{j} {path} weighs {total}, not {dist[i, j]}"
        return ok, note + " (+ 1156 paths walked)" if ok else note

    hops = csgraph.dijkstra(S, indices=0, unweighted=True).astype(np.int64)
    tasks = [
        (
            "karate bfs",
            "kleene.bfs (auto)",
            lambda: _host(kleene.bfs(K, 0)),
            lambda got: _compare(got, hops, "unweighted dijkstra"),
            lambda: csgraph.breadth_first_order(S, 0),
        ),
        (
            "karate sssp",
            "kleene.sssp (auto)",
            lambda: _host(kleene.sssp(K, 0)),
            lambda got: _compare(got, csgraph.dijkstra(S, indices=0), "dijkstra"),
            lambda: csgraph.dijkstra(S, indices=0),
        ),
        (
            "karate apsp",
            "kleene.apsp + reconstruct_path",
            apsp_paths,
            check_paths,
            lambda: csgraph.shortest_path(S, return_predecessors=True),
        ),
    ]
    rows = []
    for task, method, fn, check, ref in tasks:
        got, secs, once = _warm_timed(fn)
        ref()
        _, ref_secs = _timed(ref)
        ok, note = check(got)
        rows.append(Row(task, method, device, None, secs, ref_secs, ok, note, once))
    return rows


def first_calls_line(rows: list[Row], device: str, compiling: float = 0.0) -> str:
    """The one-time cost the table leaves out: what the first calls took beyond warm
    ones, and ``compiling`` seconds of it spent compiling kernels (where known).

    >>> r = Row("sssp", "m", "cpu", 3, 0.002, 0.001, True, "", once_seconds=1.5)
    >>> first_calls_line([r], "cpu", compiling=1.2)  # doctest: +ELLIPSIS
    'times are warm calls; the first calls took 1.5 s more in all (1.2 s compiling): ...'
    """
    once = sum(r.once_seconds for r in rows)
    spent = f" ({compiling:.1f} s compiling)" if compiling >= 0.05 else ""
    how = "Numba" if device == "cpu" else "CuPy"
    return (
        f"times are warm calls; the first calls took {once:.1f} s more in all{spent}: "
        f"{how} compiles each kernel on first use and caches it on disk, so a later run "
        "only loads it"
    )


def print_table(rows: list[Row], out) -> None:
    head = ("task", "method", "device", "iters", "time", "scipy", "check")
    body = [
        (
            r.task,
            r.method,
            r.device,
            "-" if r.iters is None else str(r.iters),
            _ms(r.seconds),
            _ms(r.ref_seconds),
            ("OK " if r.ok else "FAIL ") + r.note,
        )
        for r in rows
    ]
    widths = [max(len(x[i]) for x in (head, *body)) for i in range(len(head))]
    for i, line in enumerate((head, *body)):
        print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip(), file=out)
        if i == 0:
            print("  ".join("-" * w for w in widths), file=out)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"


# ---- command line -----------------------------------------------------------
def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        default="cpu",
        help="where to run the kleene operations (gpu needs CuPy and a CUDA GPU)",
    )
    p.add_argument(
        "--side",
        type=int,
        default=DEFAULT_SIDE,
        help=f"grid side; the graph has side^2 vertices (default {DEFAULT_SIDE})",
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="graph seed")
    p.add_argument("--source", type=int, default=0, help="source vertex (default 0)")


def main(args: argparse.Namespace) -> int:
    """Exit status: 0 all checks passed, 1 a check failed, 2 a usage error."""
    if args.device == "gpu":
        gpu = gpu_info()
        if not gpu["available"]:
            print(
                f"error: --device gpu needs CuPy and a visible CUDA GPU: {gpu['reason']}.\n"
                "Install CuPy with  python3 -m pip install -e '.[cuda12]'  (or '.[cuda13]'),"
                " or run with --device cpu.",
                file=sys.stderr,
            )
            return 2
    if args.side < 2:
        print(f"error: --side must be at least 2, got {args.side}", file=sys.stderr)
        return 2
    if not 0 <= args.source < args.side * args.side:
        print(f"error: --source must be 0..{args.side**2 - 1}, got {args.source}", file=sys.stderr)
        return 2
    rows = run_demo(args.device, side=args.side, seed=args.seed, source=args.source)
    return 0 if all(r.ok for r in rows) else 1
