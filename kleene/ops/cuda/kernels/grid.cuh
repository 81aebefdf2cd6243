// Grid-wide pieces shared by the frontier kernels (frontier.cu, multi_frontier.cu,
// sssp_rows.cu): the barrier of the one-launch loops, and the lookup in a heavy list.

// Grid-wide barrier on a monotonic 64-bit arrival count (bar[0..2), 8-byte aligned, zero
// at launch): a block's arrival is the count before its add, and it waits until the
// count reaches the next multiple of gridDim.x. No block resets anything, so the last
// arrival releases everyone with its one atomic (a reset and a generation bump cost two
// more dependent atomics: ~2.1 against ~1.2 us a barrier at 264 blocks on an H100), and
// 2^64 arrivals never wrap. The waiters poll with a short sleep: 263 blocks polling one
// L2 line flat out slowed the late blocks' own work (RMAT-22 BFS 0.85 against 0.81 ms).
// Only valid in a cooperative launch (all blocks resident).
__device__ __forceinline__ void kl_grid_sync(unsigned* bar) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long* count = reinterpret_cast<unsigned long long*>(bar);
    const unsigned long long g = gridDim.x;
    __threadfence();  // this block's writes before its arrival
    const unsigned long long arrived = atomicAdd(count, 1ull);
    const unsigned long long target = arrived - arrived % g + g;
    volatile unsigned long long* seen = count;
    while (*seen < target) {
      __nanosleep(32);
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
