"""Serial and parallel variants of one compiled function keep apart in Numba's disk
cache (kleene/backends/cpu/twin.py): its key holds the function's name, not the
compile options, so without a twin whichever variant compiled first was loaded by
the other, in every later process too (a parallel pass left on one thread)."""

from __future__ import annotations

import pytest

numba = pytest.importorskip("numba")

from kleene.backends.cpu import betweenness  # noqa: E402

compiled = pytest.mark.skipif(not betweenness.HAVE_NUMBA, reason="no Numba: no compiled variants")

PAIRS = [
    (betweenness._run_serial, betweenness._run),
    (betweenness._run_lanes_serial, betweenness._run_lanes),
]


@compiled
@pytest.mark.parametrize("serial, parallel", PAIRS)
def test_each_variant_has_its_own_cache_file(serial, parallel):
    assert not serial.targetoptions.get("parallel") and parallel.targetoptions.get("parallel")
    assert serial._cache._cache_file._index_name != parallel._cache._cache_file._index_name
