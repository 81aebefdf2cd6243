"""CUDA source generation for the kernel primitives (importable without CuPy).

A *specialisation* (:class:`Spec`) is a kernel template (``kernels/*.cu``) with a
generated prelude in front: typedefs for the value types, inline functions built
from the algebra's ``cuda_expr`` strings (``kl_add``, ``kl_mult``, ``kl_identity``,
...) and ``#define`` switches (terminal value, atomic kind, tile shape). The same
text is compiled by NVRTC at run time (:mod:`kleene.backends.cuda.jit`) and by ``nvcc``
in CI (``tests/test_cuda_compile.py``), so a broken template fails without a GPU.

One module per kernel family, like the launchers in :mod:`kleene.backends.cuda`:
``common`` (Spec, prelude, render), ``dense``, ``checks`` (the fast path's range
checks), ``closure``, ``sparse``, ``reduce``, ``elementwise``, ``frontier``, ``structure``, and
``catalog`` (every built-in specialisation). The names are re-exported here.
"""

from __future__ import annotations

from .catalog import builtin_specs
from .checks import range_check_spec, range_check_view_spec
from .closure import (
    CLOSURE_GRID_THREADS,
    CLOSURE_MAX,
    CLOSURE_ROWS,
    CLOSURE_VARIANTS,
    closure_grid_blocks_per_sm,
    closure_grid_eligible,
    closure_grid_spec,
    closure_primitive_specs,
    closure_spec,
    closure_variant,
)
from .common import BLOCK, GROUP_SIZES, KERNEL_DIR, UNROLL, Spec, common_header, ctype, render
from .dense import (
    MXM_FAST,
    MXM_FAST_INF,
    MXM_FAST_LIMIT,
    MXM_FAST_SPLIT,
    MXM_MODES,
    MXM_TILES,
    mxm_config,
    mxm_fast_kind,
    mxm_spec,
)
from .elementwise import Elementwise, binary_kernel, index_unary_kernel, unary_kernel
from .frontier import FRONTIER_RUN, FRONTIER_STEP, frontier_spec
from .reduce import segment_reduce_spec
from .sparse import LONG_NT, LONG_UNROLL, PUSH_KINDS, mxv_spec, push_kind, vxm_spec
from .structure import MARKED_VALUE_TYPES, STRUCTURE_NAMES, SYMMETRY_VALUE_TYPES, structure_spec

__all__ = [
    "BLOCK",
    "CLOSURE_GRID_THREADS",
    "CLOSURE_MAX",
    "CLOSURE_ROWS",
    "CLOSURE_VARIANTS",
    "FRONTIER_RUN",
    "FRONTIER_STEP",
    "GROUP_SIZES",
    "KERNEL_DIR",
    "LONG_NT",
    "LONG_UNROLL",
    "MXM_FAST",
    "MXM_FAST_INF",
    "MXM_FAST_LIMIT",
    "MXM_FAST_SPLIT",
    "MXM_MODES",
    "MXM_TILES",
    "PUSH_KINDS",
    "UNROLL",
    "Elementwise",
    "Spec",
    "binary_kernel",
    "builtin_specs",
    "closure_grid_blocks_per_sm",
    "closure_grid_eligible",
    "closure_grid_spec",
    "closure_primitive_specs",
    "closure_spec",
    "closure_variant",
    "common_header",
    "ctype",
    "frontier_spec",
    "structure_spec",
    "STRUCTURE_NAMES",
    "MARKED_VALUE_TYPES",
    "SYMMETRY_VALUE_TYPES",
    "index_unary_kernel",
    "mxm_config",
    "mxm_fast_kind",
    "mxm_spec",
    "mxv_spec",
    "push_kind",
    "range_check_spec",
    "range_check_view_spec",
    "render",
    "segment_reduce_spec",
    "unary_kernel",
    "vxm_spec",
]
