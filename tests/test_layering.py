"""The layers keep to their rules (read from the source, so a regression fails CI):

- ``kleene/algorithms`` imports only the public ``kleene.ops`` surface (its
  ``__all__``) and touches no private attribute of a container or back end;
- no module but the containers themselves assigns a private attribute of
  another object (derived data goes through ``Matrix.cached``);
- the CUDA back end does not import the operation layer above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kleene.ops

ROOT = Path(kleene.ops.__file__).resolve().parents[1]
CONTAINERS = {"ops/matrix.py", "ops/vector.py", "ops/storage.py"}


def _modules(folder: str):
    return sorted((ROOT / folder).rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", _modules("algorithms"), ids=_rel)
def test_algorithms_use_only_the_public_ops_surface(path):
    tree = ast.parse(path.read_text())
    public = set(kleene.ops.__all__)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ops"):
            assert node.level == 2 and node.module == "ops", (
                f"{_rel(path)}:{node.lineno} imports kleene.{node.module}, not kleene.ops"
            )
            hidden = {a.name for a in node.names} - public
            assert not hidden, f"{_rel(path)}:{node.lineno} imports non-public {hidden}"
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            if not node.attr.startswith("__") and not _is_self(node.value):
                raise AssertionError(
                    f"{_rel(path)}:{node.lineno} reaches into private attribute .{node.attr}"
                )


@pytest.mark.parametrize("path", _modules("."), ids=_rel)
def test_only_containers_write_private_attributes(path):
    if _rel(path) in CONTAINERS:
        return
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if (
                    isinstance(sub, ast.Attribute)
                    and sub.attr.startswith("_")
                    and not sub.attr.startswith("__")
                    and not _is_self(sub.value)
                    and isinstance(sub.ctx, ast.Store)
                ):
                    raise AssertionError(
                        f"{_rel(path)}:{sub.lineno} writes private attribute .{sub.attr}"
                    )


@pytest.mark.parametrize("path", _modules("ops/cuda"), ids=_rel)
def test_cuda_back_end_does_not_import_the_op_layer(path):
    # direction and strict_sums: rules both back ends and the op layer share, no ops in them
    allowed = {"semiring", "semiring.builtins", "semiring.dtypes", "memory", "direction", "device",
               "strict_sums"}  # fmt: skip
    tree = ast.parse(path.read_text())
    depth = len(path.relative_to(ROOT / "ops").parts)  # ops/cuda/x.py: 2, codegen/x.py: 3
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level >= depth:
            up = node.level - depth  # 0: kleene.ops.*, 1: kleene.*
            names = [node.module] if node.module else [a.name for a in node.names]
            for name in names:
                ok = (up == 0 and name in allowed) or (up == 1 and name.startswith("semiring"))
                assert ok, f"{_rel(path)}:{node.lineno} imports {name} from above the back end"


def _is_self(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")
