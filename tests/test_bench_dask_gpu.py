"""benchmarks/bench_dask_gpu.py (issues 16, 44): the harness on two CPU workers at
its --quick sizes: every row timed, every cluster answer checked against the
in-process baseline, speed-ups computed against it."""

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
    out = tmp_path_factory.mktemp("dask") / "dask_cpu.json"
    run_main("bench_dask_gpu", ["--cpu", "--quick", "--gpus", "2", "--out", str(out)])
    return json.loads(out.read_text())


def test_every_row_timed_and_checked(smoke):
    rows = {(r["row"], r["n"]): r for r in smoke["rows"]}
    assert all("error" not in r for r in rows.values())
    assert all(r["best s"] > 0 and r["cold s"] > 0 for r in rows.values())
    apsp = rows["apsp fp32 dense, dask", 768]
    sssp = rows["sssp 16 sources, dask, loaded graph, dask.array result", 1024]
    for r in (apsp, sssp):
        assert r["gpus"] == 2 and r["ok"] is True
        assert r["speed-up vs in-process (best)"] > 0
        for stream in ("task stream", "task stream, cold call"):  # where the time went
            kinds = r[stream]["compute s by kind"]
            assert kinds and all(v >= 0 for v in kinds.values())
    assert "rest" in apsp["task stream, cold call"]["compute s by kind"]  # trailing updates
    assert "sources" in sssp["task stream, cold call"]["compute s by kind"]
    assert apsp["blocks between workers"] and "chunks" in apsp["input placement"]
    assert rows["apsp fp32 dense, dask", 1024]["gpus"] == 2  # the all-workers size, no baseline


def test_speedups_listed_for_the_baselined_rows(smoke):
    listed = {(s["row"], s["n"]) for s in smoke["speedups"]}
    assert listed == {
        ("apsp fp32 dense, dask", 768),
        ("sssp 16 sources, dask, loaded graph, dask.array result", 1024),
    }
