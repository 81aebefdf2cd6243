"""The command line end to end on the CPU: files and generator specs, outputs, errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from graph_data import data_file, load_scipy
from scipy.sparse.csgraph import shortest_path

ROOT = Path(__file__).resolve().parents[1]


def kleene(*args, check=True):
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "kleene", *map(str, args)], capture_output=True,
                       text=True, env=env, cwd=ROOT)  # fmt: skip
    if check:
        assert r.returncode == 0, r.stderr
    return r


def test_sssp_file_to_npy(tmp_path):
    path = data_file("rome99.gr")
    out = tmp_path / "d.npy"
    r = kleene("sssp", path, "--source", 5, "--out", out, "--no-progress")
    assert "3353 vertices" in r.stdout and "reached 3353" in r.stdout
    np.testing.assert_allclose(np.load(out), shortest_path(load_scipy("rome99.gr"), indices=5))


def test_bfs_road_graph():
    r = kleene("bfs", data_file("USA-road-NY.pace.gr.xz"), "--method", "push")
    assert "264346 vertices" in r.stdout and "reached 264346" in r.stdout


def test_apsp_spec_with_predecessors(tmp_path):
    out = tmp_path / "a.npz"
    kleene("apsp", "er:60:0.2", "--predecessors", "--out", out)
    z = np.load(out)
    assert z["result"].shape == (60, 60) and z["predecessors"].shape == (60, 60)


def test_closure_and_text_output(tmp_path):
    out = tmp_path / "c.txt"
    r = kleene("closure", "grid:4x4", "--out", out)
    assert "reachable pairs 256" in r.stdout
    assert np.loadtxt(out).shape == (16, 16)


def test_multi_source_bfs():
    r = kleene("bfs", "grid:5x5", "--source", "0,24", "--undirected")
    assert "reached 50" in r.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (("sssp", "/no/such/file.gr"), "no such file"),
        (("sssp", "grid:3x3", "--source", "99"), "out of range"),
        (("bfs", "grid:3x3", "--method", "sideways"), "method"),
    ],
)
def test_errors(args, message):
    r = kleene(*args, check=False)
    assert r.returncode != 0 and message in (r.stderr + r.stdout)


def test_help_lists_commands():
    r = kleene("--help")
    for cmd in ("demo", "info", "bfs", "sssp", "apsp", "closure"):
        assert cmd in r.stdout
