"""The GPU agrees with the CPU on inputs too large for the reference.

The reference checks both back ends on small inputs; GPU kernels also change
strategy with size (warps, blocks, tiles, long-row tiers), which small inputs never
reach. ``check_devices_agree`` builds larger random inputs with NumPy (sizes that
straddle 32, 128, 256, ... and rows of very different lengths), runs each operation
on the CPU and on the GPU with identical arguments (masks, accumulators, replace,
outputs) and compares the results entry by entry.

>>> import numpy as np
>>> from kleene.testing.devices import random_matrix
>>> A = random_matrix(np.random.default_rng(0), (40, 300), np.float32, "min_plus", density=0.1)
>>> A.shape, A.dtype == np.float32
((40, 300), True)
"""

from __future__ import annotations

import numpy as np

from kleene.errors import InvalidValue
from kleene.semiring import Semiring, get_semiring
from kleene.semiring.dtypes import as_dtype

from .strategies import carrier_values

__all__ = [
    "SIZES",
    "assert_same",
    "check_devices_agree",
    "random_mask",
    "random_matrix",
    "random_vector",
]

# Sizes around warp, block and tile boundaries.
SIZES = (1, 31, 32, 33, 127, 128, 129, 255, 256, 257, 300, 513)


def _values(rng, n: int, dtype, algebra, elements) -> np.ndarray:
    d = as_dtype(dtype)
    if elements is not None:
        return rng.choice(np.asarray(elements, dtype=d), size=n)
    specials, lo, hi = carrier_values(algebra, d)
    vals = rng.integers(lo, hi + 1, size=n).astype(d)
    if d.kind == "b":
        return vals
    pick = rng.random(n) < 0.1  # a tenth are the zero or a carrier infinity
    vals[pick] = rng.choice(np.asarray(specials, dtype=d), size=int(pick.sum()))
    return vals


def _present(rng, shape, density: float) -> np.ndarray:
    """Presence with uneven rows: some rows empty, some full, the rest at ``density``."""
    p = rng.random(shape) < density
    if len(shape) == 2 and shape[0] > 2:
        p[rng.integers(0, shape[0])] = True  # one full row (long-row kernels)
        p[rng.integers(0, shape[0])] = False  # one empty row
    return p


def random_matrix(
    rng,
    shape,
    dtype,
    algebra,
    *,
    density: float = 0.1,
    format: str = "csr",
    elements=None,
    device: str = "cpu",
):
    """A Matrix of ``shape`` with carrier values of ``algebra`` (or from ``elements``)."""
    import kleene

    d = as_dtype(dtype)
    present = _present(rng, tuple(shape), density)
    rows, cols = np.nonzero(present)
    vals = _values(rng, rows.size, d, algebra, elements)
    A = kleene.Matrix.from_edges(rows, cols, vals, n=shape[0], ncols=shape[1], dtype=d)
    if format != "csr":
        A = A.to_format(format)
    return A.to(device)


def random_vector(
    rng,
    size: int,
    dtype,
    algebra,
    *,
    density: float = 0.1,
    format: str = "sparse",
    elements=None,
    device: str = "cpu",
):
    import kleene

    d = as_dtype(dtype)
    idx = np.flatnonzero(rng.random(size) < density)
    u = kleene.Vector.from_coo(idx, _values(rng, idx.size, d, algebra, elements), size, dtype=d)
    if format != "sparse":
        u = u.to_format(format)
    return u.to(device)


def random_mask(rng, shape, *, device: str = "cpu"):
    """A mask of a random kind (S, V, ~S, ~V or the container itself) with falsy entries."""
    kind = rng.integers(0, 5)
    vals = [0, 1]
    dense = bool(rng.integers(0, 2))
    if len(shape) == 1:
        fmt = "dense" if dense else "sparse"
        c = random_vector(
            rng,
            shape[0],
            np.int32,
            "plus_times",
            density=0.5,
            elements=vals,
            format=fmt,
            device=device,
        )
    else:
        fmt = "dense" if dense else "csr"
        c = random_matrix(
            rng,
            shape,
            np.int32,
            "plus_times",
            density=0.5,
            elements=vals,
            format=fmt,
            device=device,
        )
    return [c.S, c.V, ~c.S, ~c.V, c][kind]


def _host_coo(x):
    parts = x.to("cpu").to_coo()
    return parts[:-1], parts[-1]


def assert_same(a, b, *, values: bool = True, context: str = "") -> None:
    """Two containers (any devices) hold the same entries; NaN equals NaN.

    ``values=False`` compares only the structure (for the ``any`` monoid, whose
    value may differ between back ends).
    """
    where = f" ({context})" if context else ""
    if a.shape != b.shape or a.dtype != b.dtype:
        raise AssertionError(f"{a!r} and {b!r} differ in shape or dtype{where}")
    (ka, va), (kb, vb) = _host_coo(a), _host_coo(b)
    for x, y in zip(ka, kb, strict=True):
        if x.shape != y.shape or not np.array_equal(x, y):
            raise AssertionError(f"structures differ: {a.nvals} vs {b.nvals} entries{where}")
    if not values:
        return
    same = (va == vb) | ((va != va) & (vb != vb))
    if not np.all(same):
        bad = np.flatnonzero(~same)[:5]
        pos = [tuple(int(k[i]) for k in ka) for i in bad]
        shown = ", ".join(f"{p}: {va[i]!r} vs {vb[i]!r}" for p, i in zip(pos, bad, strict=True))
        raise AssertionError(f"values differ at {shown}{where}")


