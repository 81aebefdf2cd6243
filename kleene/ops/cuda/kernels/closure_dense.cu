// closure_dense: A <- A* in place for one small n x n block, by one thread block.
// Needs from the prelude: kl_c_t, kl_add, kl_mult(kl_c_t, kl_c_t).
//
// The block is staged in dynamic shared memory; the diagonal takes ADD(a, one),
// then Floyd-Warshall: for k = 0..n-1, A(i,j) = ADD(A(i,j), MULT(A(i,k), A(k,j))).
// Like the generic version, step k reads row k and column k as they were before
// step k (snapshots), so the result cannot depend on thread order even where step
// k changes them (a cycle better than one): the owners of row/column k+1 write
// the next snapshots (double-buffered) while step k runs, one barrier per step.
// Thread (x, y) of a 32 x blockDim.y block owns entries (i, j) with j = x mod 32,
// i = y mod blockDim.y: a warp reads consecutive j (no bank conflicts) and one
// broadcast column value.
// PRED: P holds predecessors (int64, row stride ldp); where A(i,j) strictly
// changes in step k, P(i,j) takes P(k,j) (from the snapshot of row k of P).
//
// Shared layout (bytes, 8-aligned parts first): [PRED: Ps n*n, Pr 2n (int64)]
// S n*n, Rs 2n, Cs 2n (kl_c_t). closure_smem_bytes() in closure.py must match.

template <bool PRED>
__global__ void __launch_bounds__(1024)
kl_closure_dense(kl_c_t* __restrict__ A, long long lda, long long* __restrict__ P,
                 long long ldp, int n, kl_c_t one) {
  extern __shared__ __align__(16) unsigned char kl_smem[];
  const int nn = n * n;
  long long* Ps = reinterpret_cast<long long*>(kl_smem);
  long long* Pr = Ps + (PRED ? nn : 0);
  kl_c_t* S = reinterpret_cast<kl_c_t*>(Pr + (PRED ? 2 * n : 0));
  kl_c_t* Rs = S + nn;
  kl_c_t* Cs = Rs + 2 * n;
  const int tx = threadIdx.x, ty = threadIdx.y, nx = blockDim.x, ny = blockDim.y;

  for (int i = ty; i < n; i += ny) {
    for (int j = tx; j < n; j += nx) {
      kl_c_t v = A[(long long)i * lda + j];
      if (i == j) v = kl_add(v, one);
      S[i * n + j] = v;
      if (i == 0) Rs[j] = v;
      if (j == 0) Cs[i] = v;
      if (PRED) {
        const long long p = P[(long long)i * ldp + j];
        Ps[i * n + j] = p;
        if (i == 0) Pr[j] = p;
      }
    }
  }
  __syncthreads();

#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    const int cur = (k & 1) * n, nxt = n - cur;  // snapshot halves of Rs, Cs, Pr
    for (int j = tx; j < n; j += nx) {
      const kl_c_t rkj = Rs[cur + j];
      long long pkj = 0;
      if (PRED) pkj = Pr[cur + j];
      for (int i = ty; i < n; i += ny) {
        const int e = i * n + j;
        const kl_c_t old = S[e];
        const kl_c_t nv = kl_add(old, kl_mult(Cs[cur + i], rkj));
        S[e] = nv;
        if (i == k + 1) Rs[nxt + j] = nv;
        if (j == k + 1) Cs[nxt + i] = nv;
        if (PRED) {
          long long p = Ps[e];
          if (nv != old) Ps[e] = p = pkj;
          if (i == k + 1) Pr[nxt + j] = p;
        }
      }
    }
    __syncthreads();
  }

  for (int i = ty; i < n; i += ny) {
    for (int j = tx; j < n; j += nx) {
      A[(long long)i * lda + j] = S[i * n + j];
      if (PRED) P[(long long)i * ldp + j] = Ps[i * n + j];
    }
  }
}
