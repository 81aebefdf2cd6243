"""The generated CUDA source of the sparse products (no GPU, no CuPy): the unmasked
product's specialisation (kernels/spgemm_hash.cu) and the masked one (spgemm.cu) are in
the catalog CI compiles, carry the algebra's expressions, and compile with nvcc for a
user-defined semiring (skipped without nvcc)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kleene.backends.cuda import codegen
from kleene.backends.cuda.codegen import spgemm as spgemm_codegen
from kleene.semiring import SEMIRINGS, BinaryOp, Monoid, Semiring, get_semiring

NVCC = shutil.which("nvcc")
ARCH = os.environ.get("KLEENE_CUDA_ARCH", "sm_90")

_mymin = BinaryOp("mymin", np.fmin, "(x < y ? x : y)")
_hyp = BinaryOp("hyp", np.hypot, "(x * x + y * y)")
USER = Semiring(Monoid(_mymin, float("inf"), idempotent=True), _hyp, name="mymin_hyp")
GCD = Semiring(Monoid(BinaryOp("gcd", np.gcd, "kl_gcd(x, y)"), 0), get_semiring("plus_times").mul)


def test_catalog_holds_both_sparse_products() -> None:
    keys = {s.key for s in codegen.builtin_specs()}
    for sr in SEMIRINGS.values():
        for d in sr.dtypes:
            c = sr.mul.result_dtype(d, d).str
            assert ("mxm_hash", sr.key, d.str, d.str, c) in keys
            assert ("mxm_dot3", sr.key, d.str, d.str, c) in keys


def test_hash_spec_text() -> None:
    spec = spgemm_codegen.hash_spec(USER, np.float32, np.float32, np.float32)
    text = codegen.render(spec)
    assert "return (kl_c_t)((x * x + y * y));" in text  # kl_mult from the cuda_expr
    assert "return (kl_c_t)((x < y ? x : y));" in text  # kl_add
    assert f"#define KL_SPG_WARPS_HEAVY {spgemm_codegen.HEAVY_WARPS}\n" in text
    assert spec.together  # one NVRTC run for the kernels a product uses together
    assert set(spec.names) == {
        *spgemm_codegen.HASH_ROWS.values(),
        *spgemm_codegen.HASH_HEAVY.values(),
        spgemm_codegen.HASH_COPY,
    }
    for name in spec.names:  # every instance's template is in the source
        assert re.search(rf"\b{name.split('<')[0]}\(", text), name
    # every generated macro is undefined after the template
    for m in spec.macros:
        assert text.rindex(f"#undef {m}\n") > text.index("kl_spgemm_copy(")
    # different dtypes and algebra: different cache keys
    other = spgemm_codegen.hash_spec(USER, np.float64, np.float64, np.float64)
    assert other.key != spec.key


def test_hash_spec_any_and_terminal_switches() -> None:
    text = codegen.render(spgemm_codegen.hash_spec(get_semiring("any_pair"), *[np.int64] * 3))
    assert "#define KL_STOPS_AT_FIRST 1\n" in text
    text = codegen.render(spgemm_codegen.hash_spec(get_semiring("lor_land"), *[np.bool_] * 3))
    assert "#define KL_HAS_TERMINAL 1\n" in text


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_user_semiring_sparse_products_compile(tmp_path: Path) -> None:
    specs = [
        spgemm_codegen.hash_spec(USER, np.float32, np.float32, np.float32),
        spgemm_codegen.hash_spec(GCD, np.int64, np.int64, np.int64),
        spgemm_codegen.hash_spec(get_semiring("lor_land"), np.bool_, np.bool_, np.bool_),
        spgemm_codegen.dot3_spec(USER, np.float64, np.float64, np.float64),
    ]
    parts = [codegen.common_header()]
    for i, spec in enumerate(specs):
        ns = f"kl_spec_{i}"
        parts.append(codegen.render(spec, namespace=ns, common=False))
        parts += [
            f"void* kl_force_{i}_{j} = (void*)&{ns}::{n};\n" for j, n in enumerate(spec.names)
        ]
    src = tmp_path / "unit.cu"
    src.write_text("".join(parts))
    cmd = [NVCC, f"-arch={ARCH}", "-std=c++17", "-Xcicc", "-O0", "-Xptxas", "-O0"]
    r = subprocess.run([*cmd, "-c", str(src), "-o", str(tmp_path / "unit.o")], capture_output=True)
    assert r.returncode == 0, (r.stdout + r.stderr).decode()[-4000:]
