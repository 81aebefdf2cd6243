"""The path commands of the command line: ``kleene bfs|sssp|apsp|closure GRAPH``.

GRAPH is a file (any format kleene.io reads) or a generator spec (``rmat:20``,
``grid:512x512``, ``er:2048``; see kleene.generators.SPECS). A short summary goes
to stdout; ``--out`` writes the result (.npy, .npz, .csv or .txt; see
docs/io_and_cli.md). Everything a command needs from the user (the source ids,
the device, a writable ``--out`` with a known extension) is checked before the
graph is loaded, so a mistake costs nothing and a finished result is never lost.
Errors are raised; ``kleene.__main__`` turns them into one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import tempfile
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
# --out extensions and what each holds.
OUT_FORMATS = {
    ".npy": "the result array (np.load)",
    ".npz": "'result' and, with --predecessors, 'predecessors' (np.load)",
    ".csv": "comma-separated text: vertex,value[,predecessor] rows for one source, "
    "else one row per matrix row",
    ".txt": "the same as .csv, separated by spaces, header as a '#' comment",
}
# Column names of a one-source text result: (values, predecessors).
_COLUMNS = {"bfs": ("level", "parent"), "sssp": ("distance", "predecessor")}


class CliError(ValueError):
    """A mistake in the command line itself (reported as one line, exit status 2)."""


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
        p.add_argument("--out", default=None, help=f"write the result: {', '.join(OUT_FORMATS)}")
        p.add_argument("--no-progress", action="store_true", help="no progress bars")


# ---- checks made before any work ---------------------------------------------------


def parse_source(text: str) -> int | list[int]:
    """``--source``: one vertex id or a comma-separated list of them.

    >>> parse_source("3"), parse_source("0, 24")
    (3, [0, 24])
    """
    try:
        ids = [int(s) for s in str(text).split(",")]
    except ValueError:
        raise CliError(
            f"--source must be a vertex id or a comma-separated list of ids, got {text!r}"
        ) from None
    return ids[0] if len(ids) == 1 else ids


def check_device(device: str) -> None:
    """``--device gpu`` without CuPy or a GPU: say so now, not after loading the graph."""
    if device != "gpu":
        return
    from ._info import gpu_info

    gpu = gpu_info()
    if not gpu["available"]:
        raise CliError(
            f"--device gpu needs CuPy and a visible CUDA GPU: {gpu['reason']}; install "
            "the cuda12 or cuda13 extra (docs/install.md) or use --device cpu"
        )


def check_out(path: str, *, matrix: bool, preds: bool) -> Path:
    """``--out``: a known extension that can hold the whole result, in a directory that
    exists and takes a new file. Checked before loading, so no result is ever lost.

    >>> check_out("/no/such/dir/d.npy", matrix=False, preds=False)
    Traceback (most recent call last):
    kleene.cli.CliError: --out /no/such/dir/d.npy: the directory /no/such/dir does not exist
    """
    p = Path(path)
    if p.is_dir():
        raise CliError(f"--out {path} is a directory")
    ext = p.suffix.lower()
    if ext not in OUT_FORMATS:
        got = f"unknown extension {ext!r}" if ext else "no extension"
        raise CliError(f"--out {path}: {got}; known: {', '.join(OUT_FORMATS)}")
    if preds and ext == ".npy":
        raise CliError(f"--out {path}: .npy holds one array; with --predecessors use .npz")
    if preds and matrix and ext in (".csv", ".txt"):
        raise CliError(
            f"--out {path}: a matrix result with --predecessors needs .npz (text holds one matrix)"
        )
    parent = p.parent
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise CliError(f"--out {path}: the directory {parent} {what}")
    _probe_writable(path, parent)
    return p


def _probe_writable(path: str, parent: Path) -> None:
    """Create and remove a file next to ``path``: the only test that root, read-only
    mounts and ACLs all answer truthfully."""
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".kleene-probe-"):
            pass
    except OSError as e:
        raise CliError(f"--out {path}: cannot write in {parent} ({e.strerror})") from None
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise CliError(f"--out {path}: the file exists and is not writable")


# ---- the command ---------------------------------------------------------------------


def load_graph(spec: str, *, device: str, fmt: str | None, seed: int, progress: bool):
    """A kleene Matrix from a file path or a generator spec."""
    from . import io
    from .generators import from_spec, is_spec

    path = Path(spec)
    if is_spec(spec) and not path.exists():
        return from_spec(spec, seed=seed, device=device)
    if path.is_dir():
        raise CliError(f"{spec} is a directory, not a graph file")
    if not path.exists():
        raise CliError(f"no such file or generator spec: {spec}")
    return io.read(path, format=fmt, device=device, progress=progress)


def run(args: argparse.Namespace) -> int:
    """Run one path command; errors propagate (see ``kleene.__main__``)."""
    import kleene

    from .ops.device import to_host

    cmd = args.command
    preds = getattr(args, "predecessors", False)
    source = parse_source(args.source) if cmd in ("bfs", "sssp") else None
    matrix = cmd in ("apsp", "closure") or isinstance(source, list)
    out = check_out(args.out, matrix=matrix, preds=preds) if args.out else None
    check_device(args.device)
    progress = not args.no_progress
    t0 = time.perf_counter()
    G = load_graph(args.graph, device=args.device, fmt=args.format, seed=args.seed,
                   progress=progress)  # fmt: skip
    load_s = time.perf_counter() - t0
    directed = not args.undirected
    t0 = time.perf_counter()
    if cmd in ("bfs", "sssp"):
        fn = kleene.bfs if cmd == "bfs" else kleene.sssp
        res = fn(G, source, method=args.method, directed=directed, return_predecessors=preds)
    elif cmd == "apsp":
        res = kleene.apsp(G, method=args.method, directed=directed,
                          return_predecessors=preds, progress=progress)  # fmt: skip
    else:
        res = kleene.transitive_closure(G, directed=directed, method=args.method,
                                        progress=progress)  # fmt: skip
    run_s = time.perf_counter() - t0
    result, pred = res if preds else (res, None)
    result, pred = to_host(result), (None if pred is None else to_host(pred))
    _summary(cmd, G, args, result, load_s, run_s)
    if out is not None:
        write_result(out, result, pred, columns=_COLUMNS.get(cmd, ("value", "predecessor")))
        print(f"wrote {out}")
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


# ---- writing the result --------------------------------------------------------------


def write_result(path: Path, result: np.ndarray, pred: np.ndarray | None, *,
                 columns: tuple[str, str] = ("value", "predecessor")) -> None:  # fmt: skip
    """Write ``result`` (and ``pred``) by the extension of ``path`` (see OUT_FORMATS).

    Written to a temporary file beside ``path`` and renamed over it, so an error or
    Ctrl-C never leaves half a file.

    >>> import numpy as np, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> write_result(p, np.array([0.0, 2.5, np.inf]), np.array([-1, 0, -1]),
    ...              columns=("distance", "predecessor"))
    >>> print(p.read_text(), end="")
    vertex,distance,predecessor
    0,0.0,-1
    1,2.5,0
    2,inf,-1
    """
    ext = path.suffix.lower()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            if ext == ".npy":
                np.save(f, result)
            elif ext == ".npz":
                arrays = {"result": result}
                if pred is not None:
                    arrays["predecessors"] = pred
                np.savez_compressed(f, **arrays)
            else:
                _write_text(f, result, pred, columns, "," if ext == ".csv" else " ", ext)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _write_text(f, result, pred, columns, sep: str, ext: str) -> None:
    """One source: a header and ``vertex,value[,pred]`` rows. A matrix: its rows.
    Values are exact text: shortest round-trip floats ('inf' when unreachable),
    integers as they are, booleans as 0/1."""
    if result.ndim == 1:
        names = ["vertex", columns[0]] + ([columns[1]] if pred is not None else [])
        head = sep.join(names)
        f.write(((head if ext == ".csv" else "# " + head) + "\n").encode())
        cols = [range(result.size), _values(result)] + ([_values(pred)] if pred is not None else [])
        rows = zip(*cols, strict=True)
    else:
        rows = (_values(row) for row in result)
    batch = []
    for row in rows:
        batch.append(sep.join(map(str, row)))
        if len(batch) >= 4096:  # a few large writes, not one per line or one huge string
            f.write(("\n".join(batch) + "\n").encode())
            batch = []
    if batch:
        f.write(("\n".join(batch) + "\n").encode())


def _values(a: np.ndarray) -> list:
    return (a.astype(np.int8) if a.dtype == np.bool_ else a).tolist()
