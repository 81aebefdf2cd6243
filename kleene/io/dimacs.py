"""``.gr`` files: DIMACS 9 shortest paths (``p sp``) and PACE graphs (``p tw``).

Both are 1-based and line oriented, with ``c`` comment lines, and are told apart
by their problem line:

* DIMACS (9th Implementation Challenge): ``p sp N M`` then M arc lines
  ``a u v w`` (directed arc u→v of weight w, usually a non-negative integer).
* PACE (2017 treewidth, also ``p ds`` of PACE 2025): ``p tw N M`` then M edge
  lines ``u v``. These are **undirected** graphs: reading stores each edge in
  both directions (``directed=True`` keeps only u→v as written), and the matrix
  is Boolean (a pattern).

Vertex ids are shifted to kleene's 0-based ids on read and back on write.
"""

from __future__ import annotations

from typing import IO

import numpy as np

from kleene.errors import InvalidValue

from ._common import (
    Parsed,
    check_count,
    check_range,
    check_weights,
    hint_comment,
    host_coo,
    iter_lines,
    parse_header_ints,
    read_hint,
    require_square,
    value_spec,
    write_comments,
    write_records,
)
from ._table import GraphFileError, Layout, parse_table, show

PACE_KINDS = (b"tw", b"ds")
_SP = Layout(3, "an arc line 'a u v w'", keyword=b"a", comments=b"c")
_TW = Layout(2, "an edge line 'u v'", comments=b"c")


def problem_line(data: bytes, name: str) -> tuple[str, int, int, int, int, dict]:
    """(kind, N, M, line number, offset of the next line, hints) from the ``p`` line."""
    hints: dict = {}
    last = 0
    for line, after, raw in iter_lines(data):
        last = line
        toks = raw.split()
        if not toks:
            continue
        if toks[0][:1] == b"c":
            read_hint(raw, hints)
            continue
        if toks[0] != b"p" or len(toks) != 4 or toks[1] not in (b"sp",) + PACE_KINDS:
            raise GraphFileError(
                name,
                line,
                "expected the problem line 'p sp N M' (DIMACS) or 'p tw N M' (PACE), "
                f"got {show(raw)}",
            )
        kind = "dimacs" if toks[1] == b"sp" else "pace"
        n, m = parse_header_ints(
            name, line, raw, toks[2:], "the problem line 'p sp N M' or 'p tw N M'"
        )
        return kind, n, m, line, after, hints
    what = "an empty file" if not data.strip() else "only comments"
    raise GraphFileError(
        name, last + 1, f"expected the problem line 'p sp N M' or 'p tw N M', got {what}"
    )


def sniff(data: bytes) -> str | None:
    """ "dimacs" or "pace" from the problem line, None if there is none to see."""
    try:
        return problem_line(data, "")[0]
    except ValueError:
        return None


def parse(data: bytes, name: str, expect: str | None = None) -> Parsed:
    """Parse a DIMACS or PACE ``.gr`` text; ``expect`` insists on one of the two."""
    kind, n, m, pline, after, hints = problem_line(data, name)
    if expect is not None and kind != expect:
        want = "'p sp N M' (DIMACS)" if expect == "dimacs" else "'p tw N M' (PACE)"
        raise GraphFileError(name, pline, f"expected the problem line {want} for {expect}")
    dimacs = kind == "dimacs"
    table = parse_table(data, after, pline + 1, _SP if dimacs else _TW, name)
    check_count(name, table, m, "arcs" if dimacs else "edges", pline)
    check_range(name, table.ids, table.lines, 1, n, f"(the header on line {pline} says {n})")
    weights = None
    if dimacs:
        weights = table.values[:, 0]
        check_weights(name, weights, table.lines)
    src, dst = table.ids[:, 0] - 1, table.ids[:, 1] - 1
    mirror = None if dimacs else "symmetric"
    return Parsed(src, dst, weights, table.lines, n, n, mirror, hints, pline)


def write_dimacs(stream: IO[bytes], A, *, comment: str | None = None) -> None:
    """``p sp N M`` and one ``a u v w`` line per stored entry (1-based ids)."""
    rows, cols, vals, shape, dtype = host_coo(A)
    n = require_square(shape, "DIMACS")
    write_comments(stream, "c", comment)
    write_comments(stream, "c", hint_comment(dtype))
    stream.write(f"p sp {n} {rows.size}\n".encode())
    vfmt, vlist = value_spec(vals)
    write_records(
        stream, ["%d", "%d", vfmt], [(rows + 1).tolist(), (cols + 1).tolist(), vlist], lead="a "
    )


def write_pace(stream: IO[bytes], A, *, comment: str | None = None) -> None:
    """``p tw N M`` and each undirected edge once as ``u v`` with u <= v (1-based).

    The matrix must be structurally symmetric (ValueError otherwise); weights are
    not stored (PACE graphs are unweighted).
    """
    rows, cols, _, shape, _ = host_coo(A)
    n = require_square(shape, "PACE")
    lonely = ~np.isin(rows * max(n, 1) + cols, cols * max(n, 1) + rows)
    if lonely.any():
        k = int(np.flatnonzero(lonely)[0])
        raise InvalidValue(
            "PACE stores undirected graphs: the matrix must be symmetric, but entry "
            f"({rows[k]}, {cols[k]}) has no mirror ({cols[k]}, {rows[k]})"
        )
    upper = rows <= cols
    write_comments(stream, "c", comment)
    stream.write(f"p tw {n} {int(upper.sum())}\n".encode())
    write_records(stream, ["%d", "%d"], [(rows[upper] + 1).tolist(), (cols[upper] + 1).tolist()])
