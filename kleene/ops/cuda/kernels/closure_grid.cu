// closure_grid: A <- A* in place for a mid-size n x n block (past the one-block kernel,
// while A stays in L2), Katz & Kider's blocked Floyd-Warshall in one cooperative launch.
// Needs from the prelude: kl_c_t (4 or 8 bytes, read with __ldcg), kl_add, kl_identity,
// kl_mult(kl_c_t, kl_c_t); grid.cuh. KL_GR_THREADS (256) threads a block, at least
// KL_GR_MIN_BLOCKS blocks an SM (the launch bound the grid size counts on).
//
// Pivot blocks of 32 rows (round r: P = [32r, 32r + 32)), three phases a round:
//  1. P <- P* after ADD(diagonal, one), by one thread block: Floyd-Warshall with row and
//     column k read as they were before step k (the one-block kernel's snapshots, so the
//     same result).
//  2. P's block row and column: A(P, J) <- ADD(A(P, J), P* (x) A(P, J)) and
//     A(I, P) <- ADD(A(I, P), A(I, P) (x) P*), one thread block a 32 x 32 block.
//  3. the rest: A(i, j) <- ADD(A(i, j), A(i, P) (x) A(P, j)) for i, j outside P, in 64 x 64
//     tiles of 4 x 4 entries a thread, P's column and row staged in shared memory.
// Phase 1 of round r + 1 needs only the tile that holds the next pivot block: block 0
// updates that tile first in round r's phase 3 and closes the pivot while the other
// blocks do the other tiles, so a round takes two grid barriers. In every phase each
// entry is written by one thread from values nobody writes in that phase: the result
// does not depend on timing (the same input gives the same bits).

#define KL_GR_S 32   // pivot block
#define KL_GR_T 64   // phase-3 tile
#define KL_GR_WARPS (KL_GR_THREADS / 32)

// Entries other blocks wrote earlier in this launch: read from L2, never a stale L1 line.
__device__ __forceinline__ kl_c_t kl_gr_ld(const kl_c_t* A, long long at) { return __ldcg(A + at); }

#define KL_GR_SP (KL_GR_S + 1)  // padded rows of the 32 x 32 staging
#define KL_GR_Q (KL_GR_S / KL_GR_WARPS)  // entries a thread of a 32 x 32 block

// Phase 1: close the pivot block at (p0, p0), ps <= 32 rows, by one thread block. Thread
// (warp w, lane j) keeps entries (w + 8q, j) in registers; step k reads row and column k
// from the snapshot S[k & 1] the last step left and writes its entries to the other.
__device__ __forceinline__ void kl_gr_pivot(kl_c_t* A, long long lda, int p0, int ps,
                                            kl_c_t one, kl_c_t (*S)[KL_GR_S][KL_GR_SP]) {
  const int j = threadIdx.x & 31, w = threadIdx.x / 32;
  kl_c_t v[KL_GR_Q];
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) {
    const int i = w + KL_GR_WARPS * q;
    kl_c_t x = kl_identity();
    if (i < ps && j < ps) x = kl_gr_ld(A, (long long)(p0 + i) * lda + p0 + j);
    if (i == j) x = kl_add(x, one);
    v[q] = x;
    S[0][i][j] = x;
  }
  __syncthreads();
  for (int k = 0; k < ps; ++k) {
    const kl_c_t(*cur)[KL_GR_SP] = S[k & 1];
    const kl_c_t rk = cur[k][j];
#pragma unroll
    for (int q = 0; q < KL_GR_Q; ++q) {
      const int i = w + KL_GR_WARPS * q;
      v[q] = kl_add(v[q], kl_mult(cur[i][k], rk));
      S[(k & 1) ^ 1][i][j] = v[q];
    }
    __syncthreads();
  }
  if (j < ps) {
#pragma unroll
    for (int q = 0; q < KL_GR_Q; ++q) {
      const int i = w + KL_GR_WARPS * q;
      if (i < ps) A[(long long)(p0 + i) * lda + p0 + j] = v[q];
    }
  }
}

