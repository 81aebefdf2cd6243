"""kleene.io: readers on the real data files, round trips, format details, interop.

Malformed input, declared sizes and fuzzing of the readers: tests/test_io_malformed.py.

The real files are looked up in $KLEENE_DATA (default: <repo>/../shared/data); the
tests that need one skip with a reason when it is absent.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kleene
import kleene.io as kio

DATA = Path(
    os.environ.get("KLEENE_DATA", Path(__file__).resolve().parent.parent.parent / "shared" / "data")
)


def data_file(name: str) -> Path:
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"data file {name} not found in {DATA} (set KLEENE_DATA)")
    return path


def open_text(path: Path) -> list[str]:
    """An independent reader: the file's lines via the stdlib decompressors."""
    opener = {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}.get(path.suffix, open)
    with opener(path, "rt") as f:
        return f.read().splitlines()


def simple_edges(lines, *, skip, shift, weighted, keyword=None):
    """{(u, v): min weight} from 'u v [w]' lines: a slow, obviously-right parser."""
    edges: dict = {}
    for line in lines:
        toks = line.split()
        if not toks or toks[0][0] in skip:
            continue
        if keyword is not None:
            assert toks[0] == keyword
            toks = toks[1:]
        u, v = int(toks[0]) - shift, int(toks[1]) - shift
        w = int(toks[2]) if weighted else True
        edges[(u, v)] = min(edges.get((u, v), w), w)
    return edges


def matrix_edges(A) -> dict:
    rows, cols, vals = A.to_coo()
    return dict(zip(zip(rows.tolist(), cols.tolist(), strict=True), vals.tolist(), strict=True))


def entry(A, u, v):
    return matrix_edges(A).get((u, v))


# ---- the real files -------------------------------------------------------------


def test_rome99_dimacs():
    path = data_file("rome99.gr")
    A = kio.read(path)
    assert A.shape == (3353, 3353) and A.dtype == np.int64 and A.format == "csr"
    lines = open_text(path)
    assert next(x for x in lines if x.startswith("p")) == "p sp 3353 8870"
    assert sum(x.startswith("a ") for x in lines) == 8870
    ref = simple_edges(lines, skip="cp", shift=1, weighted=True, keyword="a")
    assert matrix_edges(A) == ref
    assert A.nvals == len(ref) == 8859  # 11 parallel arcs keep their lighter weight
    assert entry(A, 0, 1) == 193 and entry(A, 0, 21) == 2172  # "a 1 2 193", "a 1 22 2172"
    assert entry(A, 1373, 3352) == 211  # the last line, "a 1374 3353 211"
    assert kio.read(path, format="dimacs").isequal(A)


def test_ny_pace_xz_fast_and_undirected(monkeypatch):
    # "fast": the vectorised parser reads all of it; the line-by-line one is never
    # reached (a structural check, not a clock: the clock fails on a loaded machine)
    from kleene.io import _table

    def no_slow_path(*args, **kwargs):
        raise AssertionError("the NY road graph fell back to the line-by-line parser")

    monkeypatch.setattr(_table, "_slow", no_slow_path)
    path = data_file("USA-road-NY.pace.gr.xz")
    A = kio.read(path)
    assert A.shape == (264346, 264346) and A.dtype == np.bool_
    assert A.nvals == 2 * 365050  # every edge stored both ways, no repeats in this file
    lines = open_text(path)
    assert lines[0] == "p tw 264346 365050"
    ref = simple_edges(lines[1:], skip="c", shift=1, weighted=False)
    rows, cols, _ = A.to_coo()
    mirrored = set(ref) | {(v, u) for u, v in ref}
    assert set(zip(rows.tolist(), cols.tolist(), strict=True)) == mirrored
    for u, v in [(0, 1), (1, 0), (0, 11), (0, 1362), (264329, 264330), (264330, 264329)]:
        assert (u, v) in mirrored
    S = A.to_scipy()
    assert (S != S.T).nnz == 0
    D = kio.read(path, directed=True)
    assert D.nvals == 365050 and (0, 1) in matrix_edges(D) and (1, 0) not in matrix_edges(D)


