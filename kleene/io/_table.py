"""Parse the body of a line-oriented numeric file into columns, fast and strictly.

A *record* is one line of ``ncols`` numeric fields, optionally after a fixed
keyword token (DIMACS ``a``); the first ``nids`` fields are integers (vertex ids),
the rest are values (integers if every value token is one, else floats). Blank
lines and comment lines (first non-blank character in ``comments``) are skipped.

Two implementations with one meaning:

* ``_fast``: vectorised NumPy over the bytes (line and token boundaries from
  masks and cumulative sums, numbers from one ``np.fromstring`` call per column
  group). It checks the structure it relies on (tokens per line, the keyword,
  comma positions, the characters of every number) and returns None whenever it
  cannot vouch for the result.
* ``_slow``: a plain line-by-line scan, used only when ``_fast`` gives up. It is
  the authority: it either returns the same table or raises a ``GraphFileError``
  naming the file, the line and what was expected.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np

from kleene.errors import KleeneError


class GraphFileError(KleeneError, ValueError):
    """Malformed graph file; ``path`` and ``line`` (1-based, or None) say where.

    A ``KleeneError`` (the CLI reports it as one line) and a ``ValueError``."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path, self.line, self.message = path, line, message
        where = f"{path}: line {line}: " if line is not None else f"{path}: "
        super().__init__(where + message)

    def __reduce__(self):
        # rebuilt from its own arguments: a pickle (a Dask worker's error) keeps the class
        return type(self), (self.path, self.line, self.message)


@dataclass(frozen=True)
class Layout:
    """What one record looks like (see the module docstring)."""

    ncols: int
    expect: str  # how the record looks, for messages: "'a u v w'"
    nids: int = 2
    keyword: bytes | None = None
    comments: bytes = b""
    comma: bool = False


@dataclass
class Table:
    ids: np.ndarray  # (m, nids) int64, as written in the file
    values: np.ndarray | None  # (m, ncols - nids) int64 or float64; None if no value columns
    lines: np.ndarray  # (m,) int64: the 1-based line number of each record

    @property
    def size(self) -> int:
        return int(self.lines.size)


def show(raw: bytes, limit: int = 60) -> str:
    """A line for an error message (quoted, shortened, never a decode error)."""
    text = raw.rstrip(b"\r").decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")


def parse_table(data: bytes, start: int, line0: int, layout: Layout, name: str) -> Table:
    """Records of ``data[start:]``, whose first line is line number ``line0``."""
    table = _fast(data, start, line0, layout)
    if table is None:
        table = _slow(data, start, line0, layout, name)
    return table


# ---- fast path ---------------------------------------------------------------

_WS = np.zeros(256, bool)
_WS[[9, 10, 11, 12, 13, 32]] = True  # what bytes.split() splits on
_DIGIT = np.zeros(256, bool)
_DIGIT[ord("0") : ord("9") + 1] = True
_FLOAT_OK = _WS | _DIGIT
_FLOAT_OK[list(b"+-.eEinfatyINFATY")] = True
_I64 = np.iinfo(np.int64)


