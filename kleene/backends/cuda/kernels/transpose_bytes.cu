// transpose_bytes: dst = src^T for 1-byte elements (src rows x cols, row stride lds;
// dst cols x rows, row stride ldd), through 32 x 32 tiles in shared memory so that
// both the reads and the writes are row-contiguous (a strided elementwise copy
// reads one byte per 32-byte sector on one side). Block 32 x 8; each thread moves
// four bytes of a tile.

extern "C" __global__ void __launch_bounds__(256)
kl_transpose_bytes(const unsigned char* __restrict__ src, long long lds,
                   unsigned char* __restrict__ dst, long long ldd, int rows, int cols) {
  __shared__ unsigned char tile[32][33];  // +1: no bank conflicts on the column reads
  const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int k = 0; k < 32; k += 8) {
    const int r = r0 + ty + k, c = c0 + tx;
    if (r < rows && c < cols) tile[ty + k][tx] = src[(long long)r * lds + c];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 32; k += 8) {
    const int c = c0 + ty + k, r = r0 + tx;  // dst row c, column r
    if (c < cols && r < rows) dst[(long long)c * ldd + r] = tile[tx][ty + k];
  }
}
