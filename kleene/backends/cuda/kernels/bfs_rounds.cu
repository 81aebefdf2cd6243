// BFS several levels a round on graphs of low degree (kleene.ops.cuda.frontier, after
// frontier.cu in the same unit: kl_next, kl_entry, kl_stage_row, grid.cuh), and the
// warp stacks near_far.cu chases on too.
#define KL_BR_THREADS 256  // threads per block, as frontier.cu's KL_FT
#define KL_BR_SLOT_BITS 24  // the heavy list's packed counter, as frontier.cu
#define KL_BR_SLOT_MASK ((1ull << KL_BR_SLOT_BITS) - 1ull)

// A road graph's BFS has thousands of levels of a few hundred vertices each: a level is
// a chain of dependent L2 round trips (the frontier entry, its edges, the claim, the
// append) and a grid barrier, not work. Here a round takes `k` levels: a warp expanding
// frontier vertex u (level lu) keeps the neighbours it claims at lu + 1 on its own stack
// in shared memory and expands them at once, and theirs, down to lu + k; only the last
// ones (and what does not fit) go on the next frontier. So k levels cost one barrier and
// one append, and a stack hop two round trips (the edge, the claim; the claimed vertex's
// row is read beside the claim).
//
// A warp may reach a vertex by a longer path before another warp reaches it by a
// shorter one, so levels are claimed by atomicMin (start at INT_MAX) rather than set
// once, and whoever lowers a level owns the vertex: it expands it (stack or next
// frontier) from the level it set. Every lowered vertex is expanded after its last
// lowering, so the levels end as the least path lengths (BFS levels) whatever the order;
// a frontier entry is expanded from its vertex's current level, so a vertex goes on the
// next frontier at most once a round (stamp[v] = round; a round appends at most n, the
// queues' size, however often its vertices are lowered). Vertices of more than 32 edges
// are not stacked (their own frontier entry, or the heavy list above `heavy`).
#define KL_STACK 64  // vertices a warp holds per depth

// A warp's stacks (kl_bfs_rounds, kl_nf_run): two depths of KL_STACK vertices with their
// row start and degree, and room for 32 edge offsets.
struct kl_stacks {
  int v[2][KL_STACK];
  long long beg[2][KL_STACK];
  int deg[2][KL_STACK];
  int off[32];
};

// Push the flagged lanes' w (row [wb, we)) on stack d; false for a lane that found no
// room. All lanes call; `top` becomes the stack's size.
__device__ __forceinline__ bool kl_push(bool flag, int w, long long wb, long long we,
                                        kl_stacks& s, int d, int& top) {
  const int lane = threadIdx.x & 31;
  const unsigned m = __ballot_sync(KL_FULL_MASK, flag);
  const int slot = top + __popc(m & ((1u << lane) - 1u));
  top = min(top + __popc(m), KL_STACK);
  if (!flag || slot >= KL_STACK) return false;
  s.v[d][slot] = w;
  s.beg[d][slot] = wb;
  s.deg[d][slot] = (int)(we - wb);
  return true;
}

// visit(valid, x, e) for every edge e of every vertex x on stack d (top of them), the
// edges laid end to end over the lanes; all lanes call visit, which may push on the
// other stack.
template <typename Visit>
__device__ __forceinline__ void kl_stack_edges(kl_stacks& s, int d, int top, Visit&& visit) {
  const int lane = threadIdx.x & 31;
  for (int s0 = 0; s0 < top; s0 += 32) {
    const int deg = s0 + lane < top ? s.deg[d][s0 + lane] : 0;
    int incl = deg;  // inclusive sum of the lanes' degrees
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int t = __shfl_up_sync(KL_FULL_MASK, incl, o);
      if (lane >= o) incl += t;
    }
    const int total = __shfl_sync(KL_FULL_MASK, incl, 31);
    s.off[lane] = incl - deg;
    __syncwarp();
    for (int t0 = 0; t0 < total; t0 += 32) {
      const int t = t0 + lane;
      int x = 0;
      long long e = 0;
      if (t < total) {
        int lo = 0, hi = 31;  // the last lane whose edges start at or before t
        while (lo < hi) {
          const int mid = (lo + hi + 1) >> 1;
          if (s.off[mid] <= t) lo = mid;
          else hi = mid - 1;
        }
        x = s.v[d][s0 + lo];
        e = s.beg[d][s0 + lo] + (t - s.off[lo]);
      }
      visit(t < total, x, e);
    }
    __syncwarp();
  }
}

// Queue the flagged lanes' w (row [wb, we)) unless it went on the next frontier this round.
__device__ __forceinline__ void kl_queue_once(bool flag, int w, long long wb, long long we,
                                              int* stamp, int round, long long heavy,
                                              const kl_next& nx, kl_stage& st) {
  if (flag) flag = atomicExch(stamp + w, round) != round;
  kl_stage_row(flag, w, wb, we, heavy, nx, st);
}

// Claim w at level lv: true if this lane lowered it (its row is read with the claim).
__device__ __forceinline__ bool kl_claim(const long long* __restrict__ indptr, int* levels, int w,
                                         int lv, long long& wb, long long& we) {
  wb = indptr[w];
  we = indptr[w + 1];
  return atomicMin(levels + w, lv) > lv;
}

