"""Graphs for the tests, and checks of results that do not use kleene.

- ``graphs``: a Hypothesis strategy of small random graphs with duplicate edges;
- ``data_file`` / ``load_edges`` / ``load_scipy``: the shared real graphs, found in
  $KLEENE_DATA (default ../shared/data); a test skips, saying why, when one is absent;
- ``check_shortest_path_tree``: predecessors form a shortest-path tree, checked
  with NumPy only.

A helper module, not a test module: test modules import it (``from graph_data
import ...``), never each other.
"""

from __future__ import annotations

import gzip
import lzma
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import strategies as st

import kleene

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
    """A shared real graph as scipy CSR (duplicate edges keep the lightest);
    ``symmetric`` adds every edge's reverse."""
    src, dst, w, n = load_edges(name)
    w = np.ones(src.size) if w is None else w
    if symmetric:
        src, dst, w = np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([w, w])
    keys, w = _lightest(src, dst, w, n)
    return sp.csr_matrix((w, (keys // n, keys % n)), shape=(n, n))


def _lightest(src, dst, w, n):
    """(sorted keys src * n + dst, weights): one entry per edge, the lightest duplicate."""
    order = np.lexsort((w, dst, src))
    src, dst, w = src[order], dst[order], w[order]
    first = np.ones(src.size, bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    return src[first] * n + dst[first], w[first]


@st.composite
def graphs(draw, *, negative=False, max_n=24):
    """(scipy csr with min-deduplicated weights, COO input with duplicates, n).

    Integer weights in 0..9 (-3..9 with ``negative``), explicit zeros included
    (zero-weight edges), self loops and duplicate edges; n from 1 to ``max_n``.
    """
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 4 * n))
    src = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    dst = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    lo = -3 if negative else 0
    w = np.array(draw(st.lists(st.integers(lo, 9), min_size=m, max_size=m)), float)
    raw = sp.coo_matrix((w, (src, dst)), shape=(n, n))
    keys, ww = _lightest(src, dst, w, n)
    ref = sp.csr_matrix((ww, (keys // n, keys % n)), shape=(n, n))
    return ref, raw, n


def check_shortest_path_tree(g, dist, pred, source: int) -> None:
    """``pred`` is a shortest-path tree of graph ``g`` for distances ``dist`` from ``source``.

    ``g``: a scipy.sparse matrix (every stored value an edge, explicit zeros
    included; duplicates: the lightest counts). ``dist`` should be checked
    against scipy separately; this checks ``pred`` against it, with NumPy only:

    - ``pred[source] == -1`` and ``pred[v] == -1`` for every unreachable v;
    - for every other reached v, the edge pred[v] -> v exists and
      dist[pred[v]] + w(pred[v], v) == dist[v] (float rounding allowed);
    - following predecessors from any reached vertex ends at the source (a tree:
      no cycle of zero-weight tight edges).
    """
    dist, pred = np.asarray(dist), np.asarray(pred)
    n = dist.size
    assert pred.shape == (n,) and pred.dtype.kind == "i", (pred.shape, pred.dtype)
    reached = np.isfinite(dist)
    assert pred[source] == -1, f"source {source} has predecessor {pred[source]}"
    bad = np.flatnonzero(~reached & (pred != -1))
    assert bad.size == 0, f"unreachable vertices with a predecessor: {bad[:10]}"
    v = np.flatnonzero(reached)
    v = v[v != source]
    u = pred[v]
    assert np.all((u >= 0) & (u < n)), f"predecessors out of range at {v[(u < 0) | (u >= n)]}"
    c = g.tocoo()
    keys, w = _lightest(c.row.astype(np.int64), c.col.astype(np.int64), c.data.astype(float), n)
    want = u.astype(np.int64) * n + v
    at = np.searchsorted(keys, want)
    exists = at < keys.size
    exists[exists] = keys[at[exists]] == want[exists]
    assert np.all(exists), f"no edge pred[v] -> v for v in {v[~exists][:10]}"
    tight = np.isclose(dist[u] + w[at], dist[v], rtol=1e-9, atol=1e-9)
    assert np.all(tight), f"dist[pred[v]] + w != dist[v] at v = {v[~tight][:10]}"
    root = np.where(reached, pred, -1)  # pointer jumping: every chain reaches the source
    root[source] = source
    for _ in range(max(1, int(np.ceil(np.log2(max(n, 2))))) + 1):
        root = np.where(root >= 0, root[np.maximum(root, 0)], -1)
    stray = np.flatnonzero(reached & (root != source))
    assert stray.size == 0, f"predecessor chains that miss the source (a cycle) from {stray[:10]}"


def edge_weights(g) -> dict:
    """{(i, j): lightest weight} of a scipy sparse graph (duplicates: the minimum)."""
    w = {}
    c = g.tocoo()
    for a, b, x in zip(c.row, c.col, c.data, strict=True):
        w[(int(a), int(b))] = min(w.get((int(a), int(b)), np.inf), x)
    return w


def check_all_paths(w, dist, pred, combine=sum):
    """Every path ``reconstruct_path`` gives from ``pred`` exists and has length
    ``dist`` (its edge weights in ``w`` folded with ``combine``)."""
    n = dist.shape[0]
    for i in range(n):
        for j in range(n):
            path = kleene.reconstruct_path(pred, i, j)
            if i == j:
                assert path == [i]
            elif not np.isfinite(dist[i, j]):
                assert path == []
            else:
                assert path[0] == i and path[-1] == j
                total = combine(w[(a, b)] for a, b in zip(path, path[1:], strict=False))
                assert np.isclose(total, dist[i, j]), (i, j, path)


def record_in_edges(monkeypatch, owner) -> list[bool]:
    """Wrap ``owner.tight_parents`` (a back end module): the returned list gets, per
    call, whether the parent pass was given in-edges (``in_edges``) to read."""
    seen: list[bool] = []
    real = owner.tight_parents

    def spy(*args, in_edges=None):
        seen.append(in_edges is not None)
        return real(*args, in_edges=in_edges)

    monkeypatch.setattr(owner, "tight_parents", spy)
    return seen


def min_parents(g: sp.csr_matrix, levels: np.ndarray) -> np.ndarray:
    """Each reached vertex's smallest in-neighbour one level up (BFS parents by the
    min_first rule), by NumPy over the edges of ``g``; -1 where none."""
    coo = g.tocoo()
    u, v = coo.row.astype(np.int64), coo.col.astype(np.int64)
    hit = (levels[u] >= 0) & (levels[v] == levels[u] + 1)
    parents = np.full(g.shape[0], np.iinfo(np.int64).max)
    np.minimum.at(parents, v[hit], u[hit])
    parents[parents == np.iinfo(np.int64).max] = -1
    return parents
