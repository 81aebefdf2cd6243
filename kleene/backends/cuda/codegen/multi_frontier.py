"""Batched multi-source BFS kernels (kernels/multi_frontier.cu): 64 sources per word."""

from __future__ import annotations

from functools import cache

from .common import Prelude, Spec

MULTI_FRONTIER = (
    "kl_ms_init",
    "kl_ms_push",
    "kl_ms_pull",
    "kl_ms_pull_deferred",
    "kl_ms_pull_finish",
    "kl_ms_parents",
    "kl_ms_clear",
    "kl_ms_settle",
    "kl_ms_stats",
    "kl_ms_filter",
    "kl_ms_expand<1>",
    "kl_ms_expand<2>",
)


@cache
def multi_frontier_spec() -> Spec:
    """The MS-BFS level kernels: fixed types (int32 ids, uint64 words, int64 results),
    one launch per kernel and level (the host picks push or pull between levels). A
    search uses most of them, so they are compiled together."""
    p = Prelude()
    key = ("multi_frontier",)
    return Spec(
        "multi_frontier",
        key,
        p.text(),
        ("grid.cuh", "multi_frontier.cu"),
        (),
        MULTI_FRONTIER,
        together=True,
    )