def test_facebook_snap_gz():
    path = data_file("facebook_combined.txt.gz")
    A = kio.read(path)
    assert A.shape == (4039, 4039) and A.dtype == np.bool_ and A.nvals == 88234
    ref = simple_edges(open_text(path), skip="#", shift=0, weighted=False)
    assert set(matrix_edges(A)) == set(ref)
    assert {(0, 1), (0, 2), (4027, 4038), (4031, 4038)} <= set(ref)
    U = kio.read(path, directed=False)
    assert U.nvals == 2 * 88234 and (4038, 4031) in matrix_edges(U)


def test_gnutella_snap():
    path = data_file("p2p-Gnutella08.txt")
    A = kio.read(path)
    assert A.shape == (6301, 6301) and A.nvals == 20777
    ref = simple_edges(open_text(path), skip="#", shift=0, weighted=False)
    assert set(matrix_edges(A)) == set(ref)
    assert {(0, 1), (0, 2), (6296, 6298), (6296, 6299)} <= set(ref)
    B, ids = kio.read(path, compact=True, return_ids=True)
    assert B.nvals == A.nvals and ids.tolist() == sorted(set(np.concatenate(A.to_coo()[:2])))


# ---- round trips -------------------------------------------------------------------


def random_matrix(dtype, n=9, m=30, seed=0):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n - 1, m), rng.integers(0, n - 1, m)  # vertex n-1 stays isolated
    if np.dtype(dtype) == np.bool_:
        w = None
    elif np.dtype(dtype).kind == "f":
        w = (rng.standard_normal(m) * 1e3).astype(dtype)
        w[0], w[1] = np.inf, 0.1
    else:
        w = rng.integers(-(10**6), 10**6, m).astype(dtype)
    return kleene.Matrix.from_edges(src, dst, w, n, dtype=dtype)


def symmetric_pattern(n=7, seed=1):
    A = random_matrix(np.bool_, n, 15, seed)
    return kleene.ewise_add(A, A.T, "lor")


COMPRESSIONS = ["", ".gz", ".xz", ".bz2"]
DTYPES = [np.float64, np.float32, np.int64, np.int32, np.bool_]
FORMAT_EXT = {"mtx": ".mtx", "dimacs": ".gr", "snap": ".txt", "csv": ".csv", "pace": ".gr"}


ROUND_TRIPS = [
    pytest.param(fmt, dtype, id=f"{fmt}-{np.dtype(dtype).name}")
    for fmt in ["mtx", "dimacs", "snap", "csv", "pace"]
    for dtype in DTYPES
    if fmt != "pace" or dtype is np.bool_  # PACE graphs are unweighted
]


@pytest.mark.parametrize("comp", COMPRESSIONS)
@pytest.mark.parametrize(("fmt", "dtype"), ROUND_TRIPS)
def test_round_trip(tmp_path, fmt, comp, dtype):
    if fmt == "pace":
        A = symmetric_pattern()
    else:
        A = random_matrix(dtype)
    path = tmp_path / f"g{FORMAT_EXT[fmt]}{comp}"
    kio.write(path, A)  # the format from the extension (.gr writes DIMACS)...
    if fmt == "pace":
        kio.write(path, A, format="pace")  # ...or from format=
    n = {"n": A.nrows} if fmt == "csv" else {}
    B = kio.read(path, dtype=A.dtype, **n)
    assert B.isequal(A), (fmt, comp, dtype)
    if fmt != "csv":  # the other formats record the size and dtype themselves
        assert kio.read(path).isequal(A)
    if comp:
        magic = {".gz": b"\x1f\x8b", ".xz": b"\xfd7zXZ", ".bz2": b"BZh"}[comp]
        assert path.read_bytes().startswith(magic)


@pytest.mark.parametrize("fmt", ["mtx", "dimacs", "snap", "csv"])
def test_round_trip_scipy_and_file_objects(fmt):
    S = sp.random(12, 12, density=0.3, format="csr", random_state=3)
    buf = io.BytesIO()
    kio.write(buf, S, format=fmt)
    n = {"n": 12} if fmt == "csv" else {}
    A = kio.read(io.BytesIO(buf.getvalue()), format=fmt, **n)
    assert (A.to_scipy() != S).nnz == 0 and A.shape == S.shape


