// segment_reduce: out[s] = ADD over values[offsets[s] : offsets[s+1]], identity
// if empty; the any monoid (KL_STOPS_AT_FIRST) keeps the first value.
// A group of G lanes per segment, G chosen on the host from the mean length.

template <int G>
__global__ void __launch_bounds__(KL_BLOCK)
kl_segment_reduce(const kl_c_t* __restrict__ values, const long long* __restrict__ offsets,
                  long long nseg, kl_c_t* __restrict__ out) {
  const int lane = threadIdx.x & (G - 1);
  const unsigned mask = kl_group_mask<G>();
  const long long ngroups = (long long)gridDim.x * (KL_BLOCK / G);
  for (long long s = ((long long)blockIdx.x * KL_BLOCK + threadIdx.x) / G; s < nseg;
       s += ngroups) {
    const long long beg = offsets[s], end = offsets[s + 1];
#if KL_STOPS_AT_FIRST
    if (lane == 0) out[s] = beg < end ? values[beg] : kl_identity();
#else
    kl_c_t acc = kl_identity();
    bool has = false;
    for (long long base = beg; base < end; base += 4 * G) {
      kl_c_t v[4];
      bool ok[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const long long p = base + j * G + lane;
        ok[j] = p < end;
        v[j] = ok[j] ? values[p] : kl_identity();
      }
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (ok[j]) kl_fold(acc, has, v[j]);
#if KL_HAS_TERMINAL
      if (__any_sync(mask, has && acc == kl_terminal())) break;
#endif
    }
    kl_group_reduce<G>(mask, acc, has);
    if (lane == 0) out[s] = has ? acc : kl_identity();
#endif
  }
  (void)mask;
}

// out[0] = ADD over values[0 : n] (identity if empty) by one block: the last level of
// reduce_all, and all of it for a short array (a closure's diagonal), where a group of
// 32 lanes per segment would walk it one load after another.
#if !defined(KL_ONLY) || defined(KL_ONLY_kl_reduce_small)  // not a template: see units.py
__global__ void __launch_bounds__(KL_BLOCK)
kl_reduce_small(const kl_c_t* __restrict__ values, long long n, kl_c_t* __restrict__ out) {
#if KL_STOPS_AT_FIRST
  if (threadIdx.x == 0) out[0] = n > 0 ? values[0] : kl_identity();
#else
  kl_c_t acc = kl_identity();
  bool has = false;
  for (long long base = 0; base < n; base += 4 * KL_BLOCK) {
    kl_c_t v[4];
    bool ok[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const long long p = base + j * KL_BLOCK + threadIdx.x;
      ok[j] = p < n;
      v[j] = ok[j] ? values[p] : kl_identity();
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (ok[j]) kl_fold(acc, has, v[j]);
  }
  kl_block_reduce<KL_BLOCK>(acc, has);
  if (threadIdx.x == 0) out[0] = has ? acc : kl_identity();
#endif
}
#endif  // KL_ONLY_kl_reduce_small
