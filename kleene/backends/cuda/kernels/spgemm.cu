// mxm_dot3: C<M> = A ADD.MULT B at the mask's positions, one dot product each.
// For every mask entry e = (i, j) (m_ptr / m_idx: the mask's CSR, rows sorted), the
// sorted lists A(i,:) and Bt(j,:) (Bt: B's transpose in CSR) are merged in k order,
// a run below the other list's key skipped by galloping search (kl_dot3_seek). Products fold left to right (the first starts the sum,
// the identity is never folded in), stopping at the terminal value; the any monoid
// keeps the first product in k order. keys[e] = i * ncols + j, hit[e] says whether
// the intersection was non-empty. One thread per mask entry, no atomics: the result
// does not depend on scheduling.
// Needs from the prelude: kl_a_t, kl_b_t, kl_c_t, kl_mult, kl_add, kl_identity,
// KL_HAS_TERMINAL (kl_terminal), KL_STOPS_AT_FIRST, KL_BLOCK; group.cuh.

__device__ __forceinline__ long long kl_dot3_lower(const int* __restrict__ idx, long long lo,
                                                   long long hi, int key) {
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (idx[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The mask entry e's row: the last r with m_ptr[r] <= e.
__device__ __forceinline__ long long kl_dot3_row(const long long* __restrict__ m_ptr,
                                                 long long nrows, long long e) {
  long long lo = 0, hi = nrows;
  while (lo < hi) {
    const long long mid = (lo + hi + 1) >> 1;
    if (m_ptr[mid] <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The first position in [lo, hi) whose index is >= key, probing lo first, then
// galloping (lo + 1, 3, 7, ...) and searching the last gap: O(log distance) reads.
__device__ __forceinline__ long long kl_dot3_seek(const int* __restrict__ idx, long long lo,
                                                  long long hi, int key) {
  if (lo >= hi || idx[lo] >= key) return lo;
  long long step = 1, prev = lo;  // idx[prev] < key
  while (prev + step < hi && idx[prev + step] < key) {
    prev += step;
    step <<= 1;
  }
  long long a = prev + 1, b = prev + step < hi ? prev + step : hi;
  while (a < b) {
    const long long mid = (a + b) >> 1;
    if (idx[mid] < key) a = mid + 1;
    else b = mid;
  }
  return a;
}

template <int G>
__global__ void __launch_bounds__(KL_BLOCK)
kl_mxm_dot3(const long long* __restrict__ a_ptr, const int* __restrict__ a_idx,
            const kl_a_t* __restrict__ a_val, const long long* __restrict__ t_ptr,
            const int* __restrict__ t_idx, const kl_b_t* __restrict__ t_val,
            const long long* __restrict__ m_ptr, const int* __restrict__ m_idx,
            long long nrows, long long nm, long long ncols, long long* __restrict__ keys,
            kl_c_t* __restrict__ vals, bool* __restrict__ hit) {
  const long long stride = (long long)gridDim.x * KL_BLOCK;
  for (long long e = (long long)blockIdx.x * KL_BLOCK + threadIdx.x; e < nm; e += stride) {
    const long long i = kl_dot3_row(m_ptr, nrows, e);
    const int j = m_idx[e];
    long long p = a_ptr[i];
    const long long p1 = a_ptr[i + 1];
    long long q = t_ptr[j];
    const long long q1 = t_ptr[j + 1];
    kl_c_t acc = kl_identity();
    bool has = false;
    while (p < p1 && q < q1) {
      const int ka = a_idx[p], kb = t_idx[q];
      if (ka == kb) {
        const kl_c_t t = kl_mult(a_val[p], t_val[q]);
        if (has) {
          acc = kl_add(acc, t);
        } else {
          acc = t;
          has = true;
        }
#if KL_STOPS_AT_FIRST
        break;
#endif
#if KL_HAS_TERMINAL
        if (acc == kl_terminal()) break;
#endif
        ++p;
        ++q;
      } else if (ka < kb) {
        p = kl_dot3_seek(a_idx, p + 1, p1, kb);
      } else {
        q = kl_dot3_seek(t_idx, q + 1, q1, ka);
      }
    }
    keys[e] = i * ncols + j;
    vals[e] = acc;
    hit[e] = has;
  }
}

template <int G>
__global__ void __launch_bounds__(KL_BLOCK)
kl_mxm_dot3_group(const long long* __restrict__ a_ptr, const int* __restrict__ a_idx,
                  const kl_a_t* __restrict__ a_val, const long long* __restrict__ t_ptr,
                  const int* __restrict__ t_idx, const kl_b_t* __restrict__ t_val,
                  const long long* __restrict__ m_ptr, const int* __restrict__ m_idx,
                  long long nrows, long long nm, long long ncols,
                  long long* __restrict__ keys, kl_c_t* __restrict__ vals,
                  bool* __restrict__ hit) {
  const int lane = threadIdx.x & (G - 1);
  const unsigned mask = kl_group_mask<G>();
  const long long ngroups = (long long)gridDim.x * (KL_BLOCK / G);
  for (long long e = ((long long)blockIdx.x * KL_BLOCK + threadIdx.x) / G; e < nm;
       e += ngroups) {
    const long long i = kl_dot3_row(m_ptr, nrows, e);
    const int j = m_idx[e];
    const long long p0 = a_ptr[i], p1 = a_ptr[i + 1];
    const long long q0 = t_ptr[j], q1 = t_ptr[j + 1];
    const bool a_short = p1 - p0 <= q1 - q0;
    const int* __restrict__ s_idx = a_short ? a_idx : t_idx;
    const int* __restrict__ l_idx = a_short ? t_idx : a_idx;
    const long long s1 = a_short ? p1 : q1;
    long long lo = a_short ? q0 : p0;
    const long long l1 = a_short ? q1 : p1;
    kl_c_t acc = kl_identity();
    bool has = false;
    for (long long s = (a_short ? p0 : q0) + lane; s < s1 && lo < l1; s += G) {
      const int key = s_idx[s];
      lo = kl_dot3_lower(l_idx, lo, l1, key);
      if (lo < l1 && l_idx[lo] == key) {
        kl_fold(acc, has, a_short ? kl_mult(a_val[s], t_val[lo]) : kl_mult(a_val[lo], t_val[s]));
      }
    }
    kl_group_reduce<G>(mask, acc, has);
    if (lane == 0) {
      keys[e] = i * ncols + j;
      vals[e] = acc;
      hit[e] = has;
    }
  }
}
