"""Boolean transitive closure on the CPU over bit-packed rows, compiled with Numba.

Two primitives (``kleene/engine/primitives.md``):

- ``bool_closure_rows(indptr, indices, n, out=None, reflexive=False)``: the (n, n)
  bool reachability of a graph given as CSR;
- ``closure_dense(semiring, a, one, pred=None)``: the CPU back end's fused dense
  closure A ← A* with this kernel for the Boolean semiring (lor/max with land/min
  on bool, no predecessors) and ``cpu/closure.py``'s kernels for everything else.
  ``kleene.engine.closure`` looks it up on the back end, so ``kleene.transitive_closure``
  and every Boolean closure (the base case of blocked and recursive APSP too) run it.

The method, and why: reachability rows are sets, packed 64 vertices per uint64 word
(a row of n = 6,301 vertices is 99 words, 792 bytes). All vertices of a strongly
connected component (SCC) reach the same vertices, so

1. a dense input's adjacency is packed into bit rows (n²/8 bytes), in parallel
   over rows; a CSR input is read as it is;
2. Tarjan's algorithm (iterative; successors read off the CSR, or off the bit rows
   with a count-trailing-zeros scan) labels the SCCs in reverse topological order:
   an edge between two components leads from a larger label to a smaller one;
3. each component's row starts as the OR of its members' adjacency (in parallel
   over components): its direct successors, and its own members exactly when it
   has a cycle (size > 1, or a self loop);
4. in label order (sinks first) a component ORs in the rows of its successor
   components, taken in decreasing label order and skipped when already reached
   through an earlier one (that one's row holds the skipped row entirely); one
   row per component, (components × n)/8 bytes;
5. each vertex's bool row is written from its component's row, in parallel.

Steps 2 and 4 cost O(n·n/64 + m) and O(m'·n/64) word operations, with m' ≤ m the
condensation edges left after the skipping: on sparse graphs this is a few million
word operations, against ~n³/64 (4·10⁹ at n = 6,300) for a bit-packed Warshall,
whose steps would run in parallel but which is too slow on sparse graphs; dense
graphs condense to few components or have most successor rows skipped, so the same
method serves them. Step 4 is sequential (a component needs its successors'
rows); it is cheap next to steps 1 and 5, which touch all n² entries and run on
all cores (``numba.prange``). Peak memory past the input and the (n, n) result:
the component rows (at most n²/8 bytes; a dense input's packed adjacency as much
again) and a few int64 arrays of n.

The result is the unique Boolean closure, so it equals the composed form
(``closure_generic.closure_dense``: Floyd-Warshall with ``lor``/``land``) exactly,
for any thread count. On a sparse graph most of the time is packing and writing the
n² result: the condensation and the component closure are small beside it, and the
whole is orders of magnitude below the recursive closure on ``cpu/closure.py``'s byte
kernels (docs/algorithms.md has the measured shapes).

Numba is optional: without it both names are None, so the back end has no fused
Boolean closure and the composed forms run.
"""

from __future__ import annotations

import numpy as np

from kleene.errors import InvalidValue
from kleene.semiring import binary as _ops

from .closure import closure_dense as _byte_closure_dense

try:
    import numba
    from numba.cpython.unsafe.numbers import leading_zeros as _clz
    from numba.cpython.unsafe.numbers import trailing_zeros as _ctz
except ImportError:  # pragma: no cover - exercised only without numba
    numba = None

HAVE_NUMBA = numba is not None

_ONE = np.uint64(1)
_LOW6 = np.uint64(63)


def _words(n: int) -> int:
    """uint64 words of a bit row of n vertices."""
    return (n + 63) // 64


# ---- the compiled loops ---------------------------------------------------------------


def _pack_dense(a, words):
    """Bit rows of a square bool array (any strides): bit j of row i is a[i, j]."""
    n = a.shape[0]
    adj = np.empty((n, words), dtype=np.uint64)
    for i in numba.prange(n):
        for w in range(words):
            base = w * 64
            lim = min(64, n - base)
            x = np.uint64(0)
            for b in range(lim):
                if a[i, base + b]:
                    x |= _ONE << np.uint64(b)
            adj[i, w] = x
    return adj


