// bool_threshold: C (|)= T != 0 for an int32 product band T (rows x cols, row stride
// ldt) into a bool view C (row stride ldc, column stride sc, in bytes). A 2-D grid,
// a thread an entry: no index division, coalesced on T and (unit stride) on C.

template <bool ACC>
__global__ void __launch_bounds__(256)
kl_bool_threshold(const int* __restrict__ T, long long ldt, unsigned char* __restrict__ C,
                  long long ldc, long long sc, int rows, int cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || j >= cols) return;
  const bool t = T[(long long)r * ldt + j] != 0;
  unsigned char* c = C + (long long)r * ldc + (long long)j * sc;
  if (ACC) {
    if (t) *c = 1;
  } else {
    *c = t;
  }
}
