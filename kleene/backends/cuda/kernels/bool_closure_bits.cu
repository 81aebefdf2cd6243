// bool_closure_bits: A <- A* in place for one n x n bool block (n <= KL_BITS_MAX) over
// (or, and), by one thread block. Rows are packed 32 columns to a word in shared
// memory, and Warshall's steps go 32 at a time (blocked Floyd-Warshall with 32 x 32
// bit tiles), so a block of n rows takes 3 n / 32 barriers, not n: a barrier per
// step, with one word operation on each side of it, made the barriers the whole cost
// of a block. For the word column kw (steps k0 = 32 kw ..):
//   1. one warp closes the diagonal tile: lane l holds row k0 + l's word kw, and
//      step q ORs lane q's word (a shuffle) into the lanes whose bit q is set;
//   2. the tile's rows: row p |= row q for each bit q of p's closed tile word;
//   3. every other row i: row i |= row k0 + q for each bit q of i's word kw. The
//      tile's rows already hold everything the tile reaches (step 2), so i's own
//      bits suffice.
// In place is exact for (or, and): a cell another thread is updating reads as its
// old or its new value; both hold only reachability facts, and the old one is all
// the step needs.
// The diagonal is set first (the empty path, OR one). Thread t owns the cells
// t, t + blockDim, ... (at most KL_BITS_PER of them).

#define KL_BITS_MAX 512
#define KL_BITS_WORDS (KL_BITS_MAX / 32)
#define KL_BITS_CELLS (KL_BITS_MAX * KL_BITS_WORDS)
#define KL_BITS_THREADS 1024
#define KL_BITS_PER (KL_BITS_CELLS / KL_BITS_THREADS)

extern "C" __global__ void __launch_bounds__(KL_BITS_THREADS)
kl_bool_closure_bits(unsigned char* __restrict__ A, long long lda, int n) {
  __shared__ unsigned int R[KL_BITS_CELLS];
  const int words = (n + 31) >> 5;
  const int cells = n * words;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  // pack: a warp per row, one ballot per word (32 coalesced bytes)
  for (int i = warp; i < n; i += warps) {
    const unsigned char* row = A + (long long)i * lda;
    for (int w = 0; w < words; ++w) {
      const int j = (w << 5) + lane;
      unsigned int bits = __ballot_sync(0xffffffffu, j < n && row[j] != 0);
      if ((i >> 5) == w) bits |= 1u << (i & 31);
      if (lane == 0) R[i * words + w] = bits;
    }
  }
  int ci[KL_BITS_PER], cw[KL_BITS_PER];
#pragma unroll
  for (int r = 0; r < KL_BITS_PER; ++r) {
    const int c = threadIdx.x + r * blockDim.x;
    ci[r] = c < cells ? c / words : -1;
    cw[r] = c < cells ? c - ci[r] * words : 0;
  }
  __syncthreads();
  for (int kw = 0; kw < words; ++kw) {
    const int k0 = kw << 5;
    if (warp == 0) {  // 1. the diagonal tile
      const int p = k0 + lane;
      unsigned int d = p < n ? R[p * words + kw] : 0u;
#pragma unroll
      for (int q = 0; q < 32; ++q) {
        const unsigned int dq = __shfl_sync(0xffffffffu, d, q);
        if ((d >> q) & 1u) d |= dq;
      }
      if (p < n) R[p * words + kw] = d;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < KL_BITS_PER; ++r) {  // 2. the tile's rows, their other words
      const int i = ci[r], w = cw[r];
      if (i < k0 || i >= k0 + 32 || w == kw) continue;
      unsigned int m = R[i * words + kw] & ~(1u << (i - k0));
      unsigned int x = R[i * words + w];
      while (m) {
        const int q = __ffs(m) - 1;
        m &= m - 1;
        x |= R[(k0 + q) * words + w];
      }
      R[i * words + w] = x;
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < KL_BITS_PER; ++r) {  // 3. every other row
      const int i = ci[r], w = cw[r];
      if (i < 0 || (i >= k0 && i < k0 + 32)) continue;
      unsigned int m = R[i * words + kw];
      if (!m) continue;
      unsigned int x = R[i * words + w];
      while (m) {
        const int q = __ffs(m) - 1;
        m &= m - 1;
        x |= R[(k0 + q) * words + w];
      }
      R[i * words + w] = x;
    }
    __syncthreads();
  }
  // unpack: a warp per row, lane l writes column 32 w + l
  for (int i = warp; i < n; i += warps) {
    unsigned char* row = A + (long long)i * lda;
    for (int w = 0; w < words; ++w) {
      const int j = (w << 5) + lane;
      if (j < n) row[j] = (unsigned char)((R[i * words + w] >> lane) & 1u);
    }
  }
}

#undef KL_BITS_MAX
#undef KL_BITS_WORDS
#undef KL_BITS_CELLS
#undef KL_BITS_THREADS
#undef KL_BITS_PER
