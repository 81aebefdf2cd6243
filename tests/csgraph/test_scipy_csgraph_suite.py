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
import re
import sys
import tempfile
from pathlib import Path

import scipy.sparse.csgraph

SCIPY_TESTS = Path(scipy.sparse.csgraph.__file__).parent / "tests"


def _swap_csgraph(match: re.Match) -> str:
    """``from scipy.sparse import a, csgraph, b`` -> the same without csgraph, plus
    ``from kleene import csgraph``."""
    names = [name.strip() for name in match.group(1).split(",")]
    if "csgraph" not in names:
        return match.group(0)
    rest = [name for name in names if name != "csgraph"]
    kept = f"from scipy.sparse import {', '.join(rest)}\n" if rest else ""
    return kept + "from kleene import csgraph"


# file -> [(pattern in SciPy's file, its replacement)]; each must match. Patterns,
# not literal lines, because releases differ in the names they import beside csgraph
# (1.15: ``csgraph``; 1.17: ``csgraph, csr_array``; later: ``bsr_array, csgraph, ...``).
REWRITES = {
    "test_shortest_path.py": [
        (r"from scipy\.sparse\.csgraph import \(", "from kleene.csgraph import ("),
    ],
    "test_traversal.py": [
        (r"from scipy\.sparse\.csgraph import \(", "from kleene.csgraph import ("),
        (r"from \.\._laplacian import", "from scipy.sparse.csgraph._laplacian import"),
        (
            r"from \.\._min_spanning_tree import",
            "from scipy.sparse.csgraph._min_spanning_tree import",
        ),
    ],
    "test_connected_components.py": [(r"(?m)^from scipy\.sparse import (.*)$", _swap_csgraph)],
    "test_pydata_sparse.py": [
        (r"import scipy\.sparse\.csgraph as spgraph", "import kleene.csgraph as spgraph"),
    ],
}


def _copy(name: str, into: Path) -> Path:
    text = (SCIPY_TESTS / name).read_text()
    for pattern, new in REWRITES[name]:
        text, count = re.subn(pattern, new, text, count=1)
        if count == 0:
            raise RuntimeError(f"SciPy's {name} no longer matches {pattern!r}: update REWRITES")
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
