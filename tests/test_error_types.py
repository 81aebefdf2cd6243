"""kleene's typed errors: each is raised where it should be, is also the builtin a
caller caught before (``except ValueError`` keeps working), and the CLI reports
kleene's own errors as one line while a bug keeps its traceback."""

from __future__ import annotations

import doctest
import pickle
import subprocess
import sys

import numpy as np
import pytest

import kleene
import kleene.errors
from kleene.__main__ import main
from kleene.backends.device import gpu_available
from kleene.errors import (
    DeviceUnavailable,
    DimensionMismatch,
    DomainMismatch,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
    KleeneError,
    NegativeCycleError,
    OutOfMemory,
)

FAMILY = [
    (DimensionMismatch, ValueError),
    (DomainMismatch, TypeError),
    (InvalidValue, ValueError),
    (InvalidObject, TypeError),
    (IndexOutOfBound, IndexError),
    (NegativeCycleError, ValueError),
    (OutOfMemory, MemoryError),
    (DeviceUnavailable, RuntimeError),
]


@pytest.mark.parametrize("cls,builtin", FAMILY, ids=lambda c: c.__name__)
def test_each_class_is_a_kleene_error_and_its_builtin(cls, builtin):
    assert issubclass(cls, KleeneError) and issubclass(cls, builtin)
    e = cls("a message")
    assert str(e) == "a message"


def test_errors_module_is_reachable_but_not_in_the_top_level_namespace():
    code = (
        "import kleene; print(kleene.errors.DimensionMismatch.__name__, "
        "'DimensionMismatch' in kleene.__all__, hasattr(kleene, 'DimensionMismatch'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["DimensionMismatch", "False", "False"]


def test_errors_module_doctests_pass():
    result = doctest.testmod(kleene.errors)
    assert result.attempted >= 2 and result.failed == 0


# ---- where each is raised ---------------------------------------------------------


def _graph(n=3):
    return kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 2.0], n=n)


def _start(n=3):
    return kleene.Vector.from_coo([0], [0.0], n)


def test_mismatched_mxv_is_a_dimension_mismatch():
    u = kleene.Vector.from_coo([0], [1.0], 4)
    with pytest.raises(DimensionMismatch, match=r"mxv: A is \(3, 3\) but u has size 4"):
        kleene.mxv(_graph(), u, "min_plus")
    with pytest.raises(ValueError):  # what a caller caught before
        kleene.mxv(_graph(), u, "min_plus")


def test_mismatched_shapes_elsewhere_are_dimension_mismatches():
    A, B = _graph(3), _graph(4)
    with pytest.raises(DimensionMismatch, match="shapes differ"):
        kleene.ewise_add(A, B, "min")
    with pytest.raises(DimensionMismatch, match="inner dimensions differ"):
        kleene.mxm(kleene.Matrix.empty((2, 3)), kleene.Matrix.empty((2, 3)), "min_plus")
    with pytest.raises(DimensionMismatch, match="must be square"):
        kleene.closure(kleene.Matrix.from_dense(np.zeros((2, 3)), missing=None), "min_plus")
    with pytest.raises(DimensionMismatch, match="mask shape"):
        kleene.mxv(
            _graph(),
            kleene.Vector.from_coo([0], [0.0], 3),
            "min_plus",
            mask=kleene.Vector.from_coo([0], [1.0], 4).S,
        )


@pytest.mark.parametrize(
    "call",
    [
        lambda: kleene.mxv(_graph(), _start(), "no_such_semiring"),
        lambda: kleene.ewise_add(_graph(), _graph(), "no_such_op"),
        lambda: kleene.mxv(_graph(), _start(), "min_plus", method="sideways"),
        lambda: kleene.frontier_bfs(_graph(), 0, method="sideways"),
        lambda: kleene.Vector.from_coo([0], [1.0], -1),
        lambda: kleene.Matrix.empty((2, 2), format="coo"),
    ],
    ids=["semiring", "binary op", "mxv method", "bfs method", "negative size", "format"],
)
def test_unknown_names_and_bad_values_are_invalid_values(call):
    with pytest.raises(InvalidValue) as info:
        call()
    assert isinstance(info.value, ValueError)


def test_unknown_semiring_keeps_its_message():
    with pytest.raises(InvalidValue, match="unknown semiring 'no_such_semiring'; built-ins"):
        kleene.semiring.get_semiring("no_such_semiring")


def test_not_a_matrix_is_an_invalid_object():
    with pytest.raises(InvalidObject, match="A must be a kleene Matrix, got ndarray"):
        kleene.mxv(np.zeros((3, 3)), kleene.Vector.from_coo([0], [0.0], 3), "min_plus")
    with pytest.raises(TypeError):  # what a caller caught before
        kleene.transpose([[1, 2], [3, 4]])
    with pytest.raises(InvalidObject, match="mask must be"):
        kleene.mxv(_graph(), kleene.Vector.from_coo([0], [0.0], 3), "min_plus", mask="yes")


