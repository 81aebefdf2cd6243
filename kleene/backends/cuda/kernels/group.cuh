// Cooperative groups of G lanes (G a power of two, at most 32) and the
// (has, value) folds every reduction uses: a lane that saw no value does not
// apply ADD, so a non-empty reduction never mixes in the identity (like the
// CPU back end) and an empty one gives the identity. Trees are fixed, so the
// results do not depend on scheduling.
// Needs from the prelude: kl_c_t, kl_add, kl_identity.

template <int G>
__device__ __forceinline__ unsigned kl_group_mask() {
  if (G == 32) return KL_FULL_MASK;
  return ((1u << (G & 31)) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
}

__device__ __forceinline__ void kl_fold(kl_c_t& acc, bool& has, kl_c_t v) {
  acc = has ? kl_add(acc, v) : v;
  has = true;
}

template <int G>
__device__ __forceinline__ void kl_group_reduce(unsigned mask, kl_c_t& acc, bool& has) {
#pragma unroll
  for (int off = G / 2; off > 0; off >>= 1) {
    kl_c_t o = kl_shfl_xor(mask, acc, off, G);
    bool oh = kl_shfl_xor(mask, has, off, G);
    if (oh) kl_fold(acc, has, o);
  }
}

// Whole-block reduction (NT threads); the result is valid in thread 0. All call it.
template <int NT>
__device__ __forceinline__ void kl_block_reduce(kl_c_t& acc, bool& has) {
  __shared__ kl_c_t s_acc[NT / 32];
  __shared__ bool s_has[NT / 32];
  kl_group_reduce<32>(KL_FULL_MASK, acc, has);
  __syncthreads();  // the arrays may still be read by a previous call
  if ((threadIdx.x & 31) == 0) {
    s_acc[threadIdx.x >> 5] = acc;
    s_has[threadIdx.x >> 5] = has;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    acc = kl_identity();
    has = false;
    for (int i = 0; i < NT / 32; ++i)
      if (s_has[i]) kl_fold(acc, has, s_acc[i]);
  }
}
