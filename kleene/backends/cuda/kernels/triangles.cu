// Triangles of a symmetric pattern (kleene/backends/cuda/analytics/triangles.py).
//
// kl_tc_orient: each edge oriented from the lower to the higher of its ends in the
// order (degree, id), so every triangle has one lowest vertex u and is found once, as
// a w on the out-lists of both u and v for an out-edge u -> v (and hubs keep short
// out-lists). One warp per row u: the kept neighbours, in the row's order, go to
// out[ptr[u] ...] (a ballot and a prefix count place them), dplus[u] says how many,
// and the row's out-edges are appended to the edge list (src, dst) at slots claimed
// with one atomic per row (nedges counts them; their order is irrelevant below). A
// symmetric pattern keeps at most cap = nnz / 2 edges; slots past cap (a pattern
// that is not symmetric, which the caller rules out) are not written.
//
// kl_tc_count<G, PER_VERTEX>: G lanes per out-edge u -> v intersect out(u) and
// out(v): G == 1 merges them (a run below the other list's key skipped by galloping
// search), G > 1 has each lane look its share of the shorter list up in the longer.
// Every found w is a triangle {u, v, w}: the block's count goes to partial[block]
// (summed by the caller); with PER_VERTEX, tv[u], tv[v] and tv[w] are incremented by
// integer atomics. Integer sums: the results do not depend on scheduling.
// Needs from the prelude: KL_BLOCK; common.cuh (KL_FULL_MASK).

__device__ __forceinline__ long long kl_tc_lower(const int* __restrict__ idx, long long lo,
                                                 long long hi, int key) {
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (idx[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The first position in [lo, hi) whose index is >= key, probing lo first, then
// galloping (lo + 1, 3, 7, ...) and searching the last gap.
__device__ __forceinline__ long long kl_tc_seek(const int* __restrict__ idx, long long lo,
                                                long long hi, int key) {
  if (lo >= hi || idx[lo] >= key) return lo;
  long long step = 1, prev = lo;  // idx[prev] < key
  while (prev + step < hi && idx[prev + step] < key) {
    prev += step;
    step <<= 1;
  }
  return kl_tc_lower(idx, prev + 1, prev + step < hi ? prev + step : hi, key);
}

#if !defined(KL_ONLY) || defined(KL_ONLY_kl_tc_orient)
__global__ void __launch_bounds__(KL_BLOCK)
kl_tc_orient(const long long* __restrict__ ptr, const int* __restrict__ idx, long long n,
             int* __restrict__ out, int* __restrict__ dplus, int* __restrict__ src,
             int* __restrict__ dst, long long cap, unsigned long long* __restrict__ nedges) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (KL_BLOCK / 32);
  for (long long u = ((long long)blockIdx.x * KL_BLOCK + threadIdx.x) >> 5; u < n;
       u += warps) {
    const long long p0 = ptr[u], p1 = ptr[u + 1];
    const long long du = p1 - p0;
    long long kept = 0;
    for (long long base = p0; base < p1; base += 32) {
      const long long p = base + lane;
      int v = 0;
      bool keep = false;
      if (p < p1) {
        v = idx[p];
        const long long dv = ptr[v + 1] - ptr[v];
        keep = dv > du || (dv == du && v > u);
      }
      const unsigned ballot = __ballot_sync(KL_FULL_MASK, keep);
      if (keep) out[p0 + kept + __popc(ballot & ((1u << lane) - 1u))] = v;
      kept += __popc(ballot);
    }
    unsigned long long at = 0;
    if (lane == 0) {
      dplus[u] = (int)kept;
      if (kept) at = atomicAdd(nedges, (unsigned long long)kept);
    }
    at = __shfl_sync(KL_FULL_MASK, at, 0);
    __syncwarp();  // the row's out-list, written by all lanes, is read back below
    for (long long j = lane; j < kept && (long long)at + j < cap; j += 32) {
      src[at + j] = (int)u;
      dst[at + j] = out[p0 + j];
    }
  }
}
#endif

template <int G, bool PER_VERTEX>
__global__ void __launch_bounds__(KL_BLOCK)
kl_tc_count(const long long* __restrict__ ptr, const int* __restrict__ out,
            const int* __restrict__ dplus, const int* __restrict__ src,
            const int* __restrict__ dst, long long cap,
            const unsigned long long* __restrict__ nedges, unsigned long long* __restrict__ partial,
            unsigned long long* __restrict__ tv) {
  const long long kept = (long long)*nedges;
  const long long m = kept < cap ? kept : cap;
  const int lane = threadIdx.x & (G - 1);
  const unsigned gmask =
      G == 32 ? KL_FULL_MASK : ((1u << (G & 31)) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
  const long long ngroups = (long long)gridDim.x * (KL_BLOCK / G);
  unsigned long long sum = 0;
  for (long long e = ((long long)blockIdx.x * KL_BLOCK + threadIdx.x) / G; e < m;
       e += ngroups) {
    const int u = src[e], v = dst[e];
    long long a0 = ptr[u], a1 = a0 + dplus[u];
    long long b0 = ptr[v], b1 = b0 + dplus[v];
    if (a1 - a0 > b1 - b0) {  // a: the shorter list
      long long t = a0;
      a0 = b0;
      b0 = t;
      t = a1;
      a1 = b1;
      b1 = t;
    }
    unsigned long long c = 0;
    if (G == 1) {
      while (a0 < a1 && b0 < b1) {
        const int ka = out[a0], kb = out[b0];
        if (ka == kb) {
          ++c;
          if (PER_VERTEX) atomicAdd(&tv[ka], 1ull);
          ++a0;
          ++b0;
        } else if (ka < kb) {
          a0 = kl_tc_seek(out, a0 + 1, a1, kb);
        } else {
          b0 = kl_tc_seek(out, b0 + 1, b1, ka);
        }
      }
    } else {
      long long lo = b0;
      for (long long s = a0 + lane; s < a1 && lo < b1; s += G) {
        const int key = out[s];
        lo = kl_tc_lower(out, lo, b1, key);
        if (lo < b1 && out[lo] == key) {
          ++c;
          if (PER_VERTEX) atomicAdd(&tv[key], 1ull);
        }
      }
#pragma unroll
      for (int off = G / 2; off > 0; off >>= 1) c += __shfl_xor_sync(gmask, c, off, G);
    }
    if (lane == 0) {
      sum += c;
      if (PER_VERTEX && c) {
        atomicAdd(&tv[u], c);
        atomicAdd(&tv[v], c);
      }
    }
  }
  __shared__ unsigned long long s_sum[KL_BLOCK / 32];
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(KL_FULL_MASK, sum, off);
  if ((threadIdx.x & 31) == 0) s_sum[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long total = 0;
    for (int i = 0; i < KL_BLOCK / 32; ++i) total += s_sum[i];
    partial[blockIdx.x] = total;
  }
}
