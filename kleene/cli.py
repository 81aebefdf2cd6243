"""The path commands of the command line: ``kleene bfs|sssp|apsp|closure GRAPH``.

GRAPH is a file (any format kleene.io reads) or a generator spec (``rmat:20``,
``grid:512x512``, ``er:2048``; see kleene.generators.SPECS). A short summary goes
to stdout; ``--out`` writes the result (.npy, .npz with predecessors, or text).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

COMMANDS = {
    "bfs": "breadth-first levels (and parents) from --source",
    "sssp": "shortest-path distances (and predecessors) from --source",
    "apsp": "all-pairs shortest paths",
    "closure": "transitive closure (reachability matrix)",
}
METHOD_HELP = {
    "bfs": "auto, push, pull, direction-optimizing",
    "sssp": "auto, bellman-ford, delta-stepping",
    "apsp": "auto, floyd-warshall, blocked, recursive, repeated-sssp, johnson",
    "closure": "auto, floyd-warshall, blocked, recursive",
}


def add_commands(sub) -> None:
    """Register the path commands on an argparse sub-parser collection."""
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(
            name, help=help_text, description=f"{help_text}. GRAPH is a file or a generator spec."
        )
        p.add_argument("graph", help="graph file or generator spec (e.g. rmat:16, grid:100x100)")
        if name in ("bfs", "sssp"):
            p.add_argument("--source", default="0", help="vertex id, or a comma-separated list")
        p.add_argument("--method", default="auto", help=METHOD_HELP[name])
        p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
        p.add_argument("--undirected", action="store_true", help="follow edges both ways")
        p.add_argument("--format", default=None, help="file format if the extension does not say")
        p.add_argument("--seed", type=int, default=0, help="seed of a generator spec")
        if name != "closure":
            p.add_argument("--predecessors", action="store_true", help="also compute them")
        p.add_argument("--out", default=None, help="write the result: .npy, .npz or text")
        p.add_argument("--no-progress", action="store_true", help="no progress bars")


def load_graph(spec: str, *, device: str, fmt: str | None, seed: int, progress: bool):
    """A kleene Matrix from a file path or a generator spec."""
    from . import io
    from .generators import from_spec, is_spec

    if is_spec(spec) and not Path(spec).exists():
        return from_spec(spec, seed=seed, device=device)
    path = Path(spec)
    if not path.exists():
        raise SystemExit(f"kleene: no such file or generator spec: {spec}")
    return io.read(path, format=fmt, device=device, progress=progress)


def run(args: argparse.Namespace) -> int:
    import kleene

    from .ops.device import to_host

    progress = not args.no_progress
    t0 = time.perf_counter()
    try:
        G = load_graph(args.graph, device=args.device, fmt=args.format, seed=args.seed,
                       progress=progress)  # fmt: skip
    except ValueError as e:
        print(f"kleene: {e}", file=sys.stderr)
        return 2
    load_s = time.perf_counter() - t0
    directed = not args.undirected
    preds = getattr(args, "predecessors", False)
    cmd = args.command
    t0 = time.perf_counter()
    try:
        if cmd in ("bfs", "sssp"):
            src = [int(s) for s in str(args.source).split(",")]
            source = src[0] if len(src) == 1 else src
            fn = kleene.bfs if cmd == "bfs" else kleene.sssp
            out = fn(G, source, method=args.method, directed=directed, return_predecessors=preds)
        elif cmd == "apsp":
            out = kleene.apsp(G, method=args.method, directed=directed,
                              return_predecessors=preds, progress=progress)  # fmt: skip
        else:
            out = kleene.transitive_closure(G, directed=directed, method=args.method,
                                            progress=progress)  # fmt: skip
    except (ValueError, IndexError, TypeError, MemoryError) as e:
        print(f"kleene {cmd}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    run_s = time.perf_counter() - t0
    result, pred = (out if preds else (out, None)) if cmd != "closure" else (out, None)
    result, pred = to_host(result), (None if pred is None else to_host(pred))
    _summary(cmd, G, args, result, load_s, run_s)
    if args.out:
        _write(args.out, result, pred)
        print(f"wrote {args.out}")
    return 0


def _summary(cmd, G, args, result, load_s, run_s) -> None:
    if cmd == "bfs":
        reached = int((result >= 0).sum())
        largest = int(result.max()) if result.size else -1
        extra = f"reached {reached}, deepest level {largest}"
    elif cmd == "closure":
        extra = f"reachable pairs {int(result.sum())}"
    else:
        finite = result[np.isfinite(result)]
        reached = int(finite.size)
        largest = f"{finite.max():g}" if finite.size else "none"
        extra = f"reached {reached}, largest finite distance {largest}"
    print(f"graph     {args.graph}: {G.nrows} vertices, {G.nvals} edges (loaded in {load_s:.3f}s)")
    print(f"{cmd:<9} method {args.method}, device {args.device}, {run_s:.3f}s")
    print(f"result    {extra}")


def _write(path: str, result, pred) -> None:
    p = Path(path)
    if p.suffix == ".npy":
        np.save(p, result)
    elif p.suffix == ".npz":
        arrays = {"result": result} if pred is None else {"result": result, "predecessors": pred}
        np.savez_compressed(p, **arrays)
    else:
        fmt = "%d" if result.dtype.kind in "biu" else "%.17g"
        np.savetxt(p, np.atleast_2d(result) if result.ndim == 1 else result, fmt=fmt)
