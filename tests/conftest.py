"""Shared test setup: Hypothesis profiles, the ``gpu`` marker, the ``backend`` fixture.

Profiles (choose with HYPOTHESIS_PROFILE=<name>):
  ci       deterministic (derandomize), moderate example counts; the default, so a
           plain ``pytest`` run is reproducible and CI (CI set) behaves the same.
  dev      random, more examples, failures saved to the local example database.
  thorough many examples, for a long run before a release.

The same property suite runs on the GPU: ``backend`` is "cpu" always and "gpu"
(marked ``gpu``) when CuPy sees a GPU, so ``PYTHONPATH=. python3 -m pytest -m gpu``
reruns every backend-parametrised test on the device.

Two more steps of ``.ci/run`` select tests by marker:

``bench``      tests of the scripts in ``benchmarks/`` (not of the library): left out
               of a run unless its ``-m`` expression names them; ``-m bench`` runs them.
``nvcc``       the nvcc compile of every built-in kernel specialisation (minutes of
               both cores): left out the same way; ``-m nvcc`` runs it.
``numpy_path`` the suites of ``NUMPY_PATH_SUITES``, which the NumPy-path step runs
               again with ``KLEENE_CPU=numpy`` (read when ``kleene.backends.cpu`` is
               imported, so in a process of its own): ``-m "numpy_path and not gpu"``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# backend is a constant string per test, so reusing it across examples is safe.
_QUIET = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=25,
    print_blob=True,
    database=None,
    suppress_health_check=_QUIET,
)
settings.register_profile(
    "dev", deadline=None, max_examples=100, print_blob=True, suppress_health_check=_QUIET
)
settings.register_profile(
    "thorough", deadline=None, max_examples=1000, print_blob=True, suppress_health_check=_QUIET
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The property and algorithm suites the NumPy reference path must pass as the compiled
# default does (tests/test_numpy_path.py checks that the step really runs that path).
NUMPY_PATH_SUITES = frozenset(
    {
        "test_numpy_path.py",
        "test_ops_properties.py",
        "test_semiring_laws.py",
        "test_state_machine.py",
        "test_frontier_ops.py",
        "test_bfs_sssp.py",
        "test_cpu_sources.py",
        "test_ingest.py",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    # Registered here too so the markers exist even if pyproject's list changes.
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (cupy)")
    config.addinivalue_line("markers", "bench: tests a benchmarks/ script (run with -m bench)")
    config.addinivalue_line("markers", "numpy_path: rerun with KLEENE_CPU=numpy (CI step)")
    config.addinivalue_line("markers", "nvcc: compiles every built-in kernel (run with -m nvcc)")


# Markers of suites CI runs in steps of their own, left out of a run whose -m
# expression does not name them: the default suite stays about the library and short.
APART = ("bench", "nvcc")


@pytest.hookimpl(tryfirst=True)  # before -m deselects: numpy_path must be on the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in NUMPY_PATH_SUITES:
            item.add_marker(pytest.mark.numpy_path)
    expr = config.getoption("markexpr") or ""
    apart = [m for m in APART if m not in expr]  # a named one: the -m expression decides
    drop = [item for item in items if any(item.get_closest_marker(m) for m in apart)]
    if drop:
        config.hook.pytest_deselected(items=drop)
        kept = set(map(id, drop))
        items[:] = [item for item in items if id(item) not in kept]


def _gpu_ready() -> tuple[bool, str]:
    try:
        import cupy  # noqa: F401
    except Exception as e:  # ImportError, or a broken CUDA install
        return False, f"cupy is not importable ({type(e).__name__})"
    from kleene.backends.device import gpu_available

    if not gpu_available():
        return False, "cupy sees no CUDA GPU"
    return True, ""


GPU_OK, GPU_WHY = _gpu_ready()

BACKENDS = [
    pytest.param("cpu", id="cpu"),
    pytest.param(
        "gpu",
        id="gpu",
        marks=[pytest.mark.gpu, pytest.mark.skipif(not GPU_OK, reason=f"no GPU: {GPU_WHY}")],
    ),
]


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """The backend: "cpu", or "gpu" (marked ``gpu``, skipped with a reason without a GPU)."""
    return request.param


@pytest.fixture(scope="session", autouse=True)
def _precompile_gpu_kernels(request):
    """Compile the built-in kernel specialisations on all cores before GPU tests run.

    CuPy keeps compiled modules in its disk cache, so the tests then load them
    instead of compiling one by one on first use (minutes of a GPU run otherwise).
    ``KLEENE_PRECOMPILE=0`` skips it: a run of a few GPU tests compiles only what they use.
    """
    wants_gpu = any(item.get_closest_marker("gpu") for item in request.session.items)
    if not (GPU_OK and wants_gpu) or os.environ.get("KLEENE_PRECOMPILE") == "0":
        return
    from kleene.backends.cuda import codegen, jit

    try:
        for error in jit.precompile(codegen.builtin_specs()):
            print(error)
    except Exception as e:  # no process pool: tests compile lazily instead
        print(f"precompile skipped: {type(e).__name__}: {e}")
