// closure_grid: A <- A* in place for a mid-size n x n block (past the one-block kernel,
// while A stays in L2), Katz & Kider's blocked Floyd-Warshall in one cooperative launch.
// Needs from the prelude: kl_c_t (4 or 8 bytes, read with __ldcg), kl_add, kl_identity,
// kl_mult(kl_c_t, kl_c_t); grid.cuh. KL_GR_THREADS (256) threads a block, at least
// KL_GR_MIN_BLOCKS blocks an SM (the launch bound the grid size counts on). bar: 4
// words, zero at launch (the grid barrier, block 0's SM, the index of the block beside it).
//
// Pivot blocks of 32 rows (round r: P = [32r, 32r + 32)), three phases a round:
//  1. P <- P* after ADD(diagonal, one), by one block: Floyd-Warshall with row and column k
//     read as they were before step k (the one-block kernel's snapshots, so the same
//     result).
//  2. P's block row and column: A(P, J) <- ADD(A(P, J), P* (x) A(P, J)) and
//     A(I, P) <- ADD(A(I, P), A(I, P) (x) P*), one thread block a 32 x 32 block.
//  3. the rest: A(i, j) <- ADD(A(i, j), A(i, P) (x) A(P, j)) for i, j outside P, in 64 x 64
//     tiles of 4 x 4 entries a thread, P's column and row staged in shared memory; a
//     block loads its next tile while it computes this one.
// Phase 1 of round r + 1 needs only round r's update of the next pivot block: block 0
// makes that update itself and closes the pivot while the other blocks do phase 3
// (leaving that block out), so a round takes two grid barriers. In every phase each
// entry is written by one thread from values nobody writes in that phase: the result
// does not depend on timing (the same input gives the same bits).

#define KL_GR_S 32   // pivot block
#define KL_GR_T 64   // phase-3 tile
#define KL_GR_WARPS (KL_GR_THREADS / 32)
#define KL_GR_SP (KL_GR_S + 1)           // padded rows of a 32 x 32 staging
#define KL_GR_Q (KL_GR_S / KL_GR_WARPS)  // entries a thread of a 32 x 32 block
#define KL_GR_L (KL_GR_S * KL_GR_T / KL_GR_THREADS)  // panel entries a thread stages

// Entries other blocks wrote earlier in this launch: read from L2, never a stale L1 line.
__device__ __forceinline__ kl_c_t kl_gr_ld(const kl_c_t* A, long long at) { return __ldcg(A + at); }

struct kl_gr_tile_smem {
  __align__(16) kl_c_t Ac[KL_GR_S][KL_GR_T + 4];  // Ac[k][i] = A(I0 + i, p0 + k)
  __align__(16) kl_c_t Br[KL_GR_S][KL_GR_T];      // Br[k][j] = A(p0 + k, J0 + j)
};

union kl_gr_smem {  // the phases' staging: never two at once in a block
  struct {
    kl_c_t X[KL_GR_S][KL_GR_SP];  // the block being updated
    kl_c_t L[KL_GR_S][KL_GR_SP];  // its left factor ...
    kl_c_t R[KL_GR_S][KL_GR_SP];  // ... and right factor
  } b;
  kl_gr_tile_smem t;
};

// The 32 x 32 block at (r0, c0), h x w of it in A (identity elsewhere), into smem.
__device__ __forceinline__ void kl_gr_stage(const kl_c_t* A, long long lda, int r0, int c0,
                                            int h, int w, kl_c_t (*S)[KL_GR_SP]) {
  const int j = threadIdx.x & 31, wp = threadIdx.x / 32;
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) {
    const int i = wp + KL_GR_WARPS * q;
    S[i][j] = (i < h && j < w) ? kl_gr_ld(A, (long long)(r0 + i) * lda + c0 + j) : kl_identity();
  }
}

