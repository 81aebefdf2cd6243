// mxm_sparse: C = A ADD.MULT B, unmasked, by Gustavson's row-wise method with hash
// accumulators. The work is cut into items: a row of C, or, for a heavy row, a range
// of its columns (a row's ranges are disjoint, in column order). One warp owns an item
// from start to end: it walks the item's terms A(i,k) * B(k,j) in order (k in
// A(i,:)'s order, then j in B(k,:)'s), 32 at a time, and folds them into a table keyed
// by column. Lanes of one chunk that hold the same column are grouped (match_any); the
// group's lowest lane folds the group's terms in lane order into the column's slot, so
// every entry of C is the left-to-right fold of its terms in term order (the first
// term starts it, the identity is never folded in, a terminal value ends it, the any
// monoid keeps the first): the CPU's fold, whatever the scheduling. Slots are claimed
// with atomicCAS on the column (which slot a column gets may vary; its value may not);
// values are written by their group's leader alone, so no atomics touch values.
//
// kl_spgemm_rows: tables in shared memory (`slots` per warp, a power of two), for the
// items of one bin; RANGED: items of `slots` columns each, column j in slot j - c0.
// kl_spgemm_heavy: tables in global memory (a pool, one per warp, each row its own
// size), whole rows taken from a counter. A table at least as large as ncols maps
// column j to slot j: its slots are in column order. Else columns are placed by
// Fibonacci hashing and linear probing, and the row's entries are compacted and
// sorted by a bitonic network (every comparator ascending, so the missing entries past
// the end count as +inf and never move).
// COUNT (template): count each item's distinct columns only (the symbolic pass).
// Needs from the prelude: kl_a_t, kl_b_t, kl_c_t, kl_mult, kl_add, kl_identity,
// KL_HAS_TERMINAL (kl_terminal), KL_STOPS_AT_FIRST, KL_SPG_WARPS_HEAVY.

#define KL_SPG_EMPTY (-1)

__device__ __forceinline__ void kl_spg_fold(kl_c_t& acc, kl_c_t v) {
#if KL_STOPS_AT_FIRST
  (void)acc;
  (void)v;
#else
#if KL_HAS_TERMINAL
  if (acc == kl_terminal()) return;
#endif
  acc = kl_add(acc, v);
#endif
}

// The slot of column j in a table of `slots` slots (a power of two, log2 `bits`).
__device__ __forceinline__ long long kl_spg_home(int j, int c0, long long slots, int bits,
                                                 bool direct) {
  if (direct) return j - c0;
  return (long long)(((unsigned)j * 2654435761u) >> (32 - bits)) & (slots - 1);
}

