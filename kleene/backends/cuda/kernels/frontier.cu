// Fused frontier steps for BFS and Bellman-Ford (kleene.ops.cuda.frontier).
//
// One BFS level is the masked product q' = q (any.pair) A under the complement of
// the visited set, with replace, followed by levels<q'> = depth (and parents<q'> =
// the smallest frontier neighbour, the min.first product): here both happen in one
// pass over the frontier's edges. One Bellman-Ford round is t = q (min.plus) A,
// then d<t < d> = t and q' = the improved entries, again in one pass.
//
// The *_run kernels do every level in one cooperative launch, with a grid-wide
// barrier between levels, so the hundreds of levels of a road graph cost no host
// round trip; the *_step kernels do one level each (the fallback where a
// cooperative launch is not available). Mutable state (levels, dist, queues,
// counters) is read with __ldcg: L1 is not coherent between SMs within a launch.
// The barrier (grid.cuh) is our own (no cooperative_groups header, so the template can sit
// in a namespace like every other); the cooperative launch only guarantees that
// all blocks are resident at once, which the barrier needs.
//
// Results do not depend on scheduling: levels are set by compare-and-swap (every
// writer in a level writes the same depth), parents by atomicMin over all frontier
// neighbours (pull scans in-edges in ascending order and stops at the first, the
// same vertex), distances by an atomic min of path sums (the fixed point of a
// monotone relaxation). Only the order of vertices inside a queue varies.
//
// Beamer's switches KL_TO_PULL (pull once the frontier's out-edges m_f exceed 1/KL_TO_PULL
// of the edges still to check, m_u: stored edges less every pushed frontier's m_f) and
// KL_TO_PUSH (push once the frontier has fewer than n/KL_TO_PUSH vertices and shrinks)
// come from codegen, from kleene.ops.direction: the host loops switch at the same counts.
#if !defined(KL_TO_PULL) || !defined(KL_TO_PUSH)
#error "KL_TO_PULL / KL_TO_PUSH are generated (kleene.ops.cuda.codegen.frontier_spec)"
#endif
#define KL_FT 256               // threads per block
#define KL_NO_PARENT 2147483647 // parents start here; atomicMin finds the smallest

// ---- BFS ---------------------------------------------------------------------

// Where the next frontier goes. Vertices of out-degree above `heavy` also join a
// heavy list whose packed counter holds (edges so far << 24 | count): one atomic
// gives both a slot and the vertex's offset in the heavy edge space, so offsets
// grow with the slot and a binary search maps an edge position to its vertex.
// `edges` sums the frontier's out-degrees (Beamer's m_f). `rows`, where a loop keeps
// one, holds each entry's CSR row bounds beside q (two per entry): the append loads them
// anyway (the degree), and the next level reads them with the vertex, not after it (one
// dependent L2 round trip less a level, which counts on road graphs' thousands of levels).
struct kl_next {
  int* q;
  int* count;
  int* hv;
  long long* ho;
  unsigned long long* hcount;
  unsigned long long* edges;
  long long* rows = nullptr;
};

// A level's double buffer: `in` is read (this level's frontier), `out` written (the
// next one's); the whole-run loops swap them between levels.
template <typename T>
struct kl_pair {
  T* in;
  T* out;
  __device__ __forceinline__ void swap() {
    T* t = in;
    in = out;
    out = t;
  }
};

// Frontier entry i: its vertex, and its row bounds (from `rows` where kept).
__device__ __forceinline__ int kl_entry(const int* q, const long long* rows,
                                        const long long* __restrict__ indptr, int i,
                                        long long& beg, long long& end) {
  const int u = __ldcg(q + i);
  if (rows) {
    const longlong2 r = __ldcg(reinterpret_cast<const longlong2*>(rows) + i);
    beg = r.x;
    end = r.y;
  } else {
    beg = indptr[u];
    end = indptr[u + 1];
  }
  return u;
}

#define KL_SLOT_BITS 24
#define KL_SLOT_MASK ((1ull << KL_SLOT_BITS) - 1ull)