// A(r0 + i, c0 + j) <- ADD(X(i, j), sum_{k < kn} L(i, k) (x) R(k, j)) for this thread's
// entries (i = warp + 8q, j = lane) of the h x w block; call after a barrier.
__device__ __forceinline__ void kl_gr_update(kl_c_t* A, long long lda, int r0, int c0, int h,
                                             int w, int kn, kl_gr_smem& sm, bool to_smem) {
  const int j = threadIdx.x & 31, wp = threadIdx.x / 32;
  kl_c_t acc[KL_GR_Q];
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) acc[q] = kl_identity();
  auto step = [&](int k) {
    const kl_c_t rk = sm.b.R[k][j];
#pragma unroll
    for (int q = 0; q < KL_GR_Q; ++q) acc[q] = kl_add(acc[q], kl_mult(sm.b.L[wp + KL_GR_WARPS * q][k], rk));
  };
  if (kn == KL_GR_S) {
#pragma unroll
    for (int k = 0; k < KL_GR_S; ++k) step(k);
  } else {
#pragma unroll 1
    for (int k = 0; k < kn; ++k) step(k);
  }
  __syncthreads();  // (to_smem: every read of X, L and R done before X changes)
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) {
    const int i = wp + KL_GR_WARPS * q;
    const kl_c_t v = kl_add(sm.b.X[i][j], acc[q]);
    if (to_smem) sm.b.X[i][j] = v;
    else if (i < h && j < w) A[(long long)(r0 + i) * lda + c0 + j] = v;
  }
  __syncthreads();  // the staging is reused next
}

