"""Multi-source shortest-path kernels (kernels/sssp_rows.cu): the CUDA ``sssp_rows``."""

from __future__ import annotations

from functools import cache

from .common import Prelude, Spec

# MODE 0: distances; MODE 1: predecessors (BFS over the tight edges).
SOURCES_RUN = ("kl_msp_run<0>", "kl_msp_run<1>")
SOURCES_STEP = (
    "kl_msp_step<0>",
    "kl_msp_step<1>",
    "kl_msp_init<0>",
    "kl_msp_init<1>",
    "kl_msp_out<false>",
    "kl_msp_out<true>",
)


@cache
def sources_spec(cooperative: bool) -> Spec:
    """Multi-source shortest-path kernels: the whole-run ones (launched cooperatively)
    or the one-round, init and output ones. Fixed types: int64 row offsets, int32
    column ids, float64 weights and distances, int32 levels and parents on the device.
    """
    p = Prelude()
    names = SOURCES_RUN if cooperative else SOURCES_STEP
    key = ("sources", "run" if cooperative else "step")
    return Spec(
        "sources", key, p.text(), ("grid.cuh", "sssp_rows.cu"), tuple(p.macros), names, cooperative
    )
