// mxv_pull: w(i) = ADD_k MULT(A(i,k), u(k)) over stored A(i,k) with u(k) present,
// for rows i with allowed[i]; w_present[i] says whether any term existed.
// Needs from the prelude: kl_a_t, kl_u_t, kl_c_t, kl_mult_au, kl_add, kl_identity,
// KL_HAS_TERMINAL (kl_terminal), KL_STOPS_AT_FIRST, KL_BLOCK, KL_UNROLL.
//
// Rows go to one of three tiers so a hub row does not serialise a small group:
// kl_mxv_pull<G> gives a group of G lanes (G from the mean degree) to each row
// and queues rows longer than long_len: up to huge_len terms into queue[2 ...]
// (medium), longer ones into queue[2 + qcap ...] (huge); queue[0], queue[1]
// count them. kl_mxv_pull_long<NT, U> then gives each huge row a block of NT
// threads and each medium row a warp, in one launch, so the two overlap. Every
// lane keeps U gathers in flight. Rows stop at the terminal value; the any
// monoid keeps the first present term in index order, like the CPU back end.

// One round of U terms per lane: positions base + j*stride + lane, j < U.
template <int U>
struct kl_pull_round {
  bool ok[U];
  kl_c_t v[U];

  __device__ __forceinline__ void load(long long base, long long end, int stride, int lane,
                                       const int* __restrict__ indices,
                                       const kl_a_t* __restrict__ avals,
                                       const kl_u_t* __restrict__ u,
                                       const bool* __restrict__ u_present, int use_present) {
    int k[U];
    kl_a_t a[U];
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const long long p = base + (long long)j * stride + lane;
      ok[j] = p < end;
      k[j] = ok[j] ? indices[p] : 0;
      a[j] = ok[j] ? avals[p] : kl_a_t();
    }
#pragma unroll
    for (int j = 0; j < U; ++j)
      if (ok[j] && use_present) ok[j] = u_present[k[j]];
#pragma unroll
    for (int j = 0; j < U; ++j) v[j] = ok[j] ? kl_mult_au(a[j], u[k[j]]) : kl_identity();
  }
};

// Row [beg, end) by a group of G lanes (mask: the group's lanes); result in all lanes.
template <int G, int U>
__device__ __forceinline__ void kl_pull_group_row(
    long long beg, long long end, int lane, unsigned mask, const int* __restrict__ indices,
    const kl_a_t* __restrict__ avals, const kl_u_t* __restrict__ u,
    const bool* __restrict__ u_present, int use_present, kl_c_t& acc, bool& has) {
  acc = kl_identity();
  has = false;
  for (long long base = beg; base < end; base += (long long)G * U) {
    kl_pull_round<U> r;
    r.load(base, end, G, lane, indices, avals, u, u_present, use_present);
#if KL_STOPS_AT_FIRST
    // First present term in position order: j-major, then lane.
#pragma unroll
    for (int j = 0; j < U; ++j) {
      const unsigned b = __ballot_sync(mask, r.ok[j]) & mask;
      if (b != 0u && !has) {
        acc = kl_shfl(mask, r.v[j], __ffs(b) - 1, 32);
        has = true;
      }
    }
    if (has) return;
#else
#pragma unroll
    for (int j = 0; j < U; ++j)
      if (r.ok[j]) kl_fold(acc, has, r.v[j]);
#if KL_HAS_TERMINAL
    if (__any_sync(mask, has && acc == kl_terminal())) break;
#endif
#endif
  }
#if !KL_STOPS_AT_FIRST
  kl_group_reduce<G>(mask, acc, has);
#endif
}

