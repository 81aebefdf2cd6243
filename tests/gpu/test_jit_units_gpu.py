"""Compile units on the GPU (kleene.backends.cuda.jit, kleene.backends.cuda.units).

A first call compiles only the kernels it runs; a unit compiled once is loaded from
CuPy's disk cache by a later process; cooperative kernels, compiled like any other,
are launched cooperatively; ``count_ids`` (the transpose's column counts) equals bincount.
Skipped without CuPy or a GPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # cuda_cases, beside this file
from cuda_cases import gpu_missing  # noqa: E402

pytestmark = pytest.mark.gpu

_WHY = gpu_missing()
if _WHY is not None:
    pytest.skip(_WHY, allow_module_level=True)

import cupy  # noqa: E402

from kleene.backends import cuda  # noqa: E402
from kleene.backends.cuda import codegen, jit  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
_CODE = """
template <int K>
__global__ void kl_t_fill(int* out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) out[i] = K;
}
"""


def _entries(d: Path) -> set[str]:
    return {p.name for p in d.iterdir()} if d.is_dir() else set()


def _run(kernel, k: int) -> None:
    out = cupy.zeros(1000, dtype=np.int32)
    kernel((4,), (128,), (out, np.int64(out.size)))
    assert (out.get() == k).all()


_LATER = """
import sys, cupy, numpy as np
from kleene.backends.cuda import jit
code, k = sys.stdin.read(), int(sys.argv[1])
out = cupy.zeros(1000, dtype=np.int32)
jit.load_unit(code, (f"kl_t_fill<{k}>",))[f"kl_t_fill<{k}>"]((4,), (128,), (out, np.int64(1000)))
assert (out.get() == k).all()
"""


def _later_process(code: str, k: int, cache: Path) -> None:
    """Load the unit kl_t_fill<k> of ``code`` in a new process on the cache ``cache``."""
    env = {**os.environ, "CUPY_CACHE_DIR": str(cache)}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run(
        [sys.executable, "-c", _LATER, str(k)],
        input=code,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]


def test_unit_compiled_once_is_loaded_by_a_later_process(tmp_path) -> None:
    code = _CODE + f"// {uuid.uuid4()}\n"  # no earlier run compiled it
    _later_process(code, 3, tmp_path)
    first = _entries(tmp_path)
    assert len([n for n in first if not n.startswith(".")]) == 1  # the one unit's entry
    stamps = {n: (tmp_path / n).stat().st_ino for n in first}
    _later_process(code, 3, tmp_path)  # read, not compiled and written again
    assert {n: (tmp_path / n).stat().st_ino for n in _entries(tmp_path)} == stamps
    _later_process(code, 4, tmp_path)  # another kernel of the same source: its own entry
    assert len(_entries(tmp_path) - first) == 1


def test_units_of_one_source_compile_apart_and_together() -> None:
    code = _CODE + f"// {uuid.uuid4()}\n"
    for k in (1, 2):
        _run(jit.load_unit(code, (f"kl_t_fill<{k}>",))[f"kl_t_fill<{k}>"], k)
    both = jit.load_unit(code, ("kl_t_fill<1>", "kl_t_fill<2>"))
    _run(both["kl_t_fill<1>"], 1)
    _run(both["kl_t_fill<2>"], 2)


def test_first_use_compiles_only_that_kernel() -> None:
    spec = codegen.structure_spec()
    jit.function(spec, "kl_count_ids<int>")
    held = [k for k in jit._units if k[1] == spec.key and "kl_count_ids<int>" in k[2]]
    assert [k[2] for k in held] == [("kl_count_ids<int>",)]


def test_cooperative_kernel_is_wrapped_for_cooperative_launches() -> None:
    """Compiled like any other kernel (no relocatable code); the wrapper launches it
    with cuLaunchCooperativeKernel (the BFS/closure tests run it) and passes attributes
    through to the RawKernel."""
    fn = jit.function(codegen.frontier_spec(True), "kl_bfs_run<false, 0>")
    assert isinstance(fn, jit.Cooperative)
    assert fn.attributes["max_threads_per_block"] > 0
    plain = jit.function(codegen.frontier_spec(False), "kl_bfs_step<false, false>")
    assert not isinstance(plain, jit.Cooperative)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("size, n", [(0, 5), (1, 1), (10_000, 7), (200_000, 70_000)])
def test_count_ids_is_bincount(dtype, size, n) -> None:
    ids = cupy.random.default_rng(size).integers(0, n, size).astype(dtype)
    got = cuda.count_ids(ids, n)
    assert got.dtype == np.int64 and got.shape == (n,)
    want = np.bincount(ids.get(), minlength=n)[:n]
    np.testing.assert_array_equal(got.get(), want)
