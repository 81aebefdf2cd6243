"""Compile units of the CUDA back end: which kernels one NVRTC run compiles.

Imports without CuPy (pure Python; tested on machines without a GPU).

A *unit* is what one NVRTC run compiles: a specialisation's source and the name
expressions it instantiates. NVRTC's time grows with the kernels a unit holds, and a
call needs few of a specialisation's kernels, so by default each kernel is its own unit
(``Spec.together`` keeps kernels that are always used together in one). Kernels that
are not templates are compiled whether named or not, so the templates guard them with
``#if !defined(KL_ONLY) || defined(KL_ONLY_<name>)``; a unit of one kernel defines
``KL_ONLY`` and its own ``KL_ONLY_<name>``.

Each unit's source ends with a line naming its kernels, so units of one template file
are distinct sources (CuPy's disk cache keeps each apart whatever its key holds).
"""

from __future__ import annotations

import re


def unit_names(names: tuple[str, ...], name: str, together: bool) -> tuple[str, ...]:
    """The kernels compiled with ``name``: all of ``names`` if ``together``, else itself.

    >>> unit_names(("a<1>", "a<2>", "b"), "a<2>", together=False)
    ('a<2>',)
    >>> unit_names(("a<1>", "a<2>", "b"), "b", together=True)
    ('a<1>', 'a<2>', 'b')
    """
    if together and name in names:
        return tuple(names)
    return (name,)


def only_macro(name: str) -> str:
    """The macro a one-kernel unit defines for ``name`` (its C identifier characters).

    >>> only_macro("kl_bfs_init")
    'KL_ONLY_kl_bfs_init'
    >>> only_macro("kl_bfs_run<false, 0>")
    'KL_ONLY_kl_bfs_run_false__0_'
    """
    return "KL_ONLY_" + re.sub(r"[^0-9A-Za-z_]", "_", name)


def unit_source(code: str, names: tuple[str, ...]) -> str:
    """The source NVRTC compiles for the unit ``names`` of a specialisation's ``code``.

    One kernel: ``KL_ONLY`` and its ``KL_ONLY_<name>`` defined first (other units'
    guarded kernels drop out). Always: a last line naming the kernels, so that each unit
    has its own entry in CuPy's cache.

    >>> print(unit_source("__global__ void k() {}", ("k",)), end="")
    #define KL_ONLY 1
    #define KL_ONLY_k 1
    __global__ void k() {}
    // kleene unit: k
    """
    head = f"#define KL_ONLY 1\n#define {only_macro(names[0])} 1\n" if len(names) == 1 else ""
    return f"{head}{code}\n// kleene unit: {' | '.join(names)}\n"
