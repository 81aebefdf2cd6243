"""The object NetworkX loads for ``backend="kleene"`` (entry point ``networkx.backends``)."""

from __future__ import annotations

import inspect

from _kleene_nx import FUNCTIONS

from . import (
    centrality,
    cluster,
    components,
    config,
    dense,
    generic,
    link_analysis,
    traversal,
    unweighted,
    weighted,
)
from .graph import KleeneGraph, convert_to_nx
from .graph import convert_from_nx as _convert
from .xfails import XFAIL, XFAIL_WITHOUT_FALLBACK

_MODULES = (
    centrality,
    cluster,
    components,
    dense,
    generic,
    link_analysis,
    traversal,
    unweighted,
    weighted,
)
FUNCTIONS = {
    name: next(getattr(m, name) for m in _MODULES if name in m.__all__) for name in FUNCTIONS
}

# Arguments kleene does not take: (parameter, the values it does take, why not).
_UNSUPPORTED = {
    "weight": (lambda v: not callable(v), "a callable weight (kleene needs an edge attribute)"),
    "sort_neighbors": (lambda v: v is None, "sort_neighbors (kleene visits in adjacency order)"),
}


def _weighted(what):
    return (lambda v: v is None, f"weighted {what} (kleene counts edges)")


# Per function: (parameter, the values it does take, why not).
_UNSUPPORTED_BY = {
    "edge_betweenness_centrality": {"G": (lambda G: not G.is_multigraph(), "multigraphs")},
    "pagerank": {
        "G": (
            lambda G: not (isinstance(G, KleeneGraph) and G.multigraph and G.edges is None),
            "pagerank of a multigraph converted without its edges "
            "(it sums the weights of parallel edges)",
        )
    },
}


def convert_from_nx(G, *args, name=None, **kwargs) -> KleeneGraph:
    """``graph.convert_from_nx``, keeping a multigraph's edges for ``pagerank``
    (NetworkX's PageRank sums the weights of parallel edges; the conversion keeps
    the lightest of them, all that the path algorithms need)."""
    if name == "pagerank" and not isinstance(G, KleeneGraph) and G.is_multigraph():
        kwargs["preserve_edge_attrs"] = True
    return _convert(G, *args, name=name, **kwargs)


def _bind(name, args, kwargs):
    sig = inspect.signature(FUNCTIONS[name])
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return None
    return bound.arguments


class BackendInterface:
    """NetworkX's view of kleene: the functions, the conversions and the run checks."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    Graph = KleeneGraph

    def __init__(self):
        for name, func in FUNCTIONS.items():
            setattr(self, name, func)

    @staticmethod
    def can_run(name, args, kwargs):
        """True, or a string saying why kleene cannot run ``name`` with these arguments."""
        if name not in FUNCTIONS:
            return f"kleene does not implement {name}"
        arguments = _bind(name, args, kwargs)
        if arguments is None:
            return True  # let the call raise NetworkX's TypeError
        rules = {**_UNSUPPORTED, **_UNSUPPORTED_BY.get(name, {})}
        for param, (ok, what) in rules.items():
            if param in arguments and not ok(arguments[param]):
                return f"kleene does not support {what}"
        try:
            dev = config.device()
        except ValueError as e:
            return str(e)
        if dev == "gpu":
            from kleene.backends import gpu_available

            if not gpu_available():
                return "nx.config.backends.kleene.device is 'gpu' but no usable CuPy/GPU"
        return True

    @staticmethod
    def should_run(name, args, kwargs):
        """Automatic dispatch: leave small graphs to NetworkX (conversion costs more)."""
        G = args[0] if args else kwargs.get("G")
        if G is None or isinstance(G, KleeneGraph):
            return True
        try:
            size = G.number_of_nodes() + G.number_of_edges()
        except AttributeError:
            return True
        limit = config.get("min_size")
        if size < limit:
            return f"graph too small for kleene ({size} nodes + edges < min_size={limit})"
        return True

    @staticmethod
    def on_start_tests(items):
        """Mark NetworkX's tests that cannot pass through kleene (see ``xfails``)."""
        import networkx as nx
        import pytest

        listed = dict(XFAIL)
        if not nx.config.fallback_to_nx:
            listed.update(XFAIL_WITHOUT_FALLBACK)
        for item in items:
            key = _test_key(item)
            if key in listed:
                item.add_marker(pytest.mark.xfail(reason=listed[key], strict=True))


def _test_key(item) -> str:
    """'test_file.py::Class::test' (parameters included) for a collected NetworkX test."""
    path = getattr(item, "path", None)
    fname = path.name if path is not None else item.fspath.basename
    rest = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.name
    return f"{fname}::{rest}"


backend_interface = BackendInterface()
