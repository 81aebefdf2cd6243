// Weak connected components (kleene.backends.cuda.analytics.components): Afforest
// (Sutton, Ben-Nun and Barak, 2018) over a CSR pattern, with union-find hooking by
// atomicCAS and pointer jumping.
//
// comp[v] is v's parent; a parent is never larger than its child (a root is hooked
// under the smaller of two roots, pointer jumping only moves a parent up its tree),
// so the root of every tree is its smallest vertex and, once every edge is linked and
// the trees compressed, comp[v] is the smallest vertex of v's component: the same
// array whatever order the atomics landed in.
//
// Rounds: link every vertex to its r-th neighbour (r = 0, 1) and compress; sample the
// parents to find the most frequent root (the giant component); then only the
// vertices outside it link their remaining neighbours (every vertex when the pattern
// is not symmetric: an edge then shows on one side only); compress.
//
// Parents are read volatile: another thread's hook must be seen by the next read in a
// loop, not a value the compiler kept in a register.

// (GAP samples 1024; the one block here compares every pair, so 256: a sixteenth of the
// work, and a giant component still stands out in it)
#define KL_CC_SAMPLES 256

// Join the trees of u and v (GAP's Link): hook the larger root under the smaller one.
__device__ __forceinline__ void kl_cc_link(int u, int v, int* comp) {
  volatile int* c = comp;
  int p1 = c[u], p2 = c[v];
  while (p1 != p2) {
    const int high = p1 > p2 ? p1 : p2;
    const int low = p1 + (p2 - high);  // (no overflow)
    const int p_high = c[high];
    if (p_high == low) break;  // already hooked there
    if (p_high == high && atomicCAS(comp + high, high, low) == high) break;
    p1 = c[c[high]];
    p2 = c[low];
  }
}

// comp[v] = v for every v; the giant component's slot and the hubs' segment count 0
// (here rather than by two memsets: fewer calls on the host's side of a small graph).
__global__ void kl_cc_init(int* __restrict__ comp, long long n, int* __restrict__ giant,
                           long long* __restrict__ hub_count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *giant = 0, *hub_count = 0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride)
    comp[v] = (int)v;
}

// Link every vertex with its neighbours r = first .. first + rounds - 1 (those it has).
template <typename I>
__global__ void kl_cc_sample(const long long* __restrict__ indptr, const I* __restrict__ indices,
                             long long n, int* comp, int first, int rounds) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
    const long long lo = indptr[u] + first, hi = indptr[u + 1];
    for (long long e = lo; e < hi && e < lo + rounds; ++e) kl_cc_link((int)u, (int)indices[e], comp);
  }
}

// Pointer jumping until every parent is a root.
__global__ void kl_cc_compress(int* comp, long long n) {
  volatile int* c = comp;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
    int p = c[v];
    int pp = c[p];
    while (p != pp) {
      c[v] = pp;
      p = pp;
      pp = c[p];
    }
  }
}

// out[0] = the most frequent parent among KL_CC_SAMPLES vertices picked by a fixed
// hash (ties: the smallest); one block of KL_CC_SAMPLES threads. Only the speed of the
// last round depends on it, never the answer.
__global__ void __launch_bounds__(KL_CC_SAMPLES)
kl_cc_frequent(const int* __restrict__ comp, long long n, int* __restrict__ out) {
  __shared__ int seen[KL_CC_SAMPLES];
  __shared__ unsigned long long best;
  const int t = threadIdx.x;
  unsigned long long h = (unsigned long long)(t + 1) * 0x9e3779b97f4a7c15ull;
  h ^= h >> 31;
  const int mine = comp[(long long)(h % (unsigned long long)n)];
  seen[t] = mine;
  if (t == 0) best = 0;
  __syncthreads();
  unsigned int count = 0;
  for (int k = 0; k < KL_CC_SAMPLES; ++k) count += seen[k] == mine;
  // larger count first, then smaller id: (count, ~id) as one key
  const unsigned long long key = ((unsigned long long)count << 32) | (unsigned int)(~(unsigned int)mine);
  atomicMax(&best, key);
  __syncthreads();
  if (t == 0) out[0] = (int)(~(unsigned int)(best & 0xffffffffull));
}

// Link the neighbours r >= first of every vertex (of every vertex whose parent is not
// giant[0] when skip): LANES threads per vertex, grid-stride. A row longer than limit
// is cut in segments of `segment` entries instead, listed in hubs (hubs[0] counts them,
// then a (row, segment) pair each, their order whatever the atomics gave: linking does
// not depend on it) for kl_cc_hubs, so one group of lanes never walks a hub's row.
template <typename I, int LANES>
__global__ void kl_cc_finish(const long long* __restrict__ indptr, const I* __restrict__ indices,
                             long long n, int* comp, const int* __restrict__ giant, int skip,
                             int first, long long limit, long long segment,
                             long long* __restrict__ hubs) {
  const int lane = threadIdx.x % LANES;
  const long long groups = ((long long)gridDim.x * blockDim.x) / LANES;
  const int c = skip ? giant[0] : -1;
  volatile int* vc = comp;
  for (long long u = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / LANES; u < n;
       u += groups) {
    if (skip && vc[u] == c) continue;
    const long long lo = indptr[u], hi = indptr[u + 1];
    if (hi - lo > limit) {
      if (lane == 0) {
        const long long count = (hi - lo + segment - 1) / segment;
        const long long at = (long long)atomicAdd((unsigned long long*)hubs, (unsigned long long)count);
        for (long long b = 0; b < count; ++b) {
          hubs[1 + 2 * (at + b)] = u;
          hubs[2 + 2 * (at + b)] = b;
        }
      }
      continue;
    }
    for (long long e = lo + first + lane; e < hi; e += LANES)
      kl_cc_link((int)u, (int)indices[e], comp);
  }
}

