"""The CPU back end: NumPy implementations of the kernel primitives.

Both back ends expose the same primitives (see ``kleene/engine/primitives.md``). The
operations that compose them live in the operation layer, one file per kind:
``kleene.ops.elementwise``, ``multiply`` and ``structure`` (the GraphBLAS
operations, all ending in the output rule of ``write``), ``closure`` and
``frontier``; ``kleene.ops.operations`` only gathers the GraphBLAS ones. Their
code is array-module generic, so an operation behaves the same on either back end.

The optional fused primitives of primitives.md (``mxm_dense_acc``,
``closure_dense``, ``bfs_levels``, ``bellman_ford``) are looked up by name; for
each one this package does not export, the op layer runs its composed form
(``kleene.backends.generic_closure``, the loops in ``kleene.engine.frontier``), which
defines what any fused version must compute.

This package exports the fused frontier loops ``bfs_levels`` and ``bellman_ford``
(``cpu/frontier.py``) and ``delta_stepping`` (``cpu/delta.py``), the multi-source
shortest paths ``sssp_rows`` (``cpu/sources.py``: one search per source), the
multi-source BFS ``bfs_multi`` (``cpu/bfs_rows.py``: one search per source), the
shortest-path tree ``tight_tree`` (``cpu/tree.py``) and the dense closure kernels
``closure_dense`` and ``mxm_dense_acc`` (``cpu/closure.py``),
compiled with Numba, when Numba imports;
``KLEENE_CPU=numpy`` in the environment (read at import) leaves them out, so the
composed NumPy forms, the reference, run everywhere.

``mxv_pull`` and ``vxm_push`` are the compiled ones of ``cpu/compiled.py`` (kernels
generated per semiring and dtypes from the operators' ``scalar=`` forms, falling
back to the NumPy primitives where an operator has none), and ``mxm_sparse`` (the
optional fused SpGEMM that ``multiply._spgemm`` looks up) is exported with them;
under ``KLEENE_CPU=numpy`` or without Numba they are the NumPy primitives of
``cpu/primitives.py`` and ``mxm_sparse`` is None.
"""

import os as _os

from .primitives import (
    binary,
    index_unary,
    mxm_dense,
    mxv_pull,
    reduce_all,
    segment_reduce,
    unary,
    vxm_push,
)

# The symmetry passes (one read of a CSR: the salted fingerprint, A ∪ Aᵀ): asked for
# by these names, apart from the primitives, because they decide what to run rather
# than compute a result, so KLEENE_CPU=numpy keeps them (None without Numba).
from .symmetry import symmetry_sums as host_symmetry_sums
from .symmetry import union_min as host_union_min
from .symmetry import union_pattern as host_union_pattern

if _os.environ.get("KLEENE_CPU", "").lower() == "numpy":
    bfs_levels = bellman_ford = delta_stepping = sssp_rows = bfs_multi = None  # NumPy path only
    tight_tree = tight_parents = None
    bool_closure_rows = closure_dense = mxm_dense_acc = mxm_sparse = mxm_masked = None
    mxm_sparse_csr = None
    components_weak = components_strong = pagerank = None
    triangle_count = triangle_vertices = brandes = None
else:
    from .betweenness import brandes  # absent under KLEENE_CPU=numpy: the composed form
    from .bfs_rows import bfs_multi
    from .bool_closure import bool_closure_rows, closure_dense  # bit-packed for lor_land
    from .closure import mxm_dense_acc
    from .compiled import HAVE_NUMBA as _HAVE_NUMBA
    from .components import components_strong, components_weak
    from .delta import delta_stepping
    from .frontier import bellman_ford, bfs_levels
    from .pagerank import pagerank
    from .sources import dijkstra_rows as sssp_rows
    from .tree import tight_parents, tight_tree
    from .triangles import triangle_count, triangle_vertices

    if _HAVE_NUMBA:  # compiled mxv_pull / vxm_push (NumPy fallback inside), SpGEMM
        from .compiled import mxm_masked, mxm_sparse, mxm_sparse_csr, mxv_pull, vxm_push
    else:  # pragma: no cover - exercised only without numba
        mxm_sparse = mxm_sparse_csr = mxm_masked = None

__all__ = [
    "bellman_ford",
    "bfs_levels",
    "bfs_multi",
    "binary",
    "bool_closure_rows",
    "brandes",
    "closure_dense",
    "components_strong",
    "components_weak",
    "delta_stepping",
    "host_symmetry_sums",
    "host_union_min",
    "host_union_pattern",
    "index_unary",
    "mxm_dense",
    "mxm_dense_acc",
    "mxm_masked",
    "mxm_sparse",
    "mxm_sparse_csr",
    "mxv_pull",
    "pagerank",
    "reduce_all",
    "segment_reduce",
    "sssp_rows",
    "tight_parents",
    "tight_tree",
    "triangle_count",
    "triangle_vertices",
    "unary",
    "vxm_push",
]
