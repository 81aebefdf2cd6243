// Shortest paths from many sources at once (kleene.ops.cuda.sources: sssp_rows).
//
// Frontier Bellman-Ford for up to 64 sources per group, bit-packed: each vertex has a
// frontier word whose bit b says "source b of the group improved this vertex last
// round", and the group's distances are laid out vertex-major (dist[v << lb | b],
// 2^lb sources per group), so the 2^lb distances of one vertex are contiguous and the
// lanes of a warp that relax one edge for several sources touch one or two cache lines.
// Several groups run in the same launch as disjoint copies of the graph: virtual vertex
// g * n + v is vertex v of group g (the all-pairs case: many small groups, one launch).
//
// A round: for every vertex u of the frontier, every out-edge u -> v and every set bit
// b of u's word, dist[v, b] = min(dist[v, b], dist[u, b] + w) by a 64-bit atomic min
// (non-negative doubles order like their bit patterns read as int64), and an
// improvement sets bit b of v's word for the next round (atomicOr; the first bit
// appends v to the next queue). Per warp the (edge, bit) pairs of a vertex are laid
// end to end, so a vertex with one set bit spreads its edges over the lanes and one
// with 64 spreads its bits. Vertices with many out-edges also join a heavy list whose
// packed counter hands out chunks of KL_MS_CHUNK edges to every warp of the grid.
//
// MODE 0 computes distances; MODE 1, run after it, the predecessors: a BFS over the
// tight edges (dist[u, b] + w == dist[v, b], u != v, the same float sum as MODE 0 stored)
// from each source, level by level, with parent[v, b] = the smallest u one level up
// (atomicMin). That is the composed form's rule (kleene.ops.sources._tree), and BFS
// order keeps the chains acyclic across zero-weight cycles.
//
// The *_run kernels do every round in one cooperative launch with a grid barrier
// between rounds; kl_msp_step does one round (the fallback). Results do not depend on
// scheduling: distances are the fixed point of a monotone relaxation (the least float
// sum over paths), levels are set by compare-and-swap (every writer in a level writes
// the same value), parents by atomicMin. Mutable state is read with __ldcg: L1 is not
// coherent between SMs within a launch.
//
// Rotation (round r = 1, 2, ...): queue, words and count (r - 1) % 3 are the input, r % 3
// the output; the words of queue (r - 2) % 3 are cleared during round r (they are the
// output of round r + 1); heavy lists alternate by r % 2. Round 0 is kl_msp_init.
#define KL_MS_T 256                  // threads per block
#define KL_MS_W (KL_MS_T / 32)       // warps per block
#define KL_MS_NO_PARENT 2147483647   // parents start here; atomicMin keeps the smallest
#define KL_MS_CHUNK 32               // edges of a heavy vertex per warp task
#define KL_MS_SLOT_BITS 24           // heavy counter: (chunks so far << 24) | vertices
#define KL_MS_SLOT_MASK ((1ull << KL_MS_SLOT_BITS) - 1ull)

struct kl_ms_graph {
  const long long* __restrict__ indptr;
  const int* __restrict__ indices;
  const double* __restrict__ w;
  int n;           // vertices of the graph
  int lb;          // log2(sources per group): the stride of the vertex-major arrays
  long long heavy; // out-degree above which a vertex goes on the heavy list
  double* dist;    // [(g * n + v) << lb | b]
  int* level;      // MODE 1: BFS level over tight edges, -1 before
  int* parent;     // MODE 1: smallest parent one level up, KL_MS_NO_PARENT before
};

struct kl_ms_next {
  unsigned long long* words;  // the next frontier's words (all zero on entry)
  int* q;
  int* count;
  int* hv;
  long long* ho;
  unsigned long long* hcount;
};

