"""Every CUDA kernel specialisation of the built-in algebra compiles with nvcc.

Runs without a GPU or CuPy: the sources come from ``kleene.backends.cuda.codegen``,
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

from kleene.backends.cuda import codegen
from kleene.backends.cuda import units as cuda_units

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
    """Beamer's thresholds live in kleene.backends.direction alone: the frontier kernels get
    them generated (the template defines none), so kernels and host loops agree."""
    from kleene.backends import direction

    text = (codegen.KERNEL_DIR / "frontier.cu").read_text()
    assert not re.search(r"^\s*#define\s+KL_TO_PU(LL|SH)\b", text, re.M)
    for cooperative in (True, False):
        spec = codegen.frontier_spec(cooperative)
        assert spec.cooperative is cooperative
        source = codegen.render(spec)
        assert f"#define KL_TO_PULL {direction.TO_PULL}\n" in source
        assert f"#define KL_TO_PUSH {direction.TO_PUSH}\n" in source


# The sparse-product templates (masked dot products, hash accumulators) take the
# semiring's add and multiply from the same expressions the mxm/mxv kernels above
# compile for every semiring and dtype; they are compiled here for every semiring once
# and every dtype once, which reaches every line of theirs at a third of the cost.
SPARSE_KINDS = ("mxm_dot3", "mxm_hash")


def _thinned(specs: list[codegen.Spec]) -> list[codegen.Spec]:
    seen_semiring, seen_dtypes, out = set(), set(), []
    for s in specs:
        if s.kind in SPARSE_KINDS:
            semiring, dtypes = (s.kind, s.key[1]), (s.kind, s.key[2:])
            if semiring in seen_semiring and dtypes in seen_dtypes:
                continue
            seen_semiring.add(semiring)
            seen_dtypes.add(dtypes)
        out.append(s)
    return out


@pytest.mark.nvcc  # CI's step of its own (tests/conftest.py: APART)
@needs_nvcc
def test_every_builtin_specialisation_compiles(tmp_path: Path) -> None:
    specs = _thinned(codegen.builtin_specs())
    kinds = {s.kind for s in specs}
    assert set(SPARSE_KINDS) <= kinds  # the keys' layout still names semiring and dtypes
    _compile_all(specs, tmp_path)


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


# ---- compile units (kleene.backends.cuda.units): one kernel per NVRTC run ------------------


def test_unit_names_alone_unless_together() -> None:
    names = ("kl_a<1>", "kl_a<2>", "kl_b")
    assert cuda_units.unit_names(names, "kl_a<2>", together=False) == ("kl_a<2>",)
    assert cuda_units.unit_names(names, "kl_b", together=True) == names
    # a name the spec does not list is compiled alone either way
    assert cuda_units.unit_names(names, "kl_c", together=True) == ("kl_c",)


def test_unit_source_is_distinct_per_unit_and_defines_only_for_one() -> None:
    spec = codegen.frontier_spec(False)
    code = codegen.render(spec)
    one = cuda_units.unit_source(code, ("kl_bfs_init",))
    other = cuda_units.unit_source(code, ("kl_nf_init",))
    both = cuda_units.unit_source(code, ("kl_bfs_init", "kl_nf_init"))
    assert one.startswith("#define KL_ONLY 1\n#define KL_ONLY_kl_bfs_init 1\n")
    assert "KL_ONLY" not in both.split(code)[0]  # several kernels: nothing left out
    assert len({one, other, both}) == 3  # each unit its own entry in CuPy's cache


def _plain_kernels(text: str) -> list[tuple[str, str]]:
    """(kernel name, the line before its __global__ line) for each non-template kernel."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        if line.startswith("__global__") and not lines[i - 1].startswith("template"):
            m = re.search(r"\b(kl_\w+)\(", line + " " + lines[i + 1])
            found.append((m.group(1), lines[i - 1]))
    return found


def test_plain_kernels_are_guarded_where_kernels_compile_alone() -> None:
    """NVRTC compiles a kernel that is not a template whether it is asked for or not:
    in a file whose kernels compile one per unit, each such kernel sits behind its
    KL_ONLY guard, so that the other kernels' units do not compile it too."""
    files = {
        b for s in codegen.builtin_specs() if not s.together and len(s.names) > 1 for b in s.bodies
    }
    checked = 0
    for body in sorted(files):
        for name, before in _plain_kernels((codegen.KERNEL_DIR / body).read_text()):
            want = f"#if !defined(KL_ONLY) || defined({cuda_units.only_macro(name)})"
            assert before.startswith(want), f"{body}: kernel {name} is not guarded"
            checked += 1
    assert checked >= 4  # kl_bfs_init, kl_bfs_rounds, kl_nf_init, kl_reduce_small


def _ptx_entries(source: str, tmp_path: Path, name: str) -> list[str]:
    cu = tmp_path / f"{name}.cu"
    cu.write_text(source)
    ptx = cu.with_suffix(".ptx")
    cmd = [NVCC, f"-arch={ARCH}", "-std=c++17", "-Xcicc", "-O0", "-ptx", str(cu), "-o", str(ptx)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return re.findall(r"^\.visible \.entry (\w+)\(", ptx.read_text(), re.M)


@needs_nvcc
def test_one_kernel_unit_compiles_one_kernel(tmp_path: Path) -> None:
    """A unit of one template instance or one guarded plain kernel holds that kernel
    alone (what a first call pays for), from the frontier file, which has both kinds."""
    code = codegen.render(codegen.frontier_spec(False))
    for k, name in enumerate(("kl_bfs_step<false, false>", "kl_bfs_init")):
        source = cuda_units.unit_source(code, (name,)) + f"void* kl_force = (void*)&{name};\n"
        entries = _ptx_entries(source, tmp_path, f"unit{k}")
        assert len(entries) == 1 and name.split("<")[0] in entries[0], entries