// Stage the flagged lanes' v, of row [beg, end) (read from `indptr` where READ_ROWS),
// for the next frontier nx. All 32 lanes call.
template <bool READ_ROWS>
__device__ __forceinline__ void kl_stage_at(bool flag, int v, long long beg, long long end,
                                            const long long* __restrict__ indptr,
                                            long long heavy, const kl_next& nx, kl_stage& st) {
  const unsigned mask = __ballot_sync(KL_FULL_MASK, flag);
  if (!mask) return;
  const int lane = threadIdx.x & 31;
  const int k = __popc(mask);
  if (st.n + k > KL_STAGE) kl_stage_flush(st, nx.q, nx.count, nx.rows);
  if (flag) {
    if (READ_ROWS) {
      beg = indptr[v];
      end = indptr[v + 1];
    }
    const int at = st.n + __popc(mask & ((1u << lane) - 1u));
    st.v[at] = v;
    st.rows[at] = make_longlong2(beg, end);
    const long long deg = end - beg;
    st.deg += deg;
    if (deg > heavy) {
      const unsigned long long packed =
          atomicAdd(nx.hcount, ((unsigned long long)deg << KL_SLOT_BITS) + 1ull);
      const long long slot = (long long)(packed & KL_SLOT_MASK);
      nx.hv[slot] = v;
      nx.ho[slot] = (long long)(packed >> KL_SLOT_BITS);
    }
  }
  st.n += k;
}

__device__ __forceinline__ void kl_stage_v(bool flag, int v, const long long* __restrict__ indptr,
                                           long long heavy, const kl_next& nx, kl_stage& st) {
  kl_stage_at<true>(flag, v, 0, 0, indptr, heavy, nx, st);
}

__device__ __forceinline__ void kl_stage_row(bool flag, int v, long long beg, long long end,
                                             long long heavy, const kl_next& nx, kl_stage& st) {
  kl_stage_at<false>(flag, v, beg, end, nullptr, heavy, nx, st);
}

// The level's end for this warp: the staged rest to the queue, m_f to its counter (where
// the loop reads it: nx.edges not null).
__device__ __forceinline__ void kl_stage_end(kl_stage& st, const kl_next& nx) {
  kl_stage_flush(st, nx.q, nx.count, nx.rows);
  if (!nx.edges) return;
  long long deg = st.deg;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) deg += __shfl_xor_sync(KL_FULL_MASK, deg, off);
  if ((threadIdx.x & 31) == 0 && deg) atomicAdd(nx.edges, (unsigned long long)deg);
  st.deg = 0;
}

// Visit edge u -> v in level `depth`: claim v if unvisited; offer u as its parent.
template <bool PARENTS>
__device__ __forceinline__ bool kl_visit(int u, int v, int* levels, int* parents, int depth,
                                         bool direct) {
  int lv = direct ? -1 : __ldcg(levels + v);
  bool fresh = false;
  if (lv < 0) {
    lv = atomicCAS(levels + v, -1, depth);
    fresh = lv < 0;
    if (fresh) lv = depth;
  }
  if (PARENTS && lv == depth) atomicMin(parents + v, u);
  return fresh;
}

// Push, light vertices: a warp per frontier vertex u of out-degree <= heavy (a
// huge `heavy` takes every vertex here).
template <bool PARENTS>
__device__ __forceinline__ void kl_bfs_push(const long long* __restrict__ indptr,
                                            const int* __restrict__ indices, const int* q_in,
                                            const long long* rows_in, int n_in, long long heavy,
                                            const kl_next& nx, kl_stage& st, int* levels,
                                            int* parents, int depth, int warp, int nwarps,
                                            bool direct) {
  const int lane = threadIdx.x & 31;
  for (int i = warp; i < n_in; i += nwarps) {
    long long beg, end;
    const int u = kl_entry(q_in, rows_in, indptr, i, beg, end);
    if (end - beg > heavy) continue;  // on the heavy list: spread over the grid
    for (long long e0 = beg; e0 < end; e0 += 32) {
      const long long e = e0 + lane;
      bool fresh = false;
      int v = 0;
      if (e < end) {
        v = indices[e];
        fresh = kl_visit<PARENTS>(u, v, levels, parents, depth, direct);
      }
      kl_stage_v(fresh, v, indptr, heavy, nx, st);
    }
  }
}

