"""Fused frontier kernels (kernels/frontier.cu): BFS levels and Bellman-Ford rounds; BFS
several levels a round (kernels/bfs_rounds.cu), the near-far delta-stepping and the
tight-parent pass (kernels/near_far.cu) build on them."""

from __future__ import annotations

from functools import cache

from kleene.backends import direction

from .common import Prelude, Spec

_BOOLS = ("false", "true")
# Bellman-Ford reads float32 or float64 weights as stored (distances in float64), and
# takes one atomicMin per update where every weight is non-negative.
BF_WEIGHTS = ("float", "double")
FRONTIER_RUN = (
    *(f"kl_bfs_run<{p}, {m}>" for p in _BOOLS for m in (0, 1, 2)),
    "kl_bfs_rounds",
    *(f"kl_bf_run<{w}, {nn}>" for w in BF_WEIGHTS for nn in _BOOLS),
    *(f"kl_nf_run<{w}>" for w in BF_WEIGHTS),
)
FRONTIER_STEP = (
    *(f"kl_bfs_step<{p}, {q}>" for p in _BOOLS for q in _BOOLS),
    *(f"kl_bf_step<{w}, {nn}>" for w in BF_WEIGHTS for nn in _BOOLS),
    "kl_bfs_init",
    "kl_nf_init",
    *(
        f"kl_tp_{part}_kernel<{w}, {pull}>"
        for part in ("light", "heavy")
        for w in BF_WEIGHTS
        for pull in _BOOLS
    ),
)


@cache
def frontier_spec(cooperative: bool) -> Spec:
    """BFS/Bellman-Ford frontier kernels: the whole-run ones (launched cooperatively)
    or the one-level ones. Fixed types (int32 ids and levels, float64 distances;
    float32 or float64 weights).

    Beamer's switches come from :mod:`kleene.backends.direction`, the one place they live,
    so the kernels and the host loops switch at the same counts.
    """
    p = Prelude()
    p.define("KL_TO_PULL", direction.TO_PULL)
    p.define("KL_TO_PUSH", direction.TO_PUSH)
    names = FRONTIER_RUN if cooperative else FRONTIER_STEP
    key = ("frontier", "run" if cooperative else "step")
    return Spec(
        "frontier",
        key,
        p.text(),
        ("grid.cuh", "stage.cuh", "frontier.cu", "bfs_rounds.cu", "near_far.cu"),
        tuple(p.macros),
        names,
        cooperative,
    )