// Row [beg, end) by the whole block of NT threads; result in thread 0. All call it.
template <int NT, int U>
__device__ __forceinline__ void kl_pull_block_row(
    long long beg, long long end, const int* __restrict__ indices,
    const kl_a_t* __restrict__ avals, const kl_u_t* __restrict__ u,
    const bool* __restrict__ u_present, int use_present, kl_c_t& acc, bool& has) {
  const int t = threadIdx.x;
  acc = kl_identity();
  has = false;
#if KL_STOPS_AT_FIRST
  __shared__ int s_first;
  __shared__ kl_c_t s_val;
#endif
  for (long long base = beg; base < end; base += (long long)NT * U) {
    kl_pull_round<U> r;
    r.load(base, end, NT, t, indices, avals, u, u_present, use_present);
#if KL_STOPS_AT_FIRST
#pragma unroll
    for (int j = 0; j < U; ++j) {
      __syncthreads();
      if (t == 0) s_first = NT;
      __syncthreads();
      if (r.ok[j]) atomicMin(&s_first, t);
      __syncthreads();
      if (!has && s_first < NT) {
        if (t == s_first) s_val = r.v[j];
        has = true;  // uniform: every thread saw the same s_first
      }
    }
    __syncthreads();
    if (has) {
      acc = s_val;
      break;
    }
#else
#pragma unroll
    for (int j = 0; j < U; ++j)
      if (r.ok[j]) kl_fold(acc, has, r.v[j]);
#if KL_HAS_TERMINAL
    if (__syncthreads_or(has && acc == kl_terminal())) break;
#endif
#endif
  }
#if !KL_STOPS_AT_FIRST
  kl_block_reduce<NT>(acc, has);
#endif
  __syncthreads();  // shared scratch is reused by the next row
}

template <int G>
__global__ void __launch_bounds__(KL_BLOCK)
kl_mxv_pull(const long long* __restrict__ indptr, const int* __restrict__ indices,
            const kl_a_t* __restrict__ avals, const kl_u_t* __restrict__ u,
            const bool* __restrict__ u_present, const bool* __restrict__ allowed,
            long long nrows, int use_present, int use_allowed, long long long_len,
            long long huge_len, int* __restrict__ queue, long long qcap,
            kl_c_t* __restrict__ w, bool* __restrict__ w_present) {
  const int lane = threadIdx.x & (G - 1);
  const unsigned mask = kl_group_mask<G>();
  const long long ngroups = (long long)gridDim.x * (KL_BLOCK / G);
  for (long long row = ((long long)blockIdx.x * KL_BLOCK + threadIdx.x) / G; row < nrows;
       row += ngroups) {
    if (use_allowed && !allowed[row]) {
      if (lane == 0) {
        w[row] = kl_identity();
        w_present[row] = false;
      }
      continue;
    }
    const long long beg = indptr[row], end = indptr[row + 1];
    if (end - beg > long_len) {
      if (lane == 0) {
        if (end - beg > huge_len) queue[2 + qcap + atomicAdd(queue + 1, 1)] = (int)row;
        else queue[2 + atomicAdd(queue, 1)] = (int)row;
      }
      continue;
    }
    kl_c_t acc;
    bool has;
    kl_pull_group_row<G, KL_UNROLL>(beg, end, lane, mask, indices, avals, u, u_present,
                                    use_present, acc, has);
    if (lane == 0) {
      w[row] = has ? acc : kl_identity();
      w_present[row] = has;
    }
  }
}

template <int NT, int U>
__global__ void __launch_bounds__(NT)
kl_mxv_pull_long(const long long* __restrict__ indptr, const int* __restrict__ indices,
                 const kl_a_t* __restrict__ avals, const kl_u_t* __restrict__ u,
                 const bool* __restrict__ u_present, int use_present,
                 const int* __restrict__ queue, long long qcap,
                 kl_c_t* __restrict__ w, bool* __restrict__ w_present) {
  const int nhuge = queue[1], nmedium = queue[0];
  for (int q = blockIdx.x; q < nhuge; q += gridDim.x) {  // huge rows: a block each
    const long long row = queue[2 + qcap + q];
    kl_c_t acc;
    bool has;
    kl_pull_block_row<NT, U>(indptr[row], indptr[row + 1], indices, avals, u, u_present,
                             use_present, acc, has);
    if (threadIdx.x == 0) {
      w[row] = has ? acc : kl_identity();
      w_present[row] = has;
    }
  }
  const int lane = threadIdx.x & 31;  // medium rows: a warp each
  const int nwarps = gridDim.x * (NT / 32);
  for (int q = blockIdx.x * (NT / 32) + (threadIdx.x >> 5); q < nmedium; q += nwarps) {
    const long long row = queue[2 + q];
    kl_c_t acc;
    bool has;
    kl_pull_group_row<32, U>(indptr[row], indptr[row + 1], lane, KL_FULL_MASK, indices, avals,
                             u, u_present, use_present, acc, has);
    if (lane == 0) {
      w[row] = has ? acc : kl_identity();
      w_present[row] = has;
    }
  }
}
