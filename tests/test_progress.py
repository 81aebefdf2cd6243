"""Progress tells the truth: monotone, weighted by work, 100% exactly once and last,
and quiet for short work."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kleene
import kleene.progress
from kleene.algorithms import apsp_dense
from kleene.generators import erdos_renyi, grid_graph
from kleene.progress import ETA_STEPS, Progress, progress_for
from kleene.semiring import min_plus


def _record():
    seen: list[tuple[int, int]] = []
    return seen, lambda done, total: seen.append((done, total))


def _assert_truthful(seen):
    """Monotone, one total, and (total, total) exactly once, as the last call."""
    assert seen, "no progress reported"
    done = [d for d, _ in seen]
    totals = {t for _, t in seen}
    assert len(totals) == 1
    total = totals.pop()
    assert done == sorted(done)
    assert done[-1] == total and done.count(total) == 1
    assert all(0 <= d <= total for d in done)


@pytest.mark.parametrize(
    "method", ["floyd-warshall", "blocked", "recursive", "repeated-sssp", "johnson"]
)
@pytest.mark.parametrize("preds", [False, True])
def test_apsp_progress_is_monotone_and_ends_once(method, preds):
    G = erdos_renyi(40, 0.1, seed=1)
    seen, cb = _record()
    kleene.apsp(G, method=method, block_size=8, return_predecessors=preds, progress=cb)
    _assert_truthful(seen)


@pytest.mark.parametrize("reflexive", [False, True])
def test_transitive_closure_progress_covers_the_final_step(reflexive):
    seen, cb = _record()
    R = kleene.transitive_closure(grid_graph(5, 6), reflexive=reflexive, progress=cb)
    _assert_truthful(seen)
    assert R.all()  # a connected grid: every vertex reaches every other, and itself


def test_recursive_progress_is_weighted_by_multiply_adds():
    """Each step reports its share of the n³ work: 100% is not reached at the last
    leaf closure (it used to be, halfway through the run), only after the products."""
    n, base = 64, 8
    D = kleene.Matrix.from_dense(np.full((n, n), np.inf), missing=None)
    seen, cb = _record()
    apsp_dense.recursive(min_plus, D, None, base, progress=cb)
    _assert_truthful(seen)
    assert seen[-1][1] == n**3 == apsp_dense.work("recursive", n, base)
    steps = [s for s in apsp_dense._recursive_plan(0, n, base) if s[0] not in ("fork", "join")]
    assert len(seen) == len(steps)  # one report per closure or product (lanes: none)
    costs = np.cumsum([apsp_dense.step_cost(s, n) for s in steps])
    assert [d for d, _ in seen] == costs.tolist()
    last_leaf = max(i for i, s in enumerate(steps) if s[0] == "star")
    assert seen[last_leaf][0] / n**3 < 0.9  # the top-level products are still to come


def test_blocked_and_floyd_warshall_units():
    n = 20
    assert apsp_dense.work("floyd-warshall", n) == n**3
    # per round of block b: b³ (closure) + 2·n·b² (row and column) + (n - b)²·b (the
    # rest: row and column k cannot change in their own round)
    assert apsp_dense.work("blocked", n, 8) == sum(
        b**3 + 2 * n * b * b + (n - b) ** 2 * b for b in (8, 8, 4)
    )


def test_progress_finish_once_and_close_on_error():
    seen, cb = _record()
    with Progress(cb, total=3) as bar:
        bar.step(2)
        bar.step(5)  # overshoot: clamped, and 100% waits for the end
        bar.step()
    assert seen == [(2, 3), (3, 3)]
    seen.clear()
    with pytest.raises(RuntimeError), Progress(cb, total=3) as bar:
        bar.step()
        raise RuntimeError("boom")
    assert seen == [(1, 3)]  # no 100% for work that did not finish


def test_progress_for_shares_an_existing_bar():
    seen, cb = _record()
    with progress_for(cb, 10, "outer") as outer:
        with progress_for(outer, 4, "inner") as inner:
            assert inner is outer
            inner.step(4)
        assert seen == [(4, 10)]  # the inner block does not finish the outer bar
    assert seen == [(4, 10), (10, 10)]


def test_bad_progress_argument():
    with pytest.raises(TypeError, match="progress"):
        Progress("yes", 3)


def test_bar_is_quiet_for_short_work(capsys, monkeypatch):
    # On the bar's clock, stopped, the run takes no time: under DELAY_S, so nothing
    # is drawn, final 100% included (a real clock made this depend on the machine).
    monkeypatch.setattr(kleene.progress, "_clock", lambda: 0.0)
    kleene.apsp(erdos_renyi(30, seed=0), progress=True)
    assert capsys.readouterr().err == ""


def test_bar_reaches_100_percent_once(capsys, monkeypatch):
    monkeypatch.setattr(kleene.progress, "DELAY_S", 0.0)
    monkeypatch.setattr(kleene.progress, "_LINE_S", 0.0)  # a line per step, off a terminal
    kleene.apsp(erdos_renyi(30, seed=0), method="blocked", block_size=8, progress=True)
    err = capsys.readouterr().err
    final = r"100\.0%\s+\d+\.\ds( \(\d+\.\ds compiling\))?$"  # a fresh cache compiles
    assert err.count("100.0%") == 1 and re.search(final, err.rstrip())
    percents = [float(line.split("%")[0].split()[-1]) for line in err.splitlines()]
    assert percents == sorted(percents) and len(percents) > 2


# ---- on a fake clock: the delay, and the estimate of the time left ----------------
class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_bar_appears_once_the_delay_has_passed(capsys, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(kleene.progress, "_clock", clock)
    monkeypatch.setattr(kleene.progress, "_LINE_S", 0.0)  # a line per step, off a terminal
    step_s = kleene.progress.DELAY_S / 4
    with Progress(True, total=10, label="work") as bar:
        for _ in range(9):
            clock.now += step_s
            bar.step(1)
    lines = capsys.readouterr().err.splitlines()
    # steps 1-3 came before DELAY_S; from step 4 (elapsed = DELAY_S) a line each, then 100%
    percents = [float(line.split("%")[0].split()[-1]) for line in lines]
    assert percents == [40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0], lines
    assert all(line.startswith("work [") for line in lines)


def _cold_blocked_run(n=2048, b=128):
    """The steps of a blocked closure on a fresh machine, as (units, seconds, compile
    seconds): the build of D; per round a closure of b³ (10x the products' cost per
    unit), two panels and the rest, cheaper while the matrix is still sparse (the first
    eighth of the rounds); the first closure and the first panel compile their
    kernels, and each also pays a second outside the compile (typing, the cache)."""
    per_unit = 1e-9
    steps = [(4 * n * n, 0.3, 0.0)]
    rounds = n // b
    for k in range(rounds):
        fill = min(1.0, 0.1 + k / (rounds / 8))
        closure = (b**3, 10 * per_unit * b**3, 0.0)
        panel = (n * b * b, fill * per_unit * n * b * b, 0.0)
        rest = ((n - b) ** 2 * b, fill * per_unit * (n - b) ** 2 * b, 0.0)
        first_panel = panel
        if k == 0:
            closure = (closure[0], closure[1] + 1.0, 15.0)
            first_panel = (panel[0], panel[1] + 1.0, 5.0)
        steps += [closure, first_panel, panel, rest]
    return steps


def test_first_estimate_is_near_the_truth_on_a_cold_uneven_run(monkeypatch, capsys):
    """Compiles and first-step costs are left out, and slow-downs followed: the first
    "about Ns left" is within 2x of the time that really remained (it was ~100x over)."""
    clock = _Clock()
    monkeypatch.setattr(kleene.progress, "_clock", clock)
    monkeypatch.setattr(kleene.progress, "_LINE_S", 0.0)  # a line per step, off a terminal
    steps = _cold_blocked_run()
    total = sum(u for u, _, _ in steps)
    end = sum(s + c for _, s, c in steps)
    seen = []  # (time, done, estimate) at each step
    with Progress(True, total, "apsp blocked") as bar:
        for units, seconds, compile_s in steps:
            if compile_s:
                with kleene.progress.one_time():
                    clock.now += compile_s
            clock.now += seconds
            bar.step(units)
            seen.append((clock.now, bar.done, bar.seconds_left()))
    first = next((t, d, e) for t, d, e in seen if e is not None)
    t, done, estimate = first
    true_left = end - t
    naive = t * (total - done) / done  # the old estimate: everything so far counted
    assert naive > 10 * true_left  # the scenario is one that fooled it
    assert true_left / 2 <= estimate <= 2 * true_left, (first, true_left)
    for t, _, e in seen:  # and every later estimate stays within 2x while > 1 s remains
        if e is not None and end - t > 1:
            assert (end - t) / 2 <= e <= 2 * (end - t), (t, e, end - t)
    lines = capsys.readouterr().err.splitlines()
    shown = [line for line in lines if "left" in line]
    assert shown and all("(20.0s compiling)" in line for line in shown)
    eta = int(re.search(r"about (\d+)s left", shown[0]).group(1))
    assert true_left / 2 <= eta <= 2 * true_left


def test_no_estimate_from_the_first_step_or_a_compiling_one(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(kleene.progress, "_clock", clock)
    bar = Progress(None, total=100)
    for _ in range(3):
        clock.now += 1.0
        bar.step(1)
    assert bar.seconds_left() == pytest.approx(97 * 1.0)  # 2 steps timed over 2 s
    with kleene.progress.one_time():  # a step that compiles: the rate starts again after it
        clock.now += 50.0
    clock.now += 1.0
    bar.step(1)
    assert bar.seconds_left() is None
    for _ in range(ETA_STEPS):
        clock.now += 0.5
        bar.step(1)
    assert bar.seconds_left() == pytest.approx(94 * 0.5)


def test_numba_compiles_count_as_one_time_work():
    numba = pytest.importorskip("numba")
    Progress(True, total=1)  # a bar watches Numba's compiles
    before = kleene.progress.one_time_seconds()

    @numba.njit(cache=False)
    def twice(x):
        return 2 * x

    assert twice(21) == 42
    assert kleene.progress.one_time_seconds() > before


def test_the_timed_points_stay_few(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(kleene.progress, "_clock", clock)
    bar = Progress(None, total=10**6)
    for _ in range(100_000):  # a Floyd-Warshall of n = 100 000: one step a row
        clock.now += 0.001
        bar.step(1)
    assert len(bar._timed) <= 2 * kleene.progress._POINTS
    assert bar.seconds_left() == pytest.approx(900_000 * 0.001, rel=1e-3)
