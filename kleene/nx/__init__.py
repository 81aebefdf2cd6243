"""kleene as a NetworkX backend: ``nx.shortest_path(G, s, backend="kleene")``.

NetworkX finds the backend through the ``networkx.backends`` entry point
(``kleene.nx:backend_interface``) and its settings through ``networkx.backend_info``
(``_kleene_nx:get_info``, a tiny top-level package: NetworkX imports every backend's
info at start-up, and that one does not import kleene): ``nx.config.backends.kleene.device``
("cpu" or "gpu"). See docs/networkx.md. Importing this package does not import networkx; the
backend loads on first use.
"""

from __future__ import annotations

from _kleene_nx import get_info  # NetworkX reads it from there without importing kleene

__all__ = ["backend_interface", "convert_from_nx", "convert_to_nx", "get_info", "KleeneGraph"]

_LAZY = {
    "backend_interface": "interface",
    "BackendInterface": "interface",
    "KleeneGraph": "graph",
    "convert_from_nx": "graph",
    "convert_to_nx": "graph",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"kleene.nx.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'kleene.nx' has no attribute {name!r}")
