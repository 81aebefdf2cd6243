"""The examples in kleene.csgraph's docstrings run and print what they say."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kleene.csgraph

MODULES = sorted(
    f"kleene.csgraph.{m.name}" for m in pkgutil.iter_modules(kleene.csgraph.__path__)
) + ["kleene.csgraph"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_public_functions_have_examples():
    for name in kleene.csgraph.__all__:
        obj = getattr(kleene.csgraph, name)
        assert "Example" in (obj.__doc__ or ""), name
