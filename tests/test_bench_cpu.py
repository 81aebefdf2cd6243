"""benchmarks/bench_cpu.py (issue 13, the CPU back end against its baselines): a --quick
smoke run of every row group into tmp_path (data rows skipped, with a reason, where the
graph files are absent)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench  # a benchmarks/ script: CI's own step (-m bench)
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from graph_data import DATA_DIR as DATA  # noqa: E402  (KLEENE_DATA, default ../shared/data)

GROUPS = {
    "bfs_ny",
    "sssp_ny",
    "sssp_p2p",
    "rmat",
    "apsp_dense",
    "apsp_sparse",
    "closure",
    "primitives",
}
FILES = {
    "bfs_ny": ["USA-road-NY.pace.gr.xz"],
    "sssp_ny": ["USA-road-NY.pace.gr.xz"],
    "sssp_p2p": ["p2p-Gnutella08.txt"],
    "closure": ["p2p-Gnutella08.txt"],
}


def _load():
    spec = importlib.util.spec_from_file_location("bench_cpu", BENCH / "bench_cpu.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(BENCH))
    return mod


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("cpu") / "cpu_quick.json"
    _load().main(["--quick", "--data", str(DATA), "--out", str(out)])
    return out


def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0


def test_every_group_has_times_or_a_reason(smoke):
    doc = json.loads(smoke.read_text())
    rows = doc["rows"]
    assert {r["group"] for r in rows} == GROUPS
    assert not [r for r in rows if "not finished" in r.get("note", "")], "a group was killed"
    for group in GROUPS:
        sub = [r for r in rows if r["group"] == group]
        absent = [f for f in FILES.get(group, []) if not (DATA / f).exists()]
        if absent:  # the whole group is skipped, and says why
            assert all("skipped" in r["note"] and absent[0] in r["note"] for r in sub), sub
            continue
        for r in sub:  # a row skipped names a file that is indeed absent
            if r.get("note", "").startswith("skipped: "):
                name = r["note"].split("skipped: ", 1)[1].split(" not in ")[0]
                assert not (DATA / name).exists(), r
        timed = [r for r in sub if "skipped" not in r.get("note", "")]
        assert timed or group == "apsp_sparse", f"{group}: no row ran"
        for r in timed:
            assert _num(r["kleene ms"]) and r["kleene ms"] > 0, r
            assert r["meets"] in ("yes", "no", "-"), r
            if "peak memory" in r["task"]:  # bytes against the result's bytes
                assert _num(r["kleene MB"]) and _num(r["baseline MB"]) and _num(r["ratio"]), r
                continue
            assert _num(r["first call s"]) and r["runs"] >= 1, r
            if r["baseline ms"] is not None:
                assert _num(r["baseline ms"]) and _num(r["ratio"]), r
            elif "graphblas" in r["baseline"]:  # python-graphblas not importable here
                assert "not importable" in r["note"], r
            assert r.get("check", "ok") == "ok", r


def test_targets_and_memory(smoke):
    rows = json.loads(smoke.read_text())["rows"]
    by = {(r["task"], r["baseline"]): r for r in rows}
    targeted = [r for r in rows if r.get("target", "-") != "-" and r.get("ratio") is not None]
    assert targeted
    for r in targeted:
        assert r["meets"] == ("yes" if r["ratio"] <= r["target ratio"] else "no"), r
    dense = [r for (task, _), r in by.items() if task.startswith("APSP dense")]
    assert {r["task"] for r in dense} == {"APSP dense n = 128", "APSP dense n = 256"}
    assert all(r["target"] == "<= 1x" for r in dense)
    if (DATA / "p2p-Gnutella08.txt").exists():
        (mem,) = [r for r in rows if r["task"].endswith("peak memory")]
        assert _num(mem["kleene MB"]) and mem["baseline MB"] == pytest.approx(1.0)  # 1000^2
        assert mem["target"].startswith("<= 3x result + 100 MB")


def test_environment_and_outputs(smoke):
    doc = json.loads(smoke.read_text())
    assert doc["benchmark"] == "cpu" and doc["quick"] is True and doc["statistic"] == "min"
    env = doc["environment"]
    for key in ("date", "python", "kleene", "numpy", "scipy", "cpu count", "numba"):
        assert env[key], key
    assert "python-graphblas" in env
    assert set(doc["groups"]) == GROUPS and doc["conventions"]["time"]
    md = smoke.with_suffix(".md").read_text()
    assert "## apsp_dense" in md and "| task |" in md
    try:
        import matplotlib  # noqa: F401  (optional: the plot is skipped without it)
    except ImportError:
        return
    assert smoke.with_suffix(".png").stat().st_size > 0


def test_unknown_group_is_refused():
    with pytest.raises(SystemExit):
        _load().main(["--rows", "bfs_ny,nope", "--out", "/nonexistent/x.json"])