// Phase 1 on X = sm.b.X (ps x ps of it), by the thread block: X <- X* after ADD(diagonal,
// one), written to A at (p0, p0). Thread (warp w, lane j) keeps entries (w + 8q, j) in
// registers; step k reads row and column k from the snapshot the last step left (X or
// L, alternately) and writes its entries to the other: one barrier a step.
__device__ __forceinline__ void kl_gr_pivot(kl_c_t* A, long long lda, int p0, int ps,
                                            kl_c_t one, kl_gr_smem& sm) {
  const int j = threadIdx.x & 31, w = threadIdx.x / 32;
  kl_c_t v[KL_GR_Q];
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) {
    const int i = w + KL_GR_WARPS * q;
    const kl_c_t x = sm.b.X[i][j];
    v[q] = i == j ? kl_add(x, one) : x;
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < KL_GR_Q; ++q) sm.b.X[w + KL_GR_WARPS * q][j] = v[q];
  __syncthreads();
  // Steps k and k + 1 under one barrier: step k + 1's row and column entries are made
  // from step k's snapshot by the same operations their owners do, so each thread
  // computes them itself (the same bits), and a 32-row pivot takes 16 barriers, not 32.
  int s = 0;  // snapshot count: cur is X after an even number, L after an odd one
  int k = 0;
  for (; k + 1 < ps; k += 2, ++s) {
    const kl_c_t(*cur)[KL_GR_SP] = s & 1 ? sm.b.L : sm.b.X;
    kl_c_t(*nxt)[KL_GR_SP] = s & 1 ? sm.b.X : sm.b.L;
    const kl_c_t rk = cur[k][j];
    const kl_c_t rk1 = kl_add(cur[k + 1][j], kl_mult(cur[k + 1][k], rk));  // X'(k + 1, j)
    const kl_c_t xkk1 = cur[k][k + 1];
#pragma unroll
    for (int q = 0; q < KL_GR_Q; ++q) {
      const int i = w + KL_GR_WARPS * q;
      const kl_c_t xik = cur[i][k];
      const kl_c_t xik1 = kl_add(cur[i][k + 1], kl_mult(xik, xkk1));  // X'(i, k + 1)
      v[q] = kl_add(v[q], kl_mult(xik, rk));
      v[q] = kl_add(v[q], kl_mult(xik1, rk1));
      nxt[i][j] = v[q];
    }
    __syncthreads();
  }
  if (k < ps) {  // an odd last step
    const kl_c_t(*cur)[KL_GR_SP] = s & 1 ? sm.b.L : sm.b.X;
    kl_c_t(*nxt)[KL_GR_SP] = s & 1 ? sm.b.X : sm.b.L;
    const kl_c_t rk = cur[k][j];
#pragma unroll
    for (int q = 0; q < KL_GR_Q; ++q) {
      const int i = w + KL_GR_WARPS * q;
      v[q] = kl_add(v[q], kl_mult(cur[i][k], rk));
      nxt[i][j] = v[q];
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

// Block 0's phase 1 for the pivot at pn (pns rows): round r's update of it from P's
// (p0, ps rows) final row and column (skipped in round -1), then its closure.
__device__ __forceinline__ void kl_gr_next_pivot(kl_c_t* A, long long lda, int p0, int ps,
                                                 int pn, int pns, kl_c_t one, kl_gr_smem& sm) {
  kl_gr_stage(A, lda, pn, pn, pns, pns, sm.b.X);
  if (p0 >= 0) {
    kl_gr_stage(A, lda, pn, p0, pns, ps, sm.b.L);
    kl_gr_stage(A, lda, p0, pn, ps, pns, sm.b.R);
    __syncthreads();
    kl_gr_update(A, lda, pn, pn, pns, pns, ps, sm, true);
  } else {
    __syncthreads();
  }
  kl_gr_pivot(A, lda, pn, pns, one, sm);
  __syncthreads();
}

// Phase 2's task: the 32 x w block at (r0, c0) of P's block row (row) or column, with
// P* from (p0, p0): X <- ADD(X, P* (x) X) or ADD(X, X (x) P*).
__device__ __forceinline__ void kl_gr_panel(kl_c_t* A, long long lda, int p0, int ps, int r0,
                                            int c0, int h, int w, bool row, kl_gr_smem& sm) {
  kl_gr_stage(A, lda, r0, c0, h, w, sm.b.X);
  kl_gr_stage(A, lda, p0, p0, ps, ps, row ? sm.b.L : sm.b.R);
  kl_gr_stage(A, lda, r0, c0, h, w, row ? sm.b.R : sm.b.L);
  __syncthreads();
  kl_gr_update(A, lda, r0, c0, h, w, ps, sm, false);
}

// A phase-3 tile's global reads, held in registers until the block stages them.
struct kl_gr_fetch {
  kl_c_t c[4][4];     // this thread's entries
  kl_c_t a[KL_GR_L];  // of A(I0:, P)
  kl_c_t b[KL_GR_L];  // of A(P, J0:)
};

__device__ __forceinline__ void kl_gr_fetch_tile(const kl_c_t* A, long long lda, int n, int p0,
                                                 int ps, int I0, int J0, kl_gr_fetch& f) {
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int i = I0 + 4 * ty + a, j = J0 + 4 * tx + b;
      f.c[a][b] = (i < n && j < n) ? kl_gr_ld(A, (long long)i * lda + j) : kl_identity();
    }
#pragma unroll
  for (int q = 0; q < KL_GR_L; ++q) {
    const int e = tid + KL_GR_THREADS * q;
    const int ai = e / KL_GR_S, ak = e % KL_GR_S;  // a warp reads one row's 32 k
    f.a[q] = (I0 + ai < n && ak < ps) ? kl_gr_ld(A, (long long)(I0 + ai) * lda + p0 + ak) : kl_identity();
    const int bk = e / KL_GR_T, bj = e % KL_GR_T;
    f.b[q] = (J0 + bj < n && bk < ps) ? kl_gr_ld(A, (long long)(p0 + bk) * lda + J0 + bj) : kl_identity();
  }
}

// Phase 3 on the tile (I0, J0) whose reads f holds (fetching the tile at (I1, J1) into f
// meanwhile, if I1 >= 0): entries outside P's rows and columns, and outside the next
// pivot block (pn, pns rows) that block 0 updates, take
// ADD(A(i, j), sum_k A(i, p0 + k) (x) A(p0 + k, j)).
__device__ __forceinline__ void kl_gr_tile(kl_c_t* A, long long lda, int n, int p0, int ps,
                                           int pn, int pns, int I0, int J0, int I1, int J1,
                                           kl_gr_fetch& f, kl_gr_tile_smem& sm) {
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
#pragma unroll
  for (int q = 0; q < KL_GR_L; ++q) {
    const int e = tid + KL_GR_THREADS * q;
    sm.Ac[e % KL_GR_S][e / KL_GR_S] = f.a[q];
    sm.Br[e / KL_GR_T][e % KL_GR_T] = f.b[q];
  }
  kl_c_t c[4][4];
#pragma unroll
  for (int a = 0; a < 4; ++a)
#pragma unroll
    for (int b = 0; b < 4; ++b) c[a][b] = f.c[a][b];
  __syncthreads();
  if (I1 >= 0) kl_gr_fetch_tile(A, lda, n, p0, ps, I1, J1, f);  // in flight during the steps
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
    const bool in_next = i >= pn && i < pn + pns;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int j = J0 + 4 * tx + b;
      if (j < n && (j < p0 || j >= p0 + ps) && !(in_next && j >= pn && j < pn + pns))
        A[(long long)i * lda + j] = kl_add(c[a][b], acc[a][b]);
    }
  }
  __syncthreads();  // the staging is reused by the next tile
}

