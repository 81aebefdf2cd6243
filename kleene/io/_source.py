"""Bytes in and out of files: transparent gzip/xz/bz2, progress reports, file names.

Everything here works on bytes: the parsers never decode the whole text, so a
stray non-UTF-8 byte is just a bad token reported with its line, never a
UnicodeDecodeError.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import time
import zlib
from collections.abc import Callable
from typing import IO

from kleene import progress as _progress
from kleene.errors import InvalidObject, InvalidValue

PathLike = str | os.PathLike
Progress = bool | Callable[[str], None] | None

COMPRESSIONS = {".gz": "gzip", ".xz": "xz", ".bz2": "bz2"}
_CHUNK = 1 << 24  # 16 MiB per read while reporting progress


class Reporter:
    """Turns ``progress=`` (False, True or a callable taking one message) into calls.

    A callable gets every message. On stderr (``True``) messages start only once
    the work has run ``kleene.progress.DELAY_S`` seconds: reading a small file
    prints nothing.
    """

    def __init__(self, progress: Progress, verb: str, name: str):
        self._sink: Callable[[str], None] | None
        if progress is True:
            self._sink = _stderr_line
        elif callable(progress):
            self._sink = progress
        elif progress is None or progress is False:
            self._sink = None
        else:
            raise InvalidObject(
                f"progress must be True, False or a callable taking a message, "
                f"got {type(progress).__name__}"
            )
        self._prefix = f"kleene.io.{verb} {name}"
        self._t0 = time.perf_counter()
        self._shown = False

    @property
    def active(self) -> bool:
        return self._sink is not None

    def __call__(self, message: str, *, final: bool = False) -> None:
        if self._sink is None:
            return
        elapsed = time.perf_counter() - self._t0
        line = f"{self._prefix}: {message} [{elapsed:.2f} s]"
        if self._sink is not _stderr_line:
            self._sink(line)
        elif self._shown or elapsed >= _progress.DELAY_S:  # read at call time: tests set it
            self._shown = True
            _stderr_line(line, final=final)


_last_width = [0]


def _stderr_line(line: str, *, final: bool = True) -> None:
    """One line updated in place on a terminal; one line per message elsewhere."""
    err = sys.stderr
    tty = getattr(err, "isatty", lambda: False)()
    if tty:
        err.write("\r" + line.ljust(_last_width[0]) + ("\n" if final else ""))
        _last_width[0] = 0 if final else len(line)
    else:
        err.write(line + "\n")
    err.flush()


def display_name(source) -> str:
    """A short name for messages: the path, or a file object's ``name``."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else f"<{type(source).__name__}>"


def split_compression(name: str) -> tuple[str, str | None]:
    """(name without a compression suffix, compression or None)."""
    lower = name.lower()
    for ext, comp in COMPRESSIONS.items():
        if lower.endswith(ext):
            return name[: -len(ext)], comp
    return name, None


def read_bytes(source, report: Reporter) -> bytes:
    """The (decompressed) contents of a path or binary file object.

    Compression is chosen by the name's suffix (.gz, .xz, .bz2). A missing file
    raises FileNotFoundError as usual; corrupt compressed data raises ValueError.
    """
    name = display_name(source)
    _, comp = split_compression(name)
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as raw:
            return _read_stream(raw, comp, name, report)
    if not hasattr(source, "read"):
        raise InvalidObject(
            f"read needs a path or a binary file object, got {type(source).__name__}"
        )
    return _read_stream(source, comp, name, report)


def _read_stream(raw: IO[bytes], comp: str | None, name: str, report: Reporter) -> bytes:
    try:
        total = os.fstat(raw.fileno()).st_size
    except (AttributeError, OSError, io.UnsupportedOperation):
        total = 0
    stream: IO[bytes] = raw
    if comp == "gzip":
        stream = gzip.GzipFile(fileobj=raw, mode="rb")
    elif comp == "xz":
        stream = lzma.LZMAFile(raw, mode="rb")
    elif comp == "bz2":
        stream = bz2.BZ2File(raw, mode="rb")
    parts = []
    size = 0
    try:
        while True:
            chunk = stream.read(_CHUNK)
            if isinstance(chunk, str):
                raise InvalidObject(f"{name}: read needs a binary file object, got text")
            if not chunk:
                break
            parts.append(chunk)
            size += len(chunk)
            if report.active:
                done = _tell(raw)
                frac = f" ({100 * done / total:.0f}% of the file)" if total and done else ""
                report(f"read {size / 1e6:.1f} MB{frac}")
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
        if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError)):
            raise
        raise InvalidValue(f"{name}: cannot decompress ({comp}): {e}") from None
    return b"".join(parts)


def _tell(raw) -> int:
    try:
        return int(raw.tell())
    except (AttributeError, OSError, ValueError):
        return 0


def open_for_write(target, name: str) -> tuple[IO[bytes], Callable[[], None]]:
    """A binary stream for ``target`` (compressed by suffix) and a function closing it."""
    _, comp = split_compression(name)
    own = isinstance(target, (str, os.PathLike))
    raw = open(target, "wb") if own else target  # noqa: SIM115 (closed by the returned closer)
    if comp == "gzip":
        stream = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0)
    elif comp == "xz":
        stream = lzma.LZMAFile(raw, mode="wb")
    elif comp == "bz2":
        stream = bz2.BZ2File(raw, mode="wb")
    else:
        stream = raw

    def close() -> None:
        if stream is not raw:
            stream.close()
        if own:
            raw.close()
        elif hasattr(raw, "flush"):
            raw.flush()

    return stream, close
