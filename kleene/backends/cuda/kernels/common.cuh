// kleene CUDA common header: helpers that built-in cuda_exprs and every kernel
// template use. Self-contained (NVRTC has no standard headers), so every
// specialisation compiles the same way under NVRTC (CuPy) and nvcc (CI).
#ifndef KLEENE_COMMON_CUH
#define KLEENE_COMMON_CUH

#define KL_INT_MAX 2147483647
#define KL_INT_MIN (-2147483647 - 1)
#define KL_LLONG_MAX 9223372036854775807LL
#define KL_LLONG_MIN (-9223372036854775807LL - 1LL)
#define KL_FULL_MASK 0xffffffffu

// ---- tropical plus: x + y where the integer max/min act as +inf/-inf --------
// Integers: +inf wins over -inf (matches kleene.semiring._funcs.tplus), finite
// sums saturate; computed without signed-overflow UB.
__device__ __forceinline__ float kl_tplus(float x, float y) { return x + y; }
__device__ __forceinline__ double kl_tplus(double x, double y) { return x + y; }
__device__ __forceinline__ bool kl_tplus(bool x, bool y) { return x || y; }

__device__ __forceinline__ int kl_tplus(int x, int y) {
  if (x == KL_INT_MAX || y == KL_INT_MAX) return KL_INT_MAX;
  if (x == KL_INT_MIN || y == KL_INT_MIN) return KL_INT_MIN;
  long long s = (long long)x + (long long)y;
  return s > KL_INT_MAX ? KL_INT_MAX : (s < KL_INT_MIN ? KL_INT_MIN : (int)s);
}

__device__ __forceinline__ long long kl_tplus(long long x, long long y) {
  if (x == KL_LLONG_MAX || y == KL_LLONG_MAX) return KL_LLONG_MAX;
  if (x == KL_LLONG_MIN || y == KL_LLONG_MIN) return KL_LLONG_MIN;
  long long s = (long long)((unsigned long long)x + (unsigned long long)y);  // wraps
  if (x > 0 && y > 0 && s < 0) return KL_LLONG_MAX;
  if (x < 0 && y < 0 && s >= 0) return KL_LLONG_MIN;
  return s;
}

// ---- min / max: NaN-ignoring for floats (IEEE minNum, NumPy's fmin/fmax) ---
// One FMNMX/DMNMX on floats; a compare-select on integers and bool.
__device__ __forceinline__ float kl_min(float x, float y) { return fminf(x, y); }
__device__ __forceinline__ double kl_min(double x, double y) { return fmin(x, y); }
__device__ __forceinline__ float kl_max(float x, float y) { return fmaxf(x, y); }
__device__ __forceinline__ double kl_max(double x, double y) { return fmax(x, y); }
template <typename T> __device__ __forceinline__ T kl_min(T x, T y) { return y < x ? y : x; }
template <typename T> __device__ __forceinline__ T kl_max(T x, T y) { return x < y ? y : x; }

// ---- gcd (used by the user-monoid example in kleene.semiring.Monoid) --------
__device__ __forceinline__ long long kl_gcd(long long x, long long y) {
  unsigned long long a = x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
  unsigned long long b = y < 0 ? 0ull - (unsigned long long)y : (unsigned long long)y;
  while (b != 0) {
    unsigned long long t = a % b;
    a = b;
    b = t;
  }
  return (long long)a;
}
__device__ __forceinline__ int kl_gcd(int x, int y) {
  return (int)kl_gcd((long long)x, (long long)y);
}