def test_wrong_dtype_is_a_domain_mismatch():
    A = _graph()
    B = kleene.Matrix.from_edges([0], [1], [1], n=3, dtype=np.int64)
    with pytest.raises(DomainMismatch, match="multiplies operands of one dtype"):
        kleene.mxm(A, B, "min_plus")
    with pytest.raises(DomainMismatch, match="is not supported"):
        kleene.Matrix.from_dense(np.zeros((2, 2), dtype=np.complex128))
    out = kleene.Matrix.from_dense(np.zeros((3, 3), dtype=np.float32), missing=None)
    with pytest.raises(DomainMismatch, match="cannot write a float64 result into out"):
        kleene.mxm(A, A, "min_plus", out=out)
    with pytest.raises(TypeError):  # what a caller caught before
        kleene.mxm(A, B, "min_plus")


def test_out_of_range_vertex_is_an_index_out_of_bound():
    with pytest.raises(IndexOutOfBound, match="source 7 is out of range for 3 vertices"):
        kleene.frontier_bfs(_graph(), 7)
    with pytest.raises(IndexOutOfBound, match="out of range"):
        kleene.Vector.from_coo([5], [1.0], 3)
    with pytest.raises(IndexError):  # what a caller caught before
        kleene.Matrix.from_edges([0], [9], n=3)


def test_apsp_on_a_negative_cycle_is_a_negative_cycle_error():
    G = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], [1.0, -3.0, 1.0], n=3)
    with pytest.raises(NegativeCycleError) as info:
        kleene.apsp(G)
    assert isinstance(info.value, ValueError) and isinstance(info.value, KleeneError)


def test_a_result_too_large_for_memory_is_out_of_memory():
    from kleene.cli import check_memory

    with pytest.raises(OutOfMemory, match="of host memory") as info:
        check_memory("apsp", 10**9, 10**9, preds=False)
    assert isinstance(info.value, MemoryError)


@pytest.mark.skipif(gpu_available(), reason="a GPU is here: nothing to refuse")
def test_gpu_asked_for_with_none_is_device_unavailable():
    from kleene.generators import rmat

    with pytest.raises(DeviceUnavailable, match="needs CuPy") as info:
        rmat(4, device="gpu")
    assert isinstance(info.value, RuntimeError)


def test_graph_file_and_cli_errors_are_in_the_family(tmp_path):
    from kleene.cli import CliError
    from kleene.io import GraphFileError

    assert issubclass(GraphFileError, KleeneError) and issubclass(GraphFileError, ValueError)
    assert issubclass(CliError, InvalidValue)
    bad = tmp_path / "g.gr"
    bad.write_text("p sp 2 1\na 1 x 1\n")
    with pytest.raises(GraphFileError, match="line 2") as info:
        kleene.io.read(bad)
    assert isinstance(info.value, KleeneError)


# ---- the CLI: kleene's errors are one line, a bug keeps its traceback ---------------


@pytest.mark.parametrize(
    "args,message",
    [
        (("sssp", "grid:3x3", "--source", "99"), "kleene sssp: source 99 is out of range"),
        (("bfs", "nosuch:3"), "kleene bfs: no such file or generator spec: nosuch:3"),
        (("apsp", "grid:0x3"), "kleene apsp: bad generator spec 'grid:0x3'"),
    ],
)
def test_cli_reports_kleene_errors_as_one_line(capsys, args, message):
    rc = main(list(args))
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(message)


def test_cli_reports_a_bad_graph_file_as_one_line(capsys, tmp_path):
    bad = tmp_path / "g.gr"
    bad.write_text("p sp 2 1\na 1 x 1\n")
    rc = main(["sssp", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"kleene sssp: {bad}: line 2: ")


@pytest.mark.parametrize(
    "error",
    [
        ZeroDivisionError("a bug in kleene"),
        ValueError("a bare ValueError"),
        TypeError("a bare TypeError"),
        RuntimeError("a bare RuntimeError"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_cli_lets_anything_else_show_its_traceback(monkeypatch, error):
    def bug(args):
        raise error

    monkeypatch.setattr("kleene.cli.run", bug)
    with pytest.raises(type(error), match=str(error)):
        main(["sssp", "grid:3x3"])


def test_cli_bug_prints_a_traceback_from_the_command_line(tmp_path):
    # A real process: the interpreter prints the traceback and exits with status 1.
    code = (
        "import sys, kleene.cli\n"
        "def bug(args):\n"
        "    raise ZeroDivisionError('a bug in kleene')\n"
        "kleene.cli.run = bug\n"
        "from kleene.__main__ import main\n"
        "sys.exit(main(['sssp', 'grid:3x3']))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 1
    assert "Traceback (most recent call last)" in r.stderr
    assert r.stderr.strip().endswith("ZeroDivisionError: a bug in kleene")


@pytest.mark.parametrize(
    "error",
    [
        InvalidValue("bad value"),
        DimensionMismatch("A is (2, 2) but u has size 3"),
        NegativeCycleError("apsp: a negative cycle"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_errors_survive_a_pickle(error):
    # Dask sends a worker's exception back pickled: class and message must arrive
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error)


def test_graph_file_error_survives_a_pickle():
    from kleene.io import GraphFileError

    back = pickle.loads(pickle.dumps(GraphFileError("g.gr", 3, "expected an integer")))
    assert type(back) is GraphFileError and str(back) == "g.gr: line 3: expected an integer"
    assert (back.path, back.line) == ("g.gr", 3)
