"""kleene.io refuses bad input well: a malformed file is a ValueError (GraphFileError)
naming the file and line; a size declared beyond memory is refused before it costs
anything, and one that fits costs one array; fuzzed and mutated text either reads or
raises ValueError, and the vectorised parser agrees with the line-by-line scanner.

Readers on the real files, round trips and format details: tests/test_io.py.
"""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import kleene
import kleene.io as kio
from kleene.io import GraphFileError
from kleene.io._table import Layout, _fast, _slow


def write_text(tmp_path, name, text) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# ---- malformed input -----------------------------------------------------------------

BAD = [
    ("t.gr", "p sp 3 2\na 1 2 3\na 1 x 3\n", 3, "integer"),
    ("t.gr", "p sp 3 2\na 1 2 3\na 1 2 3.5.1\n", 3, "number"),
    ("t.gr", "c x\np sp 3 2\na 1 2\na 2 3 4\n", 3, "'a u v w'"),
    ("t.gr", "p sp 3 2\na 1 2 3\nb 2 3 4\n", 3, "'a u v w'"),
    ("t.gr", "p sp 3 3\na 1 2 3\na 2 3 1\n", 1, "header says 3 arcs, file has 2"),
    ("t.gr", "p sp 3 1\na 1 2 3\na 2 3 1\n", 3, "header says 1 arcs, file has 2"),
    ("t.gr", "p sp 3 2\na 1 2 3\na 2 4 1\n", 3, "out of range 1..3"),
    ("t.gr", "p sp 3 1\na 0 2 3\n", 2, "out of range"),
    ("t.gr", "", 1, "empty"),
    ("t.gr", "c only comments\n", 2, "problem line"),
    ("t.gr", "p sp 3 x\n", 1, "problem line"),
    ("t.gr", "a 1 2 3\np sp 3 1\n", 1, "problem line"),
    ("t.gr", "p sp 3 2\na 1 2 3\np sp 3 2\n", 3, "'a u v w'"),
    ("t.gr", "p sp 3 1\na 1 2 nan\n", 2, "NaN"),
    ("t.gr", "p tw 4 2\n1 2\n3\n", 3, "'u v'"),
    ("t.gr", "p tw 4 2\n1 2\n", 1, "header says 2 edges, file has 1"),
    ("t.gr", "p tw 4 1\n1 5\n", 2, "out of range 1..4"),
    ("t.gr", "p tw 4 1\n1 2 \xff\n", 2, "'u v'"),
    ("t.mtx", "", 1, "banner"),
    ("t.mtx", "%%MatrixMarket matrix coordinate real general\n", 2, "size line"),
    ("t.mtx", "%%MatrixMarket matrix coordinate real general\n2 2\n", 2, "size line"),
    ("t.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n", 2, "header says 2"),
    ("t.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n", 3, "1..2"),
    ("t.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2\n", 3, "'i j value'"),
    ("t.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -\n", 3, "number"),
    ("t.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n", 3, "integer"),
    ("t.mtx", "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1e30\n", 3, "int64"),
    ("t.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2, "square"),
    ("t.mtx", "%%MatrixMarket matrix coordinate real weird\n2 2 0\n", 1, "banner"),
    ("t.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 2, "header says 4"),
    ("t.txt", "0 1\n1\n", 2, "'u v'"),
    ("t.txt", "0 1 2\n1 2\n", 2, "'u v w'"),
    ("t.txt", "0 1 2 3\n", 1, "'u v' or 'u v w'"),
    ("t.txt", "0 1\n-1 2\n", 2, "out of range"),
    ("t.txt", "0 1\n1 2.5\n", 2, "integer"),
    ("t.txt", "0 1\n99999999999999999999 1\n", 2, "too large"),
    ("t.csv", "src,dst\n0,1\n1,\n", 3, "empty"),
    ("t.csv", "0,1\n1 2\n", 2, "2 comma-separated fields"),
    ("t.csv", "0,1,3\n1,2,x\n", 2, "number"),
    ("t.csv", "a,b,c,d\n", 1, "2 or 3 columns"),
]


@pytest.mark.parametrize(("name", "text", "line", "what"), BAD)
def test_malformed_input_names_file_and_line(tmp_path, name, text, line, what):
    path = write_text(tmp_path, name, text.encode("latin-1"))
    with pytest.raises(ValueError) as info:
        kio.read(path)
    message = str(info.value)
    assert isinstance(info.value, GraphFileError) and info.value.line == line, message
    assert str(path) in message and f"line {line}:" in message
    assert what in message, message


def test_bad_compressed_data(tmp_path):
    for suffix in (".gz", ".xz", ".bz2"):
        path = write_text(tmp_path, "bad.mtx" + suffix, b"not compressed at all")
        with pytest.raises(ValueError, match="decompress"):
            kio.read(path)
    trunc = gzip.compress(b"p sp 2 1\na 1 2 3\n")[:-6]
    with pytest.raises(ValueError, match="decompress"):
        kio.read(write_text(tmp_path, "t.gr.gz", trunc))


def test_huge_header_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="line 1"):
        kio.read(write_text(tmp_path, "h.gr", "p sp 99999999999 0\n"))


# ---- headers do not decide memory: a declared size is checked, then costs one array -----

BIG = 3_000_000  # declared vertices; 24 MB of row pointers


@pytest.mark.parametrize(
    "name,text,kw,said",
    [
        ("h.gr", f"p sp {BIG} 1\na 1 2 3\n", {}, f"line 1: the header declares {BIG} vertices"),
        ("h.gr", f"p tw {BIG} 1\n1 2\n", {}, "the header declares"),
        (
            "h.mtx",
            f"%%MatrixMarket matrix coordinate real general\n{BIG} {BIG} 1\n1 2 3\n",
            {},
            f"line 2: the size line declares {BIG} vertices",
        ),
        ("h.txt", f"0 1\n1 {BIG - 1}\n", {}, f"line 2: the largest vertex id makes {BIG}"),
        ("h.csv", f"src,dst\n0,{BIG - 1}\n", {}, "the largest vertex id makes"),
        ("h.txt", "0 1\n", {"n": BIG}, f"n={BIG} asks for {BIG} vertices"),
        ("h.txt", f"# kleene: n={BIG}\n0 1\n", {}, "the 'kleene: n=' comment declares"),
    ],
)
def test_declared_size_beyond_memory_is_refused(tmp_path, monkeypatch, name, text, kw, said):
    monkeypatch.setattr("kleene.io._api.host_memory_free", lambda: 1_000_000)
    kio.read(write_text(tmp_path, "ok.gr", "p sp 62000 1\na 1 2 3\n"))  # 496,008 bytes fit
    with pytest.raises(GraphFileError) as err:
        kio.read(write_text(tmp_path, name, text), **kw)
    msg = str(err.value)
    assert said in msg, msg
    assert f"needs {8 * (BIG + 1):,} bytes" in msg, msg
    assert "more than half of the 1,000,000 bytes" in msg, msg


def test_declared_size_costs_one_array(tmp_path):
    import tracemalloc

    path = write_text(tmp_path, "h.gr", f"p sp {BIG} 1\na 1 {BIG} 3\n")
    tracemalloc.start()
    try:
        A = kio.read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert A.shape == (BIG, BIG) and A.to_coo()[1].tolist() == [BIG - 1]
    # the row pointers (8 bytes a vertex) and nothing else per vertex
    assert 8 * BIG <= peak < 1.25 * 8 * BIG, peak
    assert kleene.bfs(A, 0)[BIG - 1] == 1


# ---- fuzzing: every text reader raises ValueError or nothing ---------------------------

VALID = {
    "mtx": "%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 3\n1 1 2.5\n3 1 -1e2\n"
    "4 2 7\n",
    "dimacs": "c x\np sp 4 3\na 1 2 3\na 2 3 4\na 4 1 5\n",
    "pace": "c x\np tw 4 3\n1 2\n2 3\nc y\n4 1\n",
    "snap": "# x\n0 1\n1\t2\n3 0\n",
    "csv": "src,dst,weight\n0,1,2.5\n1, 2,3\n3 ,0,4\n",
}
ALPHABET = "0123456789  \t\n\n-+.eEaApPcC#%,xnifsptwrl\r"


def _read_or_value_error(text: bytes, fmt: str):
    try:
        A = kio.read(io.BytesIO(text), format=fmt)
    except GraphFileError as e:
        assert re.search(r"line \d+: ", str(e)) or e.line is None
        return None
    except ValueError:
        return None
    assert isinstance(A, kleene.Matrix) and A.nrows == A.ncols
    return A


def _no_huge_numbers(text: bytes) -> bool:
    return re.search(rb"[0-9]{7}", text) is None  # headers claiming 10^7+ vertices are slow


@settings(max_examples=150, deadline=None)
@given(fmt=st.sampled_from(sorted(VALID)), text=st.text(ALPHABET, max_size=80))
def test_fuzz_random_text(fmt, text):
    data = text.encode()
    assume(_no_huge_numbers(data))
    _read_or_value_error(data, fmt)
    if fmt in ("dimacs", "pace"):
        _read_or_value_error(b"p sp 9 3\n" + data, fmt)
    if fmt == "mtx":
        _read_or_value_error(b"%%MatrixMarket matrix coordinate integer general\n" + data, fmt)


@st.composite
def mutated(draw):
    fmt = draw(st.sampled_from(sorted(VALID)))
    data = bytearray(VALID[fmt].encode())
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        ch = draw(st.sampled_from(list(ALPHABET.encode()) + [0, 255, 0xC3]))
        if op == "insert":
            data[pos:pos] = bytes([ch])
        elif pos < len(data):
            data[pos : pos + 1] = b"" if op == "delete" else bytes([ch])
    return fmt, bytes(data)


@settings(max_examples=200, deadline=None)
@given(case=mutated())
def test_fuzz_mutated_valid_files(case):
    """Mutants read or raise ValueError, and the line scanner alone says the same."""
    fmt, data = case
    assume(_no_huge_numbers(data))
    fast = _outcome(data, fmt)
    with mock.patch("kleene.io._table._fast", lambda *args: None):
        slow = _outcome(data, fmt)
    if isinstance(fast, str) or isinstance(slow, str):
        assert fast == slow
    else:
        assert fast.isequal(slow)


def _outcome(data: bytes, fmt: str):
    try:
        return kio.read(io.BytesIO(data), format=fmt)
    except ValueError as e:
        return str(e)


LAYOUTS = [
    Layout(2, "'u v'", comments=b"c"),
    Layout(3, "'a u v w'", keyword=b"a", comments=b"c"),
    Layout(3, "'u v w'", comments=b"#%"),
    Layout(3, "src,dst,weight", comments=b"#", comma=True),
    Layout(1, "value", nids=0, comments=b"%"),
]
BODY_ALPHABET = "0123456789 \t\n-+.eainf#%c,\r"


@settings(max_examples=300, deadline=None)
@given(k=st.integers(0, len(LAYOUTS) - 1), body=st.text(BODY_ALPHABET, max_size=60))
def test_fast_parser_agrees_with_the_line_scanner(k, body):
    """Whatever the vectorised path accepts, the line-by-line scan reads identically."""
    data = body.encode()
    fast = _fast(data, 0, 1, LAYOUTS[k])
    if fast is None:
        return
    slow = _slow(data, 0, 1, LAYOUTS[k], "x")  # must not raise: fast accepted it
    assert np.array_equal(fast.ids, slow.ids) and np.array_equal(fast.lines, slow.lines)
    if fast.values is not None:
        assert fast.values.dtype == slow.values.dtype
        assert np.array_equal(fast.values, slow.values, equal_nan=True)


def test_fast_path_used_for_valid_bodies():
    body = b"a 1 2 3\n\nc comment\na 4 5 -6\r\n"
    table = _fast(body, 0, 10, LAYOUTS[1])
    assert table is not None and table.lines.tolist() == [10, 13]
    assert table.ids.tolist() == [[1, 2], [4, 5]] and table.values.ravel().tolist() == [3, -6]
    csv = _fast(b"1, 2,3.5\n4 ,5, 6\n", 0, 1, LAYOUTS[3])
    assert csv is not None and csv.values.dtype == np.float64
