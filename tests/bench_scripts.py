"""A helper module, not a test module: run a ``benchmarks/`` script's ``main`` from a
test, with ``benchmarks/`` on the import path only while it runs (the scripts import
their siblings by name)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def run_main(script: str, argv: list[str]) -> None:
    """``benchmarks/<script>.py``'s ``main(argv)``."""
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(script, BENCH / f"{script}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mod.main(argv)
    finally:
        sys.path.remove(str(BENCH))
