"""The frontier ops (kleene.engine.frontier_bfs / frontier_bellman_ford) on the CPU:
their composed loops against scipy.sparse.csgraph, Beamer's switch, and errors.

The GPU's fused loops are checked against these composed forms in
tests/gpu/test_frontier.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from graph_data import graphs
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

import kleene
from kleene.backends import direction
from kleene.engine import frontier_bellman_ford, frontier_bfs, frontier_bfs_levels


def _graph(data, source):
    ref, _, n = data  # scipy CSR (lightest duplicates kept), raw COO, n
    return kleene.Matrix.from_scipy(ref), source % n


def _min_parent_reference(A, levels):
    """Each reached vertex's smallest in-neighbour one level up (independent of kleene ops)."""
    rows, cols, _ = A.to_coo()
    parents = np.full(A.nrows, -1, dtype=np.int64)
    for u, v in sorted(zip(rows.tolist(), cols.tolist(), strict=True)):
        if levels[v] > 0 and levels[u] == levels[v] - 1 and parents[v] == -1:
            parents[v] = u
    return parents


@settings(max_examples=40, deadline=None)
@given(
    data=graphs(),
    source=st.integers(0, 100),
    method=st.sampled_from(["push", "pull", "direction-optimizing", "auto"]),
)
def test_composed_bfs_levels_and_parents_match_scipy(data, source, method):
    A, s = _graph(data, source)
    levels, parents = frontier_bfs(A, s, parents=True, method=method)
    lv = levels.to_dense(missing=-1)
    want = shortest_path(A.to_scipy(), unweighted=True, indices=s)
    np.testing.assert_array_equal(lv, np.where(np.isinf(want), -1, want).astype(np.int64))
    np.testing.assert_array_equal(parents.to_dense(missing=-1), _min_parent_reference(A, lv))
    alone, none = frontier_bfs(A, s, method=method)
    assert none is None and alone.isequal(levels)


@settings(max_examples=30, deadline=None)
@given(
    data=graphs(),
    source=st.integers(0, 100),
    parents=st.booleans(),
    fused=st.sampled_from([None, False]),
    method=st.sampled_from(["push", "pull", "auto"]),
)
def test_dense_levels_equal_the_vectors_filled(data, source, parents, fused, method):
    """frontier_bfs_levels: frontier_bfs's Vectors as -1-filled int64 arrays, from the
    fused loop's output as it is and from the composed form."""
    A, s = _graph(data, source)
    lv, par = frontier_bfs_levels(A, s, parents=parents, method=method, fused=fused)
    levels, want_par = frontier_bfs(A, s, parents=parents, method=method, fused=fused)
    assert lv.dtype == np.int64 and lv.shape == (A.nrows,)
    np.testing.assert_array_equal(lv, levels.to_dense(missing=-1))
    if parents:
        np.testing.assert_array_equal(par, want_par.to_dense(missing=-1))
    else:
        assert par is None
    with pytest.raises(IndexError, match="frontier_bfs_levels: source"):
        frontier_bfs_levels(A, A.nrows + 3)


@settings(max_examples=40, deadline=None)
@given(data=graphs(negative=True), source=st.integers(0, 100))
def test_composed_bellman_ford_matches_scipy(data, source):
    A, s = _graph(data, source)
    try:
        want = shortest_path(A.to_scipy(), method="BF", indices=s)
    except sp.csgraph.NegativeCycleError:
        # scipy also rejects unreachable negative cycles; ours only reachable ones
        try:
            frontier_bellman_ford(A, s)
        except kleene.NegativeCycleError:
            pass
        return
    got = frontier_bellman_ford(A, s).to_dense()
    np.testing.assert_array_equal(got, want)


def test_negative_cycle_reachable_from_source_is_reported():
    A = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 1], [1.0, -3.0, 1.0], n=3)
    with pytest.raises(kleene.NegativeCycleError, match="negative cycle"):
        frontier_bellman_ford(A, 0)


def test_symmetric_promise_uses_the_matrix_as_its_transpose():
    A = kleene.Matrix.from_edges([0, 1, 1, 2], [1, 0, 2, 1], n=3)  # symmetric
    lv, _ = frontier_bfs(A, 0, method="pull", symmetric=True)
    assert lv.to_dense(missing=-1).tolist() == [0, 1, 2]


