"""The path commands of the command line: ``kleene bfs|sssp|apsp|closure GRAPH``.

GRAPH is a file (any format kleene.io reads) or a generator spec (``rmat:20``,
``grid:512x512``, ``er:2048``; see kleene.generators.SPECS). A short summary goes
to stdout; ``--out`` writes the result (.npy, .npz, .csv or .txt; see
docs/io_and_cli.md). Everything a command needs from the user (the source ids,
the device, a writable ``--out`` with a known extension that is not there yet or
may be replaced) is checked before the graph is loaded, and the memory and disk
the result takes before it is computed, so a mistake costs nothing and a
finished result is never lost. Several sources run in chunks that advance a
progress bar. Errors are raised; ``kleene.__main__`` turns them into one line on
stderr.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from kleene.errors import IndexOutOfBound, InvalidValue, OutOfMemory

from .io.results import OUT_FORMATS, size_needed, write_result

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
# Column names of a one-source text result: (values, predecessors).
_COLUMNS = {"bfs": ("level", "parent"), "sssp": ("distance", "predecessor")}
# Per value of each command's result: bytes in a binary file (distances up to
# float64), and the fewest characters text takes ("0", "-1", "inf", "0.0").
_ITEMSIZE = {"bfs": 8, "sssp": 8, "apsp": 8, "closure": 1}
_TEXT_CHARS = {"bfs": 1, "sssp": 3, "apsp": 3, "closure": 1}
# Several sources run in chunks, each one step of the progress bar: the first of
# FIRST_CHUNK sources, then sized so a chunk takes about CHUNK_S seconds, never
# under MIN_CHUNK (a word of the bit-packed multi-source BFS: smaller batches waste it).
FIRST_CHUNK = 64
MIN_CHUNK, MAX_CHUNK = 64, 4096
CHUNK_S = 1.0


class CliError(InvalidValue):
    """A mistake in the command line itself (reported as one line, exit status 2).

    An ``InvalidValue``, so a ``ValueError`` as before."""


def add_commands(sub) -> None:
    """Register the path commands on an argparse sub-parser collection."""
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(
            name, help=help_text, description=f"{help_text}. GRAPH is a file or a generator spec."
        )
        p.add_argument("graph", help="graph file or generator spec (e.g. rmat:16, grid:100x100)")
        if name in ("bfs", "sssp"):
            p.add_argument(
                "--source",
                default="0",
                help="vertex id, or a comma-separated list of ids and inclusive ranges "
                "A..B (e.g. 0..63,100): several sources give one row each",
            )
        p.add_argument("--method", default="auto", help=METHOD_HELP[name])
        p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
        p.add_argument("--undirected", action="store_true", help="follow edges both ways")
        p.add_argument("--format", default=None, help="file format if the extension does not say")
        p.add_argument("--seed", type=int, default=0, help="seed of a generator spec")
        if name != "closure":
            p.add_argument("--predecessors", action="store_true", help="also compute them")
        p.add_argument(
            "--out",
            default=None,
            help=f"write the result: {', '.join(OUT_FORMATS)}; an existing file only with --force",
        )
        p.add_argument(
            "--force", action="store_true", help="replace an existing --out file (never the graph)"
        )
        p.add_argument("--no-progress", action="store_true", help="no progress bars")


# ---- checks made before any work ---------------------------------------------------


def parse_source(text: str) -> int | list[int | range]:
    """``--source``: one vertex id, or a comma-separated list of ids and inclusive
    ranges ``A..B`` (kept as ranges: nothing is spelled out before the graph is known).

    >>> parse_source("3"), parse_source("0, 24"), parse_source("0..2,7")
    (3, [0, 24], [range(0, 3), 7])
    """
    items: list[int | range] = []
    for part in str(text).split(","):
        lo, dots, hi = part.strip().partition("..")
        try:
            first = int(lo)
            last = int(hi) if dots else first
        except ValueError:
            raise CliError(
                "--source must be a vertex id or a comma-separated list of ids and ranges "
                f"A..B, got {text!r}"
            ) from None
        if first < 0 or last < 0:
            raise CliError(f"--source ids are 0-based and not negative, got {part.strip()!r}")
        if last < first:
            raise CliError(f"--source range {part.strip()!r} is empty: A..B needs A <= B")
        items.append(range(first, last + 1) if dots else first)
    return items[0] if len(items) == 1 and isinstance(items[0], int) else items


def source_ids(spec: int | list[int | range], n: int, cmd: str) -> int | np.ndarray:
    """The ids of ``parse_source``'s answer, checked against a graph of ``n`` vertices
    (before any work: a bad id in the last chunk would cost all the others).

    >>> source_ids([range(0, 3), 7], 8, "bfs").tolist()
    [0, 1, 2, 7]
    """
    parts = [spec] if isinstance(spec, int) else spec
    for item in parts:
        top = item if isinstance(item, int) else item[-1]
        if top >= n:
            raise IndexOutOfBound(
                f"{cmd}: source {top} is out of range for a graph of {n} vertices"
            )
    if isinstance(spec, int):
        return spec
    return np.concatenate(
        [np.arange(i.start, i.stop) if isinstance(i, range) else np.array([i]) for i in parts]
    ).astype(np.int64)


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


def check_out(
    path: str, *, matrix: bool, preds: bool, force: bool = False, graph: str | None = None
) -> Path:
    """``--out``: a known extension that can hold the whole result, in a directory that
    exists and takes a new file; an existing file only with ``force``, and never the
    input ``graph``. Checked before loading, so no result and no file is ever lost.

    >>> check_out("/no/such/dir/d.npy", matrix=False, preds=False)
    Traceback (most recent call last):
    kleene.cli.CliError: --out /no/such/dir/d.npy: the directory /no/such/dir does not exist
    """
    if not str(path).strip():
        raise CliError("--out needs a file name, got an empty one")
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
    if os.path.lexists(p):
        if graph is not None and _same_file(p, graph):
            raise CliError(
                f"--out {path} is the input graph {graph}: kleene never writes over its "
                "input, not even with --force"
            )
        if not force:
            raise CliError(f"--out {path} exists; pass --force to replace it")
    _probe_writable(path, parent)
    return p


def _same_file(a: Path, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # b is a generator spec, or a is a dangling link
        return a.resolve() == Path(b).resolve()


def disk_free(folder: Path) -> int:
    """Free bytes for the user in ``folder``'s file system."""
    return shutil.disk_usage(folder).free