matrices = st.integers(1, 8).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=20),
        st.sampled_from(["float64", "int64", "bool"]),
        st.integers(0, 2**32 - 1),
    )
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=matrices, fmt=st.sampled_from(["mtx", "dimacs", "snap", "csv"]))
def test_round_trip_property(tmp_path, spec, fmt):
    n, edges, dtype, seed = spec
    rng = np.random.default_rng(seed)
    src = [u for u, _ in edges]
    dst = [v for _, v in edges]
    if dtype == "bool":
        w = None
    elif dtype == "int64":
        w = rng.integers(-(2**40), 2**40, len(edges))
    else:
        w = rng.standard_normal(len(edges)) * 10.0 ** rng.integers(-300, 300, len(edges))
    A = kleene.Matrix.from_edges(np.array(src, int), np.array(dst, int), w, n, dtype=dtype)
    path = tmp_path / f"p{FORMAT_EXT[fmt]}"
    kio.write(path, A, format=fmt)
    assert kio.read(path, format=fmt, dtype=dtype, **({"n": n} if fmt == "csv" else {})).isequal(A)


def test_rectangular_mtx_and_symmetric_writer(tmp_path):
    R = kleene.Matrix.from_edges([0, 2], [4, 1], [1.5, -2.0], 3, ncols=5)
    kio.write(tmp_path / "r.mtx", R)
    assert kio.read(tmp_path / "r.mtx").isequal(R)
    with pytest.raises(ValueError, match="square"):
        kio.read(tmp_path / "r.mtx", directed=False)
    with pytest.raises(ValueError, match="square"):
        kio.write(tmp_path / "r.gr", R)
    S = kleene.Matrix.from_edges([0, 1, 2, 1], [1, 0, 2, 2], [3, 3, 4, 5], 3)
    with pytest.raises(ValueError, match="symmetric"):
        kio.write(tmp_path / "s.mtx", S, symmetry="symmetric")
    S = kleene.ewise_add(S, S.T, "min")
    kio.write(tmp_path / "s.mtx", S, symmetry="symmetric")
    text = (tmp_path / "s.mtx").read_text()
    assert "coordinate integer symmetric" in text and "\n1 2 3\n" not in text  # lower triangle
    assert kio.read(tmp_path / "s.mtx").isequal(S)


def test_pace_writer_needs_symmetry_and_writes_each_edge_once(tmp_path):
    A = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 2], None, 4)
    with pytest.raises(ValueError, match="symmetric"):
        kio.write(tmp_path / "a.gr", A, format="pace")
    assert not (tmp_path / "a.gr").exists()  # no half-written file
    S = symmetric_pattern(5, seed=4)
    kio.write(tmp_path / "s.gr", S, format="pace")
    lines = (tmp_path / "s.gr").read_text().split("\n")
    header = next(x for x in lines if x.startswith("p "))
    pairs = [tuple(map(int, x.split())) for x in lines if x and x[0].isdigit()]
    assert all(u <= v for u, v in pairs) and len(set(pairs)) == len(pairs)
    assert header == f"p tw 5 {len(pairs)}"


# ---- format details -------------------------------------------------------------------


def write_text(tmp_path, name, text) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def test_one_based_shift(tmp_path):
    A = kleene.Matrix.from_edges([0], [1], [7], 2)
    kio.write(tmp_path / "a.gr", A)
    assert "a 1 2 7" in (tmp_path / "a.gr").read_text()
    kio.write(tmp_path / "a.mtx", A)
    assert "\n1 2 7\n" in (tmp_path / "a.mtx").read_text()
    kio.write(tmp_path / "a.txt", A)
    assert "\n0\t1\t7\n" in (tmp_path / "a.txt").read_text()
    B = kio.read(write_text(tmp_path, "b.gr", "p sp 3 1\na 3 1 5\n"))
    assert matrix_edges(B) == {(2, 0): 5}
    C = kio.read(write_text(tmp_path, "c.gr", "p tw 3 1\n3 1\n"))
    assert matrix_edges(C) == {(2, 0): True, (0, 2): True}


