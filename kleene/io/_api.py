"""``kleene.io.read`` and ``kleene.io.write``: format dispatch and matrix building."""

from __future__ import annotations

import os
from typing import IO, Any

import numpy as np

from kleene.backends import host_memory_free
from kleene.core import Matrix
from kleene.errors import DimensionMismatch, InvalidValue
from kleene.semiring.dtypes import as_dtype

from . import dimacs, edgelist, mtx
from ._atomic import atomic_file
from ._source import (
    PathLike,
    Progress,
    Reporter,
    display_name,
    open_for_write,
    read_bytes,
    split_compression,
)
from ._table import GraphFileError

FORMATS = ("mtx", "dimacs", "pace", "gr", "snap", "csv")
_ALIASES = {
    "mtx": "mtx",
    "matrixmarket": "mtx",
    "mm": "mtx",
    "dimacs": "dimacs",
    "sp": "dimacs",
    "pace": "pace",
    "tw": "pace",
    "gr": "gr",
    "snap": "snap",
    "edgelist": "snap",
    "txt": "snap",
    "edges": "snap",
    "el": "snap",
    "tsv": "snap",
    "csv": "csv",
}
_EXTENSIONS = {
    ".mtx": "mtx",
    ".mm": "mtx",
    ".gr": "gr",
    ".txt": "snap",
    ".edges": "snap",
    ".el": "snap",
    ".tsv": "snap",
    ".csv": "csv",
}


def resolve_format(name: str, format: str | None) -> str:
    """The canonical format name from ``format=`` or the (inner) file extension."""
    if format is not None:
        key = str(format).lower().lstrip(".")
        if key not in _ALIASES:
            raise InvalidValue(f"unknown format {format!r}; known: {', '.join(FORMATS)}")
        return _ALIASES[key]
    inner, _ = split_compression(name)
    ext = os.path.splitext(inner)[1].lower()
    if ext not in _EXTENSIONS:
        raise InvalidValue(
            f"{name}: cannot tell the format from the extension {ext!r}; pass format= "
            f"(one of {', '.join(FORMATS)})"
        )
    return _EXTENSIONS[ext]


def read(
    path: PathLike | IO[bytes],
    *,
    format: str | None = None,
    directed: bool | None = None,
    compact: bool = False,
    dtype: Any = None,
    device: str = "cpu",
    progress: Progress = False,
    return_ids: bool = False,
    n: int | None = None,
) -> Matrix | tuple[Matrix, np.ndarray]:
    """Read a graph file into a square CSR adjacency ``Matrix`` (entry (u, v) = weight of u→v).

    Parameters
    ----------
    path
        A path, or a binary file object (give ``format=`` if it has no name).
        ``.gz``, ``.xz`` and ``.bz2`` are decompressed by their suffix.
    format
        ``"mtx"`` (Matrix Market), ``"dimacs"`` (``p sp``), ``"pace"`` (``p tw``),
        ``"gr"`` (either, told by the ``p`` line), ``"snap"`` (whitespace edge list),
        ``"csv"``. Default: from the extension (``.mtx .gr .txt .edges .el .tsv .csv``).
    directed
        None: the format's own meaning (PACE and symmetric Matrix Market files are
        undirected and stored both ways; the rest are directed). False: add every
        edge in both directions. True: keep the entries exactly as written.
    compact
        Renumber the vertex ids that occur to 0..k-1 (in increasing order).
    dtype
        Weight dtype. Default: ``bool`` for unweighted files, else ``int64`` or
        ``float64`` by the weights' text (or the dtype a kleene writer recorded).
    device
        ``"cpu"`` or ``"gpu"``.
    progress
        True prints progress to stderr; a callable receives each message instead.
    return_ids
        Also return ``ids``: ``ids[i]`` is the 0-based id vertex ``i`` has without
        ``compact`` (the file's id minus 1 for the 1-based formats).
    n
        Vertex count for SNAP and CSV files (default: 1 + the largest id).

    Ids are 0-based: DIMACS, PACE and Matrix Market ids are shifted down by one.
    Duplicate edges keep the minimum weight; self loops are kept. Malformed text
    raises ``ValueError`` (a ``GraphFileError``) naming the file and the line.

    Examples
    --------
    >>> import kleene.io, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.gr")
    >>> _ = open(path, "w").write("c tiny\\np sp 3 2\\na 1 2 7\\na 2 3 5\\n")
    >>> A = kleene.io.read(path)
    >>> A.shape, A.dtype, A.to_coo()[2].tolist()
    ((3, 3), dtype('int64'), [7, 5])
    >>> B, ids = kleene.io.read(path, compact=True, directed=False, return_ids=True)
    >>> B.nvals, ids.tolist()
    (4, [0, 1, 2])
    """
    if device not in ("cpu", "gpu"):
        raise InvalidValue(f"device must be 'cpu' or 'gpu', got {device!r}")
    name = display_name(path)
    fmt = resolve_format(name, format)
    if n is not None and fmt not in ("snap", "csv"):
        raise InvalidValue(f"n= is for SNAP and CSV files; {fmt} files say their size")
    if n is not None and (not isinstance(n, (int, np.integer)) or n < 0):
        raise InvalidValue(f"n must be a non-negative integer, got {n!r}")
    report = Reporter(progress, "read", os.path.basename(name))
    data = read_bytes(path, report)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte order mark is not part of the first line
    report(f"{len(data) / 1e6:.1f} MB of text; parsing {fmt}")
    if fmt == "mtx":
        parsed = mtx.parse(data, name)
    elif fmt in ("dimacs", "pace", "gr"):
        parsed = dimacs.parse(data, name, None if fmt == "gr" else fmt)
    elif fmt == "snap":
        parsed = edgelist.parse_snap(data, name, n)
    else:
        parsed = edgelist.parse_csv(data, name, n)
    del data
    report(f"parsed {parsed.src.size} records; building the matrix")
    out = _build(parsed, name, directed, compact, dtype, return_ids)
    A = out[0] if return_ids else out
    report(f"done: {A.shape[0]}x{A.shape[1]}, {A.nvals} entries, {A.dtype}", final=True)
    if device != "cpu":
        moved = A.to(device)
        return (moved, out[1]) if return_ids else moved
    return out