def check_space(out: Path, cmd: str, shape: tuple[int, ...], preds: bool) -> None:
    """Refuse, before computing, a result the disk under ``--out`` cannot take.

    A .npz is held to its size before compression: how much it shrinks is known
    only once the result exists, and a refusal now costs less than a failure then.
    """
    ext = out.suffix.lower()
    need = size_needed(ext, shape, _ITEMSIZE[cmd], _TEXT_CHARS[cmd], preds)
    folder = out.parent
    free = disk_free(folder)
    if need > free:
        how = {".csv": "at least ", ".txt": "at least "}.get(ext, "")
        if ext == ".npz" or cmd == "apsp":  # before compression; distances up to float64
            how = "up to "
        why = " (before compression: by how much it shrinks is known only after the run)"
        raise CliError(
            f"--out {out}: the {'x'.join(map(str, shape))} result needs {how}{need:,} bytes "
            f"({need / 1e6:,.1f} MB){why if ext == '.npz' else ''} and {folder} has "
            f"{free:,} bytes ({free / 1e6:,.1f} MB) free; free some space or write elsewhere"
        )


def check_memory(cmd: str, k: int, n: int, preds: bool) -> None:
    """Refuse, before computing, a k-source result host memory cannot hold."""
    from .backends import host_memory_free

    need = k * n * 8 * (2 if preds else 1)
    free = host_memory_free()
    if need > free:
        fit = free // max(n * 8 * (2 if preds else 1), 1)
        raise OutOfMemory(
            f"{cmd}: a {k}x{n} result{' with predecessors' if preds else ''} needs "
            f"{need:,} bytes ({need / 2**30:,.1f} GiB) of host memory, {free:,} bytes "
            f"({free / 2**30:,.1f} GiB) are available; up to about {fit} sources fit"
        )


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

    from .backends import to_host

    cmd = args.command
    preds = getattr(args, "predecessors", False)
    spec = parse_source(args.source) if cmd in ("bfs", "sssp") else None
    matrix = cmd in ("apsp", "closure") or isinstance(spec, list)
    out = None
    if args.out is not None:
        out = check_out(args.out, matrix=matrix, preds=preds, force=args.force, graph=args.graph)
    check_device(args.device)
    progress = not args.no_progress
    t0 = time.perf_counter()
    G = load_graph(
        args.graph, device=args.device, fmt=args.format, seed=args.seed, progress=progress
    )
    load_s = time.perf_counter() - t0
    n = G.nrows
    source = None if spec is None else source_ids(spec, n, cmd)
    shape = (n,) if isinstance(source, int) else (n if source is None else source.size, n)
    if isinstance(source, np.ndarray):
        check_memory(cmd, source.size, n, preds)
    if out is not None:
        check_space(out, cmd, shape, preds)
    directed = not args.undirected
    t0 = time.perf_counter()
    if cmd in ("bfs", "sssp"):
        fn = kleene.bfs if cmd == "bfs" else kleene.sssp
        kw = {"method": args.method, "directed": directed, "return_predecessors": preds}
        if isinstance(source, np.ndarray):
            res = run_sources(fn, G, source, progress=progress, label=cmd, **kw)
        else:
            res = fn(G, source, **kw)
    elif cmd == "apsp":
        res = kleene.apsp(
            G, method=args.method, directed=directed, return_predecessors=preds, progress=progress
        )
    else:
        res = kleene.transitive_closure(G, directed=directed, method=args.method, progress=progress)
    run_s = time.perf_counter() - t0
    result, pred = res if preds else (res, None)
    result, pred = to_host(result), (None if pred is None else to_host(pred))
    _summary(cmd, G, args, result, load_s, run_s)
    if out is not None:
        try:
            write_result(
                out,
                result,
                pred,
                columns=_COLUMNS.get(cmd, ("value", "predecessor")),
                replace=args.force,
                progress=progress,
            )
        except FileExistsError:
            raise CliError(
                f"--out {out} was created by something else while kleene ran; left as it is "
                "(pass --force to replace it)"
            ) from None
        print(f"wrote {out}")
    return 0


