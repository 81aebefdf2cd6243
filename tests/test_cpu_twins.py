"""Serial and parallel variants of one compiled function keep apart in Numba's disk
cache (kleene/backends/cpu/twin.py): its key holds the function's name, not the
compile options, so without a twin whichever variant compiled first was loaded by
the other, in every later process too (a parallel pass left on one thread)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

numba = pytest.importorskip("numba")

from kleene.backends.cpu import betweenness, symmetry  # noqa: E402

compiled = pytest.mark.skipif(not betweenness.HAVE_NUMBA, reason="no Numba: no compiled variants")

PAIRS = [
    (betweenness._run_serial, betweenness._run),
    (betweenness._run_lanes_serial, betweenness._run_lanes),
]
if symmetry.symmetry_sums is not None:  # (KLEENE_CPU=numpy: the pass is not compiled)
    PAIRS += [
        (symmetry._pattern_sum, symmetry._pattern_sum_threads),
        (symmetry._both_sums, symmetry._both_sums_threads),
    ]


@compiled
@pytest.mark.parametrize("serial, parallel", PAIRS)
def test_each_variant_has_its_own_cache_file(serial, parallel):
    assert not serial.targetoptions.get("parallel") and parallel.targetoptions.get("parallel")
    assert serial._cache._cache_file._index_name != parallel._cache._cache_file._index_name


@pytest.mark.skipif(symmetry.symmetry_sums is None, reason="KLEENE_CPU=numpy: not compiled")
def test_the_parallel_pass_compiles_its_own_code_after_the_serial_one(tmp_path):
    # a fresh cache: the serial variant compiles and is saved first; the parallel one
    # must then compile too (a cache hit would be the serial code under its name)
    script = textwrap.dedent(
        """
        import numpy as np
        from kleene.backends.cpu import symmetry as cs
        ptr, idx = np.array([0, 1, 2], np.int64), np.array([1, 0], np.int32)
        bounds = cs.row_groups(ptr, 2)
        cs._pattern_sum(ptr, idx, np.uint64(3), bounds)
        cs._pattern_sum_threads(ptr, idx, np.uint64(3), bounds)
        print(sum(cs._pattern_sum_threads.stats.cache_hits.values()),
              sum(cs._pattern_sum_threads.stats.cache_misses.values()))
        """
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    hits, misses = map(int, out.stdout.split())
    assert (hits, misses) == (0, 1)
