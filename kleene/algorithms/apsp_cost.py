"""What ``apsp(method="auto")`` compares on min_plus: the estimated seconds of the dense
closure and of repeated SSSP (batched sources), per back end.

Each model is a few rates (seconds per n³ step, per pair, per source and edge) fitted
to timings of the public calls, which ``benchmarks/bench_apsp.py`` measures (its
default dense rows and its ``--sparse`` rows). They decide only which method runs,
never what it returns. ``tests/test_apsp_cost.py`` holds the GPU rows the GPU model
was fitted to and checks that it picks the faster method on them, and that the CPU
model keeps its crossovers. Re-measure and refit when a kernel changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

# CPU. Repeated SSSP: one compiled search per source on all cores
# (kleene.engine.multi_source_sssp), a heap step per source, vertex and log2(n) plus a
# relaxation per source and edge, times a factor for Johnson's potentials and
# reweighting. The dense recursive closure (compiled min-plus blocks): a rate per n³
# step by value size, plus a per-pair cost for building D, the cycle check and the
# copy out; with predecessors both grow (the predecessor products and their repair).
# Fitted on random digraphs with a Hamiltonian cycle (every closure full), weights
# 1..100, n = 512..4096, and on real road and social graphs. What follows: without
# predecessors repeated SSSP wins on sparse graphs and loses to the dense closure as
# the edges per vertex grow (the crossing moves up with n) and below n of about 500;
# with predecessors (the dense repair is costly) it wins on all but the densest
# graphs.
_CPU_VERTEX_S = 3.5e-9  # per source, vertex and log2(n)
_CPU_EDGE_S = 0.45e-9  # per source and stored edge
_CPU_JOHNSON = 1.5
_CPU_DENSE_S = {np.dtype(np.float32): 0.027e-9}  # per n³ step; 0.045e-9 otherwise
_CPU_DENSE_PAIR_S = 8e-9  # per n² pair: building D, the cycle check, the copy out
_CPU_DENSE_PREDS_S = (0.13e-9, 60e-9)  # with predecessors, per n³ step and n² pair


def cpu_sparse_s(n: int, m: int, negative: bool) -> float:
    """Seconds of repeated SSSP (one search per source) on the CPU.

    Example
    -------
    >>> round(cpu_sparse_s(1024, 3072, False), 3)
    0.038
    """
    s = n * (n * max(1, n.bit_length() - 1) * _CPU_VERTEX_S + m * _CPU_EDGE_S)
    return s * (_CPU_JOHNSON if negative else 1.0)


def cpu_dense_s(n: int, dtype, preds: bool) -> float:
    """Seconds of the dense recursive closure on the CPU.

    Example
    -------
    >>> round(cpu_dense_s(1024, "float64", False), 3)
    0.057
    """
    step, pair = _CPU_DENSE_S.get(np.dtype(dtype), 0.045e-9), _CPU_DENSE_PAIR_S
    if preds:
        step, pair = _CPU_DENSE_PREDS_S
    return float(n) ** 3 * step + float(n) ** 2 * pair


# GPU. Repeated SSSP (the fused bit-packed Bellman-Ford over every source, batches as
# apsp makes them, results in GPU memory): a cost per pair that grows with the edges
# per vertex and with log2 of how many BFS levels deep the searches run (a least-squares
# fit over the sparse rows), never below a floor; times a factor with predecessors,
# for Johnson, and below 1 where every weight is the same (each search is then a BFS);
# plus a per-pair copy for results that go to host memory (too large for the GPU), and
# a fixed cost a call. The dense closure (R-Kleene on one-launch base blocks): n³ steps
# at a rate by value size plus a per-pair cost (building D from the CSR, the checks,
# the copy out) and a fixed cost a call; with predecessors a lower rate and larger
# per-pair and fixed costs (the predecessor products' small tiles, and the repair).
# What follows: on sparse graphs repeated SSSP wins with predecessors, and without
# them once n is large enough for the dense closure's n³ to outgrow n²·log(levels):
# sooner on shallow graphs of a few edges a vertex than on deep road graphs.
_GPU_SSSP_NS = (-0.48, 0.067, 0.184)  # a pair: constant, per m/n, per log2(1 + L)
_GPU_SSSP_MIN_NS = 0.3
# m/n from 16 to 64 counts as 16 (denser rows ran no slower than those of m/n 16);
# past 64, outside the fitted rows and the dense closure's ground, the excess counts
# in full.
_GPU_SSSP_FLAT_DEGREE, _GPU_SSSP_FLAT_UNTIL = 16, 64
_GPU_SSSP_PREDS = 2.2
_GPU_JOHNSON = 1.15
_GPU_HOST_PAIR_S = 2.7e-9  # a pair and array copied to host memory
_GPU_UNIFORM = 0.5  # one weight everywhere: each search settles a vertex when it reaches it
# The dense closure by value size (1- and 2-byte values count as 4): steps a second and
# seconds a pair, without and with predecessors.
_GPU_DENSE = {4: ((12.3e12, 0.13e-9), (6.1e12, 1.78e-9)), 8: ((2.5e12, 0.13e-9), (3.1e12, 3e-9))}
# Seconds a call costs whatever its size: repeated SSSP; the dense closure without and
# with predecessors (their repair).
_GPU_SSSP_FIXED_S = 1.0e-3
_GPU_DENSE_FIXED_S = (0.7e-3, 6.0e-3)
# The depth probe (a push BFS from one vertex), at its most: auto runs it only where
# repeated SSSP could save at least twice that, else keeps the dense closure, so a
# probe never costs more than a wrong pick would.
_GPU_DEPTH_PROBE_S = 1.5e-3


def gpu_sparse_s(
    n: int,
    m: int,
    levels: int,
    preds: bool,
    negative: bool = False,
    host_results: bool = False,
    uniform: bool = False,
) -> float:
    """Seconds of repeated SSSP on the GPU: n sources over m edges whose searches run
    about ``levels`` hops deep (BFS levels); ``uniform``: every weight the same, so each
    search is a BFS that settles a vertex when it first reaches it.

    Example
    -------
    >>> round(gpu_sparse_s(31071, 77094, 328, False), 2)  # a road grid of 31,071 vertices
    1.18
    """
    c, per_degree, per_level = _GPU_SSSP_NS
    d = m / max(n, 1)
    degree = min(d, _GPU_SSSP_FLAT_DEGREE) + max(0.0, d - _GPU_SSSP_FLAT_UNTIL)
    ns = max(_GPU_SSSP_MIN_NS, c + per_degree * degree + per_level * math.log2(1 + levels))
    s = float(n) ** 2 * ns * 1e-9 * (_GPU_SSSP_PREDS if preds else 1.0)
    s *= _GPU_JOHNSON if negative else 1.0
    s *= _GPU_UNIFORM if uniform else 1.0
    if host_results:
        s += float(n) ** 2 * _GPU_HOST_PAIR_S * (2 if preds else 1)
    return s + _GPU_SSSP_FIXED_S


def gpu_dense_s(n: int, dtype, preds: bool) -> float:
    """Seconds of the dense closure on the GPU.

    Example
    -------
    >>> round(gpu_dense_s(16384, "float32", False), 2)
    0.39
    """
    plain, with_preds = _GPU_DENSE[4 if np.dtype(dtype).itemsize <= 4 else 8]
    rate, pair = with_preds if preds else plain
    return float(n) ** 3 / rate + float(n) ** 2 * pair + _GPU_DENSE_FIXED_S[bool(preds)]


def gpu_prefers_sparse(
    n: int,
    m: int,
    dtype,
    preds: bool,
    negative: bool,
    host_results: bool,
    depth: Callable[[], tuple[int, bool]],
) -> bool:
    """Whether repeated SSSP is estimated faster than the dense closure on the GPU.

    ``depth()`` returns (BFS levels, whether every weight is the same); it is called
    only when the bounds (1 level and equal weights; n levels) leave the choice open
    and repeated SSSP could save at least twice the probe's cost (else the dense
    closure: the probe would cost more than a wrong pick).

    Example
    -------
    >>> gpu_prefers_sparse(15351, 38032, "float32", False, False, False, lambda: (248, False))
    True
    >>> gpu_prefers_sparse(64, 128, "float32", False, False, False, lambda: (8, False))
    False
    """
    dense = gpu_dense_s(n, dtype, preds)

    def sparse(levels: int, uniform: bool) -> float:
        return gpu_sparse_s(n, m, levels, preds, negative, host_results, uniform)

    low = sparse(1, True)
    if n < 2 or low >= dense:
        return False
    if sparse(n, False) < dense:
        return True
    if dense - low < 2 * _GPU_DEPTH_PROBE_S:
        return False
    return sparse(*depth()) < dense