// The first position in [lo, hi) whose index is >= key.
__device__ __forceinline__ long long kl_spg_lower(const int* __restrict__ idx, long long lo,
                                                  long long hi, int key) {
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (idx[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Claim or find column j's slot; `fresh` says the column was not there before.
__device__ __forceinline__ long long kl_spg_insert(int* keys, long long slots, int bits,
                                                   bool direct, int j, int c0, bool& fresh) {
  long long s = kl_spg_home(j, c0, slots, bits, direct);
  while (true) {
    const int old = atomicCAS(keys + s, KL_SPG_EMPTY, j);
    if (old == KL_SPG_EMPTY) {
      fresh = true;
      return s;
    }
    if (old == j) {
      fresh = false;
      return s;
    }
    s = (s + 1) & (slots - 1);
  }
}

// Fold the terms of item (row i, columns [c0, c1)) into the table (keys/vals of
// `slots` slots, all EMPTY). A window of 32 entries of A(i,:) at a time: each lane
// takes an entry p (its B(k,:) cut to [c0, c1) by binary search where RANGED), a warp
// scan gives the window's term offsets, then 32 terms at a time each lane finds its
// entry by a binary search over shuffles. The products of a chunk's lanes go to
// `stage` and are read back through a volatile view: the fold's add never fuses with
// the multiply (no FMA contraction), so values round as the CPU's.
template <bool COUNT, bool RANGED, typename KeyPtr, typename ValPtr>
__device__ __forceinline__ void kl_spg_accumulate(
    const long long* __restrict__ a_ptr, const int* __restrict__ a_idx,
    const kl_a_t* __restrict__ a_val, const long long* __restrict__ b_ptr,
    const int* __restrict__ b_idx, const kl_b_t* __restrict__ b_val, long long i, int c0,
    int c1, KeyPtr keys, ValPtr vals, kl_c_t* stage, long long slots, int bits,
    bool direct, int lane) {
  const long long p_end = a_ptr[i + 1];
  volatile kl_c_t* vstage = stage;
  for (long long p0 = a_ptr[i]; p0 < p_end; p0 += 32) {
    const long long p = p0 + lane;
    long long qs = 0, qe = 0;
    kl_a_t av = kl_a_t();
    if (p < p_end) {
      const int k = a_idx[p];
      qs = b_ptr[k];
      qe = b_ptr[k + 1];
      if (RANGED) {
        qs = kl_spg_lower(b_idx, qs, qe, c0);
        qe = kl_spg_lower(b_idx, qs, qe, c1);
      }
      if (!COUNT) av = a_val[p];
    }
    long long incl = qe - qs;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const long long y = __shfl_up_sync(KL_FULL_MASK, incl, d);
      if (lane >= d) incl += y;
    }
    const long long excl = incl - (qe - qs);
    const long long total = kl_shfl(KL_FULL_MASK, incl, 31, 32);
    for (long long cb = 0; cb < total; cb += 32) {
      const long long t = cb + lane;
      int pos = 0;
#pragma unroll
      for (int step = 16; step > 0; step >>= 1) {
        const long long v = kl_shfl(KL_FULL_MASK, excl, pos + step, 32);
        if (v <= t) pos += step;
      }
      const long long q = kl_shfl(KL_FULL_MASK, qs, pos, 32) + t -
                          kl_shfl(KL_FULL_MASK, excl, pos, 32);
      const kl_a_t a = kl_shfl(KL_FULL_MASK, av, pos, 32);
      const bool active = t < total;
      int j = -1 - lane;  // inactive lanes: a key of their own, never a column
      if (active) {
        j = b_idx[q];
        if (!COUNT) vstage[lane] = kl_mult(a, b_val[q]);
      }
      const unsigned grp = __match_any_sync(KL_FULL_MASK, j);
      const bool leader = active && (int)(__ffs(grp) - 1) == lane;
      bool fresh = false;
      long long s = 0;
      if (leader) s = kl_spg_insert(keys, slots, bits, direct, j, c0, fresh);
      __syncwarp();
      if (!COUNT && leader) {
        kl_c_t acc = vstage[lane];
        if (!fresh) {
          const kl_c_t first = acc;
          acc = vals[s];
          kl_spg_fold(acc, first);
        }
        unsigned rest = grp & (grp - 1);  // the group's other lanes, in lane order
        while (rest) {
          const int m = __ffs(rest) - 1;
          rest &= rest - 1;
          kl_spg_fold(acc, vstage[m]);
        }
        vals[s] = acc;
      }
      __syncwarp();
    }
  }
}

// Where item e (of row i, cnt entries) writes: dst_off[e], or where `dynamic`, the
// next cnt places of its row's region (row_base[i] on, row_fill[i] taken so far),
// recorded in dst_off[e]. A row's items may take their places in any order: the move
// into C (kl_spgemm_copy) reads each item's entries from dst_off in item order.
__device__ __forceinline__ long long kl_spg_place(long long e, long long i, long long cnt,
                                                  long long* dst_off,
                                                  const long long* row_base,
                                                  unsigned long long* row_fill,
                                                  long long dynamic, int lane) {
  if (!dynamic) return dst_off[e];
  long long at = 0;
  if (lane == 0) {
    at = row_base[i] + (long long)atomicAdd(row_fill + i, (unsigned long long)cnt);
    dst_off[e] = at;
  }
  return kl_shfl(KL_FULL_MASK, at, 0, 32);
}

// The all-ascending bitonic network over keys[0, n) (payload vals), one warp.
template <typename K, typename KeyPtr, typename ValPtr>
__device__ __forceinline__ void kl_spg_sort(KeyPtr keys, ValPtr vals, int n, int lane) {
  int lg = 0;
  while ((1 << lg) < n) ++lg;
  const int half_n = (1 << lg) >> 1;
  for (int kb = 1; kb <= lg; ++kb) {
    for (int jb = kb - 1; jb >= 0; --jb) {
      const int j = 1 << jb;
      const bool mirror = jb == kb - 1;
      for (int t = lane; t < half_n; t += 32) {
        const int off = t & (j - 1);
        const int base = (t >> jb) << (jb + 1);
        const int lo = base + off;
        const int hi = mirror ? base + 2 * j - 1 - off : lo + j;
        if (hi < n) {
          const K kl = keys[lo], kh = keys[hi];
          if (kh < kl) {
            keys[lo] = kh;
            keys[hi] = kl;
            const kl_c_t v = vals[lo];
            vals[lo] = vals[hi];
            vals[hi] = v;
          }
        }
      }
      __syncwarp();
    }
  }
}

// Items: item e is row item_row[e], columns [c0, c1) with c0 = item_sub[e] * slots
// where RANGED (a table of `slots` slots maps column j to slot j - c0), else all
// columns. Its entries go to dst_off[e] on; counts[e] says how many.
template <int COUNT, int RANGED>
__global__ void __launch_bounds__(256)
kl_spgemm_rows(const long long* __restrict__ a_ptr, const int* __restrict__ a_idx,
               const kl_a_t* __restrict__ a_val, const long long* __restrict__ b_ptr,
               const int* __restrict__ b_idx, const kl_b_t* __restrict__ b_val,
               const int* __restrict__ items, long long nitems,
               const int* __restrict__ item_row, const int* __restrict__ item_sub,
               long long slots, long long ncols, long long* __restrict__ dst_off,
               const long long* __restrict__ row_base, unsigned long long* __restrict__ row_fill,
               long long dynamic, long long* __restrict__ counts,
               long long* __restrict__ out_keys, kl_c_t* __restrict__ out_vals) {
  extern __shared__ __align__(16) unsigned char kl_spg_smem[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const long long per_warp = slots * (long long)sizeof(kl_c_t) +
                             32 * (long long)sizeof(kl_c_t) + slots * 4;
  unsigned char* mine = kl_spg_smem + warp * per_warp;
  kl_c_t* vals = (kl_c_t*)mine;
  kl_c_t* stage = vals + slots;
  int* keys = (int*)(stage + 32);
  const int bits = __ffsll(slots) - 1;
  const bool direct = RANGED || ncols <= slots;
  const long long nwarps = (long long)gridDim.x * (blockDim.x >> 5);
  for (long long r = (long long)blockIdx.x * (blockDim.x >> 5) + warp; r < nitems;
       r += nwarps) {
    const long long e = items[r];
    const long long i = item_row[e];
    const long long lo = RANGED ? (long long)item_sub[e] * slots : 0;
    const int c0 = (int)lo;
    const int c1 = (int)(lo + slots < ncols ? lo + slots : ncols);
    for (long long s = lane; s < slots; s += 32) keys[s] = KL_SPG_EMPTY;
    __syncwarp();
    kl_spg_accumulate<COUNT != 0, RANGED != 0>(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, i,
                                               c0, c1, keys, vals, stage, slots, bits,
                                               direct, lane);
    // compact the occupied slots to the front, in slot order
    long long cnt = 0;
    for (long long s0 = 0; s0 < slots; s0 += 32) {
      const long long s = s0 + lane;
      const int key = keys[s];
      kl_c_t v;
      if (!COUNT) v = vals[s];
      const bool occ = key != KL_SPG_EMPTY;
      const unsigned bal = __ballot_sync(KL_FULL_MASK, occ);
      const long long at = cnt + __popc(bal & ((1u << lane) - 1u));
      __syncwarp();
      if (!COUNT && occ) {
        keys[at] = key;
        vals[at] = v;
      }
      cnt += __popc(bal);
      __syncwarp();
    }
    if (lane == 0) counts[e] = cnt;
    if (COUNT) continue;
    if (!direct) kl_spg_sort<int>(keys, vals, (int)cnt, lane);
    const long long dst = kl_spg_place(e, i, cnt, dst_off, row_base, row_fill, dynamic, lane);
    const long long row_key = i * ncols;
    for (long long x = lane; x < cnt; x += 32) {
      out_keys[dst + x] = row_key + keys[x];
      out_vals[dst + x] = vals[x];
    }
    __syncwarp();
  }
}

// Items whose tables live in global memory (a pool of `pool_slots` slots per warp,
// all EMPTY between items; item r of `items` has row_slots[r] slots), whole rows,
// taken from the counter `next` (heaviest first). Entries are compacted into the
// item's output range as columns, sorted there, then given their row's key.
template <int COUNT>
__global__ void __launch_bounds__(KL_SPG_WARPS_HEAVY * 32)
kl_spgemm_heavy(const long long* __restrict__ a_ptr, const int* __restrict__ a_idx,
                const kl_a_t* __restrict__ a_val, const long long* __restrict__ b_ptr,
                const int* __restrict__ b_idx, const kl_b_t* __restrict__ b_val,
                const int* __restrict__ items, const long long* __restrict__ row_slots,
                long long nitems, const int* __restrict__ item_row, long long ncols,
                int* pool_keys, kl_c_t* pool_vals, long long pool_slots, int* next,
                long long* __restrict__ dst_off, const long long* __restrict__ row_base,
                unsigned long long* __restrict__ row_fill, long long dynamic,
                long long* __restrict__ counts, long long* out_keys, kl_c_t* out_vals) {
  __shared__ kl_c_t kl_spg_stage[KL_SPG_WARPS_HEAVY][32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const long long gw = (long long)blockIdx.x * KL_SPG_WARPS_HEAVY + warp;
  int* keys = pool_keys + gw * pool_slots;
  kl_c_t* vals = pool_vals + (COUNT ? 0 : gw * pool_slots);
  kl_c_t* stage = kl_spg_stage[warp];
  while (true) {
    int r = 0;
    if (lane == 0) r = atomicAdd(next, 1);
    r = kl_shfl(KL_FULL_MASK, r, 0, 32);
    if (r >= nitems) break;
    const long long e = items[r];
    const long long i = item_row[e];
    const long long slots = row_slots[r];
    const int bits = __ffsll(slots) - 1;
    const bool direct = ncols <= slots;
    kl_spg_accumulate<COUNT != 0, false>(a_ptr, a_idx, a_val, b_ptr, b_idx, b_val, i, 0,
                                         (int)ncols, keys, vals, stage, slots, bits, direct,
                                         lane);
    // compact into the item's output range (columns for now), clearing the table; a
    // whole row is its row's one item, so its place is known before its count
    const long long dst =
        COUNT ? 0 : kl_spg_place(e, i, 0, dst_off, row_base, row_fill, dynamic, lane);
    long long cnt = 0;
    for (long long s0 = 0; s0 < slots; s0 += 32) {
      const long long s = s0 + lane;
      const int key = keys[s];
      const bool occ = key != KL_SPG_EMPTY;
      const unsigned bal = __ballot_sync(KL_FULL_MASK, occ);
      if (occ) {
        keys[s] = KL_SPG_EMPTY;
        if (!COUNT) {
          const long long at = dst + cnt + __popc(bal & ((1u << lane) - 1u));
          out_keys[at] = key;
          out_vals[at] = vals[s];
        }
      }
      cnt += __popc(bal);
    }
    if (lane == 0) counts[e] = cnt;
    __syncwarp();
    if (COUNT) continue;
    if (!direct) kl_spg_sort<long long>(out_keys + dst, out_vals + dst, (int)cnt, lane);
    const long long row_key = i * ncols;
    for (long long x = lane; x < cnt; x += 32) out_keys[dst + x] += row_key;
    __syncwarp();
  }
}

// Move each item's entries from where the numeric pass wrote them (src_off) to their
// place in C (dst_off): one warp per item.
template <int UNUSED>
__global__ void __launch_bounds__(256)
kl_spgemm_copy(long long nitems, const long long* __restrict__ counts,
               const long long* __restrict__ src_off, const long long* __restrict__ dst_off,
               const long long* __restrict__ in_keys, const kl_c_t* __restrict__ in_vals,
               long long* __restrict__ out_keys, kl_c_t* __restrict__ out_vals) {
  const int lane = threadIdx.x & 31;
  const long long nwarps = (long long)gridDim.x * (blockDim.x >> 5);
  for (long long e = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; e < nitems;
       e += nwarps) {
    const long long n = counts[e], src = src_off[e], dst = dst_off[e];
    for (long long x = lane; x < n; x += 32) {
      out_keys[dst + x] = in_keys[src + x];
      out_vals[dst + x] = in_vals[src + x];
    }
  }
}

#undef KL_SPG_EMPTY
