"""benchmarks/ab_versions.py on the CPU at a tiny size: a git revision's kleene exported,
timed in its own process (the module it imported checked to be the export), the JSON
written with the rows and medians."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench  # a benchmarks/ script: CI's own step (-m bench)
ROOT = Path(__file__).resolve().parents[1]


def _git_checkout() -> bool:
    r = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True)
    return r.returncode == 0


@pytest.mark.skipif(not _git_checkout(), reason="needs the git checkout (it exports revisions)")
def test_ab_versions_times_a_revision_in_its_own_process(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "ab_versions", ROOT / "benchmarks" / "ab_versions.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "ab.json"
    mod.main(
        [
            "HEAD",
            "--device",
            "cpu",
            "--rounds",
            "2",
            "--repeat",
            "1",
            "--road-side",
            "12",
            "--data",
            str(tmp_path),
            "--out",
            str(out),
        ]
    )
    doc = json.loads(out.read_text())
    assert [(r["rev"], r["round"]) for r in doc["rows"]] == [("HEAD", 0), ("HEAD", 1)]
    keys = {f"road {t} {g}" for t in ("bfs", "sssp", "preds") for g in ("M", "U")}
    assert set(doc["medians"]["HEAD"]) == keys  # no NY file in tmp_path: its rows skipped
    assert all(v > 0 for v in doc["medians"]["HEAD"].values())
    assert doc["environment"]["kleene"]
