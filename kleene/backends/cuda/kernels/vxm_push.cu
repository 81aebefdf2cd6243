// vxm_push: w(j) = ADD_{s} MULT(u_vals[s], A(u_idx[s], j)) for columns j with
// allowed[j]; w_present[j] is set (plain store) when a term lands.
// Needs from the prelude: kl_a_t, kl_u_t, kl_c_t, kl_w_t (the staging type: int
// for bool), kl_mult_ua, kl_add, kl_identity, KL_PUSH_KIND (one of KL_PUSH_*),
// KL_BLOCK, KL_UNROLL.
//
// Update kinds (chosen on the host, see codegen.push_kind), all independent of
// the order atomics land in: native or bit-ordered min/max, integer add, or/and,
// a compare-and-swap loop for idempotent user monoids, and for the any monoid
// an atomicMin on the term's position (u entry, offset in row), so the first
// term in u's order wins as on the CPU. Kind "sort" (float plus, other
// non-idempotent monoids) only expands the terms here; the host sorts them by
// column and reduces them with segment_reduce.

#if KL_PUSH_KIND != KL_PUSH_SORT

// Monotone integer key of a value, for the skip test before a min/max atomic
// (floats: the order the bit tricks of kl_atomic_min/max implement).
__device__ __forceinline__ int kl_ordkey(int v) { return v; }
__device__ __forceinline__ long long kl_ordkey(long long v) { return v; }
__device__ __forceinline__ int kl_ordkey(float v) {
  const int b = __float_as_int(v);
  return b >= 0 ? b : b ^ 0x7fffffff;
}
__device__ __forceinline__ long long kl_ordkey(double v) {
  const long long b = __double_as_longlong(v);
  return b >= 0 ? b : b ^ 0x7fffffffffffffffLL;
}

__device__ __forceinline__ void kl_push_update(kl_w_t* __restrict__ w,
                                               unsigned long long* __restrict__ keys,
                                               int j, kl_c_t v, unsigned long long key) {
#if KL_PUSH_KIND == KL_PUSH_MIN
  const kl_w_t x = (kl_w_t)v;
  if (kl_ordkey(x) < kl_ordkey(*(volatile kl_w_t*)(w + j))) kl_atomic_min(w + j, x);
#elif KL_PUSH_KIND == KL_PUSH_MAX
  const kl_w_t x = (kl_w_t)v;
  if (kl_ordkey(x) > kl_ordkey(*(volatile kl_w_t*)(w + j))) kl_atomic_max(w + j, x);
#elif KL_PUSH_KIND == KL_PUSH_PLUS
  kl_atomic_plus(w + j, (kl_w_t)v);
#elif KL_PUSH_KIND == KL_PUSH_LOR
  if (v && *(volatile kl_w_t*)(w + j) == 0) kl_atomic_or(w + j, (kl_w_t)1);
#elif KL_PUSH_KIND == KL_PUSH_LAND
  if (!v && *(volatile kl_w_t*)(w + j) != 0) kl_atomic_and(w + j, (kl_w_t)0);
#elif KL_PUSH_KIND == KL_PUSH_CAS
  typedef typename kl_word<sizeof(kl_w_t)>::type word_t;
  word_t* addr = (word_t*)(w + j);
  word_t old = *(volatile word_t*)addr;
  while (true) {
    const kl_c_t cur = (kl_c_t)kl_from_word<kl_w_t>(old);
    const word_t nw = kl_to_word((kl_w_t)kl_add(cur, v));
    if (nw == old) break;  // no change: nothing to write
    const word_t prev = atomicCAS(addr, old, nw);
    if (prev == old) break;
    old = prev;
  }
#elif KL_PUSH_KIND == KL_PUSH_ANY
  if (key < *(volatile unsigned long long*)(keys + j)) atomicMin(keys + j, key);
#endif
  (void)w;
  (void)keys;
  (void)key;
  (void)v;
}