def _fast(data: bytes, start: int, line0: int, layout: Layout) -> Table | None:
    b = np.frombuffer(data, np.uint8, offset=min(start, len(data)))
    n = b.size
    ncols = layout.ncols
    empty = Table(
        np.zeros((0, layout.nids), np.int64), _no_values(layout, 0), np.zeros(0, np.int64)
    )
    if n == 0:
        return empty
    cdt = np.int32 if n < 2**31 - 1 else np.int64
    nl = np.flatnonzero(b == 10)
    starts = np.concatenate(([0], nl + 1))
    ends = np.concatenate((nl, [n]))
    first = b[np.minimum(starts, n - 1)]
    nonempty = starts < ends
    c = b
    if layout.comments:
        is_comment = nonempty & np.isin(first, np.frombuffer(layout.comments, np.uint8))
        if is_comment.any():
            c = b.copy()
            c[_span_mask(n, starts[is_comment], ends[is_comment], cdt)] = 32
    sep = _is_ws(c)
    if layout.comma:
        sep |= c == 44
    tok = ~sep
    tok[1:] &= sep[:-1]  # a token starts at a non-separator after a separator
    per_line = _per_line(tok, starts, ends, cdt)
    data_line = per_line > 0
    if layout.keyword is not None:
        kw = layout.keyword[0]
        if not np.all(per_line[data_line] == ncols + 1):
            return None
        ks = starts[data_line]
        if not (np.all(c[ks] == kw) and np.all(_WS[c[np.minimum(ks + 1, n - 1)]] & (ks + 1 < n))):
            return None
        if c is b:
            c = b.copy()
        c[ks] = 32
        tok[ks] = False
        per_line[data_line] -= 1
    elif not np.all(per_line[data_line] == ncols):
        return None
    rec_lines = np.flatnonzero(data_line)
    m = rec_lines.size
    if layout.comma:
        comma = c == 44
        cc = _prefix_sum(comma, cdt)
        commas = cc[ends] - cc[starts]
        if np.any(commas != np.where(data_line, ncols - 1, 0)):
            return None
    if m == 0:
        return empty
    pos = None
    if layout.comma:
        pos = np.flatnonzero(tok)
        line_start = np.repeat(starts[rec_lines], ncols)
        if np.any(cc[pos] - cc[line_start] != np.tile(np.arange(ncols, dtype=cdt), m)):
            return None
        if c is b:
            c = b.copy()
        c[comma] = 32
    nvals = ncols - layout.nids
    if nvals == 0:
        ids = _ints(c, m * ncols)
        values = None
    else:
        if pos is None:
            pos = np.flatnonzero(tok)
        vmask = _span_mask(n, pos[layout.nids :: ncols], ends[rec_lines], cdt)
        ids = _ints(np.where(vmask, np.uint8(32), c), m * layout.nids)
        vbuf = np.where(vmask, c, np.uint8(32))
        values = _ints(vbuf, m * nvals)
        if values is None:
            values = _floats(vbuf, m * nvals)
        if values is not None:
            values = values.reshape(m, nvals)
    if ids is None or (nvals and values is None):
        return None
    return Table(ids.reshape(m, layout.nids), values, rec_lines.astype(np.int64) + line0)


def _no_values(layout: Layout, m: int):
    nvals = layout.ncols - layout.nids
    return np.zeros((m, nvals), np.int64) if nvals else None


def _prefix_sum(mask: np.ndarray, cdt) -> np.ndarray:
    """out[i] = number of True in mask[:i] (length n + 1)."""
    out = np.empty(mask.size + 1, cdt)
    out[0] = 0
    np.cumsum(mask, dtype=cdt, out=out[1:])
    return out


def _per_line(tok: np.ndarray, starts: np.ndarray, ends: np.ndarray, cdt) -> np.ndarray:
    cs = _prefix_sum(tok, cdt)
    return cs[ends] - cs[starts]


def _is_ws(c: np.ndarray) -> np.ndarray:
    """Bytes that bytes.split() splits on (comparisons beat a lookup table here)."""
    return (c == 32) | (np.subtract(c, 9, dtype=np.uint8) < 5)


def _span_mask(n: int, lo: np.ndarray, hi: np.ndarray, cdt) -> np.ndarray:
    """Bytes inside any of the disjoint, non-empty half-open spans [lo, hi)."""
    delta = np.zeros(n + 1, np.int8)
    delta[lo] += 1  # disjoint non-empty spans: no index repeats within lo or hi
    delta[hi] -= 1
    return np.cumsum(delta[:-1], dtype=np.int8) > 0


