"""Matrix Market (``.mtx``): coordinate and array formats, 1-based.

Read: ``coordinate`` with field ``real``/``double``/``integer``/``pattern`` and
symmetry ``general``/``symmetric``/``skew-symmetric`` (``hermitian`` of a real
matrix is ``symmetric``); ``array`` (dense, column-major) with ``real``/``integer``.
A symmetric file lists one triangle; reading adds the mirrored off-diagonal
entries (negated for skew-symmetric) unless ``directed=True``. A pattern file
gives a Boolean matrix. In an array file every value is an entry except +inf
(kleene's "no edge" for dense input). Complex matrices are not supported.

Write: ``coordinate general`` (or ``symmetric`` on request), field ``integer``
for integer dtypes, ``real`` for floats, ``pattern`` for a Boolean matrix whose
entries are all True.
"""

from __future__ import annotations

from typing import IO

import numpy as np

from kleene.errors import DimensionMismatch, InvalidValue

from ._common import (
    Parsed,
    check_count,
    check_range,
    check_weights,
    hint_comment,
    host_coo,
    is_pattern,
    iter_lines,
    parse_header_ints,
    read_hint,
    value_spec,
    write_comments,
    write_records,
)
from ._table import GraphFileError, Layout, parse_table, show

_FIELDS = {b"real": "real", b"double": "real", b"integer": "integer", b"pattern": "pattern"}
_SYMMETRY = {
    b"general": None,
    b"symmetric": "symmetric",
    b"skew-symmetric": "skew",
    b"hermitian": "symmetric",
}
BANNER = "%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> <general|symmetric>"


def _banner(data: bytes, name: str) -> tuple[str, str, str | None]:
    first = data[: data.find(b"\n")] if b"\n" in data else data
    toks = first.lower().split()
    if not toks or toks[0] != b"%%matrixmarket":
        got = "an empty file" if not data.strip() else show(first)
        raise GraphFileError(name, 1, f"expected the banner {BANNER!r}, got {got}")
    if len(toks) != 5 or toks[1] != b"matrix" or toks[2] not in (b"coordinate", b"array"):
        raise GraphFileError(name, 1, f"expected the banner {BANNER!r}, got {show(first)}")
    if toks[3] == b"complex":
        raise GraphFileError(name, 1, "complex matrices are not supported")
    if toks[3] not in _FIELDS or toks[4] not in _SYMMETRY:
        raise GraphFileError(name, 1, f"expected the banner {BANNER!r}, got {show(first)}")
    fld = _FIELDS[toks[3]]
    if toks[2] == b"array" and fld == "pattern":
        raise GraphFileError(name, 1, "an array file cannot have field 'pattern'")
    return toks[2].decode(), fld, _SYMMETRY[toks[4]]


def parse(data: bytes, name: str) -> Parsed:
    """Parse a Matrix Market text (see the module docstring)."""
    fmt, fld, mirror = _banner(data, name)
    hints: dict = {}
    size_line = None
    line = 1
    nl = data.find(b"\n")
    banner_end = nl + 1 if nl >= 0 else len(data)
    for line, after, raw in iter_lines(data, banner_end, 2):  # noqa: B007 (after: used below)
        toks = raw.split()
        if not toks:
            continue
        if toks[0][:1] == b"%":
            read_hint(raw, hints)
            continue
        want = "'rows cols entries'" if fmt == "coordinate" else "'rows cols'"
        if len(toks) != (3 if fmt == "coordinate" else 2):
            raise GraphFileError(name, line, f"expected the size line {want}, got {show(raw)}")
        size = parse_header_ints(name, line, raw, toks, f"the size line {want}")
        size_line = line
        break
    if size_line is None:
        raise GraphFileError(name, line + 1, "expected the size line, got the end of the file")
    nrows, ncols = size[0], size[1]
    if mirror is not None and nrows != ncols:
        raise GraphFileError(
            name, size_line, f"a symmetric matrix must be square, got {nrows}x{ncols}"
        )
    if fmt == "array":
        return _parse_array(data, name, after, size_line, nrows, ncols, fld, mirror, hints)
    nnz = size[2]
    pattern = fld == "pattern"
    layout = Layout(2 if pattern else 3, "'i j'" if pattern else "'i j value'", comments=b"%")
    table = parse_table(data, after, size_line + 1, layout, name)
    check_count(name, table, nnz, "entries", size_line)
    check_range(name, table.ids[:, :1], table.lines, 1, nrows, f"(the matrix has {nrows} rows)")
    check_range(name, table.ids[:, 1:], table.lines, 1, ncols, f"(the matrix has {ncols} columns)")
    weights = None if pattern else _field_values(name, table.values[:, 0], table.lines, fld)
    return Parsed(
        table.ids[:, 0] - 1,
        table.ids[:, 1] - 1,
        weights,
        table.lines,
        nrows,
        ncols,
        mirror,
        hints,
        size_line,
        "the size line declares",
    )