// One source row: lanes lane, lane + stride, ... of [beg, end), U loads in flight.
template <int U>
__device__ __forceinline__ void kl_push_row(
    long long s, long long beg, long long end, int lane, int stride, kl_u_t uv,
    const int* __restrict__ indices, const kl_a_t* __restrict__ avals,
    const bool* __restrict__ allowed, int use_allowed, kl_w_t* __restrict__ w,
    unsigned long long* __restrict__ keys, bool* __restrict__ w_present) {
  for (long long base = beg + lane; base < end; base += (long long)stride * U) {
    int col[U];
    kl_a_t a[U];
    bool ok[U];
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const long long p = base + (long long)j * stride;
      ok[j] = p < end;
      col[j] = ok[j] ? indices[p] : 0;
      a[j] = ok[j] ? avals[p] : kl_a_t();
    }
#pragma unroll
    for (int j = 0; j < U; ++j)
      if (ok[j] && use_allowed) ok[j] = allowed[col[j]];
#pragma unroll
    for (int j = 0; j < U; ++j) {
      if (!ok[j]) continue;
      const unsigned long long off = (unsigned long long)(base + (long long)j * stride - beg);
      kl_push_update(w, keys, col[j], kl_mult_ua(uv, a[j]), ((unsigned long long)s << 32) | off);
      w_present[col[j]] = true;
    }
  }
}

// kl_vxm_push<G>: a group of G lanes per u entry; rows longer than long_len are
// queued like kl_mxv_pull's: up to huge_len terms into queue[2 ...] (medium),
// longer into queue[2 + qcap ...] (huge); queue[0], queue[1] count them.
template <int G>
__global__ void __launch_bounds__(KL_BLOCK)
kl_vxm_push(const long long* __restrict__ indptr, const int* __restrict__ indices,
            const kl_a_t* __restrict__ avals, const long long* __restrict__ u_idx,
            const kl_u_t* __restrict__ u_vals, long long nu, const bool* __restrict__ allowed,
            int use_allowed, long long long_len, long long huge_len, int* __restrict__ queue,
            long long qcap, kl_w_t* __restrict__ w, unsigned long long* __restrict__ keys,
            bool* __restrict__ w_present) {
  const int lane = threadIdx.x & (G - 1);
  const long long ngroups = (long long)gridDim.x * (KL_BLOCK / G);
  for (long long s = ((long long)blockIdx.x * KL_BLOCK + threadIdx.x) / G; s < nu;
       s += ngroups) {
    const long long k = u_idx[s];
    const long long beg = indptr[k], end = indptr[k + 1];
    if (end - beg > long_len) {
      if (lane == 0) {
        if (end - beg > huge_len) queue[2 + qcap + atomicAdd(queue + 1, 1)] = (int)s;
        else queue[2 + atomicAdd(queue, 1)] = (int)s;
      }
      continue;
    }
    kl_push_row<KL_UNROLL>(s, beg, end, lane, G, u_vals[s], indices, avals, allowed,
                           use_allowed, w, keys, w_present);
  }
}

// Queued rows in one launch: a block of NT threads per huge row, then a warp per
// medium row.
template <int NT, int U>
__global__ void __launch_bounds__(NT)
kl_vxm_push_long(const long long* __restrict__ indptr, const int* __restrict__ indices,
                 const kl_a_t* __restrict__ avals, const long long* __restrict__ u_idx,
                 const kl_u_t* __restrict__ u_vals, const bool* __restrict__ allowed,
                 int use_allowed, const int* __restrict__ queue, long long qcap,
                 kl_w_t* __restrict__ w, unsigned long long* __restrict__ keys,
                 bool* __restrict__ w_present) {
  const int nhuge = queue[1], nmedium = queue[0];
  for (int q = blockIdx.x; q < nhuge; q += gridDim.x) {
    const long long s = queue[2 + qcap + q];
    const long long k = u_idx[s];
    kl_push_row<U>(s, indptr[k], indptr[k + 1], threadIdx.x, NT, u_vals[s], indices, avals,
                   allowed, use_allowed, w, keys, w_present);
  }
  const int nwarps = gridDim.x * (NT / 32);
  for (int q = blockIdx.x * (NT / 32) + (threadIdx.x >> 5); q < nmedium; q += nwarps) {
    const long long s = queue[2 + q];
    const long long k = u_idx[s];
    kl_push_row<U>(s, indptr[k], indptr[k + 1], threadIdx.x & 31, 32, u_vals[s], indices,
                   avals, allowed, use_allowed, w, keys, w_present);
  }
}

