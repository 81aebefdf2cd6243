// gather_square: out[i, j] = C[idx[i], idx[j]] for an n x n result (row stride n) from
// a square source C (row stride ldc): a matrix's rows and columns picked by one index
// array in one pass (two take()s would first build an n x c intermediate). Rows go
// grid-stride over blockIdx.y, columns over x; reads of C stay within a row.

template <typename T>
__global__ void __launch_bounds__(256)
kl_gather_square(const T* __restrict__ C, long long ldc, const int* __restrict__ idx,
                 T* __restrict__ out, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = blockIdx.y; i < n; i += gridDim.y) {
    const T* crow = C + (long long)idx[i] * ldc;
    T* orow = out + i * n;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
      orow[j] = crow[idx[j]];
  }
}
