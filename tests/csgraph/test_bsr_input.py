"""A BSR matrix's zeros pad its blocks: they are no edges, whatever the block size."""

import numpy as np
import pytest
from scipy.sparse import bsr_array

from kleene import csgraph


@pytest.mark.parametrize("blocksize", [(1, 1), (2, 2), (4, 4)])
def test_bsr_block_padding_is_no_edge(blocksize):
    graph = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    n, labels = csgraph.connected_components(
        bsr_array(graph, blocksize=blocksize).astype(bool), directed=False
    )
    assert n == 3 and labels.tolist() == [0, 1, 0, 2]
    dist = csgraph.shortest_path(bsr_array(graph.astype(float), blocksize=blocksize), indices=1)
    assert dist.tolist() == [np.inf, 0.0, np.inf, np.inf]
