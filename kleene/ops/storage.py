"""Storage: the one owner of a container's arrays and of everything derived from them.

A Matrix and all its block views share one Storage. Every write — an operation's
``out=``, an in-place kernel through a view, ``assign`` — bumps ``version``, and
every derived value (transposed CSR, NaN-free flag, degrees, symmetry) is cached
here keyed to the version, so no view can read another view's stale cache.
``generation`` counts only buffer replacements: views re-slice when it moves.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

_ARRAYS = ("values", "present", "indptr", "indices")


class Storage:
    """Arrays (format, dtype, shape) plus the version-keyed cache of derived data."""

    __slots__ = ("xp", "dtype", "shape", "fmt", *_ARRAYS, "version", "generation", "_derived",
                 "_views", "__weakref__")  # fmt: skip

    def __init__(self, xp, dtype, shape, fmt, values, present=None, indptr=None, indices=None):
        self.xp, self.dtype, self.shape, self.fmt = xp, np.dtype(dtype), tuple(shape), fmt
        self.values, self.present, self.indptr, self.indices = values, present, indptr, indices
        self.version = 0
        self.generation = 0
        self._derived: dict = {}
        self._views: weakref.WeakSet | None = None

    # ---- writes --------------------------------------------------------------
    def written(self) -> None:
        """The contents changed (in place or replaced): forget everything derived."""
        self.version += 1
        self._derived.clear()

    def replace(self, other: Storage) -> None:
        """Take over ``other``'s arrays (same shape), as a write."""
        for name in ("xp", "dtype", "fmt", *_ARRAYS):
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
