"""Generators: seeded, right sizes and weight ranges, symmetric where undirected."""

from __future__ import annotations

import numpy as np
import pytest

from kleene.generators import (
    erdos_renyi,
    from_spec,
    geometric_graph,
    grid_graph,
    random_graph,
    rmat,
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
    for A in (grid_graph(7, 9, seed=3), geometric_graph(500, seed=3)):
        d = A.to_scipy()
        assert (d != d.T).nnz == 0


def test_grid_shape():
    A = grid_graph(3, 4)
    assert A.shape == (12, 12) and A.nvals == 2 * (3 * 3 + 2 * 4)


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


SPECS = ["rmat:8", "random:500", "scalefree:2000:4", "grid:5x6", "er:30:0.5", "geometric:300"]


@pytest.mark.parametrize("spec", SPECS)
def test_specs(spec):
    A = from_spec(spec)
    assert A.nrows == A.ncols and A.nvals > 0


@pytest.mark.parametrize("spec", ["rmat", "rmat:x", "nope:3", "grid:axb"])
def test_bad_specs(spec):
    with pytest.raises(ValueError, match="spec"):
        from_spec(spec)
