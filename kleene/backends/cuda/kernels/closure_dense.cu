// closure_dense: A <- A* in place for one small n x n block (n <= KL_CL_MAX), by one
// thread block. Needs from the prelude: kl_c_t, kl_add, kl_mult(kl_c_t, kl_c_t),
// KL_CL_NY (block is 32 x KL_CL_NY threads), KL_CL_MAX (= 32 * KL_CL_TN = KL_CL_NY * KL_CL_TM).
//
// The diagonal takes ADD(a, one), then Floyd-Warshall: for k = 0..n-1,
// A(i,j) = ADD(A(i,j), MULT(A(i,k), A(k,j))). Each thread keeps its entries in
// registers: rows ty + KL_CL_NY * r, columns tx + 32 * c. Step k reads row k and
// column k as they were before step k (snapshots), like the generic version, so
// the result cannot depend on thread order even where step k changes them (a cycle
// better than one): the owners of row/column k+1 publish them to double-buffered
// shared snapshots right after their step-k update, one barrier per step. A warp
// reads 32 consecutive row entries and one broadcast column entry per load.
// UNROLL (4-byte values, no predecessors: the APSP hot path) unrolls the k loop by
// row chunks so the registers holding row/column k+1 have compile-time indices; the
// other variants pick them with select chains (unrolling would spill there).
// PRED: P holds predecessors (int64, row stride ldp), staged in dynamic shared
// memory (n * n int64, written only where a value changes); where A(i,j) strictly
// changes in step k, P(i,j) takes P(k,j) from the snapshot of row k of P.

#define KL_CL_TN (KL_CL_MAX / 32)
#define KL_CL_TM (KL_CL_MAX / KL_CL_NY)

// Step k on the registers: v(i,j) = ADD(v(i,j), MULT(C_k(i), R_k(j))) from snapshot `cur`.
template <bool PRED>
__device__ __forceinline__ void kl_cl_step(kl_c_t (&v)[KL_CL_TM][KL_CL_TN],
                                           const kl_c_t (*Rs)[KL_CL_MAX],
                                           const kl_c_t (*Cs)[KL_CL_MAX],
                                           const long long (*Pr)[KL_CL_MAX], long long* kl_ps,
                                           int cur, int tx, int ty, int n) {
  kl_c_t rk[KL_CL_TN], ck[KL_CL_TM];
  long long pk[KL_CL_TN];
#pragma unroll
  for (int c = 0; c < KL_CL_TN; ++c) {
    rk[c] = Rs[cur][tx + 32 * c];
    if (PRED) pk[c] = Pr[cur][tx + 32 * c];
  }
#pragma unroll
  for (int r = 0; r < KL_CL_TM; ++r) ck[r] = Cs[cur][ty + KL_CL_NY * r];
#pragma unroll
  for (int r = 0; r < KL_CL_TM; ++r) {
#pragma unroll
    for (int c = 0; c < KL_CL_TN; ++c) {
      const kl_c_t nv = kl_add(v[r][c], kl_mult(ck[r], rk[c]));
      if (PRED) {
        const int i = ty + KL_CL_NY * r, j = tx + 32 * c;
        if (nv != v[r][c] && i < n && j < n) kl_ps[i * n + j] = pk[c];
      }
      v[r][c] = nv;
    }
  }
}