// Put virtual vertex v (out-degree deg) on the heavy list when deg > heavy: one atomic
// gives its slot and the offset of its first chunk (offsets grow with the slot).
__device__ __forceinline__ void kl_ms_heavy_push(int v, long long deg, long long heavy,
                                                 int* hv, long long* ho,
                                                 unsigned long long* hcount) {
  if (deg <= heavy) return;
  const unsigned long long chunks = (unsigned long long)((deg + KL_MS_CHUNK - 1) / KL_MS_CHUNK);
  const unsigned long long packed = atomicAdd(hcount, (chunks << KL_MS_SLOT_BITS) + 1ull);
  const long long slot = (long long)(packed & KL_MS_SLOT_MASK);
  hv[slot] = v;
  ho[slot] = (long long)(packed >> KL_MS_SLOT_BITS);
}

// Append the flagged lanes' v to the next queue (one atomic per warp). All 32 lanes call.
__device__ __forceinline__ void kl_ms_append(bool flag, int v, long long deg, long long heavy,
                                             const kl_ms_next& nx) {
  const unsigned mask = __ballot_sync(KL_FULL_MASK, flag);
  if (!mask) return;
  if (flag) kl_ms_heavy_push(v, deg, heavy, nx.hv, nx.ho, nx.hcount);
  const int lane = threadIdx.x & 31;
  int base = 0;
  if (lane == 0) base = atomicAdd(nx.count, __popc(mask));
  base = __shfl_sync(KL_FULL_MASK, base, 0);
  if (flag) nx.q[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

// Relax edges [e0, e1) of virtual vertex u for the set bits of fw (warp-uniform
// arguments; all 32 lanes call). s_du / s_pos: this warp's 64-entry shared scratch.
template <int MODE>
__device__ __forceinline__ void kl_ms_edges(const kl_ms_graph& g, int u, long long e0,
                                            long long e1, unsigned long long fw, int round,
                                            const kl_ms_next& nx, double* s_du,
                                            unsigned char* s_pos) {
  const int lane = threadIdx.x & 31;
  const int c = __popcll(fw);
  __syncwarp();  // the warp's previous items are done with s_du / s_pos
  for (int j = lane; j < 64; j += 32) {
    if ((fw >> j) & 1ull) {
      const int rank = __popcll(fw & ((1ull << j) - 1ull));
      s_pos[rank] = (unsigned char)j;
      s_du[rank] = __ldcg(g.dist + (((long long)u << g.lb) + j));
    }
  }
  __syncwarp();
  const int vbase = u - u % g.n;
  // At most max(heavy, KL_MS_CHUNK) * 64 items (heavy < 2^24): int arithmetic.
  const int items = (int)(e1 - e0) * c;
  for (int i0 = 0; i0 < items; i0 += 32) {
    const int it = i0 + lane;
    bool fresh = false;
    int v = 0;
    long long deg = 0;
    if (it < items) {
      const int eo = it / c;  // consecutive lanes: the bits of one edge, then the next edge
      const int j = it - eo * c;
      const long long e = e0 + eo;
      v = vbase + g.indices[e];
      const int b = s_pos[j];
      const double cand = s_du[j] + g.w[e];
      const long long at = ((long long)v << g.lb) + b;
      bool improved = false;
      if (MODE == 0) {
        if (cand < __ldcg(g.dist + at)) {
          const long long old =
              atomicMin(reinterpret_cast<long long*>(g.dist + at), __double_as_longlong(cand));
          improved = cand < __longlong_as_double(old);
        }
      } else if (v != u && cand == __ldcg(g.dist + at)) {  // a tight edge
        int lv = __ldcg(g.level + at);
        if (lv < 0) {
          lv = atomicCAS(g.level + at, -1, round);
          improved = lv < 0;
          if (improved) lv = round;
        }
        if (lv == round) atomicMin(g.parent + at, u - vbase);
      }
      if (improved) {
        fresh = atomicOr(nx.words + v, 1ull << b) == 0ull;
        if (fresh) deg = g.indptr[v - vbase + 1] - g.indptr[v - vbase];
      }
    }
    kl_ms_append(fresh, v, deg, g.heavy, nx);
  }
}

// One round: clear the words of the queue before last, relax the heavy list's
// chunks (spread over all warps), then the light vertices (a warp each).
template <int MODE>
__device__ __forceinline__ void kl_ms_round(const kl_ms_graph& g, unsigned long long* words,
                                            int* queues, int* hv, long long* ho, long long hcap,
                                            int nv, int* counts, unsigned long long* hcounts,
                                            int round, int n_prev, int n_in, double* s_du,
                                            unsigned char* s_pos, int warp, int nwarps) {
  const int in = (round - 1) % 3, out = round % 3, prev = (round + 1) % 3;  // prev: (r-2)%3
  if (blockIdx.x == 0 && threadIdx.x == 0) {  // read by nobody since the last barrier
    counts[prev] = 0;
    hcounts[prev] = 0;
  }
  const kl_ms_next nx = {words + (long long)out * nv, queues + (long long)out * nv, counts + out,
                         hv + (long long)(round & 1) * hcap, ho + (long long)(round & 1) * hcap,
                         hcounts + out};
  {  // the words of round r - 2's queue: zero again before round r + 1 writes them
    unsigned long long* wp = words + (long long)prev * nv;
    const int* qp = queues + (long long)prev * nv;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n_prev; i += stride)
      wp[__ldcg(qp + i)] = 0ull;
  }
  const unsigned long long* w_in = words + (long long)in * nv;
  // Heavy vertices: chunks of KL_MS_CHUNK edges, one per warp task.
  const int* hv_in = hv + (long long)((round - 1) & 1) * hcap;
  const long long* ho_in = ho + (long long)((round - 1) & 1) * hcap;
  const unsigned long long hpacked = __ldcg(hcounts + in);
  const int hn = (int)(hpacked & KL_MS_SLOT_MASK);
  const long long chunks = (long long)(hpacked >> KL_MS_SLOT_BITS);
  for (long long p = warp; p < chunks; p += nwarps) {
    const int lo = kl_heavy_slot(ho_in, hn, p);  // the slot of chunk p (all lanes)
    const int u = __ldcg(hv_in + lo);
    const int r = u % g.n;
    const long long beg = g.indptr[r] + (p - __ldcg(ho_in + lo)) * KL_MS_CHUNK;
    const long long end = min(beg + (long long)KL_MS_CHUNK, g.indptr[r + 1]);
    kl_ms_edges<MODE>(g, u, beg, end, __ldcg(w_in + u), round, nx, s_du, s_pos);
  }
  // Light vertices: a warp per vertex.
  const int* q_in = queues + (long long)in * nv;
  for (int i = warp; i < n_in; i += nwarps) {
    const int u = __ldcg(q_in + i);
    const int r = u % g.n;
    const long long beg = g.indptr[r], end = g.indptr[r + 1];
    if (end - beg > g.heavy) continue;  // on the heavy list
    kl_ms_edges<MODE>(g, u, beg, end, __ldcg(w_in + u), round, nx, s_du, s_pos);
  }
}

// Round 0: source i of the launch is bit i % 2^lb of group i / 2^lb. MODE 0 sets its
// distance to 0, MODE 1 its level to 0; its virtual vertex joins queue 0 (once).
template <int MODE>
__global__ void __launch_bounds__(KL_MS_T)
kl_msp_init(const long long* __restrict__ sources, int k, const long long* __restrict__ indptr,
            int n, int lb, long long heavy, double* dist, int* level,
            unsigned long long* words, int* q, int* count, int* hv, long long* ho,
            unsigned long long* hcount) {
  const int i = (int)(blockIdx.x * (long long)blockDim.x + threadIdx.x);
  if (i >= k) return;
  const int s = (int)sources[i];
  const int b = i & ((1 << lb) - 1);
  const int u = (i >> lb) * n + s;
  const long long at = ((long long)u << lb) + b;
  if (MODE == 0) dist[at] = 0.0;
  else level[at] = 0;
  if (atomicOr(words + u, 1ull << b) == 0ull) {
    q[atomicAdd(count, 1)] = u;
    kl_ms_heavy_push(u, indptr[s + 1] - indptr[s], heavy, hv, ho, hcount);
  }
}

// Every round in one cooperative launch, after kl_msp_init: words (3 * nv), queues
// (3 * nv), hv / ho (2 * hcap), counts (3) and hcounts (3) as the init left them (the
// rest zero), bar[0..2) zero. Stops when a round's output is empty or after max_rounds;
// on exit state[0] = rounds run, state[1] = the last output's size (0: converged).
template <int MODE>
__global__ void __launch_bounds__(KL_MS_T, 2)
kl_msp_run(const long long* __restrict__ indptr, const int* __restrict__ indices,
           const double* __restrict__ w, int n, int nv, int lb, long long heavy, double* dist,
           int* level, int* parent, unsigned long long* words, int* queues, int* hv,
           long long* ho, long long hcap, int* counts, unsigned long long* hcounts,
           unsigned* bar, int* state, int max_rounds) {
  __shared__ double s_du[KL_MS_W][64];
  __shared__ unsigned char s_pos[KL_MS_W][64];
  const kl_ms_graph g = {indptr, indices, w, n, lb, heavy, dist, level, parent};
  const int wib = threadIdx.x >> 5;
  const int warp = (int)((blockIdx.x * (long long)KL_MS_T + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_MS_T >> 5);
  int n_prev = 0, n_in = __ldcg(counts);
  int round = 0;
  while (n_in > 0 && round < max_rounds) {
    ++round;
    kl_ms_round<MODE>(g, words, queues, hv, ho, hcap, nv, counts, hcounts, round, n_prev, n_in,
                      s_du[wib], s_pos[wib], warp, nwarps);
    kl_grid_sync(bar);
    n_prev = n_in;
    n_in = __ldcg(counts + round % 3);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    state[0] = round;
    state[1] = n_in;
  }
}

// One round (the non-cooperative fallback); the host passes the last two queue sizes
// and reads counts[round % 3] afterwards.
template <int MODE>
__global__ void __launch_bounds__(KL_MS_T)
kl_msp_step(const long long* __restrict__ indptr, const int* __restrict__ indices,
            const double* __restrict__ w, int n, int nv, int lb, long long heavy, double* dist,
            int* level, int* parent, unsigned long long* words, int* queues, int* hv,
            long long* ho, long long hcap, int* counts, unsigned long long* hcounts, int round,
            int n_prev, int n_in) {
  __shared__ double s_du[KL_MS_W][64];
  __shared__ unsigned char s_pos[KL_MS_W][64];
  const kl_ms_graph g = {indptr, indices, w, n, lb, heavy, dist, level, parent};
  const int wib = threadIdx.x >> 5;
  const int warp = (int)((blockIdx.x * (long long)KL_MS_T + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_MS_T >> 5);
  kl_ms_round<MODE>(g, words, queues, hv, ho, hcap, nv, counts, hcounts, round, n_prev, n_in,
                    s_du[wib], s_pos[wib], warp, nwarps);
}

// The launch's results into rows of the (k, n) outputs: a 32 x 32 tile transpose of the
// vertex-major arrays (block 32 x 8). Parents become int64, -1 for none (the sources
// and unreachable vertices).
template <bool PRED>
__global__ void __launch_bounds__(KL_MS_T)
kl_msp_out(const double* __restrict__ dist, const int* __restrict__ parent, int n, int lb,
           int k, double* out_d, long long* out_p) {
  __shared__ double td[32][33];
  __shared__ int tp[32][33];
  const int v0 = blockIdx.x * 32, i0 = blockIdx.y * 32;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = i0 + tx;
  for (int j = ty; j < 32; j += 8) {
    const int v = v0 + j;
    if (i < k && v < n) {
      const long long at = ((long long)((i >> lb) * n + v) << lb) + (i & ((1 << lb) - 1));
      td[j][tx] = dist[at];
      if (PRED) tp[j][tx] = parent[at];
    }
  }
  __syncthreads();
  const int v = v0 + tx;
  for (int j = ty; j < 32; j += 8) {
    const int row = i0 + j;
    if (row < k && v < n) {
      const long long o = (long long)row * n + v;
      out_d[o] = td[tx][j];
      if (PRED) {
        const int p = tp[tx][j];
        out_p[o] = p == KL_MS_NO_PARENT ? -1ll : (long long)p;
      }
    }
  }
}

#undef KL_MS_T
#undef KL_MS_W
#undef KL_MS_NO_PARENT
#undef KL_MS_CHUNK
#undef KL_MS_SLOT_BITS
#undef KL_MS_SLOT_MASK
