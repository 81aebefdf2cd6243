// mxv_pull: w(i) = ADD_k MULT(A(i,k), u(k)) over stored A(i,k) with u(k) present,
// for rows i with allowed[i]; w_present[i] says whether any term existed.
// Needs from the prelude: kl_a_t, kl_u_t, kl_c_t, kl_mult_au, kl_add, kl_identity,
// KL_HAS_TERMINAL (kl_terminal), KL_STOPS_AT_FIRST, KL_BLOCK, KL_UNROLL.
//
// kl_mxv_pull<G, Q>: a group of G lanes per row, KL_UNROLL independent gathers
// in flight per lane. Q=0 walks all rows and queues long ones (more than
// long_len terms) by length: up to huge_len into queue[2 ...] for a warp per
// row (kl_mxv_pull<32, 1>), longer ones into queue[2 + qcap ...] for a block
// per row (kl_mxv_pull_long), so hub rows do not serialise a small group.
// queue[0] and queue[1] count them. Both kernels stop a row at the terminal
// value; the any monoid keeps the first present term in index order, like the
// CPU back end.

// Loads one round of KL_UNROLL terms per lane: positions base + j*stride + lane.
#define KL_PULL_LOAD(STRIDE, LANE)                                              \
  int k[KL_UNROLL];                                                             \
  kl_a_t a[KL_UNROLL];                                                          \
  bool ok[KL_UNROLL];                                                           \
  kl_c_t v[KL_UNROLL];                                                          \
  _Pragma("unroll") for (int j = 0; j < KL_UNROLL; ++j) {                       \
    const long long p = base + (long long)j * (STRIDE) + (LANE);                \
    ok[j] = p < end;                                                            \
    k[j] = ok[j] ? indices[p] : 0;                                              \
    a[j] = ok[j] ? avals[p] : kl_a_t();                                         \
  }                                                                             \
  _Pragma("unroll") for (int j = 0; j < KL_UNROLL; ++j) {                       \
    if (ok[j] && use_present) ok[j] = u_present[k[j]];                          \
  }                                                                             \
  _Pragma("unroll") for (int j = 0; j < KL_UNROLL; ++j) {                       \
    v[j] = ok[j] ? kl_mult_au(a[j], u[k[j]]) : kl_identity();                   \
  }

template <int G, int Q>
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
  const long long count = Q ? (long long)*(volatile int*)queue : nrows;
  for (long long r = ((long long)blockIdx.x * KL_BLOCK + threadIdx.x) / G; r < count;
       r += ngroups) {
    const long long row = Q ? (long long)queue[2 + r] : r;
    if (!Q && use_allowed && !allowed[row]) {
      if (lane == 0) {
        w[row] = kl_identity();
        w_present[row] = false;
      }
      continue;
    }
    const long long beg = indptr[row], end = indptr[row + 1];
    if (!Q && end - beg > long_len) {
      if (lane == 0) {
        if (end - beg > huge_len) queue[2 + qcap + atomicAdd(queue + 1, 1)] = (int)row;
        else queue[2 + atomicAdd(queue, 1)] = (int)row;
      }
      continue;
    }
    kl_c_t acc = kl_identity();
    bool has = false;
    for (long long base = beg; base < end; base += (long long)G * KL_UNROLL) {
      KL_PULL_LOAD(G, lane)
#if KL_STOPS_AT_FIRST
      // First present term in position order: j-major, then lane.
#pragma unroll
      for (int j = 0; j < KL_UNROLL; ++j) {
        const unsigned b = __ballot_sync(mask, ok[j]) & mask;
        if (b != 0u && !has) {
          acc = kl_shfl(mask, v[j], __ffs(b) - 1, 32);
          has = true;
        }
      }
      if (has) break;
#else
#pragma unroll
      for (int j = 0; j < KL_UNROLL; ++j)
        if (ok[j]) kl_fold(acc, has, v[j]);
#if KL_HAS_TERMINAL
      if (__any_sync(mask, has && acc == kl_terminal())) break;
#endif
#endif
    }
#if !KL_STOPS_AT_FIRST
    kl_group_reduce<G>(mask, acc, has);
#endif
    if (lane == 0) {
      w[row] = has ? acc : kl_identity();
      w_present[row] = has;
    }
  }
}

template <int N>
__global__ void __launch_bounds__(KL_BLOCK)
kl_mxv_pull_long(const long long* __restrict__ indptr, const int* __restrict__ indices,
                 const kl_a_t* __restrict__ avals, const kl_u_t* __restrict__ u,
                 const bool* __restrict__ u_present, int use_present,
                 const int* __restrict__ queue, long long qcap,
                 kl_c_t* __restrict__ w, bool* __restrict__ w_present) {
#if KL_STOPS_AT_FIRST
  __shared__ int s_first;
#endif
  const int t = threadIdx.x;
  const int count = queue[1];
  for (int q = blockIdx.x; q < count; q += gridDim.x) {
    const long long row = queue[2 + qcap + q];
    const long long beg = indptr[row], end = indptr[row + 1];
    kl_c_t acc = kl_identity();
    bool has = false;
    for (long long base = beg; base < end; base += (long long)KL_BLOCK * KL_UNROLL) {
      KL_PULL_LOAD(KL_BLOCK, t)
#if KL_STOPS_AT_FIRST
      bool found = false;
#pragma unroll
      for (int j = 0; j < KL_UNROLL; ++j) {
        __syncthreads();
        if (t == 0) s_first = KL_BLOCK;
        __syncthreads();
        if (ok[j]) atomicMin(&s_first, t);
        __syncthreads();
        const int f = s_first;
        if (f < KL_BLOCK && !found) {
          if (t == f) {
            w[row] = v[j];
            w_present[row] = true;
          }
          found = true;
        }
      }
      has = found;
      if (found) break;
#else
#pragma unroll
      for (int j = 0; j < KL_UNROLL; ++j)
        if (ok[j]) kl_fold(acc, has, v[j]);
#if KL_HAS_TERMINAL
      if (__syncthreads_or(has && acc == kl_terminal())) break;
#endif
#endif
    }
#if KL_STOPS_AT_FIRST
    if (!has && t == 0) {
      w[row] = kl_identity();
      w_present[row] = false;
    }
#else
    kl_block_reduce(acc, has);
    if (t == 0) {
      w[row] = has ? acc : kl_identity();
      w_present[row] = has;
    }
#endif
    __syncthreads();  // s_first / reduction scratch are reused by the next row
  }
}

#undef KL_PULL_LOAD
