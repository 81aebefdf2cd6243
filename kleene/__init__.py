"""kleene: semiring linear algebra for path problems, on NumPy/SciPy and CUDA GPUs.

Example
-------
>>> import numpy as np, kleene
>>> A = kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 2.0], n=3)
>>> d = kleene.Vector.from_coo([0], [0.0], 3)
>>> for _ in range(2):
...     d = kleene.ewise_add(d, kleene.vxm(d, A, "min_plus"), "min")
>>> d.to_dense().tolist()
[0.0, 1.0, 3.0]
"""

from . import algorithms, backends, core, engine, io, ops, semiring
from ._info import __version__
from .algorithms import (
    PowerIterationFailedConvergence,
    apsp,
    betweenness_centrality,
    bfs,
    clustering,
    connected_components,
    edge_betweenness_centrality,
    pagerank,
    reconstruct_path,
    sssp,
    transitive_closure,
    transitivity,
    triangle_count,
    triangles,
)
from .backends import gpu_available
from .core import Mask, Matrix, Vector
from .engine import (
    closure,
    frontier_bellman_ford,
    frontier_bfs,
    frontier_bfs_levels,
    frontier_bfs_multi,
    frontier_delta_stepping,
    mxm_accumulate,
)
from .errors import NegativeCycleError
from .ops import (
    apply,
    assign,
    ewise_add,
    ewise_mult,
    extract,
    mxm,
    mxv,
    reduce,
    select,
    transpose,
    vxm,
)
from .semiring import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Semiring,
    UnaryOp,
    binary,
    indexunary,
    monoid,
    unary,
)

__all__ = [
    "__version__",
    "apply",
    "apsp",
    "backends",
    "assign",
    "bfs",
    "binary",
    "BinaryOp",
    "closure",
    "betweenness_centrality",
    "clustering",
    "connected_components",
    "edge_betweenness_centrality",
    "core",
    "engine",
    "ewise_add",
    "ewise_mult",
    "extract",
    "frontier_bellman_ford",
    "frontier_bfs",
    "frontier_bfs_levels",
    "frontier_bfs_multi",
    "frontier_delta_stepping",
    "gpu_available",
    "indexunary",
    "io",
    "IndexUnaryOp",
    "Mask",
    "Matrix",
    "Monoid",
    "monoid",
    "mxm",
    "mxm_accumulate",
    "mxv",
    "ops",
    "NegativeCycleError",
    "pagerank",
    "PowerIterationFailedConvergence",
    "reconstruct_path",
    "reduce",
    "select",
    "semiring",
    "Semiring",
    "sssp",
    "transitive_closure",
    "transitivity",
    "triangle_count",
    "triangles",
    "transpose",
    "unary",
    "UnaryOp",
    "Vector",
    "vxm",
]

# Submodules with optional dependencies (kleene.testing needs hypothesis) or a
# cost at import load on first use: ``kleene.testing.check_semiring`` just works.
_LAZY = ("testing", "generators", "progress", "cli", "datasets", "csgraph")


def _load_distributed() -> None:
    """Import kleene.distributed, which registers its runners for ``client=``."""
    import importlib

    importlib.import_module("kleene.distributed")


algorithms.register_cluster_loader(_load_distributed)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"kleene.{name}")
    raise AttributeError(f"module 'kleene' has no attribute {name!r}")
