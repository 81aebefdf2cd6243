"""The layers keep to their rules, read from the source so a regression fails CI.

The packages form a stack (docs/architecture.md); a module may import its own
package or a package below it, never one above, so no import circle spans two
packages. Lazy imports inside functions count: a circle deferred is still a circle.

- ``backends`` (kernels) sees only the algebra and the errors;
- ``core`` (containers) sees the back ends' device helpers, not the operations
  (``kleene.ops`` registers itself with ``core.methods``);
- everything above the engine (algorithms, front ends) imports the engine layers
  only through their packages' ``__all__``, never a submodule's internals;
- no module imports a ``_private`` name from another package, and outside
  ``core`` no module reads a private attribute of any object but its own (the
  operation and engine layers read a container's arrays through ``core.access``);
- a back end is reached only through ``backend(xp)``;
- only the containers write private attributes of another object;
- no folder holds more than 20 modules.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import kleene

ROOT = Path(kleene.__file__).resolve().parent
CONTAINERS = {"core/matrix.py", "core/vector.py", "core/storage.py"}

# Lower rank = lower layer. Same rank: packages that must not import each other.
RANK = {
    "_info": 0,
    "errors": -1,  # under everything: every layer raises its types
    "progress": 0,
    "semiring": 0,
    "backends": 1,
    "core": 2,
    "ops": 3,
    "engine": 4,
    "algorithms": 5,
    "io": 6,
    "generators": 6,
    "kleene": 7,  # the package itself: the public facade over everything below
    "datasets": 8,
    "testing": 8,
    "nx": 8,
    "csgraph": 8,  # SciPy's csgraph names over the facade, beside nx
    "distributed": 8,
    "cli": 8,
    "demo": 9,  # runs datasets and the facade
    "__main__": 10,
}
ENGINE = ("backends", "core", "ops", "engine")  # below algorithms: share container internals
FRONT = {name for name, rank in RANK.items() if rank >= RANK["algorithms"]}


def _modules():
    return sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _module_name(path: Path) -> str:
    parts = ["kleene", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "kleene"


def _imports(path: Path):
    """(line, imported module, [names]) for every kleene import, lazy ones too."""
    module = _module_name(path)
    here = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [a.name for a in node.names]
            if target == "kleene":  # from kleene import ops: the subpackage is the target
                for name in names:
                    yield node.lineno, f"kleene.{name}", []
            elif target.startswith("kleene."):
                yield node.lineno, target, names
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "kleene" or a.name.startswith("kleene."):
                    yield node.lineno, a.name, []


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_imports_point_down(path):
    mine = _package(_module_name(path))
    for line, target, _ in _imports(path):
        theirs = _package(target)
        if theirs == mine or theirs not in RANK:  # (a top-level module's own attribute)
            continue
        assert RANK[theirs] < RANK[mine], (
            f"{_rel(path)}:{line} ({mine}) imports {target} ({theirs}): "
            "imports point down the layers only"
        )


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_no_private_names_across_packages(path):
    mine = _package(_module_name(path))
    for line, target, names in _imports(path):
        if _package(target) == mine:
            continue
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        assert not private, f"{_rel(path)}:{line} imports private {private} from {target}"
        assert not any(p.startswith("_") for p in target.split(".")[2:]), (
            f"{_rel(path)}:{line} imports the private module {target}"
        )


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_above_the_engine_only_public_surfaces(path):
    """Algorithms and front ends use kleene.core/ops/engine/backends by their
    packages' public names, and read no private attribute of another object."""
    mine = _package(_module_name(path))
    if mine not in FRONT:
        return
    for line, target, names in _imports(path):
        layer = _package(target)
        if layer not in ENGINE:
            continue
        assert target == f"kleene.{layer}", (
            f"{_rel(path)}:{line} imports {target}: use the public kleene.{layer}"
        )
        public = set(importlib.import_module(target).__all__)
        hidden = set(names) - public
        assert not hidden, f"{_rel(path)}:{line} imports {hidden}, not in kleene.{layer}.__all__"


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_private_attributes_stay_home(path):
    """Only the containers' own package reads a private attribute of an object not its
    own: the operation and engine layers read a container's arrays through the public
    ``kleene.core.access``, everything else through the containers' methods."""
    if _package(_module_name(path)) == "core":
        return
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and _private(node.attr) and not _is_self(node.value):
            raise AssertionError(f"{_rel(path)}:{node.lineno} reads private .{node.attr}")


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_back_ends_only_through_backend(path):
    """A back end is reached through ``kleene.backends.backend(xp)``: no module outside
    kleene/backends imports kleene.backends.cpu or kleene.backends.cuda."""
    if _package(_module_name(path)) == "backends":
        return
    for line, target, names in _imports(path):
        reached = [target] + [f"{target}.{n}" for n in names]
        assert not any(
            r.startswith(("kleene.backends.cpu", "kleene.backends.cuda")) for r in reached
        ), f"{_rel(path)}:{line} imports {target} {names}: use kleene.backends.backend(xp)"


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_only_containers_write_private_attributes(path):
    """Rebinding another object's private attribute is the containers' alone; above
    the engine not even a write into one (``G._cache[key] = ...``) is allowed. (The
    engine's in-place kernels write into a container's arrays through its views.)"""
    if _rel(path) in CONTAINERS:
        return
    front = _package(_module_name(path)) in FRONT
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                written = sub.value if front and isinstance(sub, ast.Subscript) else sub
                if (
                    isinstance(written, ast.Attribute)
                    and _private(written.attr)
                    and not _is_self(written.value)
                    and isinstance(getattr(sub, "ctx", None), ast.Store)
                ):
                    raise AssertionError(
                        f"{_rel(path)}:{sub.lineno} writes private attribute .{written.attr}"
                    )


def test_no_folder_holds_more_than_20_modules():
    for folder in [ROOT, *(p for p in ROOT.rglob("*") if p.is_dir())]:
        count = len(list(folder.glob("*.py")))
        assert count <= 20, f"{folder.relative_to(ROOT.parent)} holds {count} modules"


def test_ops_exports_only_operations():
    """kleene.ops is the GraphBLAS operations: no container, engine or device name."""
    import kleene.core
    import kleene.engine
    import kleene.ops

    others = set(kleene.core.__all__) | set(kleene.engine.__all__)
    assert not set(kleene.ops.__all__) & others


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_self(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")