def _build(parsed, name, directed, compact, dtype, return_ids):
    src, dst, w = parsed.src, parsed.dst, parsed.weights
    nrows, ncols = parsed.nrows, parsed.ncols
    mirror = parsed.mirror if directed is None else (None if directed else "symmetric")
    square = nrows == ncols
    if (mirror is not None or compact) and not square:
        why = "compact=True" if compact else "directed=False"
        raise DimensionMismatch(f"{name}: {why} needs a square matrix, the file is {nrows}x{ncols}")
    if mirror is not None:
        off = src != dst
        src, dst = np.concatenate((src, dst[off])), np.concatenate((dst, src[off]))
        if w is not None:
            w = np.concatenate((w, -w[off] if mirror == "skew" else w[off]))
    ids = None
    if compact:
        ids = np.unique(np.concatenate((src, dst)))
        src, dst = np.searchsorted(ids, src), np.searchsorted(ids, dst)
        nrows = ncols = int(ids.size)
    declared = "the distinct ids make" if compact else parsed.declared
    _check_size(name, parsed.header_line, nrows, ncols, declared, return_ids and not compact)
    if return_ids and not compact:
        ids = np.arange(nrows, dtype=np.int64)
    target = _target_dtype(dtype, parsed, w)
    w = _cast(name, w, target)
    # Sorted here (unstable is fine: duplicates are combined by min), from_edges's
    # stable sort then runs over sorted keys, which is linear.
    order = np.argsort(src * max(ncols, 1) + dst)
    A = Matrix.from_edges(
        src[order],
        dst[order],
        None if w is None else w[order],
        nrows,
        ncols=ncols,
        dup="min",
        dtype=target if w is None else None,
    )
    return (A, ids) if return_ids else A


def _target_dtype(dtype, parsed, w) -> np.dtype:
    if dtype is not None:
        return as_dtype(dtype)
    if "dtype" in parsed.hints:
        return parsed.hints["dtype"]
    return np.dtype(np.bool_) if w is None else w.dtype


def _cast(name: str, w: np.ndarray | None, target: np.dtype) -> np.ndarray | None:
    if w is None:
        return None  # a pattern: from_edges fills ones of the target dtype
    if w.dtype == target:
        return w
    if target.kind in "iu":
        info = np.iinfo(target)
        if w.dtype.kind == "f":
            fin = np.isfinite(w)
            if not np.all(w[fin] == np.round(w[fin])):
                raise InvalidValue(f"{name}: the weights are not integers; cannot read as {target}")
            w = np.where(fin, w, np.where(w > 0, info.max, info.min))
        if w.size and (w.min() < info.min or w.max() > info.max):
            raise InvalidValue(f"{name}: the weights do not fit {target}")
    return w.astype(target)