// The heavy frontier vertices' edges end to end, 32 per warp (as kl_bfs_push_heavy); the
// vertices they claim go on the next frontier.
__device__ __forceinline__ void kl_rounds_heavy(const long long* __restrict__ indptr,
                                                const int* __restrict__ indices, const int* hv,
                                                const long long* ho, unsigned long long hpacked,
                                                long long heavy, const kl_next& nx, kl_stage& st,
                                                int* levels, int* stamp, int round, int warp,
                                                int nwarps) {
  const int lane = threadIdx.x & 31;
  const int hn = (int)(hpacked & KL_BR_SLOT_MASK);
  const long long total = (long long)(hpacked >> KL_BR_SLOT_BITS);
  for (long long p0 = (long long)warp * 32; p0 < total; p0 += (long long)nwarps * 32) {
    const int lo = kl_heavy_slot(ho, hn, p0);
    const long long p = p0 + lane;
    bool claimed = false;
    int w = 0;
    long long wb = 0, we = 0;
    if (p < total) {
      int u;
      w = indices[kl_heavy_edge(indptr, hv, ho, hn, lo, p, u)];
      claimed = kl_claim(indptr, levels, w, __ldcg(levels + u) + 1, wb, we);
    }
    kl_queue_once(claimed, w, wb, we, stamp, round, heavy, nx, st);
  }
}

// Frontier vertex u (level lu, row [beg, end)) and what it claims, k levels deep (the
// warp together, on its stacks `s`). Vertices of more than 32 edges are not stacked.
__device__ __forceinline__ void kl_rounds_vertex(const long long* __restrict__ indptr,
                                                 const int* __restrict__ indices, int lu,
                                                 long long beg, long long end, int k,
                                                 long long heavy, const kl_next& nx, kl_stage& st,
                                                 int* levels, int* stamp, int round,
                                                 kl_stacks& s) {
  const int lane = threadIdx.x & 31;
  int cur = 0, top = 0;
  for (long long e0 = beg; e0 < end; e0 += 32) {  // depth 1: u's edges over the lanes
    const long long e = e0 + lane;
    bool claimed = false;
    int w = 0;
    long long wb = 0, we = 0;
    if (e < end) {
      w = indices[e];
      claimed = kl_claim(indptr, levels, w, lu + 1, wb, we);
    }
    const bool pushed = kl_push(claimed && k > 1 && we - wb <= 32, w, wb, we, s, cur, top);
    kl_queue_once(claimed && !pushed, w, wb, we, stamp, round, heavy, nx, st);
  }
  for (int d = 2; d <= k && top > 0; ++d) {
    __syncwarp();
    const int nxt = cur ^ 1;
    int ntop = 0;
    kl_stack_edges(s, cur, top, [&](bool valid, int, long long e) {
      bool claimed = false;
      int w = 0;
      long long wb = 0, we = 0;
      if (valid) {
        w = indices[e];
        claimed = kl_claim(indptr, levels, w, lu + d, wb, we);
      }
      const bool pushed = kl_push(claimed && d < k && we - wb <= 32, w, wb, we, s, nxt, ntop);
      kl_queue_once(claimed && !pushed, w, wb, we, stamp, round, heavy, nx, st);
    });
    cur = nxt;
    top = ntop;
  }
  __syncwarp();
}

// BFS levels (no parents) in one cooperative launch, k levels a round, after kl_bfs_init
// with levels at INT_MAX and stamp at 0; counters, queues, row lists and heavy lists as
// kl_bfs_run. On exit state[0] = rounds.
#if !defined(KL_ONLY) || defined(KL_ONLY_kl_bfs_rounds)  // not a template: see units.py
__global__ void __launch_bounds__(KL_BR_THREADS, 2)
kl_bfs_rounds(const long long* __restrict__ indptr, const int* __restrict__ indices, int k,
              long long heavy, int* levels, int* stamp, int* qa, int* qb, long long* ra,
              long long* rb,
              int* hva, int* hvb, long long* hoa, long long* hob, int* counts,
              unsigned long long* hcounts, unsigned long long* edges, unsigned* bar,
              int* state) {
  __shared__ kl_stacks stacks[KL_BR_THREADS / 32];
  __shared__ unsigned long long seen[2];
  KL_STAGE_SHARED(st, KL_BR_THREADS / 32);
  const int warp = (int)((blockIdx.x * (long long)KL_BR_THREADS + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_BR_THREADS >> 5);
  const int wi = threadIdx.x >> 5;
  kl_pair<int> q{qa, qb}, hv{hva, hvb};
  kl_pair<long long> r{ra, rb}, ho{hoa, hob};
  int nq = 1, round = 0;
  unsigned long long hin = __ldcg(hcounts);
  while (true) {
    ++round;
    const int out = round % 3, next = (round + 1) % 3;
    if (blockIdx.x == 0 && threadIdx.x == 0) {  // nobody touches the next round's yet
      counts[next] = 0;
      hcounts[next] = 0;
      edges[next] = 0;
    }
    // m_f is not read here: no edges counter
    const kl_next nx = {q.out, counts + out, hv.out, ho.out, hcounts + out, nullptr, r.out};
    kl_rounds_heavy(indptr, indices, hv.in, ho.in, hin, heavy, nx, st, levels, stamp, round, warp,
                    nwarps);
    for (int i = warp; i < nq; i += nwarps) {
      long long beg, end;
      const int u = kl_entry(q.in, r.in, indptr, i, beg, end);
      if (end - beg > heavy) continue;  // on the heavy list
      kl_rounds_vertex(indptr, indices, __ldcg(levels + u), beg, end, k, heavy, nx, st, levels,
                       stamp, round, stacks[wi]);
    }
    kl_stage_end(st, nx);
    kl_grid_sync(bar, [&] {
      seen[0] = (unsigned long long)__ldcg(counts + out);
      seen[1] = __ldcg(hcounts + out);
    });
    nq = (int)seen[0];
    if (nq == 0) break;
    hin = seen[1];
    q.swap(); hv.swap(); ho.swap(); r.swap();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) state[0] = round;
}
#endif  // KL_ONLY_kl_bfs_rounds

#undef KL_BR_THREADS
#undef KL_BR_SLOT_BITS
#undef KL_BR_SLOT_MASK
#undef KL_STACK
