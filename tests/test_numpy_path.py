"""The NumPy reference path (``KLEENE_CPU=numpy``: no compiled CPU kernels) passes the
same property and algorithm suites as the compiled default.

The environment variable is read when ``kleene.backends.cpu`` is imported, so those
suites run again in a pytest process of their own: the NumPy-path step of ``.ci/run``,

    KLEENE_CPU=numpy python3 -m pytest -q -n 2 -m "numpy_path and not gpu"

``tests/conftest.py`` marks them ``numpy_path`` (its ``NUMPY_PATH_SUITES``, this file
among them); the default suite runs them once, on the compiled path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import kleene.backends.cpu as cpu

ROOT = Path(__file__).resolve().parents[1]
NUMPY_PATH = os.environ.get("KLEENE_CPU", "").lower() == "numpy"


def test_this_process_runs_the_path_its_environment_names():
    # In the NumPy-path step: the suites beside this test really ran without the
    # compiled kernels. In the default suite: with them (Numba is a dependency).
    assert (cpu.bfs_levels is None) == NUMPY_PATH
    assert (cpu.closure_dense is None) == NUMPY_PATH


def test_kleene_cpu_numpy_leaves_the_compiled_kernels_out():
    env = dict(os.environ, KLEENE_CPU="numpy")
    code = "import kleene.backends.cpu as c; print(c.bfs_levels is None, c.closure_dense is None)"
    probe = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert probe.stdout.split() == ["True", "True"], probe.stderr
