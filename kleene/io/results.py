"""Result arrays in a file (the command line's ``--out``): .npy, .npz, .csv or .txt.

Every write goes through :func:`kleene.io._atomic.atomic_file` (whole or not at
all, the umask's permissions, an existing file replaced only when asked) and in
slices, so a large write shows a progress bar. :func:`size_needed` says how much
disk a result takes before it is computed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kleene.progress import Progress

from ._atomic import atomic_file

# --out extensions and what each holds.
OUT_FORMATS = {
    ".npy": "the result array (np.load)",
    ".npz": "'result' and, with --predecessors, 'predecessors' (np.load)",
    ".csv": "comma-separated text: vertex,value[,predecessor] rows for one source, "
    "else one row per matrix row",
    ".txt": "the same as .csv, separated by spaces, header as a '#' comment",
}
_SLICE = 1 << 24  # bytes per write of a binary array: the bar moves every 16 MiB
_ROWS = 4096  # text lines per write: a few large writes, not one per line
_NPY_HEADER = 128  # a .npy header of one or two dimensions
_ZIP_MEMBER = 256  # what the zip container adds for each array in a .npz


def size_needed(
    ext: str, shape: tuple[int, ...], itemsize: int, text_chars: int, preds: bool
) -> int:
    """Bytes of disk a result of ``shape`` takes in an ``ext`` file, before it exists.

    Binary files: the arrays' bytes (exact for .npy; for .npz the size before
    compression, which only shrinks it). Text: a floor, ``text_chars`` characters
    per value and one per separator (at least "0," or "inf,"), plus the vertex
    column of a one-source table: a result that misses it cannot fit.

    >>> size_needed(".npy", (1000, 1000), 8, 3, False)
    8000128
    >>> size_needed(".csv", (10,), 8, 3, True)  # vertex, value, predecessor columns
    80
    """
    values = int(np.prod(shape, dtype=np.int64))
    if ext in (".npy", ".npz"):
        arrays = 2 if preds else 1
        extra = arrays * (_NPY_HEADER + (_ZIP_MEMBER if ext == ".npz" else 0))
        return values * itemsize + (values * 8 if preds else 0) + extra
    if len(shape) == 1:  # "vertex,value[,pred]\n": a character for each id at least
        return values * (2 + text_chars + (2 if preds else 0) + 1)
    return values * (text_chars + 1)  # each value and its separator (or newline)


def write_result(
    path: Path,
    result: np.ndarray,
    pred: np.ndarray | None,
    *,
    columns: tuple[str, str] = ("value", "predecessor"),
    replace: bool = False,
    progress: bool = False,
) -> None:
    """Write ``result`` (and ``pred``) by the extension of ``path`` (see OUT_FORMATS).

    Written beside ``path`` and renamed onto it when complete, so an error or
    Ctrl-C never leaves half a file; an existing ``path`` is replaced only with
    ``replace=True`` (else ``FileExistsError``). ``progress=True`` shows a bar on
    stderr for a write that lasts (see :mod:`kleene.progress`).

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
    arrays = {"result": np.ascontiguousarray(result)}
    if pred is not None:
        arrays["predecessors"] = np.ascontiguousarray(pred)
    nbytes = sum(a.nbytes for a in arrays.values())
    total = nbytes if ext in (".npy", ".npz") else result.shape[0]  # bytes, or text rows
    label = f"writing {path.name} ({nbytes / 1e6:,.0f} MB)"
    with Progress(progress, total, label) as bar, atomic_file(path, replace=replace) as f:
        if ext == ".npy":
            _write_npy(f, arrays["result"], bar)
        elif ext == ".npz":
            _write_npz(f, arrays, bar)
        else:
            _write_text(f, result, pred, columns, "," if ext == ".csv" else " ", ext, bar)


def _write_npy(f, a: np.ndarray, bar: Progress) -> None:
    """What ``np.save`` writes, in slices."""
    header = np.lib.format.header_data_from_array_1_0(a)
    try:
        np.lib.format.write_array_header_1_0(f, header)
    except ValueError:  # a header too long for format 1.0
        np.lib.format.write_array_header_2_0(f, header)
    raw = a.reshape(-1).view(np.uint8)
    for lo in range(0, raw.size, _SLICE):
        f.write(raw[lo : lo + _SLICE])
        bar.step(min(_SLICE, raw.size - lo))


def _write_npz(f, arrays: dict[str, np.ndarray], bar: Progress) -> None:
    """What ``np.savez_compressed`` writes, in slices."""
    import zipfile

    with zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as z:
        for key, a in arrays.items():
            with z.open(key + ".npy", "w", force_zip64=True) as member:
                _write_npy(member, a, bar)


def _write_text(f, result, pred, columns, sep: str, ext: str, bar: Progress) -> None:
    """One source: a header and ``vertex,value[,pred]`` rows. A matrix: its rows.
    Values are exact text: shortest round-trip floats ('inf' when unreachable),
    integers as they are, booleans as 0/1."""
    if result.ndim == 1:
        names = ["vertex", columns[0]] + ([columns[1]] if pred is not None else [])
        head = sep.join(names)
        f.write(((head if ext == ".csv" else "# " + head) + "\n").encode())
        for lo in range(0, result.size, _ROWS):
            hi = min(lo + _ROWS, result.size)
            cols = [range(lo, hi), _values(result[lo:hi])]
            if pred is not None:
                cols.append(_values(pred[lo:hi]))
            lines = (sep.join(map(str, r)) for r in zip(*cols, strict=True))
            f.write(("\n".join(lines) + "\n").encode())
            bar.step(hi - lo)
        return
    step = max(1, (_ROWS * 64) // max(result.shape[1], 1))  # rows of about 256 K values
    for lo in range(0, result.shape[0], step):
        rows = _values(result[lo : lo + step])
        f.write("".join(sep.join(map(str, r)) + "\n" for r in rows).encode())
        bar.step(len(rows))


def _values(a: np.ndarray) -> list:
    return (a.astype(np.int8) if a.dtype == np.bool_ else a).tolist()
