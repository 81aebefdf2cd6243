// Flags int32 values of a strided 2-D view (rows x cols, row stride ld) that the
// clamped tropical fast path of mxm_dense cannot take: finite values need
// |v| < KL_FAST_LIMIT; SIDE 0 (min) admits +inf (INT_MAX) only, SIDE 1 (max) -inf
// (INT_MIN) only. ONE_SIGN also rejects finite values < 0 (SIDE 0) / > 0 (SIDE 1):
// in-place products read values written during the same launch, and with one sign
// those stay in [0, 2 * KL_FAST_LIMIT) (resp. the mirror) so no sum can overflow.

template <int SIDE, int ONE_SIGN>
__global__ void __launch_bounds__(256)
kl_range_check_view(const int* __restrict__ x, long long rows, long long cols, long long ld,
                    int* __restrict__ bad) {
  bool b = false;
  const long long cstride = (long long)gridDim.x * blockDim.x;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    const int* xr = x + r * ld;
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += cstride) {
      const int v = xr[c];
      const bool inf = SIDE == 0 ? v == KL_INT_MAX : v == KL_INT_MIN;
      bool out = v >= KL_FAST_LIMIT || v <= -KL_FAST_LIMIT;
      if (ONE_SIGN) out = out || (SIDE == 0 ? v < 0 : v > 0);
      b |= !inf && out;
    }
  }
  if (__any_sync(KL_FULL_MASK, b) && (threadIdx.x & 31) == 0) atomicOr(bad, 1);
}
