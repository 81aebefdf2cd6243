"""Generator specs for the command line: ``rmat:20``, ``grid:512x512``, ``er:4096:0.1``."""

from __future__ import annotations

import numpy as np

from ..ops import Matrix

SPECS = {
    "rmat": "rmat:SCALE[:EDGE_FACTOR] — Graph500 RMAT/Kronecker, undirected, weights 1..100",
    "random": "random:N[:AVG_DEGREE] — Harish's uniform random graph, weights 1..10",
    "scalefree": "scalefree:N[:AVG_DEGREE] — Harish's scale-free graph (0.1% hubs)",
    "geometric": "geometric:N[:AVG_DEGREE] — random geometric graph, distance weights",
    "grid": "grid:ROWSxCOLS — road-like 2-D grid, weights 1..1000",
    "er": "er:N[:P] — dense Erdős–Rényi G(n, p), weights in [1, 100)",
}


def is_spec(text: str) -> bool:
    return text.split(":", 1)[0] in SPECS and ":" in text


def from_spec(text: str, *, seed: int = 0, device: str = "cpu") -> Matrix:
    """The graph a spec names.

    Example
    -------
    >>> from kleene.generators import from_spec
    >>> from_spec("grid:4x5").shape
    (20, 20)
    """
    kind, _, rest = text.partition(":")
    args = [a for a in rest.split(":") if a]
    try:
        if kind == "rmat":
            from .rmat import rmat

            scale = int(args[0])
            ef = int(args[1]) if len(args) > 1 else 16
            src, dst = rmat(scale, ef, seed=seed, undirected=True)
            rng = np.random.default_rng(seed)
            w = rng.integers(1, 100, src.size).astype(np.float32)
            from ..ops.device import module_for

            xp = module_for(device)
            return Matrix.from_edges(xp.asarray(src), xp.asarray(dst), xp.asarray(w), 1 << scale)
        if kind in ("random", "scalefree", "geometric"):
            from .geometric import geometric_graph
            from .harish import random_graph, scale_free_graph

            n = int(float(args[0]))
            deg = float(args[1]) if len(args) > 1 else 6
            if kind == "geometric":
                return geometric_graph(n, deg, seed=seed, device=device)
            make = random_graph if kind == "random" else scale_free_graph
            return make(n, int(deg), seed=seed, device=device)
        if kind == "grid":
            from .grid import grid_graph

            r, _, c = args[0].lower().partition("x")
            return grid_graph(int(r), int(c or r), seed=seed, device=device)
        if kind == "er":
            from .dense import erdos_renyi

            p = float(args[1]) if len(args) > 1 else 1.0
            return erdos_renyi(int(float(args[0])), p, seed=seed, device=device)
    except (IndexError, ValueError) as e:
        raise ValueError(f"bad generator spec {text!r} ({e}); expected {SPECS.get(kind)}") from None
    known = "; ".join(SPECS.values())
    raise ValueError(f"unknown generator spec {text!r}; known: {known}")
