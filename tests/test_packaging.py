"""Packaging: kleene imports without CuPy, ships its CUDA templates, one version."""

from __future__ import annotations

import fnmatch
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "kleene"
KERNEL_SUFFIXES = (".cu", ".cuh")

# Makes `import cupy` (and cupyx) fail, as on a machine without CuPy.
_BLOCK_CUPY = """
import sys
sys.modules["cupy"] = None
sys.modules["cupyx"] = None
"""


def _pyproject() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_import_kleene_without_cupy():
    code = (
        _BLOCK_CUPY
        + """
import numpy as np
import kleene
from kleene import _info
assert not _info.gpu_available()
assert "cupy not importable" in _info.gpu_info()["reason"]
A = kleene.Matrix.from_dense(np.array([[0.0, 1.0], [np.inf, 0.0]]))
assert A.device == "cpu"
print("ok", kleene.Matrix, kleene.Vector, kleene.mxm)
"""
    )
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok")


def test_info_without_cupy():
    proc = _python(_BLOCK_CUPY + "from kleene.__main__ import main; main(['info'])")
    assert proc.returncode == 0, proc.stderr
    assert "cupy     not installed" in proc.stdout
    assert "gpu      no:" in proc.stdout


def test_gpu_detection_never_raises():
    from kleene import _info

    info = _info.gpu_info()
    assert isinstance(info["available"], bool)
    assert _info.gpu_available() is info["available"]
    assert "kleene" in _info.versions()


def test_kernel_templates_are_declared_package_data():
    data = _pyproject()["tool"]["setuptools"]["package-data"]["kleene"]
    for suffix in (*KERNEL_SUFFIXES, ".md"):
        assert f"backends/cuda/kernels/*{suffix}" in data
    # every kernel file that exists is matched by a declared pattern
    kernels = [
        p.relative_to(PKG).as_posix()
        for p in PKG.rglob("*")
        if p.suffix in KERNEL_SUFFIXES and "__pycache__" not in p.parts
    ]
    for rel in kernels:
        assert any(fnmatch.fnmatch(rel, pat) for pat in data), f"{rel} is not package data"


def test_project_metadata():
    project = _pyproject()["project"]
    assert project["requires-python"] == ">=3.10"
    deps = [d.split(">")[0].split("=")[0].strip() for d in project["dependencies"]]
    assert sorted(deps) == ["numba", "numpy", "scipy"]
    extras = project["optional-dependencies"]
    assert any(d.startswith("cupy-cuda12x") for d in extras["cuda12"])
    assert any(d.startswith("cupy-cuda13x") for d in extras["cuda13"])
    assert {"pytest", "hypothesis"} <= {d.split(">")[0] for d in extras["test"]}
    assert project["scripts"]["kleene"] == "kleene.__main__:main"


def test_one_version():
    import kleene
    from kleene._info import __version__

    assert getattr(kleene, "__version__", __version__) == __version__
    try:
        installed = importlib.metadata.version("kleene")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("kleene is not installed (running from a source tree)")
    assert installed == __version__


def test_ci_script_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = "python3 -m pip install -e '.[test]' && python3 -m pytest -q -n 2"
    assert command in readme
    assert command in ci
    assert "set -euo pipefail" in ci
    assert "python3 -m pip install -e . && python3 -m kleene demo" in readme


@pytest.mark.slow
def test_build_ships_kernel_templates(tmp_path):
    """setuptools' build_py (what a wheel is made of) copies the CUDA templates.

    Runs offline with the setuptools of this environment, on a copy of the tree.
    """
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 64:
        pytest.skip(f"setuptools {setuptools.__version__} < 64 cannot build this project")
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copy(ROOT / "README.md", src)
    shutil.copytree(PKG, src / "kleene", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "build"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import setuptools; setuptools.setup()",
            "-q",
            "build_py",
            "--build-lib",
            str(out),
        ],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    built = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    expected = {
        p.relative_to(src).as_posix()
        for p in (src / "kleene").rglob("*")
        if p.suffix in KERNEL_SUFFIXES
        or (p.suffix == ".md" and "kernels" in p.parts)
        or (p.suffix == ".mtx" and "datasets" in p.parts)  # the demo's real graph
    }
    assert expected <= built, sorted(expected - built)
    for module in (
        "kleene/__init__.py",
        "kleene/__main__.py",
        "kleene/demo.py",
        "kleene/_info.py",
        "kleene/ops/__init__.py",
        "kleene/testing/__init__.py",
    ):
        assert module in built, module


# ---- the documentation's code runs ----------------------------------------------
DOC_FILES = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("docs/*.md"))]
GPU_BLOCK = "# needs a GPU"


def python_blocks(text: str) -> list[str]:
    """The ```python fenced blocks of a Markdown text, in order."""
    blocks, current = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if current is None and stripped.startswith("```python"):
            current = []
        elif current is not None and stripped == "```":
            blocks.append("\n".join(current) + "\n")
            current = None
        elif current is not None:
            current.append(line)
    assert current is None, "unclosed ```python block"
    return blocks


@pytest.mark.parametrize("doc", DOC_FILES)
def test_doc_snippets_run(doc, tmp_path, monkeypatch, capsys):
    """Every ```python block of a page runs, in order, in one namespace per page.

    Blocks whose first line is ``# needs a GPU`` run only where a GPU is visible.
    """
    from kleene._info import gpu_available

    blocks = python_blocks((ROOT / doc).read_text())
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"doc_{Path(doc).stem}"}
    ran = 0
    for i, code in enumerate(blocks):
        if code.lstrip().startswith(GPU_BLOCK) and not gpu_available():
            continue
        try:
            exec(compile(code, f"{doc}[block {i}]", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"{doc}, python block {i} failed:\n{code}") from exc
        ran += 1
    assert ran or not blocks
