// bool_closure_bits: A <- A* in place for one n x n bool block (n <= KL_BITS_MAX) over
// (or, and), by one thread block. Rows are packed 32 columns to a word in shared
// memory; Warshall's step k is, for every row i with bit (i, k) set, row i |= row k:
// one word operation per 32 entries where the generic one-block kernel does one per
// entry, and a barrier per step. The diagonal is set first (the empty path, OR one).
//
// In place is exact for (or, and): step k changes bit (i, k) only where it is set
// already (row k has bit k), so readers of bit (i, k) see one value; other bits a
// step sets are reachability facts, which later steps may use as they please.
// Thread t owns the cells t, t + blockDim, ... (at most KL_BITS_CELLS / blockDim).

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
  int ci[KL_BITS_PER], cw[KL_BITS_PER];
#pragma unroll
  for (int r = 0; r < KL_BITS_PER; ++r) {
    const int c = threadIdx.x + r * blockDim.x;
    ci[r] = c < cells ? c / words : -1;
    cw[r] = c < cells ? c - ci[r] * words : 0;
  }
#pragma unroll
  for (int r = 0; r < KL_BITS_PER; ++r) {
    const int i = ci[r], w = cw[r];
    if (i < 0) continue;
    const unsigned char* row = A + (long long)i * lda + (w << 5);
    const int m = min(32, n - (w << 5));
    unsigned int bits = 0;
    for (int b = 0; b < m; ++b) bits |= (unsigned int)(row[b] != 0) << b;
    if ((i >> 5) == w) bits |= 1u << (i & 31);
    R[i * words + w] = bits;
  }
  __syncthreads();
  for (int k = 0; k < n; ++k) {
    const int kw = k >> 5;
    const unsigned int kb = 1u << (k & 31);
#pragma unroll
    for (int r = 0; r < KL_BITS_PER; ++r) {
      const int i = ci[r], w = cw[r];
      if (i < 0 || i == k) continue;
      if (R[i * words + kw] & kb) R[i * words + w] |= R[k * words + w];
    }
    __syncthreads();
  }
  for (int c = threadIdx.x; c < n * n; c += blockDim.x) {
    const int i = c / n, j = c - i * n;
    A[(long long)i * lda + j] = (unsigned char)((R[i * words + (j >> 5)] >> (j & 31)) & 1u);
  }
}

#undef KL_BITS_MAX
#undef KL_BITS_WORDS
#undef KL_BITS_CELLS
#undef KL_BITS_THREADS
#undef KL_BITS_PER