def _check_size(
    name: str, line: int | None, nrows: int, ncols: int, declared: str, ids: bool = False
) -> None:
    """Refuse sizes the CSR arrays cannot index or memory cannot hold, before allocating.

    A header (or one large id) may declare far more vertices than the file has
    edges: a 26-byte DIMACS file can ask for 200 million. The matrix keeps its
    declared shape, so its row pointers cost 8 bytes a row (plus 8 a vertex for
    ``return_ids``); reading allocates nothing else per vertex. Every algorithm
    then needs at least as much again (levels, distances, a transpose), so row
    pointers may take at most half of the memory available.
    """
    if max(nrows, ncols) > 2**31 - 1:
        raise GraphFileError(
            name, line, f"{nrows}x{ncols} is too large: kleene indexes vertices with int32"
        )
    need = 8 * (nrows + 1) + (8 * nrows if ids else 0)
    free = host_memory_free()
    if need > free // 2:  # any algorithm on it needs as much again per vertex, at least
        raise GraphFileError(
            name,
            line,
            f"{declared} {nrows} vertices: the matrix needs {need:,} bytes "
            f"({need / 2**30:.1f} GiB) for its row pointers alone, more than half of the "
            f"{free:,} bytes ({free / 2**30:.1f} GiB) of memory available, which leaves no "
            "room to compute on it",
        )


def write(
    path: PathLike | IO[bytes],
    A,
    *,
    format: str | None = None,
    comment: str | None = None,
    symmetry: str = "general",
    header: bool = True,
) -> None:
    """Write a matrix (kleene ``Matrix`` or scipy.sparse) as a graph file.

    Parameters
    ----------
    path
        A path (compressed by a ``.gz``/``.xz``/``.bz2`` suffix) or a binary file object.
    format
        As for :func:`read` (default: from the extension); ``"gr"`` means DIMACS.
        ``mtx``: coordinate, field integer/real/pattern by dtype. ``dimacs``:
        ``p sp`` and ``a u v w`` lines. ``pace``: ``p tw`` and each undirected edge
        once (u <= v); the matrix must be symmetric and weights are dropped.
        ``snap``: tab-separated ``u v [w]``. ``csv``: ``src,dst[,weight]``.
    comment
        Text for the header comments (mtx, dimacs, pace, snap).
    symmetry
        Matrix Market only: ``"symmetric"`` writes the lower triangle of a
        symmetric matrix.
    header
        CSV only: write the ``src,dst[,weight]`` header row.

    Weighted formats write a weight for every entry (a Boolean matrix whose
    entries are all True is written as a pattern where the format allows).
    1-based formats get ids + 1. Floats are written exactly (shortest repr), and
    a ``kleene: dtype=...`` comment lets :func:`read` restore the dtype.

    A path is written whole or not at all: to a temporary file beside it, then
    renamed onto it, so an error or Ctrl-C leaves the file that was there before.
    A new file gets the permissions of the process umask, a replaced one keeps its own.

    Examples
    --------
    >>> import kleene, kleene.io, tempfile, os
    >>> A = kleene.Matrix.from_edges([0, 1], [1, 2], [0.5, 2.0], n=3)
    >>> path = os.path.join(tempfile.mkdtemp(), "g.mtx.gz")
    >>> kleene.io.write(path, A)
    >>> kleene.io.read(path).isequal(A)
    True
    """
    name = display_name(path)
    fmt = resolve_format(name, format)
    if fmt == "gr":
        fmt = "dimacs"
    if fmt != "mtx" and symmetry != "general":
        raise InvalidValue("symmetry= is for Matrix Market files")
    if isinstance(path, (str, os.PathLike)):
        # Whole or not at all: an error leaves the file that was there before.
        with atomic_file(path, replace=True) as raw:
            _write_to(raw, name, fmt, A, comment, symmetry, header)
    else:
        _write_to(path, name, fmt, A, comment, symmetry, header)


def _write_to(target, name, fmt, A, comment, symmetry, header) -> None:
    stream, close = open_for_write(target, name)
    try:
        if fmt == "mtx":
            mtx.write(stream, A, comment=comment, symmetry=symmetry)
        elif fmt == "dimacs":
            dimacs.write_dimacs(stream, A, comment=comment)
        elif fmt == "pace":
            dimacs.write_pace(stream, A, comment=comment)
        elif fmt == "snap":
            edgelist.write_snap(stream, A, comment=comment)
        else:
            edgelist.write_csv(stream, A, header=header)
    finally:
        close()
