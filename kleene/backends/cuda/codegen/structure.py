"""Structure kernels (kernels/structure.cu): CSR row expansion, column counts, symmetry sums, the
row-wise union of a CSR with its transpose, the value scan of a dense matrix and its
fill (a bitmap matrix's dense form)."""

from __future__ import annotations

from functools import cache

from .common import Prelude, Spec

# Value types the symmetry sums and the union read (others take the composed path;
# see kleene.ops.symmetry).
SYMMETRY_VALUE_TYPES = ("bool", "int", "long long", "float", "double")
# Value types of dense matrices kept with their absent marker (Matrix.from_dense of a
# float array with an infinite ``missing``: kl_keep KL_KEEP_MARKED), and of the fused
# copy-and-scan of a full one (KL_KEEP_ALL).
MARKED_VALUE_TYPES = ("float", "double")
STRUCTURE_NAMES = (
    "kl_expand_rows<int>",
    "kl_expand_rows<long long>",
    "kl_count_ids<int>",
    "kl_count_ids<long long>",
    "kl_symmetry_sums<bool, 0>",
    *(f"kl_symmetry_sums<{t}, 2>" for t in SYMMETRY_VALUE_TYPES),
    *(f"kl_symmetry_sums<{t}, 1>" for t in MARKED_VALUE_TYPES),
    "kl_union_min<bool, false>",
    *(f"kl_union_min<{t}, true>" for t in SYMMETRY_VALUE_TYPES),
    *(f"kl_dense_scan<{t}, {m}>" for t in SYMMETRY_VALUE_TYPES for m in ("false", "true")),
    *(f"kl_dense_scan_vec<{t}, {k}>" for t in SYMMETRY_VALUE_TYPES for k in (0, 1)),
    *(f"kl_dense_scan_vec<{t}, 2>" for t in MARKED_VALUE_TYPES),
    *(f"kl_dense_fill_vec<{t}, {s}, 1>" for t in SYMMETRY_VALUE_TYPES for s in ("false", "true")),
    *(
        f"kl_dense_fill_vec<{t}, {s}, {k}>"
        for t in MARKED_VALUE_TYPES
        for s in ("false", "true")
        for k in (0, 2)
    ),
)


@cache
def structure_spec() -> Spec:
    """The structure kernels: fixed types, one specialisation."""
    p = Prelude()
    return Spec("structure", ("structure",), p.text(), ("structure.cu",), (), STRUCTURE_NAMES)
