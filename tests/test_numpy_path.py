"""The NumPy reference path (``KLEENE_CPU=numpy``: no compiled CPU kernels) passes the
same property and algorithm suites as the compiled default.

The environment variable is read when ``kleene.backends.cpu`` is imported, so the suites run
again in a child pytest with it set; a failure there fails this test with the child's
report. The GPU tests are deselected (the child runs on the CPU only).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUITES = [
    "tests/test_ops_properties.py",
    "tests/test_semiring_laws.py",
    "tests/test_state_machine.py",
    "tests/test_frontier_ops.py",
    "tests/test_bfs_sssp.py",
    "tests/test_cpu_sources.py",
    "tests/test_ingest.py",
]


@pytest.mark.skipif(
    os.environ.get("KLEENE_CPU", "").lower() == "numpy", reason="already the NumPy path"
)
def test_suites_pass_on_the_numpy_path():
    env = dict(os.environ, KLEENE_CPU="numpy")
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-m", "not gpu", "-p", "no:cacheprovider",
           *SUITES]  # fmt: skip
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert " passed" in r.stdout
    # the child really ran without the compiled kernels
    probe = subprocess.run(
        [sys.executable, "-c", "import kleene.backends.cpu as c; print(c.bfs_levels is None)"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert probe.stdout.strip() == "True", probe.stderr