def _tarjan(adj, n):
    """(component label of each vertex, number of components): Tarjan's SCCs,
    iterative, successors scanned off the bit rows. Labels come in reverse
    topological order: an edge u → v between components has label(u) > label(v)."""
    words = adj.shape[1]
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    comp = np.full(n, -1, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)  # Tarjan's stack of open vertices
    calls = np.empty(n, dtype=np.int64)  # the depth-first path
    at_word = np.zeros(n, dtype=np.int64)  # where each open vertex's scan resumes ...
    bits = np.zeros(n, dtype=np.uint64)  # ... and the successors left in that word
    counter = 0
    ncomp = 0
    top = 0
    depth = 0
    for s in range(n):
        if index[s] >= 0:
            continue
        index[s] = low[s] = counter
        counter += 1
        stack[top] = s
        top += 1
        on_stack[s] = True
        at_word[s] = 0
        bits[s] = adj[s, 0]
        calls[0] = s
        depth = 1
        while depth:
            v = calls[depth - 1]
            nxt = -1
            while True:
                b = bits[v]
                if b:
                    w = at_word[v] * 64 + np.int64(_ctz(b))
                    bits[v] = b & (b - _ONE)
                    if index[w] < 0:
                        nxt = w
                        break
                    if on_stack[w] and index[w] < low[v]:
                        low[v] = index[w]
                else:
                    at_word[v] += 1
                    if at_word[v] >= words:
                        break
                    bits[v] = adj[v, at_word[v]]
            if nxt >= 0:  # descend
                index[nxt] = low[nxt] = counter
                counter += 1
                stack[top] = nxt
                top += 1
                on_stack[nxt] = True
                at_word[nxt] = 0
                bits[nxt] = adj[nxt, 0]
                calls[depth] = nxt
                depth += 1
                continue
            depth -= 1  # v is finished
            if low[v] == index[v]:  # v roots a component: pop it
                while True:
                    top -= 1
                    x = stack[top]
                    on_stack[x] = False
                    comp[x] = ncomp
                    if x == v:
                        break
                ncomp += 1
            if depth:
                u = calls[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    return comp, ncomp


def _tarjan_csr(ptr, idx, n):
    """``_tarjan`` with the successors read off a CSR pattern (O(n + m), no bit rows)."""
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    comp = np.full(n, -1, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    calls = np.empty(n, dtype=np.int64)
    at = np.zeros(n, dtype=np.int64)  # the next edge each open vertex scans
    counter = 0
    ncomp = 0
    top = 0
    for s in range(n):
        if index[s] >= 0:
            continue
        index[s] = low[s] = counter
        counter += 1
        stack[top] = s
        top += 1
        on_stack[s] = True
        at[s] = ptr[s]
        calls[0] = s
        depth = 1
        while depth:
            v = calls[depth - 1]
            nxt = -1
            end = ptr[v + 1]
            e = at[v]
            while e < end:
                w = idx[e]
                e += 1
                if index[w] < 0:
                    nxt = w
                    break
                if on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            at[v] = e
            if nxt >= 0:  # descend
                index[nxt] = low[nxt] = counter
                counter += 1
                stack[top] = nxt
                top += 1
                on_stack[nxt] = True
                at[nxt] = ptr[nxt]
                calls[depth] = nxt
                depth += 1
                continue
            depth -= 1  # v is finished
            if low[v] == index[v]:  # v roots a component: pop it
                while True:
                    top -= 1
                    x = stack[top]
                    on_stack[x] = False
                    comp[x] = ncomp
                    if x == v:
                        break
                ncomp += 1
            if depth:
                u = calls[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    return comp, ncomp


def _members(comp, ncomp):
    """(vertices grouped by component, start of each group; ncomp + 1 offsets)."""
    n = comp.size
    start = np.zeros(ncomp + 1, dtype=np.int64)
    for v in range(n):
        start[comp[v] + 1] += 1
    for c in range(ncomp):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for v in range(n):
        c = comp[v]
        order[fill[c]] = v
        fill[c] += 1
    return order, start


def _reach(adj, comp, ncomp):
    """One bit row per component: the vertices its members reach by paths of one
    or more edges (its own members when it has a cycle)."""
    words = adj.shape[1]
    order, start = _members(comp, ncomp)
    reach = np.zeros((ncomp, words), dtype=np.uint64)
    for c in numba.prange(ncomp):  # direct successors (and members on a cycle)
        for k in range(start[c], start[c + 1]):
            v = order[k]
            for w in range(words):
                reach[c, w] |= adj[v, w]
    _close(reach, comp, order, start)
    return reach


def _reach_csr(ptr, idx, comp, ncomp, words):
    """``_reach`` with each component's first row set from its members' CSR edges."""
    order, start = _members(comp, ncomp)
    reach = np.zeros((ncomp, words), dtype=np.uint64)
    for c in numba.prange(ncomp):  # direct successors (and members on a cycle)
        for k in range(start[c], start[c + 1]):
            v = order[k]
            for e in range(ptr[v], ptr[v + 1]):
                j = np.uint64(idx[e])
                reach[c, j >> np.uint64(6)] |= _ONE << (j & _LOW6)
    _close(reach, comp, order, start)
    return reach


def _close(reach, comp, order, start):
    """Each component's row ORed with the rows of the components it reaches, sinks
    first (labels in reverse topological order), in place."""
    ncomp, words = reach.shape
    full = np.zeros(ncomp, dtype=np.bool_)  # does the component reach anything?
    labels = np.zeros((ncomp + 63) // 64, dtype=np.uint64)  # successor components, as bits
    acc = np.zeros(words, dtype=np.uint64)
    for c in range(ncomp):  # sinks first: the successors' rows are final
        lo = labels.size
        hi = -1
        for w in range(words):  # successor components with a non-empty row
            b = reach[c, w]
            while b:
                d = comp[w * 64 + np.int64(_ctz(b))]
                b &= b - _ONE
                if d != c and full[d]:
                    dw = d >> 6
                    labels[dw] |= _ONE << np.uint64(d & 63)
                    lo = min(lo, dw)
                    hi = max(hi, dw)
        for dw in range(hi, lo - 1, -1):  # decreasing label: a row that reaches another first
            b = labels[dw]
            labels[dw] = 0
            while b:
                top = 63 - np.int64(_clz(b))
                b ^= _ONE << np.uint64(top)
                d = dw * 64 + top
                r = np.uint64(order[start[d]])  # any member: all are reached together
                if acc[r >> np.uint64(6)] & (_ONE << (r & _LOW6)):
                    continue  # d is reached through a successor taken before
                for w in range(words):
                    acc[w] |= reach[d, w]
        any_bit = np.uint64(0)
        for w in range(words):
            x = reach[c, w] | acc[w]
            reach[c, w] = x
            any_bit |= x
            acc[w] = 0
        full[c] = any_bit != 0


def _unpack(reach, comp, out, reflexive):
    """out[v, j] = bit j of v's component row (or j == v, when ``reflexive``)."""
    n = comp.size
    words = reach.shape[1]
    for v in numba.prange(n):
        c = comp[v]
        for w in range(words):
            x = reach[c, w]
            base = w * 64
            lim = min(64, n - base)
            for b in range(lim):
                out[v, base + b] = (x >> np.uint64(b)) & _ONE != 0
        if reflexive:
            out[v, v] = True


if HAVE_NUMBA:  # compiled on first call, then loaded from the disk cache
    _jit = numba.njit(cache=True, nogil=True)
    _par = numba.njit(cache=True, nogil=True, parallel=True)
    _pack_dense, _reach, _reach_csr, _unpack = (
        _par(_pack_dense),
        _par(_reach),
        _par(_reach_csr),
        _par(_unpack),
    )
    _tarjan, _tarjan_csr, _members, _close = (
        _jit(_tarjan),
        _jit(_tarjan_csr),
        _jit(_members),
        _jit(_close),
    )


def _closure_bits(adj, n):
    """(component rows, component of each vertex) of bit-packed adjacency rows."""
    comp, ncomp = _tarjan(adj, n)
    return _reach(adj, comp, ncomp), comp


def _closure_csr(ptr, idx, n):
    """(component rows, component of each vertex) of a CSR pattern, read as it is."""
    comp, ncomp = _tarjan_csr(ptr, idx, n)
    return _reach_csr(ptr, idx, comp, ncomp, _words(n)), comp


# ---- the primitives -------------------------------------------------------------------


def _bool_closure_rows(indptr, indices, n, out=None, reflexive=False):
    """Reachability of a graph given as CSR: R[i, j] is True when a path of one or
    more edges leads from i to j (``reflexive``: also when i == j).

    ``indptr`` (n + 1 offsets) and ``indices`` (column of each stored entry, any
    order, duplicates allowed): the pattern is the graph, stored values play no part.
    ``out``: optional writable (n, n) bool array to write into (and return), e.g. a
    view of a larger result. Returns the (n, n) bool array.

    Example
    -------
    >>> import numpy as np
    >>> R = _bool_closure_rows(np.array([0, 1, 2, 2]), np.array([1, 2]), 3)
    >>> R.astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    n = int(n)
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    idx = np.ascontiguousarray(indices, dtype=np.int64)
    if n < 0 or ptr.shape != (n + 1,) or idx.ndim != 1 or (n and int(ptr[-1]) > idx.size):
        raise InvalidValue("bool_closure_rows: indptr/indices are not a CSR matrix of n rows")
    if n and (ptr[0] != 0 or bool(np.any(np.diff(ptr) < 0))):
        raise InvalidValue("bool_closure_rows: indptr must start at 0 and never decrease")
    used = idx[: int(ptr[-1])] if n else idx[:0]
    if used.size and (int(used.min()) < 0 or int(used.max()) >= n):
        raise IndexError(f"bool_closure_rows: a column index is out of range for {n} vertices")
    if out is not None and not (
        isinstance(out, np.ndarray)
        and out.shape == (n, n)
        and out.dtype == np.bool_
        and out.flags.writeable
    ):
        raise InvalidValue(f"bool_closure_rows: out must be a writable ({n}, {n}) bool array")
    if n == 0:
        return np.empty((0, 0), dtype=np.bool_) if out is None else out
    # Tarjan and the components' first rows read the CSR itself: no n×n/8 bit rows of
    # the adjacency, so the peak is the result and the component rows
    reach, comp = _closure_csr(ptr, idx, n)
    if out is None:
        out = np.empty((n, n), dtype=np.bool_)
    _unpack(reach, comp, out, bool(reflexive))
    return out


def _boolean(semiring, a, one, pred) -> bool:
    """Does A ← A* run here: the Boolean semiring on a writable square bool array?"""
    add, mul = semiring.add.op, semiring.mul
    return (
        pred is None
        and a.ndim == 2
        and a.shape[0] == a.shape[1]
        and a.dtype == np.bool_
        and a.flags.writeable
        and add in (_ops.lor, _ops.max)
        and mul in (_ops.land, _ops.min)
        and np.asarray(one).dtype == np.bool_
    )


def _closure_dense(semiring, a, one, pred=None) -> None:
    """A ← A* in place (primitives.md): diagonal ⊕= one, then the closure; the
    bit-packed SCC closure for the Boolean semiring without predecessors, the
    compiled Floyd-Warshall / blocked kernels of ``cpu/closure.py`` otherwise.

    Example
    -------
    >>> import numpy as np
    >>> from kleene.semiring import lor_land
    >>> a = np.array([[False, True], [False, False]])
    >>> _closure_dense(lor_land, a, True)
    >>> a.astype(int).tolist()
    [[1, 1], [0, 1]]
    """
    if not _boolean(semiring, a, one, pred):
        return _byte_closure_dense(semiring, a, one, pred)
    n = a.shape[0]
    if n == 0:
        return
    adj = _pack_dense(a, _words(n))
    reach, comp = _closure_bits(adj, n)
    del adj
    # A ⊕ A² ⊕ … is reach; the diagonal ⊕= one adds the empty paths when one is True
    _unpack(reach, comp, a, bool(one))


# None without Numba: the back end then has no fused Boolean closure (composed forms run).
bool_closure_rows = _bool_closure_rows if HAVE_NUMBA else None
closure_dense = _closure_dense if HAVE_NUMBA else None