// Push, heavy vertices: their edges laid end to end, 32 consecutive per warp, so a
// hub of a million edges is spread over the whole grid instead of one warp.
template <bool PARENTS>
__device__ __forceinline__ void kl_bfs_push_heavy(const long long* __restrict__ indptr,
                                                  const int* __restrict__ indices, const int* hv,
                                                  const long long* ho, unsigned long long hpacked,
                                                  long long heavy, const kl_next& nx,
                                                  kl_stage& st, int* levels, int* parents,
                                                  int depth, int warp, int nwarps, bool direct) {
  const int lane = threadIdx.x & 31;
  const int hn = (int)(hpacked & KL_SLOT_MASK);
  const long long total = (long long)(hpacked >> KL_SLOT_BITS);
  for (long long p0 = (long long)warp * 32; p0 < total; p0 += (long long)nwarps * 32) {
    // The warp finds p0's vertex (same addresses: broadcast loads); a lane's p is in
    // it or the next one, since heavy vertices have more than 32 edges.
    const int lo = kl_heavy_slot(ho, hn, p0);
    const long long p = p0 + lane;
    bool fresh = false;
    int v = 0;
    if (p < total) {
      int u;
      v = indices[kl_heavy_edge(indptr, hv, ho, hn, lo, p, u)];
      fresh = kl_visit<PARENTS>(u, v, levels, parents, depth, direct);
    }
    kl_stage_v(fresh, v, indptr, heavy, nx, st);
  }
}

// Pull: a thread per unvisited vertex v, scanning its in-edges (rows of A^T) for
// a vertex of the previous level; stops at the first (the smallest id). Where A^T is A
// (a symmetric graph) the in-row read is the out-row the queue keeps.
template <bool PARENTS>
__device__ __forceinline__ void kl_bfs_pull(const long long* __restrict__ indptr,
                                            const long long* __restrict__ t_indptr,
                                            const int* __restrict__ t_indices, int n,
                                            long long heavy, const kl_next& nx, kl_stage& st,
                                            int* levels, int* parents, int depth, int warp,
                                            int nwarps) {
  const int lane = threadIdx.x & 31;
  const bool same = indptr == t_indptr;
  for (long long v0 = (long long)warp * 32; v0 < n; v0 += (long long)nwarps * 32) {
    const int v = (int)(v0 + lane);
    bool found = false;
    long long beg = 0, end = 0;
    if (v < n && __ldcg(levels + v) < 0) {
      beg = t_indptr[v];
      end = t_indptr[v + 1];
      for (long long e = beg; e < end; ++e) {
        const int u = t_indices[e];
        if (__ldcg(levels + u) == depth - 1) {
          found = true;
          levels[v] = depth;  // only this thread writes v in a pull level
          if (PARENTS) parents[v] = u;
          break;
        }
      }
    }
    if (same) kl_stage_row(found, v, beg, end, heavy, nx, st);
    else kl_stage_v(found, v, indptr, heavy, nx, st);
  }
}

// Level 0: the source alone (and on the heavy list if its degree says so).
#if !defined(KL_ONLY) || defined(KL_ONLY_kl_bfs_init)  // not a template: see units.py
__global__ void kl_bfs_init(const long long* __restrict__ indptr, int source, long long heavy,
                            int want_parents, int* levels, int* parents, int* q, long long* rows,
                            int* count, int* hv, long long* ho, unsigned long long* hcount,
                            unsigned long long* edges) {
  const long long deg = indptr[source + 1] - indptr[source];
  levels[source] = 0;
  if (want_parents) parents[source] = -1;
  q[0] = source;
  rows[0] = indptr[source];
  rows[1] = indptr[source + 1];
  *count = 1;
  *edges = (unsigned long long)deg;
  *hcount = 0;
  if (deg > heavy) {
    hv[0] = source;
    ho[0] = 0;
    *hcount = ((unsigned long long)deg << KL_SLOT_BITS) + 1ull;
  }
}
#endif  // KL_ONLY_kl_bfs_init

