"""benchmarks/gap.py end to end on the CPU at a tiny size: the six GAP kernels on the
Kronecker and uniform graphs, every kleene answer there and every peer's check ok."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench  # a benchmarks/ script: CI's own step (-m bench)
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    path = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location("gap_runner", BENCH / "gap.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out = tmp_path_factory.mktemp("gap") / "gap_cpu.json"
        mod.main(["--graphs", "kron", "urand", "--scale", "8", "--repeat", "1", "--out", str(out)])
    finally:
        sys.path[:] = path
    return out, json.loads(out.read_text())


def test_every_kernel_runs_on_every_graph(doc):
    _, d = doc
    seen = {(r["graph"], r["kernel"]) for r in d["rows"] if "kleene ms" in r}
    kernels = ("bfs", "sssp", "pagerank", "cc", "bc", "tc")
    assert seen == {(g, k) for g in ("kron", "urand") for k in kernels}
    assert d["scale"] == 8


def test_every_answer_checks(doc):
    _, d = doc
    checks = [
        (r["graph"], r["kernel"], k, v)
        for r in d["rows"]
        for k, v in r.items()
        if k.endswith(" check")
    ]
    assert any(k == "SciPy check" for *_, k, _ in checks)  # SciPy is always there
    assert [c for c in checks if c[-1] != "ok"] == []


def test_table_and_plot_written(doc):
    out, _ = doc
    assert out.with_suffix(".md").read_text().startswith("## gap_cpu")
    pytest.importorskip("matplotlib")
    assert out.with_suffix(".png").stat().st_size > 0
