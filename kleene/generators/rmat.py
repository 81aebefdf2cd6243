"""R-MAT random graphs (Chakrabarti, Zhan & Faloutsos 2004; the Graph500 generator)."""

from __future__ import annotations

import numpy as np

from kleene.errors import DeviceUnavailable, InvalidValue

from . import _size


def rmat(
    scale: int,
    edge_factor: int = 16,
    *,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    seed: int = 0,
    undirected: bool = False,
    device: str = "cpu",
) -> tuple[np.ndarray, np.ndarray]:
    """Edges of an R-MAT graph on ``2**scale`` vertices, ``edge_factor * 2**scale`` of them.

    Each edge picks its (source, destination) bit by bit: the quadrant
    (0,0), (0,1), (1,0), (1,1) with probabilities a, b, c, d = 1 - a - b - c.
    The defaults are Graph500's. Vectorised over edges (one pass per bit). Vertex
    labels are not permuted, so low labels are the hubs. Duplicates and self
    loops are kept: deduplicate as the use requires.

    Parameters
    ----------
    scale : int
        log2 of the number of vertices (0..62).
    edge_factor : int
        Edges per vertex.
    a, b, c : float
        Quadrant probabilities; ``a + b + c`` must be at most 1.
    seed : int
        Seed of the NumPy generator.
    undirected : bool
        Also return every edge reversed (twice as many edges).
    device : {"cpu", "gpu"}
        Where to draw the edges (CuPy arrays for "gpu", drawn from CuPy's own
        generator: the same distribution, not the same graph as the CPU's seed).

    Returns
    -------
    (src, dst) : int64 arrays

    Example
    -------
    >>> from kleene.generators import rmat
    >>> src, dst = rmat(4, edge_factor=2, seed=1)
    >>> src.shape, int(max(src.max(), dst.max())) < 16
    ((32,), True)
    """
    if not 0 <= scale <= 62:
        raise InvalidValue(f"scale must be in 0..62, got {scale}")
    if edge_factor < 0:
        raise InvalidValue(f"edge_factor must be non-negative, got {edge_factor}")
    d = 1.0 - a - b - c
    if min(a, b, c) < 0 or d < -1e-12:
        raise InvalidValue(f"a, b, c must be probabilities with a + b + c <= 1, got {a}, {b}, {c}")
    d = max(d, 0.0)
    m = edge_factor << scale
    if device not in ("cpu", "gpu"):
        raise InvalidValue(f"device must be 'cpu' or 'gpu', got {device!r}")
    _check_memory(scale, edge_factor, undirected, device)
    if device == "gpu":
        from kleene.backends import cupy_module

        xp = cupy_module()
        uniform = xp.random.RandomState(seed).random_sample
    else:
        xp = np
        uniform = np.random.default_rng(seed).random
    src = xp.zeros(m, dtype=np.int64)
    dst = xp.zeros(m, dtype=np.int64)
    p_src1 = c + d  # P(source bit = 1)
    p_dst1_src0 = b / (a + b) if a + b > 0 else 0.0  # P(dest bit = 1 | source bit 0)
    p_dst1_src1 = d / (c + d) if c + d > 0 else 0.0
    for bit in range(scale):
        s = uniform(m, dtype=np.float32) < p_src1
        r = uniform(m, dtype=np.float32)
        t = xp.where(s, r < p_dst1_src1, r < p_dst1_src0)
        src |= s.astype(np.int64) << bit
        dst |= t.astype(np.int64) << bit
    if undirected:
        src, dst = xp.concatenate([src, dst]), xp.concatenate([dst, src])
    return src, dst


def _check_memory(scale: int, edge_factor: int, undirected: bool, device: str) -> None:
    """Refuse an edge list that cannot fit before drawing it, naming the largest scale that does."""
    if device == "gpu":
        from kleene.backends import cupy_module

        if cupy_module() is None:
            raise DeviceUnavailable("rmat: device='gpu' needs CuPy and a CUDA GPU")
    copies = 2 if undirected else 1

    def need(s: int) -> int:
        return _size.RMAT_BYTES_PER_EDGE * copies * (edge_factor << s)

    def fits(room: int) -> str:
        return f"scale {_size.largest(lambda s: need(s) <= room, 0, 62)}"

    what = f"rmat(scale={scale}, edge_factor={edge_factor})"
    _size.check(what, 1 << scale, need(scale), device, fits, max_vertices=1 << 62)
