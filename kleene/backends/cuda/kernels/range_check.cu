// Flags int32 inputs the clamped tropical fast path of mxm_dense cannot take:
// finite values need |v| < KL_FAST_LIMIT; SIDE 0 (min_plus) admits +inf (INT_MAX)
// only, SIDE 1 (max_plus) admits -inf (INT_MIN) only.

template <int SIDE>
__global__ void __launch_bounds__(256)
kl_range_check(const int* __restrict__ x, long long n, int* __restrict__ bad) {
  bool b = false;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int v = x[i];
    const bool inf = SIDE == 0 ? v == KL_INT_MAX : v == KL_INT_MIN;
    b |= !inf && (v >= KL_FAST_LIMIT || v <= -KL_FAST_LIMIT);
  }
  if (__any_sync(KL_FULL_MASK, b) && (threadIdx.x & 31) == 0) atomicOr(bad, 1);
}
