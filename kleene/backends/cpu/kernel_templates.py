"""The kernel templates of ``cpu/compiled.py``: Numba source text that follows each
specialisation's prelude (``scalar_ops.prelude``: ``_add``, ``_mul``, the identity,
the terminal value), with ``{pull_mul}`` and ``{push_mul}`` the multiply written in
the operand order of the specialisation.

The kernels (all ``nogil``; Python threads over ranges, as ``cpu/closure.py``, except
``pull_full_par``):

- ``pull_full``: ``pull`` where every u(k) is present and every row allowed (the
  dense product): no flags per entry, unsigned positions, and a row's loop not
  unrolled (a position past u also ends it), so a row of irregular length costs one
  mispredicted exit, not two. ``pull_full2`` takes a row's terms two a loop turn
  (one exit test and one position check for two entries), still added one after
  the other in stored order; for a monoid with a terminal value or ``any`` it is
  ``pull_full``. The dense product runs it where rows hold ``compiled._LONG_ROW_ENTRIES``
  entries or more on average (shorter rows lose more to the test after its loop
  than they gain). ``pull_full_par`` runs either
  over one range of rows per thread on Numba's threading layer (``numba.prange``),
  whose workers stay at hand between calls: a product this short would otherwise
  wait on a pool worker's wake-up as long as its own work. A row is still summed
  in its stored order by one thread, so the split does not change a bit.
- ``pull``: row-parallel masked SpMV, w(i) = ⊕_k A(i,k) ⊗ u(k) for allowed rows
  only, rows split by stored entries. The first product starts the sum (the identity
  is never folded in, as in ``segment_reduce``); a row stops at the monoid's
  terminal value (-inf for min, True for lor, ...) and ``any`` stops at the first.
- ``push``: scatter from u's entries in u's order into a dense accumulator. Large
  pushes split u's entries by edge count over threads, each into an accumulator of
  its own, merged in thread order (so ``any`` keeps the first in u's order, as the
  NumPy path does).
- ``spgemm``: Gustavson row by row with a dense accumulator per thread, two passes
  (``spgemm_count``, the symbolic count, then the numeric pass) whose columns-seen
  set is a bit row (ncols/8 bytes, cache-resident). The count sets a product's bit
  with no test and counts a row's bits by word where its words are few for its
  products, else by a second walk of its products. The numeric pass lists a row's
  columns as first seen in a scratch list, then writes the row to C in column
  order: by a scan of its bit words where they hold two columns a word or more;
  else each entry straight to its place, its rank among the row's columns (a running
  count of set bits by word plus the set bits below it in its word: no branch per
  bit); where the words span many words a column (short rows of a wide C), by a
  sort of the list. The output is C's CSR arrays, written in place
  (``mxm_sparse_csr``: stored as they are by ``multiply._spgemm``), or as sorted
  keys ``i * ncols + j`` (``mxm_sparse``).
- ``dot3``: the masked product, one dot product per entry of the mask's pattern.
  A(i,:)'s positions are scattered by k into a per-thread array once per mask row;
  an entry whose Bᵀ(j,:) is the shorter list looks each of its k up there, else
  A(i,:)'s entries are found in Bᵀ(j,:) by galloping search. Either way the products
  come in k order and fold left to right as in ``spgemm``, so the values equal its
  values at those positions. Rows of the mask are split over threads by their work.
"""