def _field_values(name: str, values: np.ndarray, lines: np.ndarray, fld: str) -> np.ndarray:
    check_weights(name, values, lines)
    if fld == "real":
        return values.astype(np.float64)
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values) | (values != np.round(values)) | (np.abs(values) >= 2.0**63)
        if bad.any():
            line = int(lines[np.flatnonzero(bad)[0]])
            raise GraphFileError(
                name, line, "an 'integer' matrix holds a value that is not an int64 integer"
            )
        values = values.astype(np.int64)
    return values


def _parse_array(data, name, after, size_line, nrows, ncols, fld, mirror, hints) -> Parsed:
    layout = Layout(1, "one value per line", nids=0, comments=b"%")
    table = parse_table(data, after, size_line + 1, layout, name)
    if mirror is None:
        count = nrows * ncols
    else:
        count = nrows * (nrows + 1) // 2 if mirror != "skew" else nrows * (nrows - 1) // 2
    check_count(name, table, count, "values", size_line)  # before allocating: sizes are real
    if mirror is None:
        k = np.arange(count, dtype=np.int64)
        rows, cols = k % max(nrows, 1), k // max(nrows, 1)  # column-major order
    else:
        cols, rows = np.tril_indices(nrows, -1 if mirror == "skew" else 0)[::-1]
        order = np.lexsort((rows, cols))  # column-major lower triangle
        rows, cols = rows[order], cols[order]
    values = _field_values(name, table.values[:, 0], table.lines, fld)
    keep = ~(np.isposinf(values)) if values.dtype.kind == "f" else slice(None)
    return Parsed(
        rows[keep].astype(np.int64),
        cols[keep].astype(np.int64),
        values[keep],
        table.lines[keep],
        nrows,
        ncols,
        mirror,
        hints,
        size_line,
        "the size line declares",
    )


def write(stream: IO[bytes], A, *, comment: str | None = None, symmetry: str = "general") -> None:
    """Write ``A`` as a coordinate Matrix Market file.

    ``symmetry="symmetric"`` writes only the lower triangle of a symmetric matrix
    (ValueError if it is not symmetric).
    """
    rows, cols, vals, shape, dtype = host_coo(A)
    if symmetry not in ("general", "symmetric"):
        raise InvalidValue(f"symmetry must be 'general' or 'symmetric', got {symmetry!r}")
    if symmetry == "symmetric":
        rows, cols, vals = _lower_triangle(rows, cols, vals, shape)
    if is_pattern(vals):
        fld = "pattern"
    else:
        fld = "real" if vals.dtype.kind == "f" else "integer"
    stream.write(f"%%MatrixMarket matrix coordinate {fld} {symmetry}\n".encode())
    write_comments(stream, "%", comment)
    write_comments(stream, "%", hint_comment(dtype))
    stream.write(f"{shape[0]} {shape[1]} {rows.size}\n".encode())
    columns = [(rows + 1).tolist(), (cols + 1).tolist()]
    fmts = ["%d", "%d"]
    if fld != "pattern":
        vfmt, vlist = value_spec(vals)
        fmts.append(vfmt)
        columns.append(vlist)
    write_records(stream, fmts, columns)


def _lower_triangle(rows, cols, vals, shape):
    if shape[0] != shape[1]:
        raise DimensionMismatch(f"symmetry='symmetric' needs a square matrix, got shape {shape}")
    n = max(shape[0], 1)
    keys = rows * n + cols
    mirror = cols * n + rows
    order = np.argsort(keys)
    pos = np.searchsorted(keys[order], mirror)
    pos = np.minimum(pos, max(keys.size - 1, 0))
    found = keys.size > 0 and keys[order][pos] == mirror
    if keys.size and not (np.all(found) and np.array_equal(vals[order][pos], vals)):
        raise InvalidValue("symmetry='symmetric' needs a symmetric matrix (entries and values)")
    low = rows >= cols
    return rows[low], cols[low], vals[low]
