"""Where the shared real graphs live for tests: $KLEENE_DATA, default ../shared/data."""

from __future__ import annotations

import gzip
import lzma
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

_DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
DATA_DIR = Path(os.environ.get("KLEENE_DATA", _DEFAULT))


def data_file(name: str) -> Path:
    """Path of a shared data file; skips the test (with the reason) when it is absent."""
    path = DATA_DIR / name
    if not path.exists():
        pytest.skip(f"data file {name} not found in {DATA_DIR} (set KLEENE_DATA)")
    return path


def _open(path: Path):
    if path.suffix == ".xz":
        return lzma.open(path, "rt")
    if path.suffix == ".gz":
        return gzip.open(path, "rt")
    return open(path)


def load_edges(name: str):
    """(src, dst, weights or None, n) by a parser independent of kleene.io."""
    path = data_file(name)
    rows = []
    n = None
    weighted = False
    with _open(path) as f:
        for line in f:
            if not line.strip() or line[0] in "c#%":
                continue
            parts = line.split()
            if parts[0] == "p":
                n = int(parts[2])
                continue
            if parts[0] == "a":
                rows.append((int(parts[1]) - 1, int(parts[2]) - 1, float(parts[3])))
                weighted = True
            elif n is not None:  # PACE: 1-based "u v"
                rows.append((int(parts[0]) - 1, int(parts[1]) - 1, 1.0))
            else:  # SNAP: 0-based "u v"
                rows.append((int(parts[0]), int(parts[1]), 1.0))
    e = np.array(rows)
    src, dst = e[:, 0].astype(np.int64), e[:, 1].astype(np.int64)
    n = n if n is not None else int(max(src.max(), dst.max())) + 1
    return src, dst, (e[:, 2] if weighted else None), n


def load_scipy(name: str, *, symmetric: bool = False) -> sp.csr_matrix:
    src, dst, w, n = load_edges(name)
    w = np.ones(src.size) if w is None else w
    if symmetric:
        src, dst, w = np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([w, w])
    order = np.lexsort((w, dst, src))  # duplicate edges keep the lightest
    src, dst, w = src[order], dst[order], w[order]
    first = np.ones(src.size, bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    return sp.csr_matrix((w[first], (src[first], dst[first])), shape=(n, n))
