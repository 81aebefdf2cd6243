"""benchmarks/bench_paths.py end to end on the CPU at tiny sizes (a few seconds): every road
row there, checked against SciPy, the JSON and markdown written."""

from __future__ import annotations

import importlib.util
import json
import lzma
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.bench  # a benchmarks/ script: CI's own step (-m bench)
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    path = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location(
            "bench_paths_runner", BENCH / "bench_paths.py"
        )
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.path[:] = path


def _tiny_ny(folder: Path) -> None:
    """A 12×15 grid as DIMACS/PACE text under New York's file name (PACE ids from 1)."""
    ids = np.arange(12 * 15).reshape(12, 15) + 1
    a = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    b = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    text = f"p tw {ids.size} {a.size}\n" + "".join(f"{u} {v}\n" for u, v in zip(a, b, strict=True))
    (folder / "USA-road-NY.pace.gr.xz").write_bytes(lzma.compress(text.encode()))


@pytest.fixture(scope="module")
def doc(bench, tmp_path_factory):
    folder = tmp_path_factory.mktemp("paths")
    _tiny_ny(folder)
    out = folder / "paths_cpu.json"
    argv = ["--device", "cpu", "--scale", "7", "--sources", "2", "--road-size", "900"]
    bench.main([*argv, "--repeat", "1", "--no-graphblas", "--data", str(folder), "--out", str(out)])
    return out, json.loads(out.read_text())


def test_every_road_row_is_there_and_checked(doc):
    _, d = doc
    rows = d["rows"]
    for graph, levels in (("NY road", 11 + 14), ("road:30x30", None)):
        for task in ("BFS", "SSSP", "SSSP+preds"):
            mine = [r for r in rows if r["task"] == f"{task} {graph}" and r["device"] == "cpu"]
            assert len(mine) == 1, (task, graph)
            r = mine[0]
            assert r["check"] == "OK" and r["input"] == "scipy CSR", r
            assert r["ms"] > 0 and r["ms prebuilt Matrix"] > 0
            assert levels is None or r["levels"] == levels
            scipy = [b for b in rows if b["task"] == r["task"] and b["device"].startswith("scipy")]
            assert len(scipy) == 1 and r["speedup vs scipy"] == pytest.approx(
                scipy[0]["ms"] / r["ms"]
            )
        bfs = next(r for r in rows if r["task"] == f"BFS {graph}")
        assert bfs["us_per_level"] == pytest.approx(1e3 * bfs["ms"] / bfs["levels"])
        preds = next(r for r in rows if r["task"] == f"SSSP+preds {graph}")
        sssp = next(r for r in rows if r["task"] == f"SSSP {graph}")
        assert preds["x without preds"] == pytest.approx(preds["ms"] / sssp["ms"])
    assert not any("graphblas" in r["device"] for r in rows)  # --no-graphblas
    road = d["road graphs"]["road:30x30"]
    assert road["levels"] >= 0.9 * 58 and 800 < road["vertices"] < 900


def test_rmat_rows_and_files(doc):
    out, d = doc
    tasks = {r["task"] for r in d["rows"]}
    assert {"BFS rmat7", "SSSP rmat7"} <= tasks
    assert "python" in d["environment"] and "date" in d["environment"]
    assert "| SSSP+preds road:30x30 | cpu |" in out.with_suffix(".md").read_text()
    if importlib.util.find_spec("matplotlib") is not None:
        assert out.with_suffix(".png").stat().st_size > 0
