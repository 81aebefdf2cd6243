"""What every kernel family's generator shares: the Spec, the prelude builder, render.

A specialisation is a template from ``kernels/`` with a generated prelude in front
(typedefs, inline functions from the algebra's ``cuda_expr`` strings, ``#define``
switches). Every generated macro is ``#undef``'d after the templates, so many
specialisations can share one translation unit (CI compiles them in batches).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from kleene.semiring import Monoid
from kleene.semiring.dtypes import CTYPES, as_dtype, c_literal

KERNEL_DIR = Path(__file__).resolve().parent.parent / "kernels"

# Launch shapes shared by the sparse (mxv/vxm) and segment-reduction kernels.
# Sub-warp group sizes the kernels are instantiated for (chosen by degree).
GROUP_SIZES = (1, 2, 4, 8, 16, 32)
# Threads per block.
BLOCK = 256
# Loads in flight per lane (independent gathers).
UNROLL = 4


@dataclass(frozen=True)
class Spec:
    """One kernel specialisation: generated prelude + template files + instances.

    ``names`` are the C++ name expressions to instantiate (``kl_x<8>``);
    ``key`` identifies the specialisation for caching. ``cooperative``: launched
    cooperatively (grid-wide residency; the kernels' own grid barrier needs no
    cooperative-groups compile). ``together``: the kernels are used together, so one
    NVRTC run compiles them all (else each kernel is compiled on first use, alone;
    see :mod:`kleene.backends.cuda.units`).
    """

    kind: str
    key: tuple
    prelude: str
    bodies: tuple[str, ...]
    macros: tuple[str, ...]
    names: tuple[str, ...]
    cooperative: bool = False
    together: bool = False


def ctype(dtype) -> str:
    """The C type of a supported dtype (``float32`` -> ``float``)."""
    return CTYPES[as_dtype(dtype)]


def dtname(dtype) -> str:
    return np.dtype(dtype).name


@cache
def read(name: str) -> str:
    return (KERNEL_DIR / name).read_text()


def common_header() -> str:
    """The text of ``kernels/common.cuh`` (helpers used by built-in cuda_exprs)."""
    return read("common.cuh")


def func(ret: str, name: str, params: str, expr: str) -> str:
    """An inline device function returning ``expr`` cast to ``ret``."""
    return f"__device__ __forceinline__ {ret} {name}({params}) {{ return ({ret})({expr}); }}\n"


def ident(text: str) -> str:
    """A C identifier fragment from an arbitrary operator name."""
    return re.sub(r"[^0-9A-Za-z_]", "_", text)


class Prelude:
    """Accumulates generated code and remembers the macros to #undef."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.macros: list[str] = []

    def define(self, name: str, value) -> None:
        self.macros.append(name)
        self.lines.append(f"#define {name} {value}\n")

    def typedef(self, ctype_: str, name: str) -> None:
        self.lines.append(f"typedef {ctype_} {name};\n")

    def add(self, text: str) -> None:
        self.lines.append(text)

    def text(self) -> str:
        return "".join(self.lines)


def monoid_prelude(p: Prelude, monoid: Monoid, dtype) -> None:
    """kl_add / kl_identity / terminal switches for ``monoid`` on ``kl_c_t``."""
    d = as_dtype(dtype)
    p.add(func("kl_c_t", "kl_add", "kl_c_t x, kl_c_t y", monoid.op.cuda_expr))
    p.add(func("kl_c_t", "kl_identity", "", c_literal(monoid.identity_for(d), d)))
    term = monoid.terminal_for(d)
    p.define("KL_HAS_TERMINAL", int(term is not None))
    p.define("KL_STOPS_AT_FIRST", int(monoid.stops_at_first))
    if term is not None:
        p.add(func("kl_c_t", "kl_terminal", "", c_literal(term, d)))


def render(spec: Spec, namespace: str | None = None, common: bool = True) -> str:
    """Full CUDA source of ``spec``: common header, prelude, templates, #undefs.

    With ``namespace`` the specialisation is wrapped in it (batching in CI); the
    name expressions then need the ``namespace::`` prefix.
    """
    parts = [common_header()] if common else []
    if namespace:
        parts.append(f"namespace {namespace} {{\n")
    parts.append(f"// ---- specialisation {spec.kind}\n")
    parts.append(spec.prelude)
    parts.extend(read(b) for b in spec.bodies)
    parts.extend(f"#undef {m}\n" for m in spec.macros)
    if namespace:
        parts.append(f"}}  // namespace {namespace}\n")
    return "".join(parts)
