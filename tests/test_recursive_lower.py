"""R-Kleene on a lower-triangular matrix ("recursive-lower", apsp_dense.py): the plan
that skips the products of the empty upper blocks gives the closure that the full
plan and SciPy give, for min-plus and Boolean semirings, on the CPU back end."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

import kleene
from kleene.algorithms import apsp_dense
from kleene.semiring import get_semiring


def _lower(n: int, density: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    w = np.where(rng.random((n, n)) < density, rng.uniform(1, 9, (n, n)), np.inf)
    w = np.tril(w, -1)
    w[np.triu_indices(n)] = np.inf
    np.fill_diagonal(w, 0.0)
    return w


@pytest.mark.parametrize("n, base", [(7, 2), (64, 16), (130, 32), (257, 64)])
@pytest.mark.parametrize("density", [0.02, 0.3])
def test_lower_plan_equals_full_plan_and_scipy(n, base, density):
    w = _lower(n, density, n + base)
    sr = get_semiring("min_plus")
    full = kleene.Matrix.from_dense(w.copy(), missing=None)
    low = kleene.Matrix.from_dense(w.copy(), missing=None)
    apsp_dense.recursive(sr, full, None, base)
    apsp_dense.recursive(sr, low, None, base, lower=True)
    np.testing.assert_array_equal(low.to_dense(), full.to_dense())
    np.testing.assert_allclose(low.to_dense(), shortest_path(np.where(np.isinf(w), 0, w)))


@pytest.mark.parametrize("n", [40, 100, 333])
def test_lower_plan_on_booleans(n):
    rng = np.random.default_rng(n)
    a = np.tril(rng.random((n, n)) < 0.05, -1) | np.eye(n, dtype=bool)
    sr = get_semiring("lor_land")
    full = kleene.Matrix.from_dense(a.copy(), missing=None)
    low = kleene.Matrix.from_dense(a.copy(), missing=None)
    apsp_dense.recursive(sr, full, None, 16)
    apsp_dense.recursive(sr, low, None, 16, lower=True)
    np.testing.assert_array_equal(low.to_dense(), full.to_dense())
    assert not np.triu(low.to_dense(), 1).any()


def test_lower_plan_runs_a_third_of_the_products():
    full = apsp_dense.work("recursive", 4096, 512)
    low = apsp_dense.work("recursive-lower", 4096, 512)
    leaves = 8 * 512**3
    assert (low - leaves) * 3 == full - leaves