// Phase 2, one thread block: the 32 x w block X at (r0, c0), X <- ADD(X, L (x) R) with
// (L, R) = (P*, X) for a block of the pivot's row, (X, P*) for one of its column. P* is
// in Ps; X is staged in Xs first (no thread reads an entry another one writes).
__device__ __forceinline__ void kl_gr_panel(kl_c_t* A, long long lda, int ps, int r0, int c0,
                                            int h, int w, bool row,
                                            const kl_c_t (*Ps)[KL_GR_SP],
                                            kl_c_t (*Xs)[KL_GR_SP]) {
  const int j = threadIdx.x & 31, wp = threadIdx.x / 32;
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) {
    const int i = wp + KL_GR_WARPS * q;
    Xs[i][j] = (i < h && j < w) ? kl_gr_ld(A, (long long)(r0 + i) * lda + c0 + j) : kl_identity();
  }
  __syncthreads();
  const kl_c_t(*L)[KL_GR_SP] = row ? Ps : Xs;
  const kl_c_t(*R)[KL_GR_SP] = row ? Xs : Ps;
  kl_c_t acc[KL_GR_Q];
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) acc[q] = kl_identity();
  auto step = [&](int k) {
    const kl_c_t rk = R[k][j];
#pragma unroll
    for (int q = 0; q < KL_GR_Q; ++q) acc[q] = kl_add(acc[q], kl_mult(L[wp + KL_GR_WARPS * q][k], rk));
  };
  if (ps == KL_GR_S) {
#pragma unroll
    for (int k = 0; k < KL_GR_S; ++k) step(k);
  } else {
#pragma unroll 1
    for (int k = 0; k < ps; ++k) step(k);
  }
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) {
    const int i = wp + KL_GR_WARPS * q;
    if (i < h && j < w) A[(long long)(r0 + i) * lda + c0 + j] = kl_add(Xs[i][j], acc[q]);
  }
  __syncthreads();  // Xs is reused by the next task
}

struct kl_gr_tile_smem {
  __align__(16) kl_c_t Ac[KL_GR_S][KL_GR_T + 4];  // Ac[k][i] = A(I0 + i, p0 + k)
  __align__(16) kl_c_t Br[KL_GR_S][KL_GR_T];      // Br[k][j] = A(p0 + k, J0 + j)
};

union kl_gr_smem {  // the phases' staging: never two at once in a block
  kl_c_t pivot[2][KL_GR_S][KL_GR_SP];  // phase 1's snapshots
  struct {
    kl_c_t Ps[KL_GR_S][KL_GR_SP];  // P*
    kl_c_t Xs[KL_GR_S][KL_GR_SP];  // the block being updated
  } p;
  kl_gr_tile_smem t;
};

// Phase 3 on one tile (I0, J0): entries outside P's rows and columns take
// ADD(A(i, j), sum_k A(i, p0 + k) (x) A(p0 + k, j)).
__device__ __forceinline__ void kl_gr_tile(kl_c_t* A, long long lda, int n, int p0, int ps,
                                           int I0, int J0, kl_gr_tile_smem& sm) {
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  // this thread's entries, loaded first so their latency hides behind the staging
  kl_c_t c[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int i = I0 + 4 * ty + a, j = J0 + 4 * tx + b;
      c[a][b] = (i < n && j < n) ? kl_gr_ld(A, (long long)i * lda + j) : kl_identity();
    }
#pragma unroll
  for (int q = 0; q < KL_GR_S * KL_GR_T / KL_GR_THREADS; ++q) {
    const int e = tid + KL_GR_THREADS * q;
    const int ai = e / KL_GR_S, ak = e % KL_GR_S;  // a warp reads one row's 32 k
    sm.Ac[ak][ai] = (I0 + ai < n && ak < ps) ? kl_gr_ld(A, (long long)(I0 + ai) * lda + p0 + ak) : kl_identity();
    const int bk = e / KL_GR_T, bj = e % KL_GR_T;
    sm.Br[bk][bj] = (J0 + bj < n && bk < ps) ? kl_gr_ld(A, (long long)(p0 + bk) * lda + J0 + bj) : kl_identity();
  }
  __syncthreads();
  kl_c_t acc[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) acc[a][b] = kl_identity();
  auto step = [&](int k) {
    kl_c_t x[4], y[4];
#pragma unroll
    for (int a = 0; a < 4; ++a) x[a] = sm.Ac[k][4 * ty + a];
#pragma unroll
    for (int b = 0; b < 4; ++b) y[b] = sm.Br[k][4 * tx + b];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) acc[a][b] = kl_add(acc[a][b], kl_mult(x[a], y[b]));
  };
  if (ps == KL_GR_S) {
#pragma unroll
    for (int k = 0; k < KL_GR_S; ++k) step(k);
  } else {
#pragma unroll 1
    for (int k = 0; k < ps; ++k) step(k);
  }
