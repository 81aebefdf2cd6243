"""kleene.distributed.grid_order: the order each worker runs the blocked closure in.

Pure Python (no Dask): the op graph is the blocked closure's, the schedule is a valid
order of it, and the simulated time of that order beats the submission order and
comes close to the work divided over the workers.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kleene.distributed import grid_order
from kleene.distributed.closure_grid import _owner


def _plan(nb: int, workers: int, ipc: bool, last: int | None = None):
    names = [f"w{k}" for k in range(workers)]
    sizes = [8] * nb
    if last is not None:
        sizes[-1] = last
    ops, final = grid_order.closure_ops(sizes, lambda i, j: _owner(names, i, j), ipc)
    lat = grid_order.LATENCY_IPC if ipc else grid_order.LATENCY_COMM
    return ops, final, grid_order.schedule(ops, lat), lat


@settings(max_examples=60, deadline=None)
@given(
    nb=st.integers(1, 7),
    workers=st.integers(1, 6),
    ipc=st.booleans(),
    last=st.none() | st.integers(1, 8),
)
def test_schedule_is_an_order_of_every_op_after_its_inputs(nb, workers, ipc, last):
    ops, final, order, _ = _plan(nb, workers, ipc, last)
    assert sorted(order) == list(range(len(ops)))
    seen = set()
    for x in order:
        assert all(a in seen for a in ops[x].args), ops[x]
        seen.add(x)
    # every block is written by one star/row/column/rest a round, in round order
    for (i, j), x in final.items():
        assert ops[x].block == (i, j)
        assert ops[x].kind == ("star" if i == j else "rest") or nb == 1 or ops[x].k == nb - 1
    per_round = nb * nb
    assert sum(op.kind in ("star", "row", "column", "rest") for op in ops) == nb * per_round


def test_copies_only_where_a_block_is_read_off_its_owner():
    ops, _, _, _ = _plan(4, 2, ipc=True)
    for op in ops:
        for a in op.args:
            src = ops[a]
            if op.kind == "fetch":
                assert src.kind == "export" and src.worker != op.worker
            elif op.kind != "export":  # an update reads its own worker's results only
                assert src.worker == op.worker, (op, src)
    ops, _, _, _ = _plan(4, 2, ipc=False)
    assert not any(op.kind in ("export", "fetch") for op in ops)


@pytest.mark.parametrize("nb, workers", [(8, 2), (4, 2), (8, 4), (6, 3), (12, 4)])
@pytest.mark.parametrize("ipc", [True, False])
def test_schedule_keeps_the_workers_busy(nb, workers, ipc):
    """Simulated: close to the busiest worker's work (a lower bound; the first round's
    closure, which no other task can overlap, weighs more in fewer rounds), and no
    slower than the tasks in submission order."""
    ops, _, order, lat = _plan(nb, workers, ipc)
    per_worker: dict[str, float] = {}
    for op in ops:
        per_worker[op.worker] = per_worker.get(op.worker, 0.0) + op.cost
    bound = max(per_worker.values())
    got = grid_order.makespan(ops, order, lat)
    assert got <= grid_order.makespan(ops, list(range(len(ops))), lat) + 1e-9
    assert bound <= got <= (1 + 0.6 / nb) * bound, (got, bound)


def test_two_workers_run_the_next_pivot_early():
    """Round k + 1's pivot closure starts before round k's last trailing update on the
    other worker ends (look-ahead), so no worker waits a whole closure each round."""
    ops, _, order, lat = _plan(8, 2, ipc=True)
    pos = {x: p for p, x in enumerate(order)}
    star = {op.k: x for x, op in enumerate(ops) if op.kind == "star"}
    rest = {}
    for x, op in enumerate(ops):
        if op.kind == "rest":
            rest[op.k] = max(rest.get(op.k, -1), pos[x])
    assert all(pos[star[k + 1]] < rest[k] for k in range(7))
    assert math.isfinite(grid_order.makespan(ops, order, lat))