// The whole BFS in one cooperative launch, after kl_bfs_init. Per-level counters
// (count, hcount, edges: 3 each) rotate by depth % 3; queues (with their row lists)
// and heavy lists alternate between the a and b buffers. bar[0..2) zero. On exit state[0] = the
// last depth tried (its level was empty).
template <bool PARENTS, int METHOD>  // METHOD: 0 direction-optimizing, 1 push, 2 pull
__global__ void __launch_bounds__(KL_FT, 4)
kl_bfs_run(const long long* __restrict__ indptr, const int* __restrict__ indices,
           const long long* __restrict__ t_indptr, const int* __restrict__ t_indices, int n,
           long long nnz, long long heavy, int* levels, int* parents, int* qa, int* qb,
           long long* ra, long long* rb, int* hva, int* hvb, long long* hoa, long long* hob,
           int* counts, unsigned long long* hcounts, unsigned long long* edges, unsigned* bar,
           int* state) {
  const int warp = (int)((blockIdx.x * (long long)KL_FT + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_FT >> 5);
  kl_pair<int> q{qa, qb}, hv{hva, hvb};
  kl_pair<long long> r{ra, rb}, ho{hoa, hob};
  long long nq = 1, previous = 0;  // this frontier's size and the one before
  long long mf = (long long)__ldcg(edges), unexplored = nnz;  // Beamer's m_f and m_u
  bool pull = false;
  int depth = 0;
  unsigned long long hin = __ldcg(hcounts);  // this level's heavy list (packed count)
  __shared__ unsigned long long seen[3];     // the level's counts, read once per block
  KL_STAGE_SHARED(st, KL_FT / 32);
  while (true) {
    ++depth;
    if (METHOD == 2) {
      pull = true;
    } else if (METHOD == 0) {  // as kleene.ops.direction.Switch
      if (!pull) pull = mf * KL_TO_PULL > unexplored;
      else pull = !(nq * KL_TO_PUSH < (long long)n && nq < previous);
      if (!pull) unexplored -= mf;
    }
    const int out = depth % 3, next = (depth + 1) % 3;
    if (blockIdx.x == 0 && threadIdx.x == 0) {  // nobody touches the next level's yet
      counts[next] = 0;
      hcounts[next] = 0;
      edges[next] = 0;
    }
    const kl_next nx = {q.out, counts + out, hv.out, ho.out, hcounts + out, edges + out, r.out};
    if (pull) {
      kl_bfs_pull<PARENTS>(indptr, t_indptr, t_indices, n, heavy, nx, st, levels, parents,
                           depth, warp, nwarps);
    } else {
      const bool direct = mf <= (long long)nwarps * 32;  // few edges: atomics cost nothing
      kl_bfs_push_heavy<PARENTS>(indptr, indices, hv.in, ho.in, hin, heavy, nx, st, levels,
                                 parents, depth, warp, nwarps, direct);
      kl_bfs_push<PARENTS>(indptr, indices, q.in, r.in, (int)nq, heavy, nx, st, levels, parents,
                           depth, warp, nwarps, direct);
    }
    kl_stage_end(st, nx);
    kl_grid_sync(bar, [&] {
      seen[0] = (unsigned long long)__ldcg(counts + out);
      seen[1] = __ldcg(hcounts + out);
      seen[2] = __ldcg(edges + out);
    });
    previous = nq;
    nq = (long long)seen[0];
    if (nq == 0) break;
    hin = seen[1];
    mf = (long long)seen[2];
    q.swap(); hv.swap(); ho.swap(); r.swap();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) state[0] = depth;
}

// One level (the non-cooperative fallback): frontier q_in[0 .. *count_in), a warp
// per vertex (no heavy list). scratch[0] is the unused heavy counter; scratch[1] adds
// up the next frontier's out-degrees (m_f; the caller zeroes it per level).
template <bool PARENTS, bool PULL>
__global__ void __launch_bounds__(KL_FT)
kl_bfs_step(const long long* __restrict__ indptr, const int* __restrict__ indices,
            const long long* __restrict__ t_indptr, const int* __restrict__ t_indices, int n,
            const int* q_in, const int* count_in, int* q_out, int* count_out,
            unsigned long long* scratch, int* levels, int* parents, int depth) {
  const int warp = (int)((blockIdx.x * (long long)KL_FT + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_FT >> 5);
  const long long no_heavy = 0x7fffffffffffffffLL;
  const kl_next nx = {q_out, count_out, nullptr, nullptr, scratch, scratch + 1};
  KL_STAGE_SHARED(st, KL_FT / 32);
  if (PULL)
    kl_bfs_pull<PARENTS>(indptr, t_indptr, t_indices, n, no_heavy, nx, st, levels, parents,
                         depth, warp, nwarps);
  else
    kl_bfs_push<PARENTS>(indptr, indices, q_in, nullptr, __ldcg(count_in), no_heavy, nx, st,
                         levels, parents, depth, warp, nwarps, false);
  kl_stage_end(st, nx);
}

// ---- Bellman-Ford ----------------------------------------------------------------

// d = min(d, v) atomically; returns the previous value.
__device__ __forceinline__ double kl_atomic_min_f64(double* p, double v) {
  unsigned long long* a = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = __ldcg(a);
  while (v < __longlong_as_double((long long)old)) {
    const unsigned long long prev = atomicCAS(a, old, (unsigned long long)__double_as_longlong(v));
    if (prev == old) break;
    old = prev;
  }
  return __longlong_as_double((long long)old);
}

// d = min(d, v) where every distance is non-negative (non-negative weights from a
// source at +0.0): such doubles order as their bits read as signed 64-bit integers,
// so one atomicMin does it, with no CAS loop to retry under contention at hubs.
template <bool NONNEG>
__device__ __forceinline__ double kl_dist_min(double* p, double v) {
  if (NONNEG)
    return __longlong_as_double(
        atomicMin(reinterpret_cast<long long*>(p), __double_as_longlong(v)));
  return kl_atomic_min_f64(p, v);
}

// Relax edge u -> v (weight wv) from distance du: an improved v joins the next
// frontier once per round (stamp[v] = round).
template <bool NONNEG>
__device__ __forceinline__ bool kl_bf_edge(double du, double wv, int v, double* dist, int* stamp,
                                           int round) {
  const double nd = du + wv;
  if (nd < __ldcg(dist + v) && nd < kl_dist_min<NONNEG>(dist + v, nd))
    return atomicExch(stamp + v, round) != round;
  return false;
}

// One relaxation from the light frontier vertices (out-degree <= heavy): a warp per
// vertex u, lanes over its edges. Weights W (float or double) are read as stored;
// distances add in double. Heavy vertices are on the heavy list (kl_relax_heavy).
template <typename W, bool NONNEG>
__device__ __forceinline__ void kl_relax(const long long* __restrict__ indptr,
                                         const int* __restrict__ indices,
                                         const W* __restrict__ w, const int* q_in, int n_in,
                                         long long heavy, const kl_next& nx, kl_stage& st,
                                         double* dist, int* stamp, int round, int warp,
                                         int nwarps) {
  const int lane = threadIdx.x & 31;
  for (int i = warp; i < n_in; i += nwarps) {
    const int u = __ldcg(q_in + i);
    const long long beg = indptr[u], end = indptr[u + 1];
    if (end - beg > heavy) continue;
    const double du = __ldcg(dist + u);
    for (long long e0 = beg; e0 < end; e0 += 32) {
      const long long e = e0 + lane;
      bool fresh = false;
      int v = 0;
      if (e < end) {
        v = indices[e];
        fresh = kl_bf_edge<NONNEG>(du, (double)w[e], v, dist, stamp, round);
      }
      kl_stage_v(fresh, v, indptr, heavy, nx, st);
    }
  }
}

// The heavy frontier vertices' edges laid end to end, 32 consecutive per warp (as
// kl_bfs_push_heavy): an RMAT hub's million edges spread over the whole grid.
template <typename W, bool NONNEG>
__device__ __forceinline__ void kl_relax_heavy(const long long* __restrict__ indptr,
                                               const int* __restrict__ indices,
                                               const W* __restrict__ w, const int* hv,
                                               const long long* ho, unsigned long long hpacked,
                                               long long heavy, const kl_next& nx,
                                               kl_stage& st, double* dist, int* stamp, int round,
                                               int warp, int nwarps) {
  const int lane = threadIdx.x & 31;
  const int hn = (int)(hpacked & KL_SLOT_MASK);
  const long long total = (long long)(hpacked >> KL_SLOT_BITS);
  for (long long p0 = (long long)warp * 32; p0 < total; p0 += (long long)nwarps * 32) {
    const int lo = kl_heavy_slot(ho, hn, p0);
    const long long p = p0 + lane;
    bool fresh = false;
    int v = 0;
    if (p < total) {
      int u;
      const long long e = kl_heavy_edge(indptr, hv, ho, hn, lo, p, u);
      v = indices[e];
      fresh = kl_bf_edge<NONNEG>(__ldcg(dist + u), (double)w[e], v, dist, stamp, round);
    }
    kl_stage_v(fresh, v, indptr, heavy, nx, st);
  }
}

// Bellman-Ford from one source in one cooperative launch: at most max_rounds
// relaxations. On entry dist is inf but dist[source] = 0, stamp all -1, qa[0] =
// source, hcounts[0] the source's heavy-list entry (hva/hoa[0]) or 0, the other
// counters and bar[0..2) zero. Per-round counters rotate by round % 3 and the queues
// and heavy lists alternate, as in kl_bfs_run. On exit state[0] = rounds run,
// state[1] = the last frontier's size (non-zero after max_rounds = n rounds: a
// negative cycle).
template <typename W, bool NONNEG>
__global__ void __launch_bounds__(KL_FT, 2)
kl_bf_run(const long long* __restrict__ indptr, const int* __restrict__ indices,
          const W* __restrict__ w, int max_rounds, long long heavy, double* dist, int* stamp,
          int* qa, int* qb, int* hva, int* hvb, long long* hoa, long long* hob, int* counts,
          unsigned long long* hcounts, unsigned long long* edges, unsigned* bar, int* state) {
  const int warp = (int)((blockIdx.x * (long long)KL_FT + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_FT >> 5);
  kl_pair<int> q{qa, qb}, hv{hva, hvb};
  kl_pair<long long> ho{hoa, hob};
  int nq = 1, round = 0;
  unsigned long long hin = __ldcg(hcounts);  // this round's heavy list (packed count)
  __shared__ unsigned long long seen[2];     // the round's counts, read once per block
  KL_STAGE_SHARED(st, KL_FT / 32);
  while (nq > 0 && round < max_rounds) {
    ++round;
    const int out = round % 3, next = (round + 1) % 3;
    if (blockIdx.x == 0 && threadIdx.x == 0) {  // nobody touches the next round's yet
      counts[next] = 0;
      hcounts[next] = 0;
      edges[next] = 0;
    }
    const kl_next nx = {q.out, counts + out, hv.out, ho.out, hcounts + out, edges + out};
    kl_relax_heavy<W, NONNEG>(indptr, indices, w, hv.in, ho.in, hin, heavy, nx, st, dist,
                              stamp, round, warp, nwarps);
    kl_relax<W, NONNEG>(indptr, indices, w, q.in, nq, heavy, nx, st, dist, stamp, round, warp,
                        nwarps);
    kl_stage_end(st, nx);
    kl_grid_sync(bar, [&] {
      seen[0] = (unsigned long long)__ldcg(counts + out);
      seen[1] = __ldcg(hcounts + out);
    });
    nq = (int)seen[0];
    hin = seen[1];
    q.swap(); hv.swap(); ho.swap();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    state[0] = round;
    state[1] = nq;
  }
}

// One round (the non-cooperative fallback): no heavy list; scratch[0] is the unused
// heavy counter, scratch[1] the unused out-degree sum.
template <typename W, bool NONNEG>
__global__ void __launch_bounds__(KL_FT)
kl_bf_step(const long long* __restrict__ indptr, const int* __restrict__ indices,
           const W* __restrict__ w, const int* q_in, const int* count_in, int* q_out,
           int* count_out, unsigned long long* scratch, double* dist, int* stamp, int round) {
  const int warp = (int)((blockIdx.x * (long long)KL_FT + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_FT >> 5);
  const long long no_heavy = 0x7fffffffffffffffLL;
  const kl_next nx = {q_out, count_out, nullptr, nullptr, scratch, scratch + 1};
  KL_STAGE_SHARED(st, KL_FT / 32);
  kl_relax<W, NONNEG>(indptr, indices, w, q_in, __ldcg(count_in), no_heavy, nx, st, dist, stamp,
                      round, warp, nwarps);
  kl_stage_end(st, nx);
}

#undef KL_FT
#undef KL_NO_PARENT
#undef KL_SLOT_BITS
#undef KL_SLOT_MASK
