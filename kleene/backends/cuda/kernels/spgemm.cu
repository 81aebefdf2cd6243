// mxm_dot3: C<M> = A ADD.MULT B at the mask's positions, one dot product each.
// For every mask entry e = (i, j) (m_ptr / m_idx: the mask's CSR, rows sorted), the
// sorted lists A(i,:) and Bt(j,:) (Bt: B's transpose in CSR) are merged in k order;
// where one list has more than KL_GALLOP entries left, a run below the other's key is
// skipped by binary search. Products fold left to right (the first starts the sum,
// the identity is never folded in), stopping at the terminal value; the any monoid
// keeps the first product in k order. keys[e] = i * ncols + j, hit[e] says whether
// the intersection was non-empty. One thread per mask entry, no atomics: the result
// does not depend on scheduling.
// Needs from the prelude: kl_a_t, kl_b_t, kl_c_t, kl_mult, kl_add, kl_identity,
// KL_HAS_TERMINAL (kl_terminal), KL_STOPS_AT_FIRST, KL_BLOCK, KL_GALLOP.

__device__ __forceinline__ long long kl_dot3_lower(const int* __restrict__ idx, long long lo,
                                                   long long hi, int key) {
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (idx[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
    long long lo = 0, hi = nrows;  // the row: the last r with m_ptr[r] <= e
    while (lo < hi) {
      const long long mid = (lo + hi + 1) >> 1;
      if (m_ptr[mid] <= e) lo = mid;
      else hi = mid - 1;
    }
    const long long i = lo;
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
        p = (p1 - p > KL_GALLOP) ? kl_dot3_lower(a_idx, p + 1, p1, kb) : p + 1;
      } else {
        q = (q1 - q > KL_GALLOP) ? kl_dot3_lower(t_idx, q + 1, q1, ka) : q + 1;
      }
    }
    keys[e] = i * ncols + j;
    vals[e] = acc;
    hit[e] = has;
  }
}