def test_mtx_symmetric_pattern_integer_skew_array(tmp_path):
    sym = "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n2 1 1.5\n3 3 2\n3 2 4e0\n"
    A = kio.read(write_text(tmp_path, "s.mtx", sym))
    assert A.dtype == np.float64
    assert matrix_edges(A) == {(1, 0): 1.5, (0, 1): 1.5, (2, 2): 2.0, (2, 1): 4.0, (1, 2): 4.0}
    assert kio.read(tmp_path / "s.mtx", directed=True).nvals == 3
    pat = "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n"
    P = kio.read(write_text(tmp_path, "p.mtx", pat))
    assert P.dtype == np.bool_ and P.shape == (2, 3) and matrix_edges(P) == {(0, 2): 1, (1, 0): 1}
    intg = "%%MatrixMarket matrix coordinate INTEGER general\n2 2 2\n1 2 -3\n1 2 5\n"
    integer = kio.read(write_text(tmp_path, "i.mtx", intg))
    assert integer.dtype == np.int64 and matrix_edges(integer) == {(0, 1): -3}  # duplicates: min
    skew = "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n3 1 4\n"
    assert matrix_edges(kio.read(write_text(tmp_path, "k.mtx", skew))) == {(2, 0): 4, (0, 2): -4}
    arr = "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\ninf\n5\n6\n"
    D = kio.read(write_text(tmp_path, "a.mtx", arr))
    assert D.shape == (2, 3) and matrix_edges(D) == {
        (0, 0): 1,
        (1, 0): 2,
        (0, 1): 3,
        (0, 2): 5,
        (1, 2): 6,
    }
    sarr = "%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n"
    assert kio.read(write_text(tmp_path, "sa.mtx", sarr)).to_dense().tolist() == [[1, 2], [2, 3]]
    with pytest.raises(ValueError, match="complex"):
        complex_banner = "%%MatrixMarket matrix coordinate complex general\n"
        kio.read(write_text(tmp_path, "c.mtx", complex_banner))


def test_pattern_mtx_written_for_true_bool(tmp_path):
    A = symmetric_pattern()
    kio.write(tmp_path / "p.mtx", A)
    assert "coordinate pattern general" in (tmp_path / "p.mtx").read_text()
    B = kleene.Matrix.from_edges([0, 1], [1, 0], np.array([True, False]), 2)
    kio.write(tmp_path / "b.mtx", B)
    assert "coordinate integer" in (tmp_path / "b.mtx").read_text()
    assert kio.read(tmp_path / "b.mtx").isequal(B)


def test_snap_and_csv_details(tmp_path):
    snap = "# c\n% konect-style comment\n\n5\t1\t2.5\n1 5   -1\n5 1 0.5\n"
    A = kio.read(write_text(tmp_path, "w.tsv", snap))
    assert A.shape == (6, 6) and matrix_edges(A) == {(5, 1): 0.5, (1, 5): -1.0}
    assert kio.read(tmp_path / "w.tsv", dtype="float32").dtype == np.float32
    assert kio.read(tmp_path / "w.tsv", n=10).shape == (10, 10)
    B = kio.read(write_text(tmp_path, "h.csv", "source, target ,weight\n0,1,3\n 2 , 0 , 4\n"))
    assert B.dtype == np.int64 and matrix_edges(B) == {(0, 1): 3, (2, 0): 4}
    C = kio.read(write_text(tmp_path, "n.csv", "3,1\r\n1,2\r\n"))
    assert C.dtype == np.bool_ and set(matrix_edges(C)) == {(3, 1), (1, 2)}
    E = kio.read(write_text(tmp_path, "e.el", ""))
    assert E.shape == (0, 0)
    for ext in (".edges", ".el", ".txt"):
        assert kio.read(write_text(tmp_path, "x" + ext, "0 1\n")).nvals == 1


