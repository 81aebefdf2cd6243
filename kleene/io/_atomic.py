"""Files that appear whole or not at all, with the permissions a plain ``open`` gives.

A result is written to a temporary file beside its final name and moved onto
that name only when complete, so an error or Ctrl-C never leaves half a file
and never costs the file that was there before.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO


def umask_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0o666 less the process umask.

    >>> old = os.umask(0o022); mode = umask_mode(); _ = os.umask(old)
    >>> oct(mode)
    '0o644'
    """
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_file(path: str | os.PathLike, *, replace: bool) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``path`` when the block ends without an error.

    The new file gets the mode of the file it replaces, else the umask's
    (``mkstemp`` alone would leave it 0600). ``replace=False`` never replaces an
    existing file, even one created while the block ran: ``FileExistsError``.
    On any error (Ctrl-C included) the temporary file is removed and ``path``
    is left as it was.

    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.txt"
    >>> with atomic_file(p, replace=False) as f:
    ...     _ = f.write(b"done")
    >>> p.read_bytes()
    b'done'
    >>> with atomic_file(p, replace=False) as f:  # doctest: +ELLIPSIS
    ...     _ = f.write(b"again")
    Traceback (most recent call last):
    FileExistsError: [Errno 17] File exists: ...
    """
    path = os.fspath(path)
    folder, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(dir=folder or ".", prefix=f".{base}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            try:
                mode = stat.S_IMODE(os.stat(path).st_mode) if replace else umask_mode()
            except FileNotFoundError:
                mode = umask_mode()
            os.fchmod(f.fileno(), mode)
        if replace:
            os.replace(tmp, path)
        else:
            _place_new(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def _place_new(tmp: str, path: str) -> None:
    """Move ``tmp`` to ``path`` unless ``path`` exists (a hard link fails on an existing
    name in one step; file systems without hard links get a check, then the rename)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(17, "File exists", path) from None
    except OSError:
        if os.path.lexists(path):
            raise FileExistsError(17, "File exists", path) from None
        os.replace(tmp, path)
        return
    os.unlink(tmp)