// Outputs in one pass (one launch instead of three fills): w = identity (staged
// type) for j < nw, w_present = false, keys = ~0 for j < nkeys.
template <int N>
__global__ void __launch_bounds__(KL_BLOCK)
kl_vxm_init(kl_w_t* __restrict__ w, long long nw, bool* __restrict__ w_present,
            unsigned long long* __restrict__ keys, long long nkeys, long long ncols) {
  const long long stride = (long long)gridDim.x * KL_BLOCK;
  for (long long j = (long long)blockIdx.x * KL_BLOCK + threadIdx.x; j < ncols; j += stride) {
    if (j < nw) w[j] = (kl_w_t)kl_identity();
    if (j < nkeys) keys[j] = ~0ull;
    w_present[j] = false;
  }
}

#endif  // KL_PUSH_KIND != KL_PUSH_SORT

#if KL_PUSH_KIND == KL_PUSH_ANY
// w(j) from the winning (u entry, offset) key; no key: identity, not present.
template <int N>
__global__ void __launch_bounds__(KL_BLOCK)
kl_vxm_any_finish(const unsigned long long* __restrict__ keys,
                  const long long* __restrict__ indptr, const kl_a_t* __restrict__ avals,
                  const long long* __restrict__ u_idx, const kl_u_t* __restrict__ u_vals,
                  long long ncols, kl_c_t* __restrict__ w, bool* __restrict__ w_present) {
  const long long stride = (long long)gridDim.x * KL_BLOCK;
  for (long long j = (long long)blockIdx.x * KL_BLOCK + threadIdx.x; j < ncols; j += stride) {
    const unsigned long long key = keys[j];
    if (key == ~0ull) {
      w[j] = kl_identity();
      w_present[j] = false;
    } else {
      const long long s = (long long)(key >> 32);
      const long long p = indptr[u_idx[s]] + (long long)(key & 0xffffffffull);
      w[j] = kl_mult_ua(u_vals[s], avals[p]);
      w_present[j] = true;
    }
  }
}
#endif

#if KL_PUSH_KIND == KL_PUSH_SORT
// Term e of the expansion: its source s is the first with cum[s] > e (cum is the
// inclusive prefix sum of the sources' degrees). Writes key = col << 32 | e
// (col = ncols for a column not allowed, so it sorts last) and the product.
template <int N>
__global__ void __launch_bounds__(KL_BLOCK)
kl_vxm_expand(const long long* __restrict__ indptr, const int* __restrict__ indices,
              const kl_a_t* __restrict__ avals, const long long* __restrict__ u_idx,
              const kl_u_t* __restrict__ u_vals, const long long* __restrict__ cum,
              long long nu, long long total, const bool* __restrict__ allowed, int use_allowed,
              long long ncols, long long* __restrict__ keys_out,
              kl_c_t* __restrict__ prod_out) {
  const long long stride = (long long)gridDim.x * KL_BLOCK;
  for (long long e = (long long)blockIdx.x * KL_BLOCK + threadIdx.x; e < total; e += stride) {
    long long lo = 0, hi = nu - 1;
    while (lo < hi) {
      const long long mid = (lo + hi) >> 1;
      if (cum[mid] > e) hi = mid;
      else lo = mid + 1;
    }
    const long long s = lo;
    const long long first = s > 0 ? cum[s - 1] : 0;
    const long long p = indptr[u_idx[s]] + (e - first);
    const long long col = indices[p];
    const long long c = (use_allowed && !allowed[col]) ? ncols : col;
    keys_out[e] = (c << 32) | e;
    prod_out[e] = kl_mult_ua(u_vals[s], avals[p]);
  }
}
#endif