def test_compact_and_return_ids(tmp_path):
    path = write_text(tmp_path, "c.txt", "10 30\n30 20\n20 10 \n")
    A, ids = kio.read(path, compact=True, return_ids=True)
    assert ids.tolist() == [10, 20, 30] and A.shape == (3, 3)
    assert set(matrix_edges(A)) == {(0, 2), (2, 1), (1, 0)}
    assert kio.read(path).shape == (31, 31)
    _, all_ids = kio.read(path, return_ids=True)
    assert all_ids.tolist() == list(range(31))
    gr = write_text(tmp_path, "c.gr", "p sp 100 2\na 50 100 1\na 100 7 2\n")
    G, gids = kio.read(gr, compact=True, return_ids=True)
    assert gids.tolist() == [6, 49, 99] and matrix_edges(G) == {(1, 2): 1, (2, 0): 2}


def test_directed_flag_and_duplicates(tmp_path):
    path = write_text(tmp_path, "d.gr", "p sp 3 4\na 1 2 5\na 2 1 3\na 1 2 4\na 3 3 1\n")
    A = kio.read(path)
    assert matrix_edges(A) == {(0, 1): 4, (1, 0): 3, (2, 2): 1}  # min of parallel arcs
    U = kio.read(path, directed=False)
    assert matrix_edges(U) == {(0, 1): 3, (1, 0): 3, (2, 2): 1}  # lighter direction wins
    assert kio.read(path, directed=True).isequal(A)


def test_dtype_and_device_options(tmp_path):
    path = write_text(tmp_path, "w.gr", "p sp 2 2\na 1 2 5\na 2 1 0\n")
    assert kio.read(path, dtype=np.float32).dtype == np.float32
    assert matrix_edges(kio.read(path, dtype=bool)) == {(0, 1): True, (1, 0): False}
    f = write_text(tmp_path, "f.gr", "p sp 2 1\na 1 2 2.5\n")
    with pytest.raises(ValueError, match="not integers"):
        kio.read(f, dtype=np.int64)
    big = write_text(tmp_path, "big.gr", "p sp 2 1\na 1 2 3000000000\n")
    with pytest.raises(ValueError, match="do not fit int32"):
        kio.read(big, dtype=np.int32)
    with pytest.raises(ValueError, match="device"):
        kio.read(path, device="tpu")


@pytest.mark.gpu
@pytest.mark.skipif(not kleene.gpu_available(), reason="no CUDA GPU (cupy)")
def test_read_to_gpu(tmp_path):
    path = write_text(tmp_path, "g.gr", "p sp 3 2\na 1 2 5\na 2 3 1\n")
    A = kio.read(path, device="gpu")
    assert A.device == "gpu" and A.to("cpu").isequal(kio.read(path))
    kio.write(tmp_path / "back.mtx", A)
    assert kio.read(tmp_path / "back.mtx").isequal(kio.read(path))


def test_format_detection(tmp_path):
    with pytest.raises(ValueError, match="format="):
        kio.read(write_text(tmp_path, "x.dat", "0 1\n"))
    assert kio.read(tmp_path / "x.dat", format="snap").nvals == 1
    with pytest.raises(ValueError, match="unknown format"):
        kio.read(tmp_path / "x.dat", format="graphml")
    pace = write_text(tmp_path, "x.gr", "p tw 2 1\n1 2\n")
    with pytest.raises(ValueError, match="line 1.*DIMACS"):
        kio.read(pace, format="dimacs")
    assert kio.read(pace, format="pace").nvals == 2
    with pytest.raises(FileNotFoundError):
        kio.read(tmp_path / "missing.mtx")


def test_progress(tmp_path, capsys, monkeypatch):
    path = write_text(tmp_path, "p.gr", "p sp 2 1\na 1 2 1\n")
    # progress=True prints nothing (it used to print four lines) until reading has
    # taken DELAY_S seconds: with no delay reached, nothing, however slow the machine.
    monkeypatch.setattr(kleene.progress, "DELAY_S", float("inf"))
    kio.read(path, progress=True)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(kleene.progress, "DELAY_S", 0.0)
    kio.read(path, progress=True)
    err = capsys.readouterr().err
    assert "p.gr" in err and "done" in err
    seen: list[str] = []
    kio.read(path, progress=seen.append)
    assert any("parsed 1 records" in s for s in seen) and "done" in seen[-1]
    with pytest.raises(TypeError, match="progress"):
        kio.read(path, progress="yes")


