"""What ``apsp(method="auto")`` compares on min_plus: the estimated seconds of the dense
closure and of repeated SSSP (batched sources), per back end, from measured rates.

Both models are fitted to timings of the public calls (see the tables below); they
decide only which method runs, never what it returns. Re-measure when a kernel changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

# CPU: repeated SSSP (a compiled search per source on all cores, kleene.ops.
# multi_source_sssp; measured when it was Dijkstra, which delta-stepping now beats,
# so these figures over-state its cost) against the dense recursive closure
# (compiled min-plus blocks), measured on the 2-core CI machine, median of 2 after
# a warm-up, seconds. Random digraphs with m/n edges per vertex plus a Hamiltonian
# cycle (strongly connected, so every closure is full), weights uniform in 1..100,
# float64 unless said:
#
#       n    m/n   recursive  repeated-sssp   with predecessors: recursive  repeated-sssp
#     512      3     0.0081      0.0069                          0.031        0.0070
#     512     32     0.0118      0.0130                          0.046        0.0125
#     512    202     0.0138      0.0264                          0.067        0.0285
#    1024      3     0.048       0.027                           0.174        0.044
#    1024     33     0.061       0.055                           0.203        0.059
#    1024     63     0.062       0.067                           0.221        0.069
#    1024    227     0.075       0.125                           0.250        0.124
#    1024      5     0.030 fp32  0.034                           0.193        0.044
#    2048      3     0.363       0.127                           1.348        0.129
#    2048     33     0.397       0.225                           1.482        0.236
#    2048    242     0.423       0.520                           1.643        0.515
#    2048     33     0.241 fp32  0.251                           1.395        0.259
#    4096      9     3.64        0.802                           9.19         0.793
#    4096    249     3.25        2.35                            8.99         2.51
#    real graphs (recursive / repeated-sssp, then the same with predecessors):
#    rome99 3353 (m/n 2.6) 0.94 / 0.27, 3.10 / 0.30; facebook 4039 undirected (m/n 44)
#    2.47 / 0.49, 5.89 / 0.67; Gnutella08[:3000] (m/n 3) 0.59 / 0.073, 2.16 / 0.076.
#
# As a cost model (seconds): repeated SSSP n²·log2(n)·3.5 ns (heap work per source
# and vertex) + n·m·0.45 ns (per source and edge), x1.5 for Johnson's potentials
# and reweighting (n = 1024: 0.049 s against 0.041 s at m/n 10, 0.54 against 0.35
# complete); recursive n³·0.045 ns + n²·8 ns in float64 (0.027 ns + 8 ns in
# float32), n³·0.13 ns + n²·60 ns with predecessors (their repair). Auto takes the
# cheaper: without predecessors Dijkstra rows up to m/n ≈ 43 at n = 1024, ≈ 138 at
# 2048, ≈ 335 at 4096 (the dense closure below n ≈ 500); with predecessors (the
# dense repair is costly) Dijkstra rows on all but the densest graphs. On the rows
# above the choice costs at most 1.17x the faster method's time (n = 512, m/n = 3:
# 8.1 ms against 6.9 ms).
_CPU_VERTEX_S = 3.5e-9  # per source, vertex and log2(n)
_CPU_EDGE_S = 0.45e-9  # per source and stored edge
_CPU_JOHNSON = 1.5
_CPU_DENSE_S = {np.dtype(np.float32): 0.027e-9}  # per n³ step; 0.045 ns otherwise
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


# GPU (the timings the fit was made from are MEASURED in tests/test_apsp_cost.py): medians
# of 3 (1 past n = 16384) with a device sync. "sssp": multi_source_sssp over every source, batches as apsp makes them,
# results in GPU memory (the fused bit-packed Bellman-Ford, kleene.backends.cuda.sources);
# "dense": the public apsp(method="recursive") on a cupyx CSR (R-Kleene on one-launch
# 1024-row bases). ms without / with predecessors; L: BFS levels (max over 4 vertices);
# road:S the generated road grids, er:N:dD random digraphs, weights 1..99:
#
#   graph         n      m/n   L    sssp (GPU)        dense            ns a pair (sssp)
#   road:64       3824   2.5   118  12.5 / 31.2       8.5 / 41.0       0.85
#   road:90       7553   2.5   138  61.0 / 139        44.8 / 177       1.07
#   road:128      15351  2.5   248  259 / 616         319 / 1016       1.10
#   road:181      31071  2.5   328  1141 / 2569       2535 / -         1.18
#   er:4096:d3    4096   3.0   14   6.4 / 14.4        8.5 / 44.7       0.38
#   er:4096:d16   4096   16    4    13.8 / 26.4       8.2 / 44.4       0.82
#   er:8192:d3    8192   3.0   15   24.6 / 60.1       49.6 / 206       0.37
#   er:8192:d16   8192   16    5    66.4 / 119        49.8 / 214       0.99
#   er:16384:d3   16384  3.0   18   127 / 280         362 / 1204       0.47
#   er:16384:d16  16384  16    5    308 / 530         362 / 1223       1.15
#   er:32768:d3   32768  3.0   16   553 / 1179        2782 / -         0.52
#   er:32768:d16  32768  16    5    1365 / 2307       2783 / -         1.27
#   rome99        3353   2.6   48   11.1 / 18.3       6.5 / 32.5       0.99
#   facebook      4039   44    7    9.6 / 20.5        9.3 / 44.2       0.59 (unit weights)
#
# Repeated SSSP as n² pairs at max(0.3, -0.48 + 0.067·min(m/n, 16) + 0.184·log2(1 + L))
# ns (least squares over the weighted rows: within 0.74-1.25x of each; the choice below
# picks the faster method on all 28 rows above, tests/test_apsp_cost.py), x2.2 with
# predecessors (1.65-2.5 measured), x1.15 for Johnson, x0.5 where every weight is the
# same (searches that are BFS); results that go to host memory (too large for the GPU)
# add 2.7 ns a pair and array (the copy and the host pages: er:32768:d3 took 3.4 s that
# way); 1 ms a call. The dense closure: n³ steps at 12.3 T/s (4-byte values) plus 0.13
# ns a pair (building D from the CSR, the checks, the copy out) and 0.7 ms; with
# predecessors n³ at 6.1 T/s, 1.78 ns a pair and 6 ms (the predecessor products' small
# tiles, and the repair). So on the GPU auto takes repeated SSSP with predecessors on
# sparse graphs, and without them past n ≈ 4,000 on shallow graphs of a few edges a
# vertex and n ≈ 10,000 on road graphs (the dense closure's n³ outgrows n²·log L).
_GPU_SSSP_NS = (-0.48, 0.067, 0.184)  # a pair: constant, per m/n, per log2(1 + L)
_GPU_SSSP_MIN_NS = 0.3
# m/n from 16 to 64 counts as 16 (facebook, m/n 44, ran as fast as the m/n 16 rows);
# past 64, unmeasured and the dense closure's ground, the excess counts in full.
_GPU_SSSP_FLAT_DEGREE, _GPU_SSSP_FLAT_UNTIL = 16, 64
_GPU_SSSP_PREDS = 2.2
_GPU_JOHNSON = 1.15
_GPU_HOST_PAIR_S = 2.7e-9  # a pair and array copied to host memory
_GPU_UNIFORM = 0.5  # one weight everywhere (facebook: 0.59 ns a pair against 1.14 modelled)
# The dense closure by value size (1- and 2-byte values count as 4): steps a second and
# seconds a pair, without and with predecessors (8-byte: float64 complete graphs, auto,
# n = 4096 / 8192: 31.7 / 213 ms, with predecessors 72 / 376 ms).
_GPU_DENSE = {4: ((12.3e12, 0.13e-9), (6.1e12, 1.78e-9)), 8: ((2.5e12, 0.13e-9), (3.1e12, 3e-9))}
# Seconds a call costs whatever its size (public calls on random digraphs of n = 64 to
# 2048 with 3 or 16 edges a vertex, logs/apsp_small_n_*_2026-11-26_h100.txt): repeated
# SSSP 1.0-1.5 ms; the dense closure 0.7 ms, 6.2 ms with predecessors (their repair).
_GPU_SSSP_FIXED_S = 1.0e-3
_GPU_DENSE_FIXED_S = (0.7e-3, 6.0e-3)
# The depth probe (a push BFS from one vertex, on a fresh matrix: 0.8-1.5 ms at n = 1024
# and 2048, logs/apsp_depth_probe_push_2026-11-26_h100.txt; taken at the high end): auto
# runs it only where repeated SSSP could save at least twice that, else keeps the dense
# closure.
_GPU_DEPTH_PROBE_S = 1.5e-3


def gpu_sparse_s(n: int, m: int, levels: int, preds: bool, negative: bool = False,
                 host_results: bool = False, uniform: bool = False) -> float:  # fmt: skip
    """Seconds of repeated SSSP on the GPU: n sources over m edges whose searches run
    about ``levels`` hops deep (BFS levels); ``uniform``: every weight the same, so each
    search is a BFS that settles a vertex when it first reaches it.

    Example
    -------
    >>> round(gpu_sparse_s(31071, 77094, 328, False), 2)  # road:181: 1.14 s measured
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
    >>> round(gpu_dense_s(16384, "float32", False), 2)  # er:16384: 0.36 s measured
    0.39
    """
    plain, with_preds = _GPU_DENSE[4 if np.dtype(dtype).itemsize <= 4 else 8]
    rate, pair = with_preds if preds else plain
    return float(n) ** 3 / rate + float(n) ** 2 * pair + _GPU_DENSE_FIXED_S[bool(preds)]


def gpu_prefers_sparse(n: int, m: int, dtype, preds: bool, negative: bool, host_results: bool,
                       depth: Callable[[], tuple[int, bool]]) -> bool:  # fmt: skip
    """Whether repeated SSSP is estimated faster than the dense closure on the GPU.

    ``depth()`` returns (BFS levels, whether every weight is the same); it is called
    only when the bounds (1 level and equal weights; n levels) leave the choice open
    and repeated SSSP could save at least twice the probe's cost, up to ~1.5 ms (else
    the dense closure: the probe would cost more than a wrong pick).

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