// ---- warp shuffles for every carrier type (bool travels as int) -------------
template <typename T>
__device__ __forceinline__ T kl_shfl_xor(unsigned mask, T v, int lane_mask, int width) {
  return __shfl_xor_sync(mask, v, lane_mask, width);
}
template <>
__device__ __forceinline__ bool kl_shfl_xor<bool>(unsigned mask, bool v, int lane_mask,
                                                  int width) {
  return __shfl_xor_sync(mask, (int)v, lane_mask, width) != 0;
}
template <typename T>
__device__ __forceinline__ T kl_shfl(unsigned mask, T v, int src, int width) {
  return __shfl_sync(mask, v, src, width);
}
template <>
__device__ __forceinline__ bool kl_shfl<bool>(unsigned mask, bool v, int src, int width) {
  return __shfl_sync(mask, (int)v, src, width) != 0;
}

// ---- bit views (CAS loops and the float atomic min/max trick) ---------------
template <int N> struct kl_word;
template <> struct kl_word<4> { typedef unsigned int type; };
template <> struct kl_word<8> { typedef unsigned long long type; };

template <typename T>
__device__ __forceinline__ typename kl_word<sizeof(T)>::type kl_to_word(T v) {
  union { T t; typename kl_word<sizeof(T)>::type w; } u;
  u.t = v;
  return u.w;
}
template <typename T>
__device__ __forceinline__ T kl_from_word(typename kl_word<sizeof(T)>::type w) {
  union { T t; typename kl_word<sizeof(T)>::type w; } u;
  u.w = w;
  return u.t;
}

// ---- atomic min/max for every 32/64-bit carrier -----------------------------
// Floats: IEEE order equals signed-int order for sign-clear values and reversed
// unsigned order for sign-set ones; -0 counts below +0 so the result does not
// depend on arrival order.
__device__ __forceinline__ void kl_atomic_min(int* p, int v) { atomicMin(p, v); }
__device__ __forceinline__ void kl_atomic_max(int* p, int v) { atomicMax(p, v); }
__device__ __forceinline__ void kl_atomic_min(long long* p, long long v) { atomicMin(p, v); }
__device__ __forceinline__ void kl_atomic_max(long long* p, long long v) { atomicMax(p, v); }
__device__ __forceinline__ void kl_atomic_min(float* p, float v) {
  if (__float_as_int(v) >= 0) atomicMin((int*)p, __float_as_int(v));
  else atomicMax((unsigned int*)p, __float_as_uint(v));
}
__device__ __forceinline__ void kl_atomic_max(float* p, float v) {
  if (__float_as_int(v) >= 0) atomicMax((int*)p, __float_as_int(v));
  else atomicMin((unsigned int*)p, __float_as_uint(v));
}
__device__ __forceinline__ void kl_atomic_min(double* p, double v) {
  long long b = __double_as_longlong(v);
  if (b >= 0) atomicMin((long long*)p, b);
  else atomicMax((unsigned long long*)p, (unsigned long long)b);
}
__device__ __forceinline__ void kl_atomic_max(double* p, double v) {
  long long b = __double_as_longlong(v);
  if (b >= 0) atomicMax((long long*)p, b);
  else atomicMin((unsigned long long*)p, (unsigned long long)b);
}

// ---- integer atomics for plus / lor / land ----------------------------------
__device__ __forceinline__ void kl_atomic_plus(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void kl_atomic_plus(long long* p, long long v) {
  atomicAdd((unsigned long long*)p, (unsigned long long)v);  // two's complement wraps
}
__device__ __forceinline__ void kl_atomic_or(int* p, int v) { atomicOr(p, v); }
__device__ __forceinline__ void kl_atomic_or(long long* p, long long v) {
  atomicOr((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ void kl_atomic_and(int* p, int v) { atomicAnd(p, v); }
__device__ __forceinline__ void kl_atomic_and(long long* p, long long v) {
  atomicAnd((unsigned long long*)p, (unsigned long long)v);
}

// ---- 16-byte vector views for the dense kernel's loads ----------------------
template <typename T> struct kl_vec4;
template <> struct kl_vec4<float> { typedef float4 type; };
template <> struct kl_vec4<int> { typedef int4 type; };

#endif  // KLEENE_COMMON_CUH