def _fromstring(buf: np.ndarray, dtype, expect: int) -> np.ndarray | None:
    if expect == 0:
        return np.zeros(0, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # older NumPy warns where newer raises
        try:
            out = np.fromstring(buf.tobytes(), dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    return out if out.size == expect else None


def _ints(buf: np.ndarray, expect: int) -> np.ndarray | None:
    """Whitespace-separated integers, each exactly ``[+-]?[0-9]+``, or None."""
    ok = _is_ws(buf) | (np.subtract(buf, 48, dtype=np.uint8) < 10) | (buf == 43) | (buf == 45)
    if not ok.all():
        return None
    sign = np.flatnonzero((buf == 43) | (buf == 45))
    if sign.size:
        after = sign + 1
        if after[-1] >= buf.size or not _DIGIT[buf[after]].all():
            return None
        if not _WS[buf[sign[sign > 0] - 1]].all():
            return None
    out = _fromstring(buf, np.int64, expect)
    if out is not None and out.size and (out.max() == _I64.max or out.min() == _I64.min):
        return None  # maybe clamped on overflow: let the slow path decide
    return out


def _floats(buf: np.ndarray, expect: int) -> np.ndarray | None:
    if not _FLOAT_OK[buf].all():
        return None
    return _fromstring(buf, np.float64, expect)


# ---- slow path ---------------------------------------------------------------

INT_RE = re.compile(rb"[+-]?[0-9]+")
FLOAT_RE = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)


def parse_int(tok: bytes, what: str, name: str, line: int, raw: bytes) -> int:
    """One strict integer token, or a GraphFileError naming the line."""
    if INT_RE.fullmatch(tok) is None:
        raise GraphFileError(
            name, line, f"{what} must be an integer, got {show(tok, 30)} in {show(raw)}"
        )
    v = int(tok)
    if not _I64.min < v < _I64.max:
        raise GraphFileError(name, line, f"{what} {show(tok, 30)} is too large")
    return v


def _slow(data: bytes, start: int, line0: int, layout: Layout, name: str) -> Table:
    ids: list[int] = []
    vals: list[bytes] = []
    vlines: list[int] = []
    lines: list[int] = []
    nids, ncols = layout.nids, layout.ncols
    comments = layout.comments
    for k, raw in enumerate(data[start:].split(b"\n")):
        line = line0 + k
        toks = raw.split()
        if not toks or toks[0][0] in comments:
            continue
        if layout.comma:
            fields = raw.split(b",")
            if len(fields) != ncols:
                raise GraphFileError(
                    name,
                    line,
                    f"expected {layout.expect} ({ncols} comma-separated fields), "
                    f"got {len(fields)} fields: {show(raw)}",
                )
            toks = []
            for j, f in enumerate(fields):
                parts = f.split()
                if len(parts) != 1:
                    what = "is empty" if not parts else "holds more than one value"
                    raise GraphFileError(
                        name, line, f"field {j + 1} {what}; expected {layout.expect}: {show(raw)}"
                    )
                toks.append(parts[0])
        elif layout.keyword is not None:
            if toks[0] != layout.keyword:
                raise GraphFileError(name, line, f"expected {layout.expect}, got {show(raw)}")
            toks = toks[1:]
        if len(toks) != ncols:
            raise GraphFileError(
                name,
                line,
                f"expected {layout.expect} ({ncols} numbers), got {len(toks)}: {show(raw)}",
            )
        for j in range(nids):
            ids.append(parse_int(toks[j], "a vertex id", name, line, raw))
        for tok in toks[nids:]:
            vals.append(tok)
            vlines.append(line)
        lines.append(line)
    m = len(lines)
    id_arr = np.array(ids, dtype=np.int64).reshape(m, nids)
    values = None
    if ncols > nids:
        values = _slow_values(vals, vlines, name).reshape(m, ncols - nids)
    return Table(id_arr, values, np.array(lines, dtype=np.int64))


def _slow_values(tokens: list[bytes], lines: list[int], name: str) -> np.ndarray:
    if all(INT_RE.fullmatch(t) for t in tokens):
        out = [int(t) for t in tokens]
        if all(_I64.min < v < _I64.max for v in out):
            return np.array(out, dtype=np.int64)
    floats = []
    for tok, line in zip(tokens, lines, strict=True):
        if FLOAT_RE.fullmatch(tok) is None:
            raise GraphFileError(name, line, f"a weight must be a number, got {show(tok, 30)}")
        floats.append(float(tok))
    return np.array(floats, dtype=np.float64)
