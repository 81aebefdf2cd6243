"""The CUDA back end: CuPy implementations of the kernel primitives.

Every primitive of :mod:`kleene.backends.cpu`, with the same names, signatures and
semantics (see ``kleene/engine/primitives.md``), on CuPy arrays, plus the fused ones
that the op layer uses when a back end has them (and composes from the primitives
otherwise): ``mxm_dense_acc``, ``closure_dense`` and ``closure_base_block`` (used by
:mod:`kleene.engine.closure`),
``bfs_levels``, ``bellman_ford`` and ``bfs_multi`` (:mod:`kleene.engine.frontier`),
``sssp_rows`` (:mod:`kleene.engine.sources`), and the structure kernels ``expand_rows``,
``count_ids``,
``symmetry_sums`` and ``union_min`` (:mod:`kleene.core.layout`, :mod:`kleene.ops.symmetry`)
and ``dense_scan`` (``Matrix.has_nan`` on a dense matrix), ``dense_fill`` and
``dense_fill_scan`` (``Matrix.to_dense``),
and ``TileStream`` / ``pinned_empty`` (:mod:`kleene.engine.streaming`: out-of-core tiles).

Kernels are specialised per algebra and dtypes from the templates in ``kernels/``
and compiled by NVRTC on first use, then cached; a user-defined semiring needs no
extra code.

The primitives load lazily: this package, and :mod:`kleene.backends.cuda.codegen`
(source generation, which CI compiles with nvcc), import without CuPy; the first
use of a primitive imports CuPy.
"""

from __future__ import annotations

import importlib

_HOME = {
    "binary": "elementwise",
    "unary": "elementwise",
    "index_unary": "elementwise",
    "segment_reduce": "reduce",
    "reduce_all": "reduce",
    "mxm_dense": "dense",
    "mxm_dense_acc": "dense",
    "closure_dense": "closure",
    "closure_base_block": "closure",
    "mxv_pull": "sparse",
    "vxm_push": "sparse",
    "mxm_masked": "spgemm",
    "mxm_sparse": "spgemm",
    "bfs_levels": "frontier",
    "bellman_ford": "frontier",
    "bfs_multi": "multi_frontier",
    "delta_stepping": "near_far",
    "DELTA_SCALE": "near_far",
    "tight_parents": "near_far",
    "sssp_rows": "sources",
    "brandes": "analytics.betweenness",
    "expand_rows": "structure",
    "count_ids": "structure",
    "symmetry_sums": "structure",
    "dense_scan": "structure",
    "dense_fill": "structure",
    "dense_fill_scan": "structure",
    "union_min": "structure",
    "TileStream": "tile_stream",
    "pinned_empty": "tile_stream",
    "is_pinned": "tile_stream",
    "gather_square": "gather",
    "components_weak": "analytics.components",
    "components_if_symmetric": "analytics.components",
    "strong_colouring": "analytics.strong",
    "pagerank": "analytics.pagerank",
    "triangle_count": "analytics.triangles",
    "triangle_vertices": "analytics.triangles",
}
# Whole modules the engine drives: CUDA-graph capture and replay (engine/replayable.py)
# and the cuBLAS int8 Boolean product whose scratch a replay reserves.
_MODULES = ("graphs", "boolean_mma")

__all__ = sorted(_HOME) + list(_MODULES)


def __getattr__(name: str):
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # later lookups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME) | set(_MODULES))
