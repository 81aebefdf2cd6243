"""Generators: seeded, right sizes and weight ranges, symmetric where undirected."""

from __future__ import annotations

import math
import re
import sys

import numpy as np
import pytest

from kleene.generators import (
    erdos_renyi,
    from_spec,
    geometric_graph,
    grid_graph,
    random_graph,
    rmat,
    road_graph,
    scale_free_graph,
)


def _coo(A):
    r, c, v = A.to_coo()
    return np.asarray(r), np.asarray(c), np.asarray(v)


@pytest.mark.parametrize(
    "make",
    [
        lambda s: random_graph(2000, seed=s),
        lambda s: scale_free_graph(5000, seed=s),
        lambda s: geometric_graph(1000, seed=s),
        lambda s: grid_graph(20, 30, seed=s),
        lambda s: road_graph(20, 30, seed=s),
        lambda s: erdos_renyi(50, 0.3, seed=s),
    ],
)
def test_seeded(make):
    a, b, c = make(1), make(1), make(2)
    assert a.isequal(b)
    assert not a.isequal(c)


def test_random_graph_degree_and_weights():
    A = random_graph(10_000, 6, seed=0)
    _, _, w = _coo(A)
    assert 5.9 < A.nvals / A.nrows <= 6.0  # a few duplicate edges merge
    assert w.min() >= 1 and w.max() <= 10 and np.all(w == np.round(w))


def test_scale_free_has_hubs():
    A = scale_free_graph(20_000, seed=0)
    r, _, _ = _coo(A)
    deg = np.bincount(r, minlength=A.nrows)
    assert deg.max() > 400 and 4 < deg.mean() <= 6


def test_grid_and_geometric_are_symmetric():
    for A in (grid_graph(7, 9, seed=3), geometric_graph(500, seed=3), road_graph(30, seed=3)):
        d = A.to_scipy()
        assert (d != d.T).nnz == 0


def test_grid_shape():
    A = grid_graph(3, 4)
    assert A.shape == (12, 12) and A.nvals == 2 * (3 * 3 + 2 * 4)


def test_road_graph_is_one_component_numbered_from_the_corner():
    from scipy.sparse.csgraph import connected_components, shortest_path

    A = road_graph(60, 50, seed=4)
    S = A.to_scipy()
    assert connected_components(S, directed=False)[0] == 1
    assert 0.85 * 3000 < A.nrows < 3000  # ~95% of the crossings at keep = 0.6
    assert 2.3 < A.nvals / A.nrows < 2.7  # about 2.5 edges per vertex, as US road graphs
    w = S.data
    assert w.min() >= 1 and w.max() <= 1000 and np.all(w == np.round(w))
    depth = shortest_path(S, unweighted=True, indices=0).max()
    assert depth >= 0.9 * (60 + 50 - 2)  # vertex 0 is near the top-left: it crosses the grid


def test_road_graph_keep_all_is_the_grid():
    A = road_graph(3, 4, keep=1.0)
    assert A.shape == (12, 12) and A.nvals == 2 * (3 * 3 + 2 * 4)
    assert road_graph(1).shape == (1, 1)


@pytest.mark.parametrize("bad", [{"keep": 0.0}, {"keep": 1.5}, {"rows": 0}])
def test_road_graph_refuses_bad_parameters(bad):
    args = {"rows": 5, "keep": 0.6, **bad}
    with pytest.raises(ValueError, match="keep|row"):
        road_graph(args.pop("rows"), **args)


def _python_lines(fn, *args):
    """(fn(*args), the number of Python lines it executed): interpreted work, counted
    the same on any machine however loaded (work in NumPy/SciPy's C is not counted)."""
    lines = 0

    def trace(frame, event, arg):
        nonlocal lines
        lines += event == "line"
        return trace

    before = sys.gettrace()
    sys.settrace(trace)
    try:
        out = fn(*args)
    finally:
        sys.settrace(before)
    return out, lines