KERNELS = """
from numba.cpython.unsafe.numbers import leading_zeros as _clz
from numba.cpython.unsafe.numbers import trailing_zeros as _ctz
from numba.extending import intrinsic as _intrinsic

@_intrinsic
def _popc(typingctx, x):
    # the count of set bits of an unsigned integer (LLVM's ctpop: one instruction)
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen

_U1 = np.uint64(1)
_U6 = np.uint64(6)
_U63 = np.uint64(63)

@numba.njit(cache=CACHE, nogil=True)
def pull(indptr, indices, avals, u, up, has_up, allowed, has_allowed, r0, r1, w, wp):
    for i in range(r0, r1):
        if has_allowed and not allowed[i]:
            continue
        found = False
        acc = ZERO
        for p in range(indptr[i], indptr[i + 1]):
            k = indices[p]
            if has_up and not up[k]:
                continue
            t = {pull_mul}
            if found:
                acc = _add(acc, t)
            else:
                acc = t
                found = True
            if STOP_FIRST:
                break
            if HAS_TERM and acc == TERM:
                break
        if found:
            w[i] = acc
            wp[i] = True


@numba.njit(cache=CACHE, nogil=True)
def pull_full(indptr, indices, avals, u, r0, r1, w, wp):
    # pull with every u(k) present and every row allowed: no flags to test per entry,
    # unsigned positions (no negative-index wraparound per access); writes every row.
    # A position past u ends a row (never, in a valid matrix): the loop's second exit
    # keeps LLVM from unrolling it by a count known at run time, whose remainder loop
    # adds a mispredicted exit to every row of irregular length. Rows too go by
    # unsigned position, a row's end read once (it is the next row's start).
    nu = np.uint64(u.size)
    i = np.uint64(r0)
    end = np.uint64(r1)
    if i >= end:
        return
    p1 = np.uint64(indptr[i])
    while i < end:
        p = p1
        p1 = np.uint64(indptr[i + _U1])
        if p == p1:
            w[i] = ZERO
            wp[i] = False
            i += _U1
            continue
        k = np.uint64(indices[p])
        acc = {pull_mul}
        p += _U1
        if not STOP_FIRST:
            while p < p1:
                if HAS_TERM and acc == TERM:
                    break
                k = np.uint64(indices[p])
                if k >= nu:
                    break
                acc = _add(acc, {pull_mul})
                p += _U1
        w[i] = acc
        wp[i] = True
        i += _U1


@numba.njit(cache=CACHE, nogil=True)
def pull_full2(indptr, indices, avals, u, r0, r1, w, wp):
    # pull_full taking a row's terms two a loop turn: one exit test and one position
    # check for two entries, on rows long enough for the loop's own work to be what
    # they wait on. The terms are still added one after the other in stored order:
    # the same bits as pull_full
    if STOP_FIRST or HAS_TERM:
        pull_full(indptr, indices, avals, u, r0, r1, w, wp)
        return
    nu = np.uint64(u.size)
    i = np.uint64(r0)
    end = np.uint64(r1)
    if i >= end:
        return
    p1 = np.uint64(indptr[i])
    while i < end:
        p = p1
        p1 = np.uint64(indptr[i + _U1])
        if p == p1:
            w[i] = ZERO
            wp[i] = False
            i += _U1
            continue
        k = np.uint64(indices[p])
        acc = {pull_mul}
        p += _U1
        while p + _U1 < p1:
            k = np.uint64(indices[p])
            k2 = np.uint64(indices[p + _U1])
            if k >= nu or k2 >= nu:
                break
            t = {pull_mul}
            p += _U1
            k = k2
            t2 = {pull_mul}
            p += _U1
            acc = _add(_add(acc, t), t2)
        if p < p1:
            k = np.uint64(indices[p])
            if k < nu:
                acc = _add(acc, {pull_mul})
        w[i] = acc
        wp[i] = True
        i += _U1


@numba.njit(cache=CACHE, nogil=True, parallel=True)
def pull_full_par(indptr, indices, avals, u, bounds, w, wp, long_rows):
    # pull_full2 (``long_rows``) or pull_full over the row ranges
    # [bounds[t], bounds[t + 1]) on Numba's threads
    for t in numba.prange(bounds.size - 1):
        if long_rows:
            pull_full2(indptr, indices, avals, u, bounds[t], bounds[t + 1], w, wp)
        else:
            pull_full(indptr, indices, avals, u, bounds[t], bounds[t + 1], w, wp)


@numba.njit(cache=CACHE, nogil=True)
def push(indptr, indices, avals, u_idx, u_vals, s0, s1, allowed, has_allowed, w, wp):
    for s in range(s0, s1):
        k = u_idx[s]
        v = u_vals[s]
        for p in range(indptr[k], indptr[k + 1]):
            j = indices[p]
            if has_allowed and not allowed[j]:
                continue
            if wp[j]:
                if STOP_FIRST:
                    continue
                c = w[j]
                if HAS_TERM and c == TERM:
                    continue
                w[j] = _add(c, {push_mul})
            else:
                w[j] = {push_mul}
                wp[j] = True


@numba.njit(cache=CACHE, nogil=True)
def merge(ws, wps, c0, c1, w, wp):
    for t in range(ws.shape[0]):
        for j in range(c0, c1):
            if wps[t, j]:
                if not wp[j]:
                    w[j] = ws[t, j]
                    wp[j] = True
                elif not STOP_FIRST:
                    w[j] = _add(w[j], ws[t, j])


@numba.njit(cache=CACHE, nogil=True)
def spgemm_count(a_ptr, a_idx, b_ptr, b_idx, ncols, r0, r1, counts):
    # symbolic pass: distinct columns per row, the columns seen as bits (ncols/8 bytes,
    # cache-resident), set with no test (no branch per product); a row's count is
    # then the set bits of the words it touched where they are few for its products,
    # else a second walk of its products clearing each bit as it counts it
    nw = (ncols + 63) // 64
    bits = np.zeros(nw, np.uint64)
    for i in range(r0, r1):
        lo = np.uint64(nw)
        hi = np.uint64(0)
        f = np.uint64(0)
        for p in range(a_ptr[i], a_ptr[i + 1]):
            k = np.uint64(a_idx[p])
            q0 = np.uint64(b_ptr[k])
            q1 = np.uint64(b_ptr[k + _U1])
            f += q1 - q0
            for q in range(q0, q1):
                j = np.uint64(b_idx[q])
                wd = j >> _U6
                bits[wd] |= _U1 << (j & _U63)
                lo = min(lo, wd)
                hi = max(hi, wd)
        c = 0
        if f == 0:
            pass
        elif hi - lo < np.uint64(4) * f:
            for wd in range(lo, hi + _U1):
                c += np.int64(_popc(bits[wd]))
                bits[wd] = 0
        else:
            for p in range(a_ptr[i], a_ptr[i + 1]):
                k = np.uint64(a_idx[p])
                for q in range(np.uint64(b_ptr[k]), np.uint64(b_ptr[k + _U1])):
                    j = np.uint64(b_idx[q])
                    wd = j >> _U6
                    bit = _U1 << (j & _U63)
                    x = bits[wd]
                    if x & bit:
                        bits[wd] = x & ~bit
                        c += 1
        counts[i] = c


@numba.njit(cache=CACHE, nogil=True)
def spgemm(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, ncols, r0, r1, c_ptr, c_idx, c_val):
    # numeric pass, CSR out: a dense accumulator, the columns seen as bits and, in a
    # scratch list, in the order first seen. A row's entries then go to C in column
    # order: by a scan of its bit words where they hold two columns a word or more;
    # else each to its place by rank, the seen columns below j (a running count of
    # the bits by word plus the bits below j in its word: no branch per bit); where
    # its words span many words a column, by a sort of the list
    nw = (ncols + 63) // 64
    bits = np.zeros(nw, np.uint64)
    rank = np.empty(nw, np.int64)
    acc = np.empty(ncols, OUT)
    seen = np.empty(ncols, np.uint32)
    for i in range(r0, r1):
        c = 0
        lo = np.uint64(nw)
        hi = np.uint64(0)
        for p in range(a_ptr[i], a_ptr[i + 1]):
            k = np.uint64(a_idx[p])
            x = a_val[p]
            for q in range(np.uint64(b_ptr[k]), np.uint64(b_ptr[k + _U1])):
                j = np.uint64(b_idx[q])
                wd = j >> _U6
                bit = _U1 << (j & _U63)
                y = bits[wd]
                if y & bit:
                    if not STOP_FIRST:
                        a = acc[j]
                        if not (HAS_TERM and a == TERM):
                            acc[j] = _add(a, _mul(x, b_val[q]))
                else:
                    bits[wd] = y | bit
                    acc[j] = _mul(x, b_val[q])
                    seen[c] = j
                    c += 1
                    if wd < lo:
                        lo = wd
                    if wd > hi:
                        hi = wd
        if c == 0:
            continue
        e0 = c_ptr[i]
        span = np.int64(hi - lo) + 1
        if c >= 2 * span:  # dense in its words: a scan, in column order
            e = e0
            for wd in range(lo, hi + _U1):
                y = bits[wd]
                bits[wd] = 0
                base = np.uint64(wd) << _U6
                while y:
                    j = base + np.uint64(_ctz(y))
                    y &= y - _U1
                    c_idx[e] = j
                    c_val[e] = acc[j]
                    e += 1
        elif span < 2 * c * (64 - np.int64(_clz(np.uint64(c)))):
            run = e0
            for wd in range(lo, hi + _U1):
                rank[wd] = run
                run += np.int64(_popc(bits[wd]))
            for s in range(c):
                j = np.uint64(seen[s])
                wd = j >> _U6
                e = rank[wd] + np.int64(_popc(bits[wd] & ((_U1 << (j & _U63)) - _U1)))
                c_idx[e] = j
                c_val[e] = acc[j]
            bits[lo : hi + _U1] = 0
        else:
            row = seen[:c]
            row.sort()
            for s in range(c):
                j = np.uint64(row[s])
                c_idx[e0 + s] = j
                c_val[e0 + s] = acc[j]
                bits[j >> _U6] = 0


@numba.njit(cache=CACHE, nogil=True)
def _seek(idx, lo, hi, key):
    # the first position in [lo, hi) with idx >= key: lo, else galloping, then a search
    if lo >= hi or idx[lo] >= key:
        return lo
    prev = lo
    step = 1
    while prev + step < hi and idx[prev + step] < key:
        prev += step
        step *= 2
    a = prev + 1
    b = min(prev + step, hi)
    while a < b:
        mid = (a + b) >> 1
        if idx[mid] < key:
            a = mid + 1
        else:
            b = mid
    return a


@numba.njit(cache=CACHE, nogil=True)
def dot3(
    a_ptr, a_idx, a_val, t_ptr, t_idx, t_val, m_ptr, m_idx, ncols, inner, r0, r1, keys, vals, hit
):
    pos = np.zeros(inner, np.int64)  # A(i,:)'s position + 1 by k, for the current row
    for i in range(r0, r1):
        pa0 = a_ptr[i]
        pa1 = a_ptr[i + 1]
        if pa0 == pa1 or m_ptr[i] == m_ptr[i + 1]:
            continue
        for p in range(pa0, pa1):
            pos[a_idx[p]] = p + 1
        base = i * ncols
        for e in range(m_ptr[i], m_ptr[i + 1]):
            j = m_idx[e]
            q = t_ptr[j]
            q1 = t_ptr[j + 1]
            found = False
            acc = ZERO
            if q1 - q <= pa1 - pa0:  # Bt(j,:) is the shorter: look its k up in A(i,:)
                for r in range(q, q1):
                    p = pos[t_idx[r]]
                    if p == 0:
                        continue
                    t = _mul(a_val[p - 1], t_val[r])
                    if found:
                        acc = _add(acc, t)
                    else:
                        acc = t
                        found = True
                    if STOP_FIRST:
                        break
                    if HAS_TERM and acc == TERM:
                        break
            else:  # A(i,:) is the shorter: merge, galloping through Bt(j,:)
                p = pa0
                while p < pa1 and q < q1:
                    ka = a_idx[p]
                    q = _seek(t_idx, q, q1, ka)
                    if q == q1:
                        break
                    if t_idx[q] == ka:
                        t = _mul(a_val[p], t_val[q])
                        if found:
                            acc = _add(acc, t)
                        else:
                            acc = t
                            found = True
                        if STOP_FIRST:
                            break
                        if HAS_TERM and acc == TERM:
                            break
                        q += 1
                    p += 1
            if found:
                keys[e] = base + j
                vals[e] = acc
                hit[e] = True
        for p in range(pa0, pa1):
            pos[a_idx[p]] = 0
"""