// The next tile at or after t in this block's share that phase 3 changes, or -1: tiles
// whose rows or columns all lie in P are skipped.
__device__ __forceinline__ int kl_gr_next_tile(int t, int stride, int nt, int n, int p0, int ps) {
  for (; t < nt * nt; t += stride) {
    const int I0 = (t / nt) * KL_GR_T, J0 = (t % nt) * KL_GR_T;
    const int ih = n - I0 < KL_GR_T ? n - I0 : KL_GR_T, jw = n - J0 < KL_GR_T ? n - J0 : KL_GR_T;
    if (!((I0 >= p0 && I0 + ih <= p0 + ps) || (J0 >= p0 && J0 + jw <= p0 + ps))) return t;
  }
  return -1;
}

__global__ void __launch_bounds__(KL_GR_THREADS, KL_GR_MIN_BLOCKS)
kl_closure_grid(kl_c_t* __restrict__ A, long long lda, int n, kl_c_t one, unsigned* bar) {
  __shared__ kl_gr_smem sm;
  const int G = gridDim.x, b = blockIdx.x;
  const int rounds = (n + KL_GR_S - 1) / KL_GR_S;
  const int nt = (n + KL_GR_T - 1) / KL_GR_T;  // tiles per side
  const int tasks = 2 * (rounds - 1);          // phase 2: block rows and columns
  kl_gr_fetch f;

  // Block 0's SM takes no tiles: the pivot's warp there would share its issue slots with
  // another block's tile loop (2-3x slower, and the pivot is the critical path). The
  // block beside it (if any) finds out by its SM id and tells the others.
  unsigned smid;
  asm("mov.u32 %0, %%smid;" : "=r"(smid));
  if (b == 0 && threadIdx.x == 0) bar[2] = smid;
  if (b == 0) kl_gr_next_pivot(A, lda, -1, 0, 0, n < KL_GR_S ? n : KL_GR_S, one, sm);
  kl_grid_sync(bar);
  if (G > 2 && b > 0 && threadIdx.x == 0 && smid == __ldcg(bar + 2)) bar[3] = b;  // one at most
  kl_grid_sync(bar);
  const unsigned seen = __ldcg(bar + 3);
  const int mate = seen ? (int)seen : G;  // G: no block shares block 0's SM
  const int workers = G == 1 ? 1 : G - 1 - (mate < G);
  const int me = G == 1 ? 0 : b - 1 - (b > mate);  // this block's place among the workers
  const bool works = G == 1 || (b > 0 && b != mate);
  for (int r = 0; r < rounds; ++r) {
    const int p0 = r * KL_GR_S, ps = n - p0 < KL_GR_S ? n - p0 : KL_GR_S;
    // phase 2: task t is block row (t even) or column (t odd) q of the pivot's, one a block
    for (int t = b; t < tasks; t += G) {
      int q = t / 2;
      q += q >= r;  // block index, skipping the pivot's own
      const int J0 = q * KL_GR_S, w = n - J0 < KL_GR_S ? n - J0 : KL_GR_S;
      if (t % 2 == 0) kl_gr_panel(A, lda, p0, ps, p0, J0, ps, w, true, sm);
      else kl_gr_panel(A, lda, p0, ps, J0, p0, w, ps, false, sm);
    }
    kl_grid_sync(bar);
    // phase 3, with the next round's phase 1 in block 0
    const bool next = r + 1 < rounds;
    const int pn = next ? p0 + KL_GR_S : n, pns = next ? (n - pn < KL_GR_S ? n - pn : KL_GR_S) : 0;
    if (b == 0 && next) kl_gr_next_pivot(A, lda, p0, ps, pn, pns, one, sm);
    if (works) {
      const int stride = workers;
      int t = kl_gr_next_tile(me, stride, nt, n, p0, ps);
      if (t >= 0) kl_gr_fetch_tile(A, lda, n, p0, ps, (t / nt) * KL_GR_T, (t % nt) * KL_GR_T, f);
      while (t >= 0) {
        const int t1 = kl_gr_next_tile(t + stride, stride, nt, n, p0, ps);
        kl_gr_tile(A, lda, n, p0, ps, pn, pns, (t / nt) * KL_GR_T, (t % nt) * KL_GR_T,
                   t1 >= 0 ? (t1 / nt) * KL_GR_T : -1, t1 >= 0 ? (t1 % nt) * KL_GR_T : -1, f, sm.t);
        t = t1;
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
#undef KL_GR_L