def test_road_graph_million_vertices_is_deep_and_built_by_array_operations():
    """The benchmark's ~1 M-vertex road graph: ≥ 1,500 BFS levels from vertex 0. Built
    in whole-array operations: the Python it runs does not grow with the grid (a loop
    over crossings or streets would run millions of lines), counted rather than timed."""
    from scipy.sparse.csgraph import shortest_path

    small, small_lines = _python_lines(road_graph, 32)
    A, lines = _python_lines(road_graph, 1024)  # 1,024x the crossings of `small`
    assert 0.9e6 < A.nrows < 2**20 and 900 < small.nrows < 1024
    assert lines <= 2 * small_lines, (lines, small_lines)
    level = shortest_path(A.to_scipy(), unweighted=True, indices=0)
    assert np.isfinite(level).all() and level.max() >= 1500  # connected; 2,100 levels


def test_rmat_graph500():
    src, dst = rmat(12, 16, seed=5)
    assert src.size == 16 * 4096 and src.max() < 4096 and dst.max() < 4096
    deg = np.bincount(src, minlength=4096)
    assert deg[0] > 10 * np.median(deg)  # skewed: low labels are hubs


def test_dense_er():
    A = erdos_renyi(40, 1.0, seed=0)
    d = A.to_dense()
    assert np.all(np.isinf(np.diag(d))) and A.nvals == 40 * 39
    assert d[np.isfinite(d)].min() >= 1 and d[np.isfinite(d)].max() < 100


SPECS = [
    "rmat:8",
    "random:500",
    "scalefree:2000:4",
    "grid:5x6",
    "er:30:0.5",
    "geometric:300",
    "road:20x30",
    "road:12:0.8",
]


@pytest.mark.parametrize("spec", SPECS)
def test_specs(spec):
    A = from_spec(spec)
    assert A.nrows == A.ncols and A.nvals > 0


@pytest.mark.parametrize("spec", ["rmat", "rmat:x", "nope:3", "grid:axb"])
def test_bad_specs(spec):
    with pytest.raises(ValueError, match="spec"):
        from_spec(spec)


@pytest.mark.parametrize(
    "spec,message",
    [
        ("rmat:-1", "scale must be at least 0"),
        ("er:10:2", "P must be in [0, 1]"),
        ("grid:0x3", "ROWS must be at least 1"),
        ("road:5x5:1.5", "KEEP must be in (0, 1]"),
        ("random:-5", "N must be at least 0"),
    ],
)
def test_spec_ranges(spec, message):
    with pytest.raises(ValueError) as e:
        from_spec(spec)
    assert message in str(e.value) and spec in str(e.value)


def test_absurd_spec_says_too_large_and_what_fits():
    # 2**40 vertices cannot even be numbered (int32 ids); refused before drawing anything
    with pytest.raises(ValueError, match=r"rmat:40 is too large: .*int32.*; rmat:\d+ fits"):
        from_spec("rmat:40")
    with pytest.raises(ValueError, match=r"random:1e10 is too large.*random:\d+ fits"):
        from_spec("random:1e10")


@pytest.fixture
def small_machine(monkeypatch):
    """1 GiB of free host memory, as far as the generators can tell."""
    monkeypatch.setattr("kleene.generators._size.host_memory_free", lambda: 2**30)


@pytest.mark.parametrize(
    "spec",
    [
        "rmat:24",
        "rmat:30:4",
        "er:50000",
        "grid:9000x9000",
        "road:9000x9000:0.7",
        "geometric:1e8",
        "random:3e8:2",
    ],
)
def test_spec_larger_than_memory_names_one_that_fits(small_machine, spec):
    import kleene.generators.spec as spec_mod

    with pytest.raises(MemoryError) as e:
        from_spec(spec)
    msg = str(e.value)
    assert msg.startswith(f"{spec} is too large: it needs about ") and "1.0 GiB is free" in msg
    kind = spec.split(":")[0]
    largest = re.search(rf"; ({kind}:\S+) fits$", msg).group(1)
    params = spec_mod._parse(kind, largest.split(":")[1:])
    spec_mod._check_size(largest, kind, params, "cpu")  # the spec it names does fit ...
    knob, cost, _, _, _ = spec_mod._scaling(kind, params)
    bigger = (math.isqrt(knob) + 1) ** 2 if kind in ("grid", "road") else knob + 1
    assert cost(bigger)[1] > 0.8 * 2**30  # ... and the next size up does not


def test_rmat_function_refuses_before_drawing(small_machine):
    with pytest.raises(MemoryError, match=r"rmat\(scale=40, edge_factor=16\) is too large.*scale"):
        rmat(40)
