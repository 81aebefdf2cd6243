"""The dense closures' lanes: their steps may run in any interleaving the lanes allow.

Blocked: between a fork and the next join the side lane (block row and column k + 1,
then round k + 1's pivot) runs beside the main lane's pass 3 of round k. Recursive:
A21's products beside A12's. Checked here on
the plan itself, cell by cell: no two steps that the lanes let run together write
what the other reads or writes; and by running the steps in other orders the lanes
allow, against SciPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

import kleene
from kleene import Matrix
from kleene.algorithms import apsp_dense
from kleene.semiring import get_semiring


def _cells(rows: slice, cols: slice, n: int) -> set[tuple[int, int]]:
    return {(i, j) for i in range(*rows.indices(n)) for j in range(*cols.indices(n))}


def _reads_writes(step, n: int):
    if step[0] == "star":
        c = _cells(step[1], step[1], n)
        return c, c
    a, b, c = step[1:]
    return _cells(*a, n) | _cells(*b, n) | _cells(*c, n), _cells(*c, n)


def _graph(plan):
    """The plan's steps, each with the set of steps that must run before it (its
    lane's order, forks and joins) as a bitmask: [(lane, step, before)]."""
    nodes, last, pending = [], {}, {}
    for item in plan:
        if item[0] == "fork":  # after all main has issued or waits for (its joins too)
            pending.setdefault(item[1], []).extend([last.get("main"), *pending.get("main", [])])
            continue
        if item[0] == "join":
            pending.setdefault("main", []).append(last.get(item[1]))
            continue
        lane, step = (item[1], item[2]) if item[0] == "on" else ("main", item)
        before = 0
        for p in [last.get(lane), *pending.pop(lane, [])]:
            if p is not None:
                before |= (1 << p) | nodes[p][2]
        last[lane] = len(nodes)
        nodes.append((lane, step, before))
    end = nodes[-1][2] | (1 << (len(nodes) - 1)) if nodes else 0
    for lane, at in last.items():  # the plan ends on the main lane, every lane joined
        assert (end >> at) & 1 and nodes[-1][0] == "main", f"lane {lane} is not joined"
    return nodes


PLANS = {
    "blocked": lambda n, b: apsp_dense._blocked_plan(n, b),
    "recursive": lambda n, b: apsp_dense._recursive_plan(0, n, b),
    "recursive-lower": lambda n, b: apsp_dense._recursive_plan(0, n, b, True),
}


@pytest.mark.parametrize("method", sorted(PLANS))
@pytest.mark.parametrize("n,block", [(23, 5), (20, 8), (16, 4), (9, 9), (7, 3), (1, 4), (40, 6)])
def test_steps_that_may_run_together_touch_disjoint_cells(method, n, block):
    nodes = _graph(list(PLANS[method](n, block)))
    assert {lane for lane, _, _ in nodes} <= {"main", "side"}
    rw = [_reads_writes(step, n) for _, step, _ in nodes]
    together = 0
    for j, (_, _, before_j) in enumerate(nodes):
        for i in range(j):
            if (before_j >> i) & 1:
                continue  # i runs before j
            together += 1
            (ri, wi), (rj, wj) = rw[i], rw[j]
            assert not (wi & (rj | wj)) and not (wj & ri), (nodes[i][:2], nodes[j][:2])
    if -(-n // block) > 2 and method != "recursive-lower":
        assert together > 0  # the lanes do overlap


@pytest.mark.parametrize("n,block", [(23, 5), (20, 8), (31, 4)])
def test_pass_three_never_reads_what_it_writes(n, block):
    """Only a pivot's row and column (A or B the diagonal block) overlap their output
    (the kernels copy that operand); every pass-3 product reads other cells."""
    count = 0
    for step in apsp_dense._blocked_plan(n, block):
        inner = step[2] if step[0] == "on" else step
        if inner[0] != "acc" or any(x[0] == x[1] for x in inner[1:3]):
            continue
        count += 1
        reads = _cells(*inner[1], n) | _cells(*inner[2], n)
        assert not reads & _cells(*inner[3], n), inner
    assert count > 0


def _run_reordered(plan, D: Matrix, sr, prefer: list[str]) -> None:
    """The plan on the CPU in another order its lanes allow: among the steps whose
    predecessors have run, always one of the first lane in ``prefer``."""
    blocks = apsp_dense._Blocks(D, None)
    nodes = _graph(plan)
    done = 0
    while done != (1 << len(nodes)) - 1:
        ready = [
            i
            for i, (_, _, before) in enumerate(nodes)
            if not (done >> i) & 1 and before & ~done == 0
        ]
        i = min(ready, key=lambda i: (prefer.index(nodes[i][0]), i))
        step = nodes[i][1]
        if step[0] == "star":
            apsp_dense._star(sr, blocks, step[1])
        else:
            apsp_dense._acc(sr, blocks, *step[1:])
        done |= 1 << i


@pytest.mark.parametrize("method", ["blocked", "recursive"])
@pytest.mark.parametrize("prefer", [["main", "side"], ["side", "main"]])
@pytest.mark.parametrize("n,block,density", [(37, 8, 0.2), (40, 7, 0.05), (64, 16, 1.0)])
def test_any_lane_order_gives_scipys_distances(n, block, density, prefer, method):
    rng = np.random.default_rng(n * 7 + block)
    w = np.where(rng.random((n, n)) < density, rng.uniform(1, 50, (n, n)), np.inf)
    np.fill_diagonal(w, 0)
    D = Matrix.from_dense(w.copy(), missing=None)
    _run_reordered(list(PLANS[method](n, block)), D, get_semiring("min_plus"), prefer)
    want = shortest_path(np.where(np.isinf(w), 0, w), method="FW")
    np.testing.assert_allclose(D.to_dense(), want, rtol=1e-12)


def test_lookahead_plan_is_the_apsp_blocked_method():
    rng = np.random.default_rng(3)
    n = 50
    w = np.where(rng.random((n, n)) < 0.1, rng.uniform(1, 9, (n, n)), np.inf)
    got = kleene.apsp(w, method="blocked", block_size=8)
    want = shortest_path(np.where(np.isinf(w), 0, w), method="D")
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_lanes_reject_an_unknown_lane_on_the_gpu_only():
    lanes = kleene.engine.Lanes(np)
    lanes.fork("side")  # the CPU has one lane: names are not looked at
    with lanes.on("anything"):
        pass
    lanes.join("side")
