"""What the format modules share: the parsed-graph record, header scanning, checks, writing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import IO

import numpy as np

from kleene.core import Matrix
from kleene.errors import DimensionMismatch, InvalidObject
from kleene.semiring.dtypes import SUPPORTED_DTYPES

from ._table import GraphFileError, Table, show


@dataclass
class Parsed:
    """A graph file as read: 0-based edges plus what the format says about them."""

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None  # None: a pattern (unweighted) file
    lines: np.ndarray  # line number of each edge, for messages
    nrows: int | None  # None: 1 + the largest id (SNAP, CSV)
    ncols: int | None
    mirror: str | None = None  # the format's own meaning: None, "symmetric" or "skew"
    hints: dict = field(default_factory=dict)  # from a "kleene:" comment: n, dtype
    header_line: int | None = None  # the line giving the size, for messages
    declared: str = "the header declares"  # who set the size, for messages


# ---- reading -------------------------------------------------------------------


def iter_lines(data: bytes, start: int = 0, line0: int = 1) -> Iterator[tuple[int, int, bytes]]:
    """(line number, offset just past the line, line) from ``start`` on, lazily."""
    pos, line = start, line0
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        end = n if end < 0 else end
        yield line, end + 1, data[pos:end]
        pos, line = end + 1, line + 1


_HINT = re.compile(rb"kleene:\s*(.*)")


def read_hint(raw: bytes, hints: dict) -> None:
    """Collect ``n=`` and ``dtype=`` from a comment written by kleene's writers."""
    m = _HINT.search(raw)
    if m is None:
        return
    for item in m.group(1).split():
        key, _, value = item.partition(b"=")
        if key == b"dtype":
            names = {str(d): d for d in SUPPORTED_DTYPES}
            if value.decode("ascii", "replace") in names:
                hints["dtype"] = names[value.decode("ascii")]
        elif key == b"n" and value.isdigit() and len(value) < 19:
            hints["n"] = int(value)


def hint_comment(A_dtype: np.dtype, n: int | None = None) -> str:
    extra = f" n={n}" if n is not None else ""
    return f"kleene: dtype={np.dtype(A_dtype)}{extra}"


def check_count(name: str, table: Table, expected: int, what: str, header_line: int) -> None:
    """The header's record count against the file's ('header says 8870 arcs, file has 8869')."""
    m = table.size
    if m < expected:
        raise GraphFileError(name, header_line, f"header says {expected} {what}, file has {m}")
    if m > expected:
        raise GraphFileError(
            name,
            int(table.lines[expected]),
            f"header says {expected} {what}, file has {m} (this is number {expected + 1})",
        )


def check_range(name: str, ids: np.ndarray, lines: np.ndarray, lo: int, hi: int, why: str) -> None:
    """Every id in [lo, hi], else a GraphFileError naming the first bad line."""
    if ids.size == 0:
        return
    bad = (ids < lo) | (ids > hi)
    if bad.any():
        r = int(np.flatnonzero(bad.any(axis=1) if bad.ndim == 2 else bad)[0])
        row = ids[r] if ids.ndim == 2 else ids[r : r + 1]
        v = int(row[(row < lo) | (row > hi)][0])
        raise GraphFileError(name, int(lines[r]), f"vertex id {v} is out of range {lo}..{hi} {why}")


def check_weights(name: str, values: np.ndarray | None, lines: np.ndarray) -> None:
    """NaN weights are rejected (they have no place in a semiring)."""
    if values is None or values.dtype.kind != "f":
        return
    bad = np.isnan(values)
    if bad.any():
        r = int(np.flatnonzero(bad.reshape(bad.shape[0], -1).any(axis=1))[0])
        raise GraphFileError(name, int(lines[r]), "NaN weight")


def parse_header_ints(
    name: str, line: int, raw: bytes, toks: list[bytes], expect: str
) -> list[int]:
    """Non-negative integers of a header line, or a GraphFileError."""
    out = []
    for tok in toks:
        if not tok.isdigit() or len(tok) > 18:
            raise GraphFileError(name, line, f"expected {expect}, got {show(raw)}")
        out.append(int(tok))
    return out


# ---- writing -------------------------------------------------------------------


def host_coo(A) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int], np.dtype]:
    """(rows, cols, values, shape, dtype) on the host, row-major, from a Matrix or scipy."""
    if not isinstance(A, Matrix):
        if hasattr(A, "tocoo"):
            A = Matrix.from_scipy(A)
        else:
            raise InvalidObject(
                f"write needs a kleene.Matrix or a scipy.sparse matrix, got {type(A)}"
            )
    A = A.to("cpu")
    rows, cols, vals = A.to_coo()
    return np.asarray(rows), np.asarray(cols), np.asarray(vals), A.shape, A.dtype


def require_square(shape: tuple[int, int], fmt: str) -> int:
    if shape[0] != shape[1]:
        raise DimensionMismatch(
            f"{fmt} stores a graph: the matrix must be square, got shape {shape}"
        )
    return shape[0]


def is_pattern(vals: np.ndarray) -> bool:
    """Bool values that are all True: a pattern (unweighted) matrix."""
    return vals.dtype == np.bool_ and bool(vals.all())


def value_spec(vals: np.ndarray) -> tuple[str, list]:
    """A %-format and Python values that read back exactly (floats by repr)."""
    if vals.dtype.kind == "f":
        return "%r", vals.astype(np.float64).tolist()
    return "%d", vals.astype(np.int64).tolist()


def write_comments(stream: IO[bytes], prefix: str, text: str | None) -> None:
    if text:
        for line in text.splitlines():
            stream.write(f"{prefix} {line}\n".encode())


def write_records(
    stream: IO[bytes], fmts: list[str], columns: list[list], sep: str = " ", lead: str = ""
) -> None:
    """Lines ``lead + fmt0 % col0[i] + sep + fmt1 % col1[i] ...``, in chunks."""
    if not columns or not len(columns[0]):
        return
    line = lead + sep.join(fmts) + "\n"
    m = len(columns[0])
    step = 1 << 17
    for lo in range(0, m, step):
        parts = [c[lo : lo + step] for c in columns]
        k = len(parts[0])
        flat = tuple(chain.from_iterable(zip(*parts, strict=True)))
        stream.write(((line * k) % flat).encode())
