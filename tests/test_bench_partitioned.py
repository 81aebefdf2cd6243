"""benchmarks/bench_partitioned.py (issue 44, item 5): a CPU smoke run of the harness on
RMAT-9 with two CPU workers, every answer checked against the in-process one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scripts import run_main  # noqa: E402

pytestmark = pytest.mark.bench  # a benchmarks/ script: CI's own step (-m bench)
pytest.importorskip("distributed", reason="dask.distributed is not installed")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("partitioned") / "partitioned_cpu.json"
    argv = ["--cpu", "--scale", "9", "--gpus", "2", "--repeats", "1", "--out", str(out)]
    run_main("bench_partitioned", argv)
    return out


def test_every_row_timed_and_checked(smoke):
    rows = json.loads(smoke.read_text())["rows"]
    got = {(r["gpus"], r["algorithm"]) for r in rows}
    assert got == {(g, a) for g in (0, 2) for a in ("bfs", "pagerank", "sssp")}
    for r in rows:
        assert "error" not in r and r["best s"] > 0 and r["cold s"] > 0
        if r["gpus"]:
            assert r["ok"] is True and r["vs in-process (best)"] > 0
            assert sum(r["entries per worker"]) == json.loads(smoke.read_text())["nnz"]


def test_markdown_beside_the_json(smoke):
    md = smoke.with_suffix(".md").read_text()
    assert "partitioned, 2 CPU worker(s)" in md and "kleene in process, one CPU" in md
