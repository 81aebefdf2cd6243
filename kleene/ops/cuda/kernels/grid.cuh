// Grid-wide pieces shared by the frontier kernels (frontier.cu, multi_frontier.cu,
// sssp_rows.cu): the barrier of the one-launch loops, and the lookup in a heavy list.

// Grid-wide barrier: bar[0] counts arrivals, bar[1] is the generation. The last
// block to arrive resets the count and bumps the generation; the others spin on it.
// Only valid in a cooperative launch (all blocks resident at once).
__device__ __forceinline__ void kl_grid_sync(unsigned* bar) {
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile unsigned* gen = bar + 1;
    const unsigned g = *gen;  // cannot move on before this block arrives
    __threadfence();
    if (atomicAdd(bar, 1u) == gridDim.x - 1) {
      atomicExch(bar, 0u);
      __threadfence();
      atomicAdd(bar + 1, 1u);
    } else {
      while (*gen == g) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// A heavy list stores, per slot, the offset of its vertex's first item in a space where
// the vertices' items lie end to end (offsets grow with the slot). The last slot whose
// offset is <= p, among hn > 0 slots (a warp asks with the same p: broadcast loads;
// __ldcg as the list may have been written in this launch).
__device__ __forceinline__ int kl_heavy_slot(const long long* ho, int hn, long long p) {
  int lo = 0, hi = hn - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (__ldcg(ho + mid) <= p) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