#pragma unroll
  for (int a = 0; a < 4; ++a) {
    const int i = I0 + 4 * ty + a;
    if (i >= n || (i >= p0 && i < p0 + ps)) continue;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int j = J0 + 4 * tx + b;
      if (j < n && (j < p0 || j >= p0 + ps)) A[(long long)i * lda + j] = kl_add(c[a][b], acc[a][b]);
    }
  }
  __syncthreads();  // the staging is reused by the next tile
}

__global__ void __launch_bounds__(KL_GR_THREADS, KL_GR_MIN_BLOCKS)
kl_closure_grid(kl_c_t* __restrict__ A, long long lda, int n, kl_c_t one, unsigned* bar) {
  __shared__ kl_gr_smem sm;
  const int G = gridDim.x, b = blockIdx.x, warp = threadIdx.x / 32;
  const int rounds = (n + KL_GR_S - 1) / KL_GR_S;
  const int nt = (n + KL_GR_T - 1) / KL_GR_T;  // tiles per side
  const int tasks = 2 * (rounds - 1);          // phase 2: block rows and columns

  if (b == 0) kl_gr_pivot(A, lda, 0, n < KL_GR_S ? n : KL_GR_S, one, sm.pivot);
  kl_grid_sync(bar);
  for (int r = 0; r < rounds; ++r) {
    const int p0 = r * KL_GR_S, ps = n - p0 < KL_GR_S ? n - p0 : KL_GR_S;
    // phase 2: task t is block row (t even) or column (t odd) q of the pivot's, one a block
    if (b < tasks) {
      for (int e = threadIdx.x; e < KL_GR_S * KL_GR_S; e += KL_GR_THREADS) {
        const int i = e / KL_GR_S, k = e % KL_GR_S;
        sm.p.Ps[i][k] = (i < ps && k < ps) ? kl_gr_ld(A, (long long)(p0 + i) * lda + p0 + k) : kl_identity();
      }
      // (kl_gr_panel's first barrier orders these stores before the reads)
      for (int t = b; t < tasks; t += G) {
        int q = t / 2;
        q += q >= r;  // block index, skipping the pivot's own
        const int J0 = q * KL_GR_S, w = n - J0 < KL_GR_S ? n - J0 : KL_GR_S;
        if (t % 2 == 0) kl_gr_panel(A, lda, ps, p0, J0, ps, w, true, sm.p.Ps, sm.p.Xs);
        else kl_gr_panel(A, lda, ps, J0, p0, w, ps, false, sm.p.Ps, sm.p.Xs);
      }
    }
    kl_grid_sync(bar);
    // phase 3, with the next round's phase 1 in block 0
    const bool next = r + 1 < rounds;
    const int pn = p0 + KL_GR_S, tq = pn / KL_GR_T;
    const int tp = next ? tq * nt + tq : -1;  // the tile holding the next pivot block
    if (b == 0 && tp >= 0) {
      kl_gr_tile(A, lda, n, p0, ps, tq * KL_GR_T, tq * KL_GR_T, sm.t);
      kl_gr_pivot(A, lda, pn, n - pn < KL_GR_S ? n - pn : KL_GR_S, one, sm.pivot);
    }
    const int first = G > 1 ? b - 1 : 0, stride = G > 1 ? G - 1 : 1;
    if (G == 1 || b > 0) {
      for (int t = first; t < nt * nt; t += stride) {
        if (t == tp) continue;
        const int I0 = (t / nt) * KL_GR_T, J0 = (t % nt) * KL_GR_T;
        // skip tiles whose rows or columns all lie in P (nothing of theirs changes)
        const int ih = n - I0 < KL_GR_T ? n - I0 : KL_GR_T, jw = n - J0 < KL_GR_T ? n - J0 : KL_GR_T;
        if ((I0 >= p0 && I0 + ih <= p0 + ps) || (J0 >= p0 && J0 + jw <= p0 + ps)) continue;
        kl_gr_tile(A, lda, n, p0, ps, I0, J0, sm.t);
      }
    }
    if (next) kl_grid_sync(bar);
  }
}

#undef KL_GR_S
#undef KL_GR_T
#undef KL_GR_WARPS
#undef KL_GR_SP
#undef KL_GR_Q
