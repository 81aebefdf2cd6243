"""Multi-source BFS (kleene.engine.frontier_bfs_multi) on the CPU: its composed loop
(one masked mxm of the (k, n) frontier per level) and the back end's fused one
(``cpu/bfs_rows.py``, one compiled search per source) against one frontier_bfs
per source and scipy.sparse.csgraph, with repeated sources, several groups of 64,
unreachable vertices and parents; kleene.bfs with a list of sources; errors.

The GPU's fused MS-BFS is checked against this composed form in
tests/gpu/test_multi_frontier.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from graph_data import graphs
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

import kleene
from kleene.engine import frontier_bfs, frontier_bfs_multi


def _min_parents(A, levels):
    """Per row, each reached vertex's smallest in-neighbour one level up (no kleene ops)."""
    rows, cols, _ = A.to_coo()
    edges = sorted(zip(rows.tolist(), cols.tolist(), strict=True))
    parents = np.full(levels.shape, -1, dtype=np.int64)
    for b, lv in enumerate(levels):
        for u, v in edges:
            if lv[v] > 0 and lv[u] == lv[v] - 1 and parents[b, v] == -1:
                parents[b, v] = u
    return parents


def _scipy_levels(A, sources):
    d = shortest_path(A.to_scipy(), unweighted=True, indices=sources).reshape(len(sources), -1)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


@settings(max_examples=40, deadline=None)
@given(
    data=graphs(),
    sources=st.lists(st.integers(0, 100), min_size=1, max_size=150),
    symmetric=st.booleans(),
    fused=st.sampled_from([False, None]),
)
def test_bfs_multi_matches_scipy_and_per_source(data, sources, symmetric, fused):
    ref, _, n = data
    if symmetric:
        ref = (ref + ref.T).tocsr()
    A = kleene.Matrix.from_scipy(ref)
    src = np.array(sources, np.int64) % n  # repeats and, past 64, several groups
    lv, par = frontier_bfs_multi(A, src, parents=True, symmetric=symmetric, fused=fused)
    assert lv.shape == par.shape == (src.size, n) and lv.dtype == par.dtype == np.int64
    np.testing.assert_array_equal(lv, _scipy_levels(A, src))
    np.testing.assert_array_equal(par, _min_parents(A, lv))
    for b in range(0, src.size, 37):  # a sample of rows against the one-source op
        one, one_par = frontier_bfs(A, int(src[b]), parents=True)
        np.testing.assert_array_equal(lv[b], one.to_dense(missing=-1))
        np.testing.assert_array_equal(par[b], one_par.to_dense(missing=-1))
    alone, none = frontier_bfs_multi(A, src, symmetric=symmetric, fused=fused)
    assert none is None and np.array_equal(alone, lv)


def test_unreachable_repeats_and_groups():
    """Two components: rows of one never reach the other; 130 sources make three groups."""
    src = [0, 1, 2, 3, 5, 6]
    dst = [1, 2, 0, 4, 6, 7]
    A = kleene.Matrix.from_edges(src, dst, n=9)  # 8 is isolated
    sources = np.arange(130) % 9
    lv, par = frontier_bfs_multi(A, sources, parents=True)
    np.testing.assert_array_equal(lv, _scipy_levels(A, sources))
    np.testing.assert_array_equal(lv[0], [0, 1, 2, -1, -1, -1, -1, -1, -1])
    np.testing.assert_array_equal(par[0], [-1, 0, 1, -1, -1, -1, -1, -1, -1])
    np.testing.assert_array_equal(lv[8], [-1] * 8 + [0])
    assert np.array_equal(lv[9], lv[0]) and np.array_equal(lv[126], lv[0])  # repeats of 0
    assert np.array_equal(par[9], par[0]) and np.array_equal(par[129], par[3])


def test_smallest_parent_one_level_up():
    # 4 is reached at level 2 through 2 and 3 (both level 1): its parent is 2.
    A = kleene.Matrix.from_edges([0, 0, 3, 2, 1], [3, 2, 4, 4, 0], n=5)
    lv, par = frontier_bfs_multi(A, [0, 1], parents=True)
    assert lv.tolist() == [[0, -1, 1, 1, 2], [1, 0, 2, 2, 3]]
    assert par.tolist() == [[-1, -1, 0, 0, 2], [1, -1, 0, 0, 2]]


def test_kleene_bfs_with_a_list_runs_the_multi_op():
    A = kleene.Matrix.from_edges([0, 1, 2, 3], [1, 2, 3, 0], n=5)
    lv, par = kleene.bfs(A, [0, 2, 0], return_predecessors=True)
    want_lv, want_par = frontier_bfs_multi(A, [0, 2, 0], parents=True)
    assert np.array_equal(lv, want_lv) and np.array_equal(par, want_par)
    und = kleene.bfs(A, [4, 1], directed=False)
    assert und.tolist() == [[-1, -1, -1, -1, 0], [1, 0, 1, 2, -1]]
    assert kleene.bfs(A, []).shape == (0, 5)


def test_no_sources_and_one_int():
    A = kleene.Matrix.from_edges([0, 1], [1, 2], n=3)
    lv, par = frontier_bfs_multi(A, [], parents=True)
    assert lv.shape == par.shape == (0, 3)
    lv, none = frontier_bfs_multi(A, 1)
    assert lv.tolist() == [[-1, 0, 1]] and none is None


def test_fused_true_needs_a_back_end_loop(monkeypatch):
    import kleene.backends.cpu as cpu

    A = kleene.Matrix.from_edges([0], [1], n=2)
    if cpu.bfs_multi is not None:  # Numba: the fused loop runs
        assert frontier_bfs_multi(A, [0], fused=True)[0].tolist() == [[0, 1]]
    monkeypatch.setattr(cpu, "bfs_multi", None)  # as with KLEENE_CPU=numpy
    with pytest.raises(ValueError, match="no fused loop"):
        frontier_bfs_multi(A, [0], fused=True)


def test_bad_arguments_are_named():
    A = kleene.Matrix.from_edges([0], [1], n=2)
    with pytest.raises(IndexError, match="source 5 is out of range for 2 vertices"):
        frontier_bfs_multi(A, [0, 5])
    with pytest.raises(IndexError, match="source -1 is out of range"):
        frontier_bfs_multi(A, [-1])
    with pytest.raises(TypeError, match="integer vertex ids"):
        frontier_bfs_multi(A, [0.5])
    with pytest.raises(TypeError, match="integer vertex ids"):
        frontier_bfs_multi(A, [[0, 1]])
    with pytest.raises(ValueError, match="square"):
        frontier_bfs_multi(kleene.Matrix.from_edges([0], [1], n=2, ncols=3), [0])