# ---- interop --------------------------------------------------------------------------


def test_networkx_round_trip():
    nx = pytest.importorskip("networkx")
    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 2.0), ("b", "c", 0.5), ("c", "c", 1.0)])
    G.add_node("z")
    A = kio.from_networkx(G)
    assert A.shape == (4, 4) and matrix_edges(A) == {(0, 1): 2.0, (1, 2): 0.5, (2, 2): 1.0}
    H = kio.to_networkx(A)
    assert sorted(H.edges(data="weight")) == [(0, 1, 2.0), (1, 2, 0.5), (2, 2, 1.0)]
    assert kio.from_networkx(H).isequal(A)
    U = nx.Graph([(0, 1, {"weight": 3}), (1, 2, {})])
    B = kio.from_networkx(U, nodelist=[2, 1, 0])
    assert B.dtype == np.int64 and matrix_edges(B) == {(2, 1): 3, (1, 2): 3, (0, 1): 1, (1, 0): 1}
    M = nx.MultiDiGraph([(0, 1, {"w": 5}), (0, 1, {"w": 2})])
    assert matrix_edges(kio.from_networkx(M, weight="w")) == {(0, 1): 2}
    P = kio.from_networkx(U, weight=None)
    assert P.dtype == np.bool_ and P.nvals == 4
    und = kio.to_networkx(kleene.Matrix.from_edges([0, 1], [1, 0], [5, 2]), directed=False)
    assert list(und.edges(data="weight")) == [(0, 1, 2)]


def test_networkx_on_real_graph():
    pytest.importorskip("networkx")
    path = data_file("rome99.gr")
    A = kio.read(path)
    G = kio.to_networkx(A)
    assert G.number_of_edges() == A.nvals
    assert kio.from_networkx(G).isequal(A)


def test_scipy_helpers():
    S = sp.csr_matrix(np.array([[0, 2.0], [0, 0]]))
    A = kio.from_scipy(S)
    assert A.nvals == 1 and (kio.to_scipy(A) != S).nnz == 0


def test_graphblas_round_trip():
    pytest.importorskip("graphblas")
    A = kleene.Matrix.from_edges([0, 1, 2], [1, 2, 0], np.array([1, 2, 3], np.int32), 4)
    M = kio.to_graphblas(A)
    assert M.nvals == 3 and M.nrows == 4
    assert kio.from_graphblas(M).isequal(A)


def test_graphblas_missing_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphblas", None)
    with pytest.raises(ImportError, match="pip install python-graphblas"):
        kio.to_graphblas(kleene.Matrix.from_edges([0], [1], [1.0]))
    with pytest.raises(ImportError, match="python-graphblas"):
        kio.from_graphblas(object())


def test_karate_club_dataset_matches_networkx():
    """The built-in real graph (kleene.datasets) is Zachary's weighted karate club."""
    nx = pytest.importorskip("networkx")
    import kleene

    A = kleene.datasets.karate_club(weights="strength")
    assert A.shape == (34, 34) and A.nvals == 156 and A.dtype == np.int64
    ref = nx.to_scipy_sparse_array(nx.karate_club_graph(), nodelist=range(34), weight="weight")
    np.testing.assert_array_equal(A.to_scipy().toarray(), ref.toarray())
    strength = ref.toarray()
    lengths = kleene.datasets.karate_club().to_scipy().toarray()
    np.testing.assert_allclose(lengths[strength > 0], 1.0 / strength[strength > 0])
    assert np.all(lengths[strength == 0] == 0)  # (to_scipy: no entry)
    assert kleene.datasets.karate_club(weights="none").dtype == np.bool_
    with pytest.raises(ValueError, match="weights"):
        kleene.datasets.karate_club(weights="hops")
