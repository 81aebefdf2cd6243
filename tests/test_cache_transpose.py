"""kleene.ops.cache_transpose: Aᵀ built once and kept with A until A is written;
products that pull read it and answer as before."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import kleene
from kleene.errors import InvalidObject
from kleene.ops import cache_transpose


def _matrix(seed: int, shape=(40, 60)):
    G = sp.random(*shape, density=0.1, format="csr", random_state=seed)
    G.data = np.random.default_rng(seed).integers(1, 9, G.nnz).astype(np.float64)
    return G, kleene.Matrix.from_scipy(G)


def test_the_kept_transpose_is_the_transpose():
    G, A = _matrix(1)
    assert A.known("csr_T") is None
    assert cache_transpose(A) is A
    ptr, idx, val = (np.asarray(a) for a in A.known("csr_T"))
    T = sp.csr_matrix((val, idx, ptr), shape=G.shape[::-1])
    assert (T != G.T.tocsr()).nnz == 0


def test_products_that_pull_answer_as_pushes_do():
    G, A = _matrix(2)
    cache_transpose(A)
    u = kleene.Vector.from_coo(np.arange(40), np.arange(40, dtype=np.float64), 40)
    for sr in ("min_plus", "plus_times", "any_pair"):
        pulled = kleene.vxm(u, A, sr, method="pull").to_dense(missing=-1.0)
        pushed = kleene.vxm(u, A, sr, method="push").to_dense(missing=-1.0)
        np.testing.assert_array_equal(pulled, pushed)


def test_a_write_drops_the_kept_transpose():
    _, A = _matrix(3)
    cache_transpose(A)
    kleene.ops.assign(A, 5.0, [0], [0])
    assert A.known("csr_T") is None


def test_not_a_matrix_is_named():
    with pytest.raises(InvalidObject, match="cache_transpose: A must be a kleene Matrix"):
        cache_transpose(np.eye(3))