def run_sources(fn, G, sources: np.ndarray, *, progress, label: str, **kw):
    """``fn(G, sources, **kw)`` (kleene.bfs or kleene.sssp) run in chunks of sources, one
    progress step each; the rows are independent, so the (k, n) result is the same.

    A chunk of FIRST_CHUNK sources comes first; the next doubles or halves (within
    MIN_CHUNK..MAX_CHUNK) so that each takes about CHUNK_S seconds. Rows are moved
    to the host as each chunk finishes.

    >>> import kleene, numpy as np
    >>> G = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], n=3)
    >>> run_sources(kleene.bfs, G, np.array([0, 2]), progress=False, label="bfs").tolist()
    [[0, 1, 2], [1, 2, 0]]
    """
    from .algorithms.breadth_first import bfs
    from .algorithms.graph_input import as_graph
    from .backends import to_host
    from .progress import Progress

    k = int(sources.size)
    preds = kw.get("return_predecessors", False)
    if kw.get("directed", True) is False:  # both directions once, not once per chunk
        G = as_graph(G, directed=False, pattern=fn is bfs)
        kw = {**kw, "directed": True}
    result = pred = None
    lo, size = 0, min(FIRST_CHUNK, max(k, 1))
    with Progress(progress, k, f"{label} {k} sources") as bar:
        while lo < k:
            chunk = sources[lo : lo + size]
            t0 = time.perf_counter()
            res = fn(G, chunk.tolist(), **kw)
            r, p = res if preds else (res, None)
            r = to_host(r)
            if result is None:
                result = np.empty((k, r.shape[1]), r.dtype)
                pred = None if p is None else np.empty((k, r.shape[1]), np.int64)
            result[lo : lo + chunk.size] = r
            if p is not None:
                pred[lo : lo + chunk.size] = to_host(p)
            lo += chunk.size
            bar.step(chunk.size)
            took = time.perf_counter() - t0
            if took < CHUNK_S / 2:
                size = min(2 * size, MAX_CHUNK)
            elif took > 2 * CHUNK_S:
                size = min(max(size // 2, MIN_CHUNK), size)
    return (result, pred) if preds else result


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
