"""Betweenness centrality: Brandes' algorithm over batches of sources, as semiring products.

The design is LAGraph's ``LAGr_Betweenness``. A batch of b sources is a b × n
frontier matrix. Forward, each level is one ``plus_times`` product of the frontier
with the adjacency matrix under the complement of the vertices already reached
(with replace), so the frontier's values are the numbers of shortest paths σ to
the vertices first reached at that level; the frontiers are kept, one per level.
Backward, from the deepest level up, the dependencies δ of one level come from the
next: ``W = (1 + δ) / σ`` on level d, then ``δ = (W ⊕.⊗ Aᵀ) ∘ σ`` under the
structure of level d - 1. A vertex's centrality is the sum of its δ over all
sources (its column sum), rescaled as NetworkX rescales.
"""

from __future__ import annotations

import math
import random
from numbers import Integral

import numpy as np

from kleene.backends import array_module
from kleene.core import Matrix
from kleene.engine import frontier_bfs_multi
from kleene.errors import InvalidValue
from kleene.ops import apply, ewise_add, ewise_mult, mxm, transpose
from kleene.semiring import BinaryOp, plus_times

from ..graph_input import as_graph, check_source

# x / y: the dependency coefficient (1 + δ) / σ (σ >= 1 wherever it is computed).
_div = BinaryOp("div", np.true_divide, "(x / y)", scalar={"f": "x / y"})

# Sources per batch: the b × n frontier and the per-level frontiers grow with b;
# larger batches mean fewer products per level.
BATCH = 64


def _random_state(seed):
    """NetworkX's ``py_random_state``: None is the global generator, an int seeds a
    new one, a ``random.Random`` is used as it is."""
    if seed is None:
        return random  # the module's functions draw from its global generator
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, Integral):
        return random.Random(int(seed))
    raise InvalidValue(
        f"betweenness_centrality: seed must be None, an int or a random.Random, got {seed!r}"
    )


def pick_sources(n: int, k, seed, sources) -> np.ndarray | None:
    """The sources Brandes' algorithm starts from: None for all of them, else
    ``sources`` or the k that NetworkX would sample (``seed.sample(list(G), k)``).

    >>> pick_sources(10, 3, 1, None).tolist()
    [2, 1, 4]
    """
    if sources is not None:
        if k is not None:
            raise InvalidValue("betweenness_centrality: pass k or sources, not both")
        picked = check_source(sources, n, "sources")
        if picked.size == 0:  # NetworkX's rescaling would divide by zero
            raise InvalidValue("betweenness_centrality: sources is empty")
        return picked
    if k is None:
        return None
    if not isinstance(k, Integral) or isinstance(k, bool) or k < 1:
        # (k = 0 would make NetworkX's rescaling divide by zero)
        raise InvalidValue(f"betweenness_centrality: k must be a positive int, got {k!r}")
    if k > n:
        raise InvalidValue(f"betweenness_centrality: k={k} is larger than the {n} vertices")
    if k == n:  # NetworkX's shortcut: all vertices, no sampling adjustment
        return None
    return np.asarray(_random_state(seed).sample(range(n), int(k)), dtype=np.int64)


def rescale(bc, n: int, *, normalized: bool, directed: bool, endpoints: bool, sampled=None):
    """NetworkX's ``_rescale`` of the summed dependencies ``bc`` (in place; returned).

    ``sampled``: the sources used when not all of them were (a source is then scaled
    apart from the others when endpoints are excluded).
    """
    k = None if sampled is None else len(sampled)
    N = n if endpoints else n - 1
    if N < 2:
        return bc
    K = N if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * correction)
        if scale != 1:
            bc *= scale
        return bc
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else math.nan
        s_other = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * correction) if K > 1 else math.nan
        s_other = N / (K * correction)
    xp = array_module(bc)
    scale = np.full(n, s_other)
    scale[np.asarray(sampled)] = s_src
    bc *= xp.asarray(scale)
    return bc


def _level_patterns(lv, b: int, n: int) -> list:
    """The (b × n) pattern matrix of each BFS level, from the dense levels ``lv``
    (-1: not reached): one stable sort by level, then one slice per level (rows and
    columns come out sorted, a canonical CSR)."""
    xp = array_module(lv)
    flat = lv.ravel()
    reached = xp.flatnonzero(flat >= 0)
    depth = int(flat.max()) + 1 if reached.size else 0
    small = np.int16 if depth < np.iinfo(np.int16).max else np.int64  # radix-sorted
    order = reached[xp.argsort(flat[reached].astype(small), kind="stable")]
    bounds = xp.searchsorted(flat[order], xp.arange(depth + 1)).tolist()
    pats = []
    for d in range(depth):
        keys = order[bounds[d] : bounds[d + 1]]
        rows, cols = keys // n, keys % n
        pats.append(Matrix.from_edges(rows, cols, 1.0, n=b, ncols=n, dup=None))
    return pats


