"""The command line end to end on the CPU: files and generator specs, outputs, errors."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from graph_data import data_file, load_scipy
from scipy.sparse.csgraph import shortest_path

from kleene import NegativeCycleError
from kleene.__main__ import describe, main
from kleene.errors import (
    DeviceUnavailable,
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
    OutOfMemory,
)
from kleene.io import GraphFileError

ROOT = Path(__file__).resolve().parents[1]


def kleene(*args, check=True):
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    r = subprocess.run(
        [sys.executable, "-m", "kleene", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
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
    # one line on stderr, the documented status, never a traceback
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"kleene {args[0]}: ") and message in r.stderr


def test_help_lists_commands():
    r = kleene("--help")
    for cmd in ("demo", "info", "bfs", "sssp", "apsp", "closure"):
        assert cmd in r.stdout


# ---- in-process: every bad input is one line on stderr, exit 2, nothing lost ----------


def run_main(capsys, *args):
    """(exit status, stdout, stderr) of ``kleene ARGS`` run in this process."""
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def assert_one_line_error(rc, err, *parts, code=2):
    assert rc == code
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    for p in parts:
        assert p in lines[0], lines[0]


@pytest.fixture
def no_loading(monkeypatch):
    """Fail the test if the graph gets loaded: the checks must come first."""

    def fail(*a, **k):
        raise AssertionError("the graph was loaded before the arguments were checked")

    monkeypatch.setattr("kleene.cli.load_graph", fail)


def test_directory_as_graph(tmp_path, capsys):
    folder = tmp_path / "graphs.gr"
    folder.mkdir()
    rc, out, err = run_main(capsys, "sssp", folder)
    assert_one_line_error(rc, err, f"kleene sssp: {folder} is a directory")
    assert out == ""


def test_gpu_without_cupy(capsys, no_loading):
    from kleene.backends.device import gpu_available

    if gpu_available():
        pytest.skip("a GPU is visible here")
    rc, _, err = run_main(capsys, "apsp", "er:50", "--device", "gpu")
    assert_one_line_error(rc, err, "kleene apsp: --device gpu needs CuPy", "--device cpu")


@pytest.mark.parametrize(
    "out,preds,message",
    [
        ("no/such/dir/d.npy", False, "the directory {tmp}/no/such/dir does not exist"),
        ("d.json", False, "unknown extension '.json'; known: .npy, .npz, .csv, .txt"),
        ("d", False, "no extension; known: .npy, .npz, .csv, .txt"),
        ("d.npy", True, ".npy holds one array; with --predecessors use .npz"),
        ("sub", False, "is a directory"),
    ],
)
def test_out_checked_before_loading(tmp_path, capsys, no_loading, out, preds, message):
    (tmp_path / "sub").mkdir()
    extra = ["--predecessors"] if preds else []
    rc, _, err = run_main(capsys, "sssp", "grid:3x3", "--out", tmp_path / out, *extra)
    assert_one_line_error(rc, err, "kleene sssp: --out", message.format(tmp=tmp_path))


def test_out_matrix_with_predecessors_needs_npz(tmp_path, capsys, no_loading):
    rc, _, err = run_main(capsys, "apsp", "grid:3x3", "--predecessors", "--out", tmp_path / "a.csv")
    assert_one_line_error(rc, err, "needs .npz")
    rc, _, err = run_main(
        capsys, "sssp", "grid:3x3", "--source", "0,1", "--predecessors", "--out", tmp_path / "a.txt"
    )
    assert_one_line_error(rc, err, "needs .npz")


def test_out_unwritable_directory(tmp_path, capsys, no_loading, monkeypatch):
    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("kleene.cli.tempfile.NamedTemporaryFile", refuse)
    rc, _, err = run_main(capsys, "apsp", "er:50", "--out", tmp_path / "d.npy")
    assert_one_line_error(rc, err, f"cannot write in {tmp_path} (Permission denied)")


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes into read-only directories"
)
def test_out_read_only_directory(tmp_path, capsys, no_loading):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        rc, _, err = run_main(capsys, "apsp", "er:50", "--out", ro / "d.npy")
    finally:
        ro.chmod(0o700)
    assert_one_line_error(rc, err, "cannot write in")


def test_absurd_generator_size(capsys):
    rc, _, err = run_main(capsys, "bfs", "rmat:40")
    assert_one_line_error(rc, err, "kleene bfs: rmat:40 is too large", "fits")


def test_bad_source(capsys, no_loading):
    rc, _, err = run_main(capsys, "sssp", "grid:3x3", "--source", "abc")
    assert_one_line_error(
        rc,
        err,
        "kleene sssp: --source must be a vertex id or a comma-separated list of ids and "
        "ranges A..B, got 'abc'",
    )


def test_keyboard_interrupt_in_process(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr("kleene.cli.run", interrupted)
    rc, _, err = run_main(capsys, "apsp", "er:50")
    assert rc == 130 and err == "kleene: interrupted\n"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_a_long_run():
    import signal

    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    # The child may inherit an ignored SIGINT (a background job): restore the default.
    proc = subprocess.Popen(
        [sys.executable, "-m", "kleene", "apsp", "er:3000"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    watchdog = threading.Timer(60, proc.kill)  # never hang the suite
    watchdog.start()
    try:
        first = proc.stderr.readline()  # the progress bar's first line: the run has begun
        assert "apsp" in first and "%" in first, first
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=30)
    finally:
        watchdog.cancel()
        proc.kill()
    assert proc.returncode == 130
    assert rest == "kleene: interrupted\n"


@pytest.mark.parametrize(
    "error",
    [
        InvalidValue("bad value"),
        IndexOutOfBound("source 9 is out of range"),
        InvalidObject("G must be a matrix"),
        DimensionMismatch("G must be square, got shape (2, 3)"),
        DomainMismatch("G must hold real edge weights, got dtype complex128"),
        OutOfMemory("apsp: needs 9.0 GiB; up to about n=100 fits"),
        FileNotFoundError(2, "No such file or directory", "g.mtx"),
        DeviceUnavailable("no GPU"),
        NegativeCycleError("apsp: the graph has a negative cycle through vertex 3"),
        GraphFileError("g.gr", 3, "expected an integer"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_expected_errors_are_one_line(capsys, monkeypatch, error):
    def fail(args):
        raise error

    monkeypatch.setattr("kleene.cli.run", fail)
    rc, _, err = run_main(capsys, "sssp", "grid:3x3")
    assert_one_line_error(rc, err, f"kleene sssp: {describe(error)}")
    assert describe(error) and "\n" not in describe(error)


def test_a_bug_keeps_its_traceback(monkeypatch):
    def bug(args):
        raise ZeroDivisionError("a bug in kleene")

    monkeypatch.setattr("kleene.cli.run", bug)
    with pytest.raises(ZeroDivisionError):
        main(["sssp", "grid:3x3"])


def test_small_graph_prints_no_progress(capsys, monkeypatch):
    # The rule: a bar stays hidden until the work has run kleene.progress.DELAY_S
    # seconds. On the bar's clock, stopped here, no time passes however slow the
    # machine (a cold process loading the compiled kernels once ran past DELAY_S).
    monkeypatch.setattr("kleene.progress._clock", lambda: 0.0)
    rc, out, err = run_main(capsys, "apsp", "er:60")
    assert rc == 0 and err == "" and "reached 3600" in out


def test_run_past_the_delay_shows_its_bar_in_order(capsys, monkeypatch):
    # The same run on a clock that moves a second at each reading: past DELAY_S, and
    # with no throttling a line per step (stderr is no terminal here).
    ticks = itertools.count()
    monkeypatch.setattr("kleene.progress._clock", lambda: float(next(ticks)))
    monkeypatch.setattr("kleene.progress._LINE_S", 0.0)
    rc, out, err = run_main(capsys, "apsp", "er:60")
    assert rc == 0 and "reached 3600" in out
    lines = err.splitlines()
    assert len(lines) >= 2 and all(line.startswith("apsp ") for line in lines), err
    percents = [float(re.search(r"\] +([0-9.]+)%", line).group(1)) for line in lines]
    assert percents == sorted(percents) and percents[0] < 100.0, err
    assert percents.count(100.0) == 1 and percents[-1] == 100.0, err


def test_csv_one_source(tmp_path, capsys):
    path = data_file("rome99.gr")
    out = tmp_path / "d.csv"
    rc, _, err = run_main(capsys, "sssp", path, "--source", 5, "--predecessors", "--out", out)
    assert rc == 0 and err == ""
    lines = out.read_text().splitlines()
    assert lines[0] == "vertex,distance,predecessor"
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    ref, ref_pred = shortest_path(load_scipy("rome99.gr"), indices=5, return_predecessors=True)
    np.testing.assert_array_equal(table[:, 0], np.arange(ref.size))
    np.testing.assert_allclose(table[:, 1], ref)
    assert table[5, 2] == -1 and (table[:, 2] >= 0).sum() == (ref_pred >= 0).sum()


def test_csv_and_txt_matrix_and_bfs_columns(tmp_path, capsys):
    a_csv, a_npy = tmp_path / "a.csv", tmp_path / "a.npy"
    assert run_main(capsys, "apsp", "grid:3x4", "--out", a_csv)[0] == 0
    assert run_main(capsys, "apsp", "grid:3x4", "--out", a_npy)[0] == 0
    assert "," in a_csv.read_text() and " " not in a_csv.read_text()
    np.testing.assert_array_equal(np.loadtxt(a_csv, delimiter=","), np.load(a_npy))
    c_csv = tmp_path / "c.csv"
    assert run_main(capsys, "closure", "grid:2x2", "--out", c_csv)[0] == 0
    assert c_csv.read_text() == "1,1,1,1\n" * 4
    b_txt = tmp_path / "b.txt"
    assert run_main(capsys, "bfs", "grid:2x2", "--predecessors", "--out", b_txt)[0] == 0
    assert b_txt.read_text().splitlines()[0] == "# vertex level parent"
    assert np.loadtxt(b_txt).tolist() == [[0, 0, -1], [1, 1, 0], [2, 1, 0], [3, 2, 1]]


def test_failed_write_leaves_no_file(tmp_path, capsys, monkeypatch):
    def disk_full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("kleene.io.results._write_npy", disk_full)
    rc, _, err = run_main(capsys, "sssp", "grid:3x3", "--out", tmp_path / "d.npy")
    assert_one_line_error(rc, err, "No space left on device")
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary
