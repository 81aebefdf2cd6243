"""Every CUDA kernel specialisation of the built-in algebra compiles with nvcc.

Runs without a GPU or CuPy: the sources come from ``kleene.ops.cuda.codegen``,
the same text NVRTC compiles at run time. Specialisations are wrapped in
namespaces and batched many to a translation unit; units compile in parallel.
Skipped when ``nvcc`` is not on PATH.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kleene.ops.cuda import codegen

NVCC = shutil.which("nvcc")
ARCH = os.environ.get("KLEENE_CUDA_ARCH", "sm_90")
# Units per worker: enough that the last unit does not run alone for long.
UNITS_PER_WORKER = 6
# Front end and assembler without optimisation: every error still surfaces and the
# whole suite compiles ~2.5x faster. KLEENE_NVCC_OPT=1 compiles as NVRTC does (-O3).
OPT_FLAGS = [] if os.environ.get("KLEENE_NVCC_OPT") else ["-Xcicc", "-O0", "-Xptxas", "-O0"]

needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")


def _weight(spec: codegen.Spec) -> int:
    """Rough compile cost, to spread the heavy specialisations over the units."""
    return {"mxm_dense": 12, "closure_grid": 6}.get(spec.kind, 1) * len(spec.names)


def _units(specs: list[codegen.Spec], nunits: int) -> list[str]:
    """Translation units: each spec in its own namespace, instantiated by address."""
    bins: list[list[tuple[int, codegen.Spec]]] = [[] for _ in range(nunits)]
    loads = [0] * nunits
    order = sorted(enumerate(specs), key=lambda t: -_weight(t[1]))
    for i, spec in order:
        b = loads.index(min(loads))
        bins[b].append((i, spec))
        loads[b] += _weight(spec)
    units = []
    for members in bins:
        parts = [codegen.common_header()]
        for i, spec in members:
            ns = f"kl_spec_{i}"
            parts.append(codegen.render(spec, namespace=ns, common=False))
            parts.extend(
                f"void* kl_force_{i}_{j} = (void*)&{ns}::{name};\n"
                for j, name in enumerate(spec.names)
            )
        units.append("".join(parts))
    return [u for u, m in zip(units, bins, strict=True) if m]


def _compile(path: Path) -> tuple[Path, int, str]:
    out = str(path.with_suffix(".o"))
    cmd = [NVCC, f"-arch={ARCH}", "-std=c++17", *OPT_FLAGS, "-c", str(path), "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return path, r.returncode, r.stdout + r.stderr


def _compile_all(specs: list[codegen.Spec], tmp_path: Path) -> None:
    workers = max(1, min(os.cpu_count() or 1, 8))
    units = _units(specs, workers * UNITS_PER_WORKER)
    paths = []
    for n, text in enumerate(units):
        p = tmp_path / f"unit_{n}.cu"
        p.write_text(text)
        paths.append(p)
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(_compile, paths))
    failures = [(p, out) for p, rc, out in results if rc != 0]
    msg = "\n\n".join(f"{p.name}:\n{out[-4000:]}" for p, out in failures[:3])
    assert not failures, f"{len(failures)} of {len(paths)} units failed to compile:\n{msg}"


def test_kernel_files_undefine_their_macros() -> None:
    """Each template #undefs what it #defines, so specialisations can share a unit."""
    for path in codegen.KERNEL_DIR.glob("*.cu"):
        text = path.read_text()
        defined = set(re.findall(r"^\s*#define\s+(\w+)", text, re.M))
        undefined = set(re.findall(r"^\s*#undef\s+(\w+)", text, re.M))
        assert defined <= undefined, f"{path.name} leaks macros {sorted(defined - undefined)}"


def test_builtin_specs_cover_every_semiring_and_dtype() -> None:
    from kleene.semiring import SEMIRINGS

    keys = {s.key for s in codegen.builtin_specs()}
    for sr in SEMIRINGS.values():
        for d in sr.dtypes:
            c = sr.mul.result_dtype(d, d).str
            assert ("mxm_dense", sr.key, d.str, d.str, c, None) in keys
            for flip in (False, True):
                assert ("mxv_pull", sr.key, d.str, d.str, c, flip) in keys
                assert ("vxm_push", sr.key, d.str, d.str, c, flip) in keys


def test_frontier_switches_come_from_direction() -> None:
    """Beamer's thresholds live in kleene.ops.direction alone: the frontier kernels get
    them generated (the template defines none), so kernels and host loops agree."""
    from kleene.ops import direction

    text = (codegen.KERNEL_DIR / "frontier.cu").read_text()
    assert not re.search(r"^\s*#define\s+KL_TO_PU(LL|SH)\b", text, re.M)
    for cooperative in (True, False):
        spec = codegen.frontier_spec(cooperative)
        assert spec.cooperative is cooperative
        source = codegen.render(spec)
        assert f"#define KL_TO_PULL {direction.TO_PULL}\n" in source
        assert f"#define KL_TO_PUSH {direction.TO_PUSH}\n" in source


@needs_nvcc
def test_every_builtin_specialisation_compiles(tmp_path: Path) -> None:
    _compile_all(codegen.builtin_specs(), tmp_path)


@needs_nvcc
def test_user_semiring_specialisations_compile(tmp_path: Path) -> None:
    """A user-defined semiring (CAS monoid, custom expressions) needs no extra code."""
    import numpy as np

    from kleene.semiring import BinaryOp, Monoid, Semiring

    gcd = Monoid(BinaryOp("gcd", np.gcd, "kl_gcd(x, y)"), 0)
    absmax = Monoid(BinaryOp("absmax", np.fmax, "(x < y ? y : x)"), 0, idempotent=True)
    mul = BinaryOp("hyp", np.hypot, "(x * x + y * y)")
    times = BinaryOp("times", np.multiply, "x * y")
    specs = []
    for sr, d in ((Semiring(gcd, times), np.int64), (Semiring(absmax, mul), np.float32)):
        specs += [
            codegen.mxm_spec(sr, d, d, d),
            codegen.mxv_spec(sr, d, d, d, True),
            codegen.vxm_spec(sr, d, d, d, False),
            codegen.segment_reduce_spec(sr.add, d),
        ]
    _compile_all(specs, tmp_path)


@needs_nvcc
def test_broken_template_fails(tmp_path: Path) -> None:
    """The harness notices a kernel that does not compile."""
    import numpy as np

    from kleene.semiring import BinaryOp, Monoid

    bad = Monoid(BinaryOp("bad", np.add, "x +* y"), 0)
    with pytest.raises(AssertionError, match="failed to compile"):
        _compile_all([codegen.segment_reduce_spec(bad, np.int32)], tmp_path)
