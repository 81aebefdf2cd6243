"""Edge lists: SNAP-style whitespace text (``.txt .edges .el .tsv``) and CSV (``.csv``).

Ids are taken as written (0-based, no shift); the vertex count is 1 + the
largest id unless ``n`` is given (or a kleene-written ``# kleene: n=...`` comment
says it). Every data line has the same number of columns: ``u v`` (a Boolean
pattern matrix) or ``u v w`` (weights: integers if all are, else floats).

* SNAP: fields separated by spaces or tabs; ``#`` and ``%`` start comment lines.
* CSV: fields separated by commas (spaces around them allowed); an optional
  header row (detected when its first two fields are not integers) names the
  columns src,dst[,weight] (names are free, the order is not); ``#`` lines are
  comments. Quoted fields are not supported.
"""

from __future__ import annotations

from typing import IO

import numpy as np

from ._common import (
    Parsed,
    check_range,
    check_weights,
    hint_comment,
    host_coo,
    is_pattern,
    iter_lines,
    read_hint,
    require_square,
    value_spec,
    write_comments,
    write_records,
)
from ._table import INT_RE, GraphFileError, Layout, parse_table, show

_MAX_ID = 2**31 - 2  # kleene's CSR column indices are int32


def _first_data_line(data: bytes, comments: bytes):
    """(line number, start offset, line) of the first data line and the hints before it."""
    hints: dict = {}
    start = 0
    for line, after, raw in iter_lines(data):
        toks = raw.split()
        if toks and toks[0][0] in comments:
            read_hint(raw, hints)
        elif toks:
            return line, start, raw, hints
        start = after
    return None, len(data), b"", hints


def parse_snap(data: bytes, name: str, n: int | None = None) -> Parsed:
    """Parse a whitespace-separated edge list (see the module docstring)."""
    line, start, raw, hints = _first_data_line(data, b"#%")
    if line is None:
        return _finish(name, None, None, np.zeros(0, np.int64), n, hints)
    ncols = len(raw.split())
    if ncols not in (2, 3):
        raise GraphFileError(
            name, line, f"expected an edge 'u v' or 'u v w', got {ncols} fields: {show(raw)}"
        )
    expect = "an edge 'u v'" if ncols == 2 else "an edge 'u v w' (every line has a weight)"
    table = parse_table(data, start, line, Layout(ncols, expect, comments=b"#%"), name)
    return _finish(name, table.ids, table.values, table.lines, n, hints)


def parse_csv(data: bytes, name: str, n: int | None = None) -> Parsed:
    """Parse a CSV edge list with an optional header row (see the module docstring)."""
    line, start, raw, hints = _first_data_line(data, b"#")
    if line is None:
        return _finish(name, None, None, np.zeros(0, np.int64), n, hints)
    fields = [f.strip() for f in raw.split(b",")]
    if len(fields) not in (2, 3):
        raise GraphFileError(
            name, line, f"expected 2 or 3 columns src,dst[,weight], got {len(fields)}: {show(raw)}"
        )
    ncols = len(fields)
    if not (INT_RE.fullmatch(fields[0]) and INT_RE.fullmatch(fields[1])):
        start += len(raw) + 1  # a header row
        line += 1
    expect = "src,dst" if ncols == 2 else "src,dst,weight"
    table = parse_table(data, start, line, Layout(ncols, expect, comments=b"#", comma=True), name)
    return _finish(name, table.ids, table.values, table.lines, n, hints)


def _finish(name, ids, values, lines, n, hints) -> Parsed:
    if ids is None:
        ids = np.zeros((0, 2), np.int64)
    top = n if n is not None else _MAX_ID
    why = f"(n={n})" if n is not None else "(ids must be non-negative and fit int32)"
    check_range(name, ids, lines, 0, top if n is None else n - 1, why)
    weights = None if values is None else values[:, 0]
    check_weights(name, weights, lines)
    where = int(lines[int(np.argmax(ids.max(axis=1)))]) if ids.size else None
    declared = f"n={n} asks for"
    if n is None:
        n = int(ids.max()) + 1 if ids.size else 0
        declared = "the largest vertex id makes"
        if hints.get("n", 0) > n:
            n, declared, where = hints["n"], "the 'kleene: n=' comment declares", None
    return Parsed(
        ids[:, 0].copy(), ids[:, 1].copy(), weights, lines, n, n, None, hints, where, declared
    )


def _columns(A, fmt: str):
    rows, cols, vals, shape, dtype = host_coo(A)
    n = require_square(shape, fmt)
    columns = [rows.tolist(), cols.tolist()]
    fmts = ["%d", "%d"]
    weighted = not is_pattern(vals)
    if weighted:
        vfmt, vlist = value_spec(vals)
        fmts.append(vfmt)
        columns.append(vlist)
    return n, dtype, fmts, columns, weighted


def write_snap(stream: IO[bytes], A, *, comment: str | None = None) -> None:
    """SNAP edge list: ``#`` header comments, then ``u<TAB>v[<TAB>w]`` per stored entry."""
    n, dtype, fmts, columns, weighted = _columns(A, "SNAP")
    write_comments(stream, "#", comment)
    write_comments(stream, "#", hint_comment(dtype, n))
    stream.write(f"# Nodes: {n} Edges: {len(columns[0])}\n".encode())
    stream.write(("# FromNodeId\tToNodeId" + ("\tWeight" if weighted else "") + "\n").encode())
    write_records(stream, fmts, columns, sep="\t")


def write_csv(stream: IO[bytes], A, *, header: bool = True) -> None:
    """CSV edge list: a ``src,dst[,weight]`` header row (unless ``header=False``), then rows."""
    _, _, fmts, columns, weighted = _columns(A, "CSV")
    if header:
        stream.write(("src,dst,weight\n" if weighted else "src,dst\n").encode())
    write_records(stream, fmts, columns, sep=",")