template <bool PRED, bool UNROLL>
__global__ void __launch_bounds__(32 * KL_CL_NY)
kl_closure_dense(kl_c_t* __restrict__ A, long long lda, long long* __restrict__ P,
                 long long ldp, int n, kl_c_t one) {
  __shared__ kl_c_t Rs[2][KL_CL_MAX];  // snapshots of row k (values)
  __shared__ kl_c_t Cs[2][KL_CL_MAX];  // ... and of column k
  __shared__ long long Pr[2][PRED ? KL_CL_MAX : 1];  // row k of P
  extern __shared__ __align__(16) long long kl_ps[];  // PRED: P, n * n
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long(*pr)[KL_CL_MAX] = reinterpret_cast<const long long(*)[KL_CL_MAX]>(Pr);

  kl_c_t v[KL_CL_TM][KL_CL_TN];
#pragma unroll
  for (int r = 0; r < KL_CL_TM; ++r) {
    const int i = ty + KL_CL_NY * r;
#pragma unroll
    for (int c = 0; c < KL_CL_TN; ++c) {
      const int j = tx + 32 * c;
      if (i < n && j < n) {
        kl_c_t x = A[(long long)i * lda + j];
        if (i == j) x = kl_add(x, one);
        v[r][c] = x;
        if (i == 0) Rs[0][j] = x;
        if (j == 0) Cs[0][i] = x;
        if (PRED) {
          const long long p = P[(long long)i * ldp + j];
          kl_ps[i * n + j] = p;
          if (i == 0) Pr[0][j] = p;
        }
      } else {
        v[r][c] = one;  // never written back
      }
    }
  }
  __syncthreads();

  if (UNROLL) {
    // k = KL_CL_NY * kb + kl, kb unrolled: the row of k + 1 in v is kb (kb + 1 at a
    // chunk's last step), its column (KL_CL_NY * kb) / 32 (or the next one)
    int k = 0;
#pragma unroll
    for (int kb = 0; kb < KL_CL_TM; ++kb) {
      const int rlo = kb, rhi = kb + 1 < KL_CL_TM ? kb + 1 : kb;
      const int clo = (KL_CL_NY * kb) >> 5;
      const int chi = ((KL_CL_NY * kb + KL_CL_NY) >> 5) < KL_CL_TN ? clo + 1 : clo;
      const int cnext = ((KL_CL_NY * kb + KL_CL_NY) >> 5) != clo ? chi : clo;
#pragma unroll 1
      for (int kl = 0; kl < KL_CL_NY; ++kl, ++k) {
        if (k >= n) goto done;
        const int cur = k & 1, nxt = cur ^ 1, k1 = k + 1;
        kl_cl_step<false>(v, Rs, Cs, pr, kl_ps, cur, tx, ty, n);
        const bool last = kl == KL_CL_NY - 1;
        if (k1 < n) {
          if (ty == (last ? 0 : kl + 1)) {
#pragma unroll
            for (int c = 0; c < KL_CL_TN; ++c)
              if (tx + 32 * c < n) Rs[nxt][tx + 32 * c] = last ? v[rhi][c] : v[rlo][c];
          }
          if (tx == (k1 & 31)) {
#pragma unroll
            for (int r = 0; r < KL_CL_TM; ++r)
              if (ty + KL_CL_NY * r < n) Cs[nxt][ty + KL_CL_NY * r] = last ? v[r][cnext] : v[r][clo];
          }
        }
        __syncthreads();
      }
    }
  } else {
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
      const int cur = k & 1, nxt = cur ^ 1, k1 = k + 1;
      kl_cl_step<PRED>(v, Rs, Cs, pr, kl_ps, cur, tx, ty, n);
      // publish row and column k + 1 (their owners); select chains, not register
      // indexing, pick the entries (indexing would move v to local memory)
      if (k1 < n) {
        if (ty == k1 % KL_CL_NY) {
          const int rr = k1 / KL_CL_NY;
#pragma unroll
          for (int c = 0; c < KL_CL_TN; ++c) {
            kl_c_t x = v[0][c];
#pragma unroll
            for (int r = 1; r < KL_CL_TM; ++r) x = r == rr ? v[r][c] : x;
            const int j = tx + 32 * c;
            if (j < n) {
              Rs[nxt][j] = x;
              if (PRED) Pr[nxt][j] = kl_ps[k1 * n + j];
            }
          }
        }
        if (tx == (k1 & 31)) {
          const int cc = k1 >> 5;
#pragma unroll
          for (int r = 0; r < KL_CL_TM; ++r) {
            kl_c_t x = v[r][0];
#pragma unroll
            for (int c = 1; c < KL_CL_TN; ++c) x = c == cc ? v[r][c] : x;
            const int i = ty + KL_CL_NY * r;
            if (i < n) Cs[nxt][i] = x;
          }
        }
      }
      __syncthreads();
    }
  }
done:

#pragma unroll
  for (int r = 0; r < KL_CL_TM; ++r) {
    const int i = ty + KL_CL_NY * r;
#pragma unroll
    for (int c = 0; c < KL_CL_TN; ++c) {
      const int j = tx + 32 * c;
      if (i < n && j < n) {
        A[(long long)i * lda + j] = v[r][c];
        if (PRED) P[(long long)i * ldp + j] = kl_ps[i * n + j];
      }
    }
  }
}

#undef KL_CL_TN
#undef KL_CL_TM