def _write_args(rng, shape, dtype, accum, algebra, device):
    kw = {}
    if rng.random() < 0.5:
        kw["mask"] = random_mask(rng, shape, device=device)
    if rng.random() < 0.4:
        kw["accum"] = accum
    if rng.random() < 0.3:
        kw["replace"] = True
    if rng.random() < 0.4:
        if len(shape) == 1:
            kw["out"] = random_vector(rng, shape[0], dtype, algebra, density=0.3, device=device)
        else:
            kw["out"] = random_matrix(rng, shape, dtype, algebra, density=0.3, device=device)
    return kw


def _to(kw: dict, device: str) -> dict:
    out = {}
    for k, v in kw.items():
        if hasattr(v, "container"):  # a Mask: rebuild it on the device
            c = v.container.to(device)
            m = c.S if v.structural else c.V
            out[k] = ~m if v.complement else m
        elif hasattr(v, "to") and hasattr(v, "nvals"):
            out[k] = v.to(device).dup()  # out is written: each device gets its own
        else:
            out[k] = v
    return out


def _case(sr: Semiring, d, op: str, rng, fmt: str):
    """(function, positional args, keyword args, values comparable?) for one operation."""
    import kleene

    sizes = SIZES
    m, k, n = (int(rng.choice(sizes)) for _ in range(3))
    dens = float(rng.choice([0.01, 0.05, 0.3]))
    odt = sr.mul.result_dtype(d, d)
    if op == "mxm":
        if fmt == "dense":  # keep dense products moderate
            m, n = min(m, 130), min(n, 130)
        A = random_matrix(rng, (m, k), d, sr, density=dens, format=fmt)
        B = random_matrix(rng, (k, n), d, sr, density=dens, format=fmt)
        return kleene.mxm, (A, B, sr), _write_args(rng, (m, n), odt, sr.add, sr, "cpu")
    if op in ("mxv", "vxm"):
        m, k = m * 2, k * 2
        vf = "dense" if fmt == "dense" else "sparse"
        A = random_matrix(rng, (m, k), d, sr, density=dens, format=fmt)
        usize, wsize = (k, m) if op == "mxv" else (m, k)
        u = random_vector(rng, usize, d, sr, density=float(rng.choice([0.01, 0.5])), format=vf)
        kw = _write_args(rng, (wsize,), odt, sr.add, sr, "cpu")
        kw["method"] = str(rng.choice(["auto", "pull", "push"]))
        args = (A, u, sr) if op == "mxv" else (u, A, sr)
        return getattr(kleene, op), args, kw
    if op == "reduce":
        A = random_matrix(rng, (m * 2, k * 2), d, sr, density=dens, format=fmt)
        axis = [None, "rows", "columns"][rng.integers(0, 3)]
        kw = {"axis": axis}
        if axis is not None:
            size = A.shape[0] if axis == "rows" else A.shape[1]
            kw.update(_write_args(rng, (size,), d, sr.add, sr, "cpu"))
        return kleene.reduce, (A, sr.add), kw
    if op in ("ewise_add", "ewise_mult"):
        A = random_matrix(rng, (m, k), d, sr, density=dens, format=fmt)
        B = random_matrix(rng, (m, k), d, sr, density=dens, format=fmt)
        bop = sr.add if op == "ewise_add" else sr.mul
        rdt = d if op == "ewise_add" else odt
        return getattr(kleene, op), (A, B, bop), _write_args(rng, (m, k), rdt, sr.add, sr, "cpu")
    if op == "transpose":
        A = random_matrix(rng, (m, k), d, sr, density=dens, format=fmt)
        return kleene.transpose, (A,), _write_args(rng, (k, m), d, sr.add, sr, "cpu")
    raise InvalidValue(f"unknown operation {op!r}")


DEVICE_OPERATIONS = ("mxm", "mxv", "vxm", "reduce", "ewise_add", "ewise_mult", "transpose")


def check_devices_agree(
    semiring: Semiring | str, dtype, *, seed: int = 0, cases: int = 10, operations=DEVICE_OPERATIONS
) -> None:
    """Run ``cases`` random large cases of each operation on the CPU and the GPU; the
    results must be equal (structure only where the add monoid is ``any``).

    Needs a GPU. Inputs come from ``numpy.random.default_rng(seed)``, so a failure
    names a reproducible (seed, case).
    """
    sr = get_semiring(semiring)
    d = as_dtype(dtype)
    sr.check_dtype(d)
    rng = np.random.default_rng(seed)
    for op in operations:
        for i in range(cases):
            fmt = ("csr", "dense")[i % 2]
            fn, args, kw = _case(sr, d, op, rng, fmt)
            cpu = fn(*args, **_to(kw, "cpu"))
            gpu = fn(*(_move(a) for a in args), **_to(kw, "gpu"))
            ctx = f"{op} {sr.name} {d} seed={seed} case={i} {fmt}"
            # the any monoid may pick a different value on each device
            exact = not (sr.add.stops_at_first and op in ("mxm", "mxv", "vxm", "reduce"))
            if op == "reduce" and kw.get("axis") is None:
                if exact and not (cpu == gpu or (cpu != cpu and gpu != gpu)):
                    raise AssertionError(f"scalar {cpu!r} (cpu) != {gpu!r} (gpu) ({ctx})")
                continue
            assert_same(cpu, gpu, values=exact, context=ctx)


def _move(a):
    return a.to("gpu") if hasattr(a, "to") and hasattr(a, "nvals") else a
