// Grid-wide pieces shared by the frontier kernels (frontier.cu, near_far.cu,
// sssp_rows.cu): the barrier of the one-launch loops, and the lookup in a heavy list.

// Grid-wide barrier on a monotonic 64-bit arrival count (bar[0..2), 8-byte aligned, zero
// at launch): a block's arrival is the count before its add, and it waits until the
// count reaches the next multiple of gridDim.x. No block resets anything, so the last
// arrival releases everyone with its one atomic (a reset and a generation bump would add
// two more dependent atomics to every barrier, the loops' per-level floor), and 2^64
// arrivals never wrap. The waiters poll with a short sleep: every other block polling one
// L2 line flat out slows the late blocks' own work.
// Only valid in a cooperative launch (all blocks resident).
//
// `then()` runs on each block's thread 0 after the barrier, before the block's threads go
// on: the loops read the counters the last level left for everyone there, into shared
// memory (__ldcg), one L2 request per block. Read by every warp instead, the same line
// takes thousands of requests a level, which the thin graphs' many levels add up.
template <typename Then>
__device__ __forceinline__ void kl_grid_sync(unsigned* bar, Then&& then) {
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
    then();
  }
  __syncthreads();
}

__device__ __forceinline__ void kl_grid_sync(unsigned* bar) {
  kl_grid_sync(bar, [] {});
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

// Item p of the heavy list (p in the chunk whose first item's slot is lo): its vertex u
// and its edge's index in the CSR. Heavy vertices have more than 32 items, so a warp's
// chunk of 32 reaches at most the next slot.
__device__ __forceinline__ long long kl_heavy_edge(const long long* __restrict__ indptr,
                                                   const int* hv, const long long* ho, int hn,
                                                   int lo, long long p, int& u) {
  int k = lo;
  if (k + 1 < hn && __ldcg(ho + k + 1) <= p) ++k;
  u = __ldcg(hv + k);
  return indptr[u] + (p - __ldcg(ho + k));
}
