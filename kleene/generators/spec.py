"""Generator specs for the command line: ``rmat:20``, ``grid:512x512``, ``er:4096:0.1``."""

from __future__ import annotations

import math

import numpy as np

from kleene.backends import module_for
from kleene.core import Matrix
from kleene.errors import InvalidValue

from . import _size

SPECS = {
    "rmat": "rmat:SCALE[:EDGE_FACTOR] — Graph500 RMAT/Kronecker, undirected, weights 1..100",
    "random": "random:N[:AVG_DEGREE] — Harish's uniform random graph, weights 1..10",
    "scalefree": "scalefree:N[:AVG_DEGREE] — Harish's scale-free graph (0.1% hubs)",
    "geometric": "geometric:N[:AVG_DEGREE] — random geometric graph, distance weights",
    "grid": "grid:ROWSxCOLS — road-like 2-D grid, weights 1..1000",
    "road": "road:ROWSxCOLS[:KEEP] — grid with each street kept with probability KEEP "
    "(default 0.6), its largest component, weights 1..1000",
    "er": "er:N[:P] — dense Erdős–Rényi G(n, p), weights in [1, 100)",
}


def is_spec(text: str) -> bool:
    return text.split(":", 1)[0] in SPECS and ":" in text


def from_spec(text: str, *, seed: int = 0, device: str = "cpu") -> Matrix:
    """The graph a spec names.

    A spec too large for memory (or for int32 vertex ids) is refused before
    anything is drawn, with the largest spec of its kind that fits.

    Example
    -------
    >>> from kleene.generators import from_spec
    >>> from_spec("grid:4x5").shape
    (20, 20)
    >>> from_spec("rmat:40")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    kleene.errors.InvalidValue: rmat:40 is too large: 1099511627776 vertices, ... host memory
    """
    kind, _, rest = text.partition(":")
    if kind not in SPECS:
        known = "; ".join(SPECS.values())
        raise InvalidValue(f"unknown generator spec {text!r}; known: {known}")
    try:
        params = _parse(kind, [a for a in rest.split(":") if a])
    except (IndexError, ValueError) as e:
        raise InvalidValue(f"bad generator spec {text!r} ({e}); expected {SPECS[kind]}") from None
    module_for(device)  # no GPU: say so, not "too large for 0 bytes of GPU memory"
    _check_size(text, kind, params, device)
    return _build(kind, params, seed, device)


def _parse(kind: str, args: list[str]) -> tuple:
    """The numbers of a spec, checked for range (ValueError otherwise)."""
    if kind == "rmat":
        scale, ef = int(args[0]), (int(args[1]) if len(args) > 1 else 16)
        _at_least(0, scale=scale, edge_factor=ef)
        return scale, ef
    if kind in ("random", "scalefree", "geometric"):
        n, deg = int(float(args[0])), (float(args[1]) if len(args) > 1 else 6.0)
        _at_least(0, N=n, AVG_DEGREE=deg)
        return n, deg
    if kind in ("grid", "road"):
        r, _, c = args[0].lower().partition("x")
        rows, cols = int(r), int(c or r)
        _at_least(1, ROWS=rows, COLS=cols)
        if kind == "grid":
            return rows, cols
        keep = float(args[1]) if len(args) > 1 else 0.6
        if not 0.0 < keep <= 1.0:
            raise InvalidValue(f"KEEP must be in (0, 1], got {keep}")
        return rows, cols, keep
    n, p = int(float(args[0])), (float(args[1]) if len(args) > 1 else 1.0)
    _at_least(0, N=n)
    if not 0.0 <= p <= 1.0:
        raise InvalidValue(f"P must be in [0, 1], got {p}")
    return n, p


def _at_least(low: int, **values) -> None:
    for name, v in values.items():
        if v < low:
            raise InvalidValue(f"{name} must be at least {low}, got {v:g}")


def _check_size(text: str, kind: str, params: tuple, device: str) -> None:
    """Refuse, before drawing anything, a graph that cannot be indexed or held."""
    knob, cost, spec, lo, hi = _scaling(kind, params)
    n, need = cost(knob)

    def fits(room: int) -> str:
        def ok(k: int) -> bool:
            m, b = cost(k)
            return m <= _size.MAX_VERTICES and b <= room

        return spec(_size.largest(ok, lo, hi))

    _size.check(text, n, need, device, fits)


def _scaling(kind: str, params: tuple):
    """How a spec grows with its size knob: (knob, knob → (vertices, bytes to build),
    knob → spec text, knob's lowest and highest values)."""
    if kind == "rmat":
        scale, ef = params
        tail = f":{ef}" if ef != 16 else ""
        return (
            scale,
            lambda s: (1 << s, _size.sparse_bytes(1 << s, 2 * ef << s)),
            lambda s: f"rmat:{s}{tail}",
            0,
            62,
        )
    if kind in ("grid", "road"):
        rows, cols = params[:2]  # the knob is the vertex count; what fits is said as a square
        tail = f":{params[2]:g}" if kind == "road" and params[2] != 0.6 else ""
        square = lambda k: f"{kind}:{math.isqrt(k)}x{math.isqrt(k)}{tail}"  # noqa: E731
        return (
            rows * cols,
            lambda k: (k, _size.sparse_bytes(k, 4 * k)),
            square,
            1,
            _size.MAX_VERTICES,
        )
    if kind == "er":
        n, p = params
        tail = f":{p:g}" if p != 1.0 else ""
        return (
            n,
            lambda k: (k, _size.dense_bytes(k)),
            lambda k: f"er:{k}{tail}",
            1,
            _size.MAX_VERTICES,
        )
    n, deg = params
    tail = f":{deg:g}" if deg != 6.0 else ""
    return (
        n,
        lambda k: (k, _size.sparse_bytes(k, int(k * deg))),
        lambda k: f"{kind}:{k}{tail}",
        1,
        _size.MAX_VERTICES,
    )


def _build(kind: str, params: tuple, seed: int, device: str) -> Matrix:
    if kind == "rmat":
        from .rmat import rmat

        scale, ef = params
        src, dst = rmat(scale, ef, seed=seed, undirected=True)
        rng = np.random.default_rng(seed)
        w = rng.integers(1, 100, src.size).astype(np.float32)
        xp = module_for(device)
        return Matrix.from_edges(xp.asarray(src), xp.asarray(dst), xp.asarray(w), 1 << scale)
    if kind in ("random", "scalefree", "geometric"):
        from .geometric import geometric_graph
        from .harish import random_graph, scale_free_graph

        n, deg = params
        if kind == "geometric":
            return geometric_graph(n, deg, seed=seed, device=device)
        make = random_graph if kind == "random" else scale_free_graph
        return make(n, int(deg), seed=seed, device=device)
    if kind == "grid":
        from .grid import grid_graph

        return grid_graph(*params, seed=seed, device=device)
    if kind == "road":
        from .grid import road_graph

        rows, cols, keep = params
        return road_graph(rows, cols, keep=keep, seed=seed, device=device)
    from .dense import erdos_renyi

    n, p = params
    return erdos_renyi(n, p, seed=seed, device=device)