// The segments kl_cc_finish listed, a block each (grid-stride over the list): the whole
// row, its first neighbours linked again (a link within one tree is a no-op).
template <typename I>
__global__ void kl_cc_hubs(const long long* __restrict__ indptr, const I* __restrict__ indices,
                           int* comp, const long long* __restrict__ hubs, long long segment) {
  const long long count = hubs[0];
  for (long long s = blockIdx.x; s < count; s += gridDim.x) {
    const int u = (int)hubs[1 + 2 * s];
    const long long lo = indptr[u] + hubs[2 + 2 * s] * segment;
    const long long end = indptr[u + 1];
    const long long hi = lo + segment < end ? lo + segment : end;
    for (long long e = lo + threadIdx.x; e < hi; e += blockDim.x) kl_cc_link(u, (int)indices[e], comp);
  }
}

// rank[v] = 1 where v is a root (comp[v] == v), else 0: cumsummed into each root's rank.
// Numbering the components (analytics/components.py, numbered_roots): each root (comp[v]
// == v) gets its rank among the roots, counted from 1, in two kernels over gridDim.x
// tiles of ceil(n / gridDim.x) vertices (the same grid for both): kl_cc_tile_roots
// counts each tile's roots, kl_cc_rank adds the counts of the tiles before its own and
// scans its tile 256 vertices at a time, and its last block writes the number of roots
// to *count. (A library prefix sum over every vertex costs more host time than the
// kernels; integer sums, so the ranks do not depend on any order.) Blocks of 256.
__global__ void __launch_bounds__(256)
kl_cc_tile_roots(const int* __restrict__ comp, long long n, int* __restrict__ tiles) {
  const long long len = (n + gridDim.x - 1) / gridDim.x;
  const long long lo = blockIdx.x * len, hi = lo + len < n ? lo + len : n;
  int roots = 0;
  for (long long base = lo; base < hi; base += blockDim.x) {
    const long long v = base + threadIdx.x;
    roots += __syncthreads_count(v < hi && comp[v] == (int)v);
  }
  if (threadIdx.x == 0) tiles[blockIdx.x] = roots;
}

__global__ void __launch_bounds__(256)
kl_cc_rank(const int* __restrict__ comp, long long n, const int* __restrict__ tiles,
           int* __restrict__ rank, int* __restrict__ count) {
  __shared__ int warp_sums[8];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // the roots of the tiles before this one
  int before = 0;
  for (unsigned t = threadIdx.x; t < blockIdx.x; t += blockDim.x) before += tiles[t];
  for (int o = 16; o; o >>= 1) before += __shfl_xor_sync(0xffffffffu, before, o);
  if (lane == 0) warp_sums[warp] = before;
  __syncthreads();
  before = 0;
  for (int w = 0; w < 8; ++w) before += warp_sums[w];
  __syncthreads();
  const long long len = (n + gridDim.x - 1) / gridDim.x;
  const long long lo = blockIdx.x * len, hi = lo + len < n ? lo + len : n;
  for (long long base = lo; base < hi; base += blockDim.x) {
    const long long v = base + threadIdx.x;
    const int root = v < hi && comp[v] == (int)v;
    int incl = root;  // inclusive scan: in the warp by shuffles, then over the warps
    for (int o = 1; o < 32; o <<= 1) {
      const int x = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += x;
    }
    if (lane == 31) warp_sums[warp] = incl;
    __syncthreads();
    int offset = 0, chunk = 0;
    for (int w = 0; w < 8; ++w) {
      offset += w < warp ? warp_sums[w] : 0;
      chunk += warp_sums[w];
    }
    if (root) rank[v] = before + offset + incl;
    before += chunk;
    __syncthreads();  // (warp_sums is rewritten by the next chunk)
  }
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) *count = before;
}

// labels[v] = the rank of v's root among the roots, from 0.
__global__ void kl_cc_label(const int* __restrict__ comp, const int* __restrict__ rank,
                            long long n, int* __restrict__ labels) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride)
    labels[v] = rank[comp[v]] - 1;
}

// long_rows (analytics/components.py), in row order so the sums over them keep a fixed
// order: key[r] = (1 << 32) | (r's segment count) for a row longer than limit, else 0;
// its inclusive prefix sum then holds, per long row, (its rank + 1) << 32 | (the
// segments up to and including its own).
__global__ void kl_long_mark(const long long* __restrict__ indptr, long long n, long long limit,
                             long long segment, long long* __restrict__ key) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride) {
    const long long len = indptr[r + 1] - indptr[r];
    key[r] = len > limit ? (1ll << 32) | ((len + segment - 1) / segment) : 0;
  }
}

// From the prefix sums: rows[k] = the k-th long row, starts[k] its first segment
// (starts[count] = the total), seg_row[b] = the long row segment b belongs to.
__global__ void kl_long_fill(const long long* __restrict__ indptr, const long long* __restrict__ key,
                             long long n, long long limit, long long segment,
                             long long* __restrict__ rows, long long* __restrict__ starts,
                             long long* __restrict__ seg_row) {
  const long long count = key[n - 1] >> 32;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride) {
    const long long len = indptr[r + 1] - indptr[r];
    if (len <= limit) continue;
    const long long k = (key[r] >> 32) - 1;
    const long long nseg = (len + segment - 1) / segment;
    const long long end = key[r] & 0xffffffffll;
    rows[k] = r;
    starts[k] = end - nseg;
    if (k == count - 1) starts[count] = end;
    for (long long b = end - nseg; b < end; ++b) seg_row[b] = k;
  }
}

#undef KL_CC_SAMPLES
