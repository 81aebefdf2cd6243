"""SciPy's own csgraph tests, run against kleene.csgraph.

At collection, the test files of the installed SciPy are copied into a temporary
directory (never into this repository) with one change each: the import of the
functions under test reads ``kleene.csgraph`` instead of ``scipy.sparse.csgraph``
(and test_traversal's two relative imports of SciPy helpers, which only resolve
inside SciPy's package, name those SciPy modules absolutely). The copies are
imported and their tests (and fixtures) collected here under
``<file stem>__<test name>``. The few that cannot pass are listed in ``XFAIL`` with
the reason, and xfail strictly (conftest.py applies them).
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import scipy.sparse.csgraph

SCIPY_TESTS = Path(scipy.sparse.csgraph.__file__).parent / "tests"

# file -> [(text in SciPy's file, its replacement)]; each must occur.
REWRITES = {
    "test_shortest_path.py": [
        ("from scipy.sparse.csgraph import (", "from kleene.csgraph import ("),
    ],
    "test_traversal.py": [
        ("from scipy.sparse.csgraph import (", "from kleene.csgraph import ("),
        ("from .._laplacian import", "from scipy.sparse.csgraph._laplacian import"),
        ("from .._min_spanning_tree import", "from scipy.sparse.csgraph._min_spanning_tree import"),
    ],
    "test_connected_components.py": [
        (
            "from scipy.sparse import csgraph, csr_array",
            "from scipy.sparse import csr_array\nfrom kleene import csgraph",
        ),
    ],
    "test_pydata_sparse.py": [
        ("import scipy.sparse.csgraph as spgraph", "import kleene.csgraph as spgraph"),
    ],
}


def _copy(name: str, into: Path) -> Path:
    text = (SCIPY_TESTS / name).read_text()
    for old, new in REWRITES[name]:
        if old not in text:
            raise RuntimeError(f"SciPy's {name} no longer contains {old!r}: update REWRITES")
        text = text.replace(old, new)
    path = into / f"kleene_{name}"
    path.write_text(text)
    return path


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _collect() -> dict:
    into = Path(tempfile.mkdtemp(prefix="kleene-scipy-csgraph-"))
    found = {}
    for name in REWRITES:
        module = _load(_copy(name, into))
        stem = name.removesuffix(".py")
        marks = getattr(module, "pytestmark", [])
        marks = marks if isinstance(marks, list) else [marks]
        for attr, value in vars(module).items():
            if attr.startswith("test_") and callable(value):
                for mark in marks:  # the module's marks (pydata: skip without sparse)
                    value = mark(value)
                found[f"{stem}__{attr}"] = value
            elif hasattr(value, "_fixture_function_marker") or type(value).__name__ == (
                "FixtureFunctionDefinition"
            ):
                found[attr] = value  # the module's fixtures, by their own names
    return found


globals().update(_collect())