def test_direction_optimizing_switches_to_pull_and_back(monkeypatch):
    """A star: the hub's level has every edge, so Beamer's rule pulls, then pushes."""
    n = 200
    hub = np.zeros(n - 1, dtype=np.int64)
    leaves = np.arange(1, n, dtype=np.int64)
    src = np.concatenate([[n - 1], hub, leaves])  # a tail into the hub, then the star
    dst = np.concatenate([[0], leaves, hub])
    A = kleene.Matrix.from_edges(src, dst, n=n)
    seen = []
    real = kleene.engine.frontier.vxm

    def spy(*args, method="auto", **kw):
        seen.append(method)
        return real(*args, method=method, **kw)

    monkeypatch.setattr(kleene.engine.frontier, "vxm", spy)
    lv, _ = frontier_bfs(A, n - 1, method="direction-optimizing", fused=False)
    want = shortest_path(A.to_scipy(), unweighted=True, indices=n - 1)
    np.testing.assert_array_equal(lv.to_dense(missing=-1), want.astype(np.int64))
    assert seen[0] == "push" and "pull" in seen


def test_next_direction_is_beamers_rule():
    n, pull, push = 1000, direction.TO_PULL, direction.TO_PUSH
    assert direction.next_direction(False, 10, 10 * pull - 1, 5, 1, n)
    assert not direction.next_direction(False, 10, 10 * pull, 5, 1, n)
    small = n // push - 1
    assert not direction.next_direction(True, 10, 0, small, small + 1, n)  # small, shrinking
    assert direction.next_direction(True, 10, 0, small, small, n)  # small, not shrinking
    assert direction.next_direction(True, 10, 0, n // push + 1, n, n)  # shrinking, not small


def test_switch_counts_only_pushed_frontiers():
    """m_u loses the m_f of pushed frontiers only (gapbs): after a pull phase the
    tail's small frontiers are pushed, not pulled once m_u runs low."""
    s = direction.Switch(nnz=1000, n=10**6)
    assert not s.next(10, 1) and s.unexplored == 990
    assert s.next(500, 20)  # 500 * TO_PULL > 990: pull; m_u unchanged
    assert s.unexplored == 990
    assert s.next(400, 30)  # growing: stays pulling
    assert not s.next(8, 2)  # small and shrinking: push, m_u 982
    assert not s.next(8, 2) and s.unexplored == 974  # the tail stays pushed


def test_tail_after_a_pull_phase_is_pushed(monkeypatch):
    """A star (its hub's level pulls) with a long path hanging off a leaf: once the
    search is back to pushing, the path's one-vertex frontiers never pull again."""
    leaves, path = 200, 40
    hub, first = 1, 2 + leaves
    edges = [(0, hub)] + [(hub, 2 + i) for i in range(leaves)]
    edges += [(2, first)] + [(first + i, first + i + 1) for i in range(path - 1)]
    n = first + path
    src, dst = np.array(edges).T
    A = kleene.Matrix.from_edges(np.r_[src, dst], np.r_[dst, src], n=n)
    seen = []
    real = kleene.engine.frontier.vxm

    def spy(*args, method="auto", **kw):
        seen.append(method)
        return real(*args, method=method, **kw)

    monkeypatch.setattr(kleene.engine.frontier, "vxm", spy)
    lv, _ = frontier_bfs(A, 0, method="direction-optimizing", fused=False)
    want = shortest_path(A.to_scipy(), unweighted=True, indices=0)
    np.testing.assert_array_equal(lv.to_dense(missing=-1), want.astype(np.int64))
    back = seen.index("push", seen.index("pull"))
    assert seen[:2] == ["push", "pull"] and "pull" not in seen[back:], seen


def test_fused_true_needs_a_back_end_loop(monkeypatch):
    A = kleene.Matrix.from_edges([0], [1], [1.0], n=2)
    monkeypatch.setattr(kleene.backends.cpu, "bfs_levels", None)  # as with KLEENE_CPU=numpy
    with pytest.raises(ValueError, match="no fused loop"):
        frontier_bfs(A, 0, fused=True)
    lv, _ = frontier_bfs(A, 0)  # fused=None: the composed loop
    assert lv.to_dense(missing=-1).tolist() == [0, 1]


def test_frontier_ops_name_bad_arguments():
    A = kleene.Matrix.from_edges([0], [1], [1.0], n=2)
    with pytest.raises(IndexError, match="source 5 is out of range for 2 vertices"):
        frontier_bfs(A, 5)
    with pytest.raises(TypeError, match="integer vertex id"):
        frontier_bellman_ford(A, 0.5)
    with pytest.raises(ValueError, match="method must be one of"):
        frontier_bfs(A, 0, method="sideways")
    with pytest.raises(ValueError, match="square"):
        frontier_bfs(kleene.Matrix.from_edges([0], [1], n=2, ncols=3), 0)
