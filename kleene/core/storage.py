"""Storage: the one owner of a container's arrays and of everything derived from them.

A Matrix and all its block views share one Storage. Every write — an operation's
``out=``, an in-place kernel through a view, ``assign`` — bumps ``version``, and
every derived value (transposed CSR, NaN-free flag, degrees, symmetry) is cached
here keyed to the version, so no view can read another view's stale cache.
``generation`` counts only buffer replacements: views re-slice when it moves.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

_COUNT_SLAB = 1 << 24  # entries a thread compares with the absent marker at a time

_ARRAYS = ("values", "indptr", "indices")  # besides the bitmap (``present``)


class Storage:
    """Arrays (format, dtype, shape) plus the version-keyed cache of derived data.

    A dense storage may hold, instead of its bitmap, the marker its absent entries equal
    (``absent``: a dense array taken as "inf = no edge"); ``present`` builds the bitmap
    from it on first use. Passes that fill or scan the values take the marker itself
    (``kleene.backends.cuda.structure``), so a graph given as an array that only goes into a
    dense closure never pays for the bitmap (a pass over the values, an ``all()`` and a
    device sync: work the closure itself does not need).
    """

    __slots__ = (
        "xp",
        "dtype",
        "shape",
        "fmt",
        *_ARRAYS,
        "_present",
        "absent",
        "version",
        "generation",
        "_derived",
        "_views",
        "__weakref__",
    )

    def __init__(
        self, xp, dtype, shape, fmt, values, present=None, indptr=None, indices=None, absent=None
    ):
        self.xp, self.dtype, self.shape, self.fmt = xp, np.dtype(dtype), tuple(shape), fmt
        self.values, self.indptr, self.indices = values, indptr, indices
        self._present, self.absent = present, absent
        self.version = 0
        self.generation = 0
        self._derived: dict = {}
        self._views: weakref.WeakSet | None = None

    @property
    def present(self):
        """The presence bitmap of a dense storage (None: every entry stored), built from
        the absent marker on first use where the storage holds one."""
        if self.absent is not None:
            mask = self.values != self.absent
            self._present = None if bool(mask.all()) else mask
            self.absent = None  # (the contents did not change: no write)
        return self._present

    def count_present(self) -> int:
        """How many entries a dense storage holds, without building its bitmap where it
        keeps an absent marker (a large host buffer counted by slabs on a few threads);
        when every entry is present the marker goes, as ``present`` would drop it."""
        if self.absent is None:
            present = self._present
            return int(self.values.size if present is None else self.xp.count_nonzero(present))
        values, mark = self.values.reshape(-1), self.absent
        if self.xp is np and values.size >= 4 * _COUNT_SLAB:
            bounds = range(0, values.size, _COUNT_SLAB)
            with ThreadPoolExecutor(max(1, min(8, os.cpu_count() or 1))) as pool:
                count = sum(
                    pool.map(
                        lambda lo: int(np.count_nonzero(values[lo : lo + _COUNT_SLAB] != mark)),
                        bounds,
                    )
                )
        else:
            count = int(self.xp.count_nonzero(values != mark))
        if count == values.size:
            self._present, self.absent = None, None  # (the contents did not change: no write)
        return count

    @present.setter
    def present(self, present) -> None:
        self._present, self.absent = present, None

    # ---- writes --------------------------------------------------------------
    def written(self) -> None:
        """The contents changed (in place or replaced): forget everything derived."""
        self.version += 1
        self._derived.clear()

    def replace(self, other: Storage) -> None:
        """Take over ``other``'s arrays (same shape), as a write."""
        for name in ("xp", "dtype", "fmt", *_ARRAYS, "_present", "absent"):
            setattr(self, name, getattr(other, name))
        self.generation += 1
        self.written()

    def set_present(self, present) -> None:
        """A new presence bitmap (None: every entry present) for a dense storage."""
        self.present = present
        self.generation += 1
        self.written()

    # ---- views ---------------------------------------------------------------
    def add_view(self, view) -> None:
        if self._views is None:
            self._views = weakref.WeakSet()
        self._views.add(view)

    def has_views(self) -> bool:
        return bool(self._views)

    # ---- derived data ----------------------------------------------------------
    def cached(self, key, compute: Callable[[], Any]):
        """``compute()``, remembered until the next write (``key`` names what it is)."""
        hit = self._derived.get(key, _MISSING)
        if hit is _MISSING:
            version = self.version
            hit = compute()
            if self.version == version:  # computing it wrote nothing: still valid
                self._derived[key] = hit
        return hit

    def known(self, key):
        """What ``cached`` holds under ``key``, or None: computes nothing."""
        hit = self._derived.get(key, _MISSING)
        return None if hit is _MISSING else hit


_MISSING = object()
