"""The paper-table benchmark runner (benchmarks/papers.py): quick preset, CPU, tiny budget."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench  # a benchmarks/ script: CI's own step (-m bench)
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def papers():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("papers_runner", BENCH / "papers.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # dataclasses look their module up
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.path.remove(str(BENCH))
        sys.modules.pop("papers_runner", None)


@pytest.fixture(scope="module")
def quick_run(papers, tmp_path_factory):
    out = tmp_path_factory.mktemp("papers") / "papers_cpu.json"
    argv = ["--preset", "quick", "--tables", "katz,singh", "--device", "cpu"]
    # No time budget: which tools run must not depend on the clock (a cold first call,
    # compiling kernels, once went over a budget of seconds and kleene's rows were skipped).
    papers.main([*argv, "--budget", "inf", "--out", str(out)])
    return out


def test_quick_preset_writes_json_and_markdown(quick_run):
    doc = json.loads(quick_run.read_text())
    assert doc["preset"] == "quick" and doc["tables"] == ["katz", "singh"]
    assert "python" in doc["environment"]
    tables = {r["table"] for r in doc["rows"]}
    assert tables == {"katz", "singh"}
    md = quick_run.with_suffix(".md").read_text()
    assert "## katz" in md and "## singh" in md and " paper |" in md
    # the paper's numbers sit beside ours
    katz = [r for r in doc["rows"] if r["table"] == "katz"]
    assert [r["n"] for r in katz] == [64, 128, 256]
    assert "SM-GPU 0.0014 s" in katz[0]["paper"]


def test_every_kleene_result_matches_scipy(quick_run):
    doc = json.loads(quick_run.read_text())
    ran = [r for r in doc["rows"] if r.get("checks")]
    assert ran, "no row ran"
    for r in ran:
        kleene_checks = {k: v for k, v in r["checks"].items() if k.startswith("kleene")}
        assert kleene_checks, r
        assert all(v == "OK" for v in kleene_checks.values()), r
        assert r["check"] == "OK", r
        for k in kleene_checks:
            assert isinstance(r[f"{k} ms"], float)


def test_plot_written_when_matplotlib_present(quick_run):
    pytest.importorskip("matplotlib")
    assert quick_run.with_name(f"{quick_run.stem}_katz.png").stat().st_size > 0


@pytest.mark.parametrize("task", ["BFS", "SSSP"])
def test_bfs_sssp_rows_with_every_tool(papers, task):
    from kleene.generators import random_graph

    case = papers.Case("t", "random", task, 500, lambda s: random_graph(500, 4, seed=s))
    state = {"over": set(), "last": {}}
    row = papers.run_case(case, 1, 1, ["cpu"], math.inf, 2, 10_000, state)  # no time budget
    assert row["check"] == "OK", row
    assert row["checks"]["kleene cpu"] == "OK"
    assert isinstance(row["scipy ms"], float)
    for tool, module in (("graphblas", "graphblas"), ("networkx", "networkx")):
        if importlib.util.find_spec(module) is None:
            assert row[f"{tool} ms"].startswith("n/a")
        else:
            assert row["checks"][tool] == "OK"


def test_over_budget_tool_is_skipped_at_larger_sizes(papers):
    from kleene.generators import random_graph

    case = papers.Case("t", "random", "BFS", 300, lambda s: random_graph(300, 4, seed=s))
    state = {"over": {(case.series, "scipy")}, "last": {(case.series, "kleene cpu"): (10, 1e3)}}
    row = papers.run_case(case, 1, 1, ["cpu"], 1.0, 1, 0, state)
    assert row["scipy ms"] == papers.OVER
    assert row["kleene cpu ms"].startswith("skipped (predicted")
    assert row["networkx ms"].startswith(("skipped", "n/a"))


def test_missing_data_file_is_a_note(papers, tmp_path):
    cases = papers.BUILDERS["singh"]("quick", tmp_path)
    assert cases[0].build is None
    row = papers.run_case(cases[0], 1, 1, ["cpu"], 1.0, 1, 0, {"over": set(), "last": {}})
    assert "not in data dir" in row["note"] and "PEBA 1.08 ms" in row["paper"]
