"""``--out`` never loses data, and multi-source runs and large writes show progress.

In-process runs of ``kleene.__main__.main``: an existing file is replaced only with
--force and the input graph never; files get the umask's permissions; a result
the disk or memory cannot take is refused before any work; chunked multi-source
runs give the one-call answer.
"""

from __future__ import annotations

import doctest
import os
import re
import stat

import numpy as np
import pytest

import kleene
import kleene.cli
import kleene.io
import kleene.io._atomic
import kleene.io.results
from kleene.__main__ import main
from kleene.generators import from_spec
from kleene.io._atomic import atomic_file
from kleene.io.results import size_needed, write_result

TINY = "p sp 4 5\na 1 2 4\na 1 3 1\na 3 2 2\na 2 4 1\na 3 4 7\n"


def run_main(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def one_line(rc, err, *parts, code=2):
    assert rc == code and "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    for p in parts:
        assert p in err, err


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.gr"
    path.write_text(TINY)
    return path


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a path command starts computing: the checks must come first."""

    def fail(*a, **k):
        raise AssertionError("the work started before the checks")

    for name in ("bfs", "sssp", "apsp", "transitive_closure"):
        monkeypatch.setattr(kleene, name, fail)


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# ---- an existing file, the input graph, an empty name ---------------------------------


def test_existing_out_needs_force(tmp_path, tiny, capsys):
    out = tmp_path / "d.npy"
    out.write_bytes(b"precious")
    rc, _, err = run_main(capsys, "sssp", tiny, "--out", out)
    one_line(rc, err, f"kleene sssp: --out {out} exists; pass --force to replace it")
    assert out.read_bytes() == b"precious"
    out.chmod(0o640)
    rc, stdout, err = run_main(capsys, "sssp", tiny, "--out", out, "--force", "--no-progress")
    assert rc == 0 and err == "" and f"wrote {out}" in stdout
    np.testing.assert_array_equal(np.load(out), [0.0, 3.0, 1.0, 4.0])
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # a replaced file keeps its mode
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("how", ["same path", "relative", "symlink", "hard link"])
def test_input_graph_is_never_overwritten(tmp_path, capsys, monkeypatch, how):
    graph = tmp_path / "g.txt"  # a SNAP edge list: .txt is also an --out format
    graph.write_text("0 1\n1 2\n2 0\n")
    out = graph
    if how == "relative":
        monkeypatch.chdir(tmp_path)
        out = "./sub/../g.txt"
        (tmp_path / "sub").mkdir()
    elif how == "symlink":
        out = tmp_path / "link.txt"
        out.symlink_to(graph)
    elif how == "hard link":
        out = tmp_path / "hard.txt"
        os.link(graph, out)
    rc, _, err = run_main(capsys, "bfs", graph, "--out", out, "--force")
    one_line(rc, err, "is the input graph", "never writes over its input, not even with --force")
    assert graph.read_text() == "0 1\n1 2\n2 0\n"


@pytest.mark.parametrize("name", ["", "  "])
def test_empty_out_is_refused(capsys, no_work, name):
    rc, _, err = run_main(capsys, "apsp", "er:20", "--out", name)
    one_line(rc, err, "kleene apsp: --out needs a file name, got an empty one")


def test_new_file_follows_the_umask(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        for ext in (".npy", ".npz", ".csv", ".txt"):
            out = tmp_path / f"a{ext}"
            assert run_main(capsys, "apsp", "grid:3x3", "--out", out)[0] == 0
            assert stat.S_IMODE(out.stat().st_mode) == 0o644, ext
        os.umask(0o077)
        out = tmp_path / "private.npy"
        assert run_main(capsys, "apsp", "grid:3x3", "--out", out)[0] == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_file_appearing_during_the_run_is_kept(tmp_path, tiny, capsys, monkeypatch):
    out = tmp_path / "d.npy"
    real = kleene.sssp

    def meanwhile(*a, **k):
        out.write_bytes(b"someone else's")
        return real(*a, **k)

    monkeypatch.setattr(kleene, "sssp", meanwhile)
    rc, _, err = run_main(capsys, "sssp", tiny, "--out", out, "--no-progress")
    one_line(rc, err, "was created by something else while kleene ran", "--force")
    assert out.read_bytes() == b"someone else's" and leftovers(tmp_path) == []


def test_ctrl_c_while_writing_keeps_the_old_file(tmp_path, tiny, capsys, monkeypatch):
    out = tmp_path / "d.npz"
    out.write_bytes(b"old result")

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(kleene.io.results, "_write_npy", interrupted)
    rc, _, err = run_main(capsys, "sssp", tiny, "--out", out, "--force")
    assert rc == 130 and err == "kleene: interrupted\n"
    assert out.read_bytes() == b"old result" and leftovers(tmp_path) == []


# ---- disk and memory, checked before computing -----------------------------------------


@pytest.mark.parametrize(
    "args,ext,need",
    [
        (("apsp", "grid:20x20"), ".npy", 400 * 400 * 8 + 128),
        (("closure", "grid:20x20"), ".npz", 400 * 400 + 128 + 256),
        (("sssp", "grid:20x20", "--source", "0..9"), ".npy", 10 * 400 * 8 + 128),
        (("bfs", "grid:20x20"), ".csv", 400 * 2 + 400 * 2),
    ],
)
def test_full_disk_is_refused_before_computing(
    tmp_path, capsys, monkeypatch, no_work, args, ext, need
):
    seen = []

    def free(folder):
        seen.append(folder)
        return need - 1

    monkeypatch.setattr(kleene.cli, "disk_free", free)
    out = tmp_path / f"r{ext}"
    rc, _, err = run_main(capsys, *args, "--out", out)
    one_line(rc, err, f"--out {out}:", "needs", f"{need:,} bytes", f"{need - 1:,} bytes")
    assert seen == [tmp_path] and list(tmp_path.iterdir()) == []


def test_enough_disk_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(kleene.cli, "disk_free", lambda folder: 400 * 400 * 8 + 128)
    out = tmp_path / "a.npy"
    assert run_main(capsys, "apsp", "grid:20x20", "--out", out)[0] == 0
    assert out.stat().st_size <= 400 * 400 * 8 + 128  # distances: up to float64


@pytest.mark.parametrize("ext", [".npy", ".npz", ".csv", ".txt"])
@pytest.mark.parametrize("cmd", ["bfs", "sssp", "sssp-multi", "apsp", "closure"])
def test_size_needed_bounds_the_file(tmp_path, capsys, cmd, ext):
    args = {"sssp-multi": ("sssp", "--source", "0..4")}.get(cmd, (cmd,))
    preds = cmd in ("bfs", "sssp") and ext != ".npy"
    out = tmp_path / f"r{ext}"
    extra = ("--predecessors",) if preds else ()
    assert run_main(capsys, args[0], "grid:6x7", *args[1:], *extra, "--out", out)[0] == 0
    n = 42
    shape = {"apsp": (n, n), "closure": (n, n), "sssp-multi": (5, n)}.get(cmd, (n,))
    c = args[0]
    need = size_needed(ext, shape, kleene.cli._ITEMSIZE[c], kleene.cli._TEXT_CHARS[c], preds)
    size = out.stat().st_size
    if ext == ".npy" and cmd != "apsp":
        assert need == size
    elif ext in (".npy", ".npz"):
        assert need >= size  # before compression; apsp distances up to float64
    else:
        assert need <= size  # the fewest characters text takes


def test_multi_source_result_beyond_memory(capsys, monkeypatch, no_work):
    monkeypatch.setattr("kleene.backends.host_memory_free", lambda: 10_000)
    rc, _, err = run_main(capsys, "bfs", "grid:20x20", "--source", "0..99")
    one_line(
        rc,
        err,
        "kleene bfs: a 100x400 result needs 320,000 bytes",
        "10,000 bytes",
        "up to about 3 sources fit",
    )


def test_sources_checked_against_the_graph_before_work(capsys, no_work):
    rc, _, err = run_main(capsys, "sssp", "grid:3x3", "--source", "0..3,9")
    one_line(rc, err, "kleene sssp: source 9 is out of range for a graph of 9 vertices")


# ---- --source ranges and chunked multi-source runs --------------------------------------


@pytest.mark.parametrize(
    "text,want",
    [
        ("5", 5),
        ("0,4", [0, 4]),
        ("0..3", [range(0, 4)]),
        (" 2 .. 2 , 7", [range(2, 3), 7]),
    ],
)
def test_parse_source(text, want):
    assert kleene.cli.parse_source(text) == want


@pytest.mark.parametrize(
    "text,message",
    [
        ("a", "comma-separated list of ids and ranges A..B, got 'a'"),
        ("1..", "got '1..'"),
        ("3..1", "range '3..1' is empty"),
        ("-2", "not negative"),
        ("0,,1", "got '0,,1'"),
    ],
)
def test_parse_source_errors(text, message):
    with pytest.raises(kleene.cli.CliError, match=message):
        kleene.cli.parse_source(text)


@pytest.mark.parametrize("fn", [kleene.bfs, kleene.sssp], ids=["bfs", "sssp"])
def test_chunks_give_the_one_call_answer(monkeypatch, fn):
    G = from_spec("grid:9x9", seed=3)
    sources = np.array([80, 0, 7, 7, *range(30, 66)])
    monkeypatch.setattr(kleene.cli, "FIRST_CHUNK", 5)
    monkeypatch.setattr(kleene.cli, "MAX_CHUNK", 7)
    monkeypatch.setattr(kleene.cli, "MIN_CHUNK", 3)
    calls = []

    def counted(*a, **k):
        calls.append(len(a[1]))
        return fn(*a, **k)

    got, got_p = kleene.cli.run_sources(
        counted, G, sources, progress=False, label="x", return_predecessors=True
    )
    want, want_p = fn(G, sources.tolist(), return_predecessors=True)
    np.testing.assert_array_equal(got, want)
    # A row depends on its source alone (the multi-source ops' rule), so chunks
    # give the one call's predecessors exactly, ties included.
    np.testing.assert_array_equal(got_p, want_p)
    assert got_p.dtype == want_p.dtype
    assert got.dtype == want.dtype and sum(calls) == sources.size and len(calls) >= 6
    assert max(calls) <= 7


@pytest.mark.parametrize(
    "per_source,sizes",
    [
        (0.001, [64, 128, 256, 512, 512, 512, 16]),  # grows while a chunk takes < 0.5 s
        (0.05, [64] * 31 + [16]),  # never under a 64-bit word of sources
    ],
)
def test_chunk_sizes_follow_the_clock(monkeypatch, per_source, sizes):
    clock = [0.0]
    monkeypatch.setattr(kleene.cli.time, "perf_counter", lambda: clock[0])
    calls = []

    def fake(G, chunk, **kw):
        calls.append(len(chunk))
        clock[0] += per_source * len(chunk)
        return np.zeros((len(chunk), 3), np.int64)

    out = kleene.cli.run_sources(fake, None, np.arange(2000), progress=False, label="bfs")
    assert out.shape == (2000, 3) and calls == sizes


def _percents(lines: list[str]) -> list[float]:
    return [float(re.search(r"\] +([0-9.]+)%", line).group(1)) for line in lines]


def test_multi_source_run_shows_a_bar(capsys, monkeypatch):
    # No delay and no throttling: a line for each chunk, whatever the clock says.
    monkeypatch.setattr("kleene.progress.DELAY_S", 0.0)
    monkeypatch.setattr("kleene.progress._LINE_S", 0.0)
    monkeypatch.setattr(kleene.cli, "FIRST_CHUNK", 8)
    monkeypatch.setattr(kleene.cli, "MAX_CHUNK", 8)
    monkeypatch.setattr(kleene.cli, "MIN_CHUNK", 8)
    seen = []
    real = kleene.cli.run_sources

    def spy(*a, **k):
        seen.append(k["progress"])
        return real(*a, **k)

    monkeypatch.setattr(kleene.cli, "run_sources", spy)
    rc, out, err = run_main(capsys, "bfs", "grid:6x6", "--source", "0..35")
    assert rc == 0 and "reached 1296" in out and seen == [True]
    lines = err.splitlines()
    assert lines and all(line.startswith("bfs 36 sources [") for line in lines), err
    assert sum("100.0%" in line for line in lines) == 1 and "100.0%" in lines[-1]
    assert _percents(lines) == [22.2, 44.4, 66.7, 88.9, 100.0], err  # chunks of 8, then 4
    rc, out, err = run_main(capsys, "bfs", "grid:6x6", "--source", "0..35", "--no-progress")
    assert rc == 0 and err == "" and seen == [True, False]


def test_large_write_shows_progress(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("kleene.progress.DELAY_S", 0.0)
    monkeypatch.setattr("kleene.progress._LINE_S", 0.0)  # a line per slice written
    monkeypatch.setattr(kleene.io.results, "_SLICE", 4096)
    out = tmp_path / "a.npz"
    rc, _, err = run_main(capsys, "apsp", "grid:10x10", "--out", out)
    assert rc == 0 and f"writing {out.name} (0 MB) [" in err and "100.0%" in err
    writing = [line for line in err.splitlines() if line.startswith(f"writing {out.name} ")]
    percents = _percents(writing)
    assert len(percents) >= 2 and percents == sorted(percents), err
    assert percents.count(100.0) == 1 and percents[-1] == 100.0, err
    rc, _, err = run_main(capsys, "apsp", "grid:10x10", "--out", out, "--force", "--no-progress")
    assert rc == 0 and err == ""
    np.testing.assert_array_equal(np.load(out)["result"], kleene.apsp(from_spec("grid:10x10")))


# ---- the writers underneath --------------------------------------------------------------


def test_result_files_match_numpy(tmp_path):
    arrays = [
        np.arange(12.0).reshape(3, 4),
        np.array([True, False]),
        np.arange(5),
        np.zeros((0, 3)),
        np.arange(6).reshape(2, 3).T,
    ]
    for a in arrays:
        write_result(tmp_path / "a.npy", a, None, replace=True)
        if a.flags.c_contiguous:  # np.save's bytes exactly
            import io

            buf = io.BytesIO()
            np.save(buf, a)
            assert (tmp_path / "a.npy").read_bytes() == buf.getvalue()
        np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), a)
        write_result(tmp_path / "a.npz", a, np.arange(3), replace=True)
        z = np.load(tmp_path / "a.npz")
        assert z["result"].dtype == a.dtype and z["predecessors"].tolist() == [0, 1, 2]
        np.testing.assert_array_equal(z["result"], a)


def test_atomic_file(tmp_path):
    p = tmp_path / "f"
    with atomic_file(p, replace=False) as f:
        f.write(b"one")
    with pytest.raises(FileExistsError), atomic_file(p, replace=False) as f:
        f.write(b"two")
    with pytest.raises(RuntimeError), atomic_file(p, replace=True) as f:
        f.write(b"half")
        raise RuntimeError("disk on fire")
    assert p.read_bytes() == b"one" and leftovers(tmp_path) == []


def test_graph_write_that_fails_keeps_the_old_file(tmp_path):
    path = tmp_path / "g.gr"
    A = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 2.0], n=3)
    kleene.io.write(path, A)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="symmetric"):
        kleene.io.write(path, A, format="pace")  # not symmetric: refused midway
    assert path.read_bytes() == before and leftovers(tmp_path) == []
    old = os.umask(0o022)
    try:
        kleene.io.write(tmp_path / "new.mtx", A)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.mtx").stat().st_mode) == 0o644


@pytest.mark.parametrize("mod", [kleene.cli, kleene.io._atomic, kleene.io.results])
def test_docstring_examples(mod):
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
