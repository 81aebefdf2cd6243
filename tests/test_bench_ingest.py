"""benchmarks/bench_ingest.py (issue 11's end-to-end benchmark): a CPU smoke run on RMAT-8."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scripts import run_main  # noqa: E402

pytestmark = pytest.mark.bench  # a benchmarks/ script: CI's own step (-m bench)
ROWS = {
    "bfs_csr",
    "bfs_csr_undirected",
    "sssp_csr",
    "sssp_csr_undirected",
    "bfs_csr_4",
    "from_scipy",
    "bfs_M",
    "sssp_M",
    "bfs_M_64",
    "sssp_M_64",
    "first_call",
}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("ingest") / "ingest_cpu.json"
    run_main(
        "bench_ingest", ["--device", "cpu", "--scales", "8", "--repeats", "1", "--out", str(out)]
    )
    return out


def test_every_row_has_a_time(smoke):
    doc = json.loads(smoke.read_text())
    rows = doc["rows"]
    assert {r["key"] for r in rows} == ROWS and len(rows) == len(ROWS)
    for r in rows:
        assert r["scale"] == 8
        assert isinstance(r["median ms"], float) and r["median ms"] > 0, r
        assert r["call peak GiB"] == "n/a" and r["CSR GiB"] > 0, r
    by = {r["key"]: r for r in rows}
    assert by["bfs_M"]["GTEPS (nnz)"] == pytest.approx(2 * by["bfs_M"]["GTEPS (nnz/2)"])
    for key in ("bfs_M_64", "sssp_M_64"):
        assert by[key]["x one source"] > 0 and by[key]["target"].startswith("<=")
    assert isinstance(by["first_call"]["warm ms (same process)"], float)


def test_metadata_and_outputs(smoke):
    doc = json.loads(smoke.read_text())
    assert doc["benchmark"] == "ingest" and doc["device"] == "cpu" and doc["scales"] == [8]
    env = doc["environment"]
    for key in ("date", "python", "kleene", "numpy", "scipy", "gpu"):
        assert env[key], key
    (graph,) = doc["graphs"]
    assert graph["n"] == 256 and graph["nnz"] > 0 and graph["csr bytes"] > 0
    assert "[1, 64)" in doc["conventions"]["weights"]
    md = smoke.with_suffix(".md").read_text()
    assert "## RMAT-8" in md and "kleene.bfs(M, [64 sources])" in md
