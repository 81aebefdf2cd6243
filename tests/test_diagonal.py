"""kleene.ops.diagonal against NumPy's diagonal, dense full, dense with gaps, CSR."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import kleene
from kleene.ops import diagonal


@pytest.mark.parametrize("n", [0, 1, 5, 40])
def test_dense_full_matrix(n):
    a = np.random.default_rng(n).random((n, n))
    d = diagonal(kleene.Matrix.from_dense(a, missing=None))
    assert d.size == n and d.nvals == n
    np.testing.assert_array_equal(d.to_dense(), np.diagonal(a))


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_stored_entries_only(fmt):
    a = np.array([[1.0, np.inf, 2.0], [0.0, np.inf, 5.0], [np.inf, 3.0, -4.0]])
    A = kleene.Matrix.from_dense(a).to_format(fmt)
    d = diagonal(A)
    assert d.nvals == 2
    np.testing.assert_array_equal(d.to_dense(), [1.0, np.inf, -4.0])
    assert diagonal(kleene.Matrix.from_scipy(sp.csr_matrix(np.eye(4)))).nvals == 4


def test_not_square():
    with pytest.raises(ValueError, match="square"):
        diagonal(kleene.Matrix.from_dense(np.ones((2, 3)), missing=None))