def _batch(A: Matrix, At: Matrix, srcs, directed: bool, endpoints: bool):
    """Σ over the batch's sources of δ per vertex (+ the endpoint terms): a dense array."""
    xp = A.xp
    n = A.nrows
    b = len(srcs)
    lv, _ = frontier_bfs_multi(A, srcs, symmetric=not directed)
    pats = _level_patterns(lv, b, n)
    # forward: σ of level d + 1 from level d, on the vertices first reached there
    sigma = pats[:1]
    for d in range(1, len(pats)):
        sigma.append(mxm(sigma[-1], A, plus_times, mask=pats[d].S, replace=True))
    cols, vals = [], []  # δ's entries, summed per column once at the end
    delta = None  # δ on the level below the one being read
    for d in range(len(sigma) - 1, 1, -1):
        num = pats[d] if delta is None else ewise_add(pats[d], delta, "plus")
        W = ewise_mult(num, sigma[d], _div)
        U = mxm(W, At, plus_times, mask=pats[d - 1].S, replace=True)
        delta = ewise_mult(U, sigma[d - 1], "times")
        _, c, v = delta.to_coo()
        cols.append(c)
        vals.append(v)
    if cols:
        total = xp.bincount(xp.concatenate(cols), xp.concatenate(vals), minlength=n)
    else:
        total = xp.zeros(n, dtype=np.float64)
    if endpoints:
        # every vertex a source reaches (itself excluded) is an endpoint of its paths
        total += (lv > 0).sum(axis=0)
        reached = (lv >= 0).sum(axis=1) - 1.0
        total += xp.bincount(xp.asarray(srcs), reached, minlength=n)
    return total


def betweenness_centrality(
    G,
    *,
    k: int | None = None,
    normalized: bool = True,
    weight=None,
    endpoints: bool = False,
    seed=None,
    directed: bool = True,
    sources=None,
):
    """Shortest-path betweenness centrality of every vertex, as NetworkX computes it.

    Brandes' algorithm on unweighted edges, in batches of sources: each batch a
    forward breadth-first search counting shortest paths with ``plus_times``
    products of a (batch × n) frontier matrix, masked by the complement of the
    vertices reached, then the backward accumulation of dependencies level by level
    (LAGraph's design). Rescaled by NetworkX's rule for ``normalized``,
    ``endpoints``, directed or undirected graphs and sampled sources.

    Parameters
    ----------
    G : kleene.Matrix, scipy/cupyx sparse matrix, or dense array (inf = no edge)
        Only the pattern is read; self-loops change nothing.
    k : int, optional
        Use k sources sampled as NetworkX samples them: ``seed.sample(range(n), k)``,
        so vertex i is NetworkX's node i (a graph with nodes 0..n-1 in order).
        ``k == n`` uses every vertex; k < 1 (or an empty ``sources``) is an
        InvalidValue, where NetworkX's rescaling divides by zero.
    normalized : bool
        Divide by the number of (s, t) pairs (NetworkX's rule).
    weight : None
        Weighted betweenness is not supported yet: anything but None is an error.
    endpoints : bool
        Count the path's end vertices as on the path.
    seed : None, int or random.Random
        The generator of the sample (None: Python's global one, as NetworkX).
    directed : bool
        False follows edges both ways (an undirected graph, NetworkX's ``Graph``).
    sources : sequence of int, optional
        The sources to start from instead of a sample; rescaled as k = len(sources)
        sampled ones.

    Returns
    -------
    float64 array of length n, on the input's device

    Example
    -------
    >>> import scipy.sparse as sp, kleene
    >>> path = sp.csr_matrix(([1, 1, 1], ([0, 1, 2], [1, 2, 3])), shape=(4, 4))
    >>> kleene.betweenness_centrality(path, directed=False).tolist()
    [0.0, 0.6666666666666666, 0.6666666666666666, 0.0]
    >>> kleene.betweenness_centrality(path, normalized=False).tolist()
    [0.0, 2.0, 2.0, 0.0]
    """
    if weight is not None:
        raise InvalidValue(
            "betweenness_centrality: weighted betweenness (weight=...) is not supported yet; "
            "pass weight=None for shortest paths by edge count"
        )
    A = as_graph(G, directed=directed, pattern=True, check_nan=False)
    n = A.nrows
    xp = A.xp
    srcs = pick_sources(n, k, seed, sources)
    P = apply(A, "one").astype(np.float64) if A.dtype != np.float64 else apply(A, "one")
    Pt = P if not directed else transpose(P)
    everyone = srcs if srcs is not None else np.arange(n, dtype=np.int64)
    bc = xp.zeros(n, dtype=np.float64)
    for start in range(0, len(everyone), BATCH):
        bc += _batch(P, Pt, everyone[start : start + BATCH], directed, endpoints)
    return rescale(
        bc, n, normalized=normalized, directed=directed, endpoints=endpoints, sampled=srcs
    )
