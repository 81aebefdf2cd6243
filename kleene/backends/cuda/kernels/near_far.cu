// Near-far shortest paths from one source in one cooperative launch (Davidson et al.,
// "Work-efficient parallel GPU methods for single-source shortest paths", IPDPS 2014,
// Gunrock's near-far pile): delta-stepping with two piles, after frontier.cu.
//
// A round relaxes the near frontier's edges as a Bellman-Ford round does (min_plus vxm,
// d<t < d> = t), but an improved vertex joins the next frontier only if its distance is
// under the threshold; otherwise it goes on the far pile. When the near frontier is
// empty, the far pile is split at the next threshold (the least far distance rounded up
// to a multiple of delta, then up by delta): vertices under it are the next frontier,
// the others stay far, stale entries (improved since into the near frontier, already
// relaxed) are dropped. So the edges of a vertex are relaxed far fewer times than in
// Bellman-Ford, whose every improved vertex relaxes at once (road graphs: 50 times each
// edge against 2 to 4).
//
// Within a round a warp chases: an improved near vertex of low degree goes on the warp's
// own stack instead of the next frontier, and the warp relaxes it in the same round, the
// stack's edges over the lanes together, `chase` levels deep (what the last level improves,
// and what does not fit, goes on the frontier; kl_bfs_rounds does the same for BFS). A
// road graph's shortest paths are chains of thousands of hops; a level of the chase costs
// two dependent L2 round trips (the edge, the update), a hop through the frontier a grid
// barrier too. A chased vertex is not stamped, so another warp that improves it later in
// the round still queues it.
//
// Distances are the fixed point of a monotone relaxation (every vertex whose distance
// drops is relaxed again after its last drop), the same bits whatever the order; the
// order of queue entries varies. Weights must be non-negative (integer atomicMin on the
// distance bits, as kl_dist_min<true>).
//
// Predecessors (kleene.ops.shortest_path_tree where weights grow every sum) are a pass of
// their own after the search (kl_tp_*_kernel): each vertex's smallest-numbered tight
// in-neighbour (d[u] + w(u, v) == d[v]). It has a launch of its own because inside the
// search's launch it would run at the search's 16 warps per SM instead of 64, and the pass
// is bound by memory latency, which only more warps hide.
#define KL_NF_THREADS 256
#define KL_NF_WARPS (KL_NF_THREADS / 32)
#define KL_NF_INF_BITS 0x7ff0000000000000LL
#define KL_TP_LANES 4                   // lanes per light vertex in the parent pass
#define KL_SLOT_BITS_NF 24              // the heavy list's packed counter, as frontier.cu
#define KL_SLOT_MASK_NF ((1ull << KL_SLOT_BITS_NF) - 1ull)

struct kl_far {
  int* q;
  int* count;
  int* stamp;  // stamp[v] == phase: v is already on this phase's far pile
  int phase;
};

// Relax u -> v: true (near) if v improved under thr, true (far) if v improved at or over
// it and is not on the far pile yet (then it is stamped).
__device__ __forceinline__ void kl_nf_edge(double du, double wv, int v, double* dist, double thr,
                                           const kl_far& far, bool& near, bool& to_far,
                                           bool direct = false) {
  const double nd = du + wv;
  if ((direct || nd < __ldcg(dist + v)) && nd < kl_dist_min<true>(dist + v, nd)) {
    if (nd < thr) near = true;
    else to_far = atomicExch(far.stamp + v, far.phase) != far.phase;
  }
}

// Frontier vertex v joins the next frontier once per round (stamp[v] = round). All lanes.
__device__ __forceinline__ void kl_nf_queue(bool flag, int v, int* stamp, int round,
                                            const long long* __restrict__ indptr, long long heavy,
                                            const kl_next& nx, kl_stage& st) {
  if (flag) flag = atomicExch(stamp + v, round) != round;
  kl_stage_v(flag, v, indptr, heavy, nx, st);
}

// Relax x -> v (edge e): where it improves v under thr, push v on the warp's stack `d` if
// `chase`, it has at most 32 edges and there is room; else queue it (kl_nf_queue); over
// thr, the far pile. `rows_first`: read v's row with the update, not after it (small
// frontiers, where the round trip counts; not on big ones, where the extra reads do).
// All lanes call.
template <typename W>
__device__ __forceinline__ void kl_nf_visit(bool valid, double dx, long long e,
                                            const long long* __restrict__ indptr,
                                            const int* __restrict__ indices,
                                            const W* __restrict__ w, bool chase, bool rows_first,
                                            kl_stacks& s, int d, int& top, const kl_next& nx,
                                            kl_stage& st, const kl_far& far, kl_stage& fst,
                                            double* dist, int* stamp, double thr, int round,
                                            long long heavy) {
  bool near = false, to_far = false;
  int v = 0;
  long long vb = 0, ve = 0;
  if (valid) {
    v = indices[e];
    if (rows_first) {
      vb = indptr[v];
      ve = indptr[v + 1];
    }
    kl_nf_edge(dx, (double)w[e], v, dist, thr, far, near, to_far, rows_first);
    if (near && !rows_first) {
      vb = indptr[v];
      ve = indptr[v + 1];
    }
  }
  kl_stage_push(to_far, v, fst, far.q, far.count);
  const bool pushed = kl_push(near && chase && ve - vb <= 32, v, vb, ve, s, d, top);
  bool queue = near && !pushed;
  if (queue) queue = atomicExch(stamp + v, round) != round;
  kl_stage_row(queue, v, vb, ve, heavy, nx, st);
}

// The light frontier vertices (out-degree <= heavy), a warp each: u's edges, then what
// improves under thr, `chase` levels deep, each level's edges over the lanes together.
template <typename W>
__device__ __forceinline__ void kl_nf_relax(const long long* __restrict__ indptr,
                                            const int* __restrict__ indices,
                                            const W* __restrict__ w, const int* q_in,
                                            const long long* rows_in, int n_in,
                                            long long heavy, int chase, const kl_next& nx,
                                            kl_stage& st, const kl_far& far, kl_stage& fst,
                                            double* dist, int* stamp, double thr, int round,
                                            kl_stacks& s, int warp, int nwarps, bool direct) {
  const int lane = threadIdx.x & 31;
  for (int i = warp; i < n_in; i += nwarps) {
    long long beg, end;
    const int u = kl_entry(q_in, rows_in, indptr, i, beg, end);
    if (end - beg > heavy) continue;  // on the heavy list
    const double du = __ldcg(dist + u);
    int cur = 0, top = 0;
    for (long long e0 = beg; e0 < end; e0 += 32) {
      const long long e = e0 + lane;
      kl_nf_visit<W>(e < end, du, e, indptr, indices, w, chase > 0, direct, s, cur, top, nx,
                     st, far, fst, dist, stamp, thr, round, heavy);
    }
    for (int d = 1; d <= chase && top > 0; ++d) {
      __syncwarp();
      const int nxt = cur ^ 1;
      int ntop = 0;
      kl_stack_edges(s, cur, top, [&](bool valid, int x, long long e) {
        const double dx = valid ? __ldcg(dist + x) : 0.0;
        kl_nf_visit<W>(valid, dx, e, indptr, indices, w, d < chase, direct, s, nxt, ntop, nx,
                       st, far, fst, dist, stamp, thr, round, heavy);
      });
      cur = nxt;
      top = ntop;
    }
    __syncwarp();
  }
}

// The heavy frontier vertices' edges end to end, 32 per warp (as kl_relax_heavy); no chase.
template <typename W>
__device__ __forceinline__ void kl_nf_relax_heavy(const long long* __restrict__ indptr,
                                                  const int* __restrict__ indices,
                                                  const W* __restrict__ w, const int* hv,
                                                  const long long* ho, unsigned long long hpacked,
                                                  long long heavy, const kl_next& nx,
                                                  kl_stage& st, const kl_far& far, kl_stage& fst,
                                                  double* dist, int* stamp, double thr, int round,
                                                  int warp, int nwarps) {
  const int lane = threadIdx.x & 31;
  const int hn = (int)(hpacked & KL_SLOT_MASK_NF);
  const long long total = (long long)(hpacked >> KL_SLOT_BITS_NF);
  for (long long p0 = (long long)warp * 32; p0 < total; p0 += (long long)nwarps * 32) {
    const int lo = kl_heavy_slot(ho, hn, p0);
    const long long p = p0 + lane;
    bool near = false, to_far = false;
    int v = 0;
    if (p < total) {
      int u;
      const long long e = kl_heavy_edge(indptr, hv, ho, hn, lo, p, u);
      v = indices[e];
      kl_nf_edge(__ldcg(dist + u), (double)w[e], v, dist, thr, far, near, to_far);
    }
    kl_stage_push(to_far, v, fst, far.q, far.count);
    kl_nf_queue(near, v, stamp, round, indptr, heavy, nx, st);
  }
}

// Smallest tight in-neighbour of every vertex, in two passes: 4 lanes per row of at most
// 32 entries, the warp together per row up to `big` (4096), while the others join a heavy
// list (one packed atomic per warp); then the heavy rows' entries end to
// end, 32 per warp, so an RMAT hub's million edges are spread over the grid.
//
// PUSH (rows are out-edges): every edge u -> v of a reached u is tested and the tight ones
// offered to parent[v] by atomicMin. PULL (rows are in-edges, sorted by u: Aᵀ's CSR, or
// A's own when A is symmetric): v's row is read in u order, so its first tight entry is
// the smallest; the scan stops there and writes it, and a hub's chunks skip the entries
// above what another chunk has found. On RMAT-22 a vertex's one tight in-edge (real
// weights) is halfway along its row on average: half the reads, no atomic per edge.
__device__ __forceinline__ bool kl_tight_in(int u, int v, double w, double dv, const double* dist) {
  return u != v && __ldcg(dist + u) + w == dv;
}

// The heavy list's append for the warp's lanes with packed = (row length << 24) + 1.
__device__ __forceinline__ void kl_tp_list(unsigned long long packed, int row, int lane, int* hv,
                                           long long* ho, unsigned long long* hcount) {
  unsigned long long scan = packed;  // inclusive sum over the warp's lanes
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const unsigned long long o = __shfl_up_sync(KL_FULL_MASK, scan, off);
    if (lane >= off) scan += o;
  }
  const unsigned long long total = __shfl_sync(KL_FULL_MASK, scan, 31);
  if (!total) return;
  unsigned long long at = 0;
  if (lane == 0) at = atomicAdd(hcount, total);
  at = __shfl_sync(KL_FULL_MASK, at, 0) + scan - packed;
  if (packed) {
    const long long slot = (long long)(at & KL_SLOT_MASK_NF);
    hv[slot] = row;
    ho[slot] = (long long)(at >> KL_SLOT_BITS_NF);
  }
}

// Row r's entries [beg, end) over the lanes of `mask` (`width` lanes, `sub` this lane's
// place): PUSH offers every tight r -> v; PULL stops at the first tight u -> r.
template <typename W, bool PULL>
__device__ __forceinline__ void kl_tp_row(const int* __restrict__ indices,
                                          const W* __restrict__ w, long long beg, long long end,
                                          int r, double dr, int sub, int width, unsigned mask,
                                          const double* dist, int* parent) {
  for (long long base = beg; base < end; base += width) {  // uniform over the lanes of mask
    const long long e = base + sub;
    const int x = e < end ? indices[e] : r;
    if (!PULL) {
      if (x != r && dr + (double)w[e] == __ldcg(dist + x)) atomicMin(parent + x, r);
      continue;
    }
    const bool tight = x != r && kl_tight_in(x, r, (double)w[e], dr, dist);
    const unsigned hit = __ballot_sync(mask, tight) & mask;
    if (hit) {  // the lowest lane holds the smallest u of the first chunk with one
      if ((int)(threadIdx.x & 31) == __ffs(hit) - 1) parent[r] = x;
      break;
    }
  }
}

template <typename W, bool PULL>
__device__ __forceinline__ void kl_tp_light(const long long* __restrict__ indptr,
                                            const int* __restrict__ indices,
                                            const W* __restrict__ w, int n, long long big,
                                            const double* dist, int* parent, int* hv,
                                            long long* ho, unsigned long long* hcount) {
  const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long ngroups = (long long)gridDim.x * blockDim.x / KL_TP_LANES;
  const int lane = threadIdx.x & 31, sub = lane % KL_TP_LANES;
  const unsigned group = ((1u << KL_TP_LANES) - 1u) << (lane - sub);
  // KL_TP_LANES lanes per row: a warp reads 8 rows at a time, 4 entries of each
  for (long long first = (tid - lane) / KL_TP_LANES; first < n; first += ngroups) {
    const int r = (int)(first + lane / KL_TP_LANES);  // `first` is warp-uniform
    unsigned long long packed = 0;
    bool medium = false;
    if (r < n) {
      const long long beg = indptr[r], end = indptr[r + 1];
      const double dr = __ldcg(dist + r);
      if (dr < __longlong_as_double(KL_NF_INF_BITS)) {
        if (end - beg > big) {
          if (sub == 0) packed = ((unsigned long long)(end - beg) << KL_SLOT_BITS_NF) + 1ull;
        } else if (end - beg > 32) {
          medium = sub == 0;
        } else {
          kl_tp_row<W, PULL>(indices, w, beg, end, r, dr, sub, KL_TP_LANES, group, dist, parent);
        }
      }
    }
    unsigned mid = __ballot_sync(KL_FULL_MASK, medium);
    while (mid) {  // the warp together over each medium row (at most big entries)
      const int src = __ffs(mid) - 1;
      mid &= mid - 1;
      const int h = __shfl_sync(KL_FULL_MASK, r, src);
      kl_tp_row<W, PULL>(indices, w, indptr[h], indptr[h + 1], h, __ldcg(dist + h), lane, 32,
                         KL_FULL_MASK, dist, parent);
    }
    kl_tp_list(packed, r, lane, hv, ho, hcount);
  }
}

template <typename W, bool PULL>
__device__ __forceinline__ void kl_tp_heavy(const long long* __restrict__ indptr,
                                            const int* __restrict__ indices,
                                            const W* __restrict__ w, const double* dist,
                                            int* parent, const int* hv, const long long* ho,
                                            unsigned long long hpacked) {
  const int warp = (int)((blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5);
  const int nwarps = (int)((long long)gridDim.x * blockDim.x >> 5);
  const int lane = threadIdx.x & 31;
  const int hn = (int)(hpacked & KL_SLOT_MASK_NF);
  const long long total = (long long)(hpacked >> KL_SLOT_BITS_NF);
  for (long long p0 = (long long)warp * 32; p0 < total; p0 += (long long)nwarps * 32) {
    const int lo = kl_heavy_slot(ho, hn, p0);
    const long long p = p0 + lane;
    if (p < total) {
      int r;  // (big > 32: a chunk reaches the next row at most)
      const long long e = kl_heavy_edge(indptr, hv, ho, hn, lo, p, r);
      const int x = indices[e];
      if (PULL) {  // only entries under what another chunk of r's row has found
        if (x < __ldcg(parent + r) && kl_tight_in(x, r, (double)w[e], __ldcg(dist + r), dist))
          atomicMin(parent + r, x);
      } else if (x != r && __ldcg(dist + r) + (double)w[e] == __ldcg(dist + x)) {
        atomicMin(parent + x, r);
      }
    }
  }
}

// The search's start, queued before it (no host read): the source at distance 0 on the
// frontier (and on the heavy list if its degree says so), no least far distance yet.
#if !defined(KL_ONLY) || defined(KL_ONLY_kl_nf_init)  // not a template: see units.py
__global__ void kl_nf_init(const long long* __restrict__ indptr, int source, long long heavy,
                           double* dist, int* q, long long* rows, int* hv, long long* ho,
                           unsigned long long* hcount, long long* least) {
  const long long deg = indptr[source + 1] - indptr[source];
  dist[source] = 0.0;
  q[0] = source;
  rows[0] = indptr[source];
  rows[1] = indptr[source + 1];
  least[0] = least[1] = KL_NF_INF_BITS;
  if (deg > heavy) {
    hv[0] = source;
    ho[0] = 0;
    *hcount = ((unsigned long long)deg << KL_SLOT_BITS_NF) + 1ull;
  }
}
#endif  // KL_ONLY_kl_nf_init

// The whole search after kl_nf_init: dist inf but dist[source] = 0, stamp and fstamp
// all -1, qa[0] = source and ra[0..2) its row bounds (and hva/hoa[0], hcounts[0] if the source is heavy), other
// counters, fcounts, bar zero, least[0..2) = +inf bits. Near rounds rotate their
// counters by round % 3 and alternate queues as kl_bf_run; far piles alternate fa/fb at
// each split. On exit state[0] = rounds (splits included), state[1] = splits.
template <typename W>
__global__ void __launch_bounds__(KL_NF_THREADS, 2)
kl_nf_run(const long long* __restrict__ indptr, const int* __restrict__ indices,
          const W* __restrict__ w, int n, long long heavy, double delta, int chase, double* dist,
          int* stamp, int* fstamp, int* qa, int* qb, long long* ra, long long* rb, int* hva,
          int* hvb, long long* hoa, long long* hob, int* fa, int* fb, int* counts, int* fcounts,
          unsigned long long* hcounts, unsigned long long* edges, long long* least,
          unsigned* bar, int* state) {
  __shared__ kl_stacks stacks[KL_NF_WARPS];
  const int warp = (int)((blockIdx.x * (long long)KL_NF_THREADS + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_NF_THREADS >> 5);
  const int lane = threadIdx.x & 31;
  kl_stacks& stack = stacks[threadIdx.x >> 5];
  kl_pair<int> q{qa, qb}, hv{hva, hvb}, far_q{fa, fb};  // far_q: the far pile
  kl_pair<long long> r{ra, rb}, ho{hoa, hob};
  int nq = 1, round = 0, phase = 0, cur = 0;
  double thr = delta;
  unsigned long long hin = __ldcg(hcounts);  // this round's heavy list (packed count)
  // What the last barrier left for everyone, read once per block (kl_grid_sync): the near
  // count, the heavy list, the far pile's count, the least far distance's bits.
  __shared__ long long seen[4];
  KL_STAGE_SHARED(st, KL_NF_WARPS);    // the next frontier's
  KL_STAGE_SHARED_Q(fst, KL_NF_WARPS); // the far pile's
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
    auto after = [&] {  // the round's output, and the far pile the next round may split
      seen[0] = __ldcg(counts + out);
      seen[1] = (long long)__ldcg(hcounts + out);
      seen[2] = __ldcg(fcounts + cur);
    };
    if (nq > 0) {  // a near round
      const kl_far far = {far_q.in, fcounts + cur, fstamp, phase};
      const bool direct = nq <= nwarps;  // a vertex a warp at most: atomics cost nothing
      kl_nf_relax_heavy<W>(indptr, indices, w, hv.in, ho.in, hin, heavy, nx, st, far, fst,
                           dist, stamp, thr, round, warp, nwarps);
      kl_nf_relax<W>(indptr, indices, w, q.in, r.in, nq, heavy, chase, nx, st, far, fst, dist,
                     stamp, thr, round, stack, warp, nwarps, direct);
      kl_stage_end(st, nx);
      kl_stage_flush(fst, far.q, far.count, nullptr);
      kl_grid_sync(bar, after);
    } else {  // the near frontier is empty: split the far pile
      const int nf = (int)seen[2];
      if (nf == 0) break;
      // Pass 1: the least distance still at or over thr (stale entries are under it).
      long long mine = KL_NF_INF_BITS;
      for (long long i = blockIdx.x * (long long)KL_NF_THREADS + threadIdx.x; i < nf;
           i += (long long)gridDim.x * KL_NF_THREADS) {
        const long long bits = __double_as_longlong(__ldcg(dist + __ldcg(far_q.in + i)));
        if (__longlong_as_double(bits) >= thr && bits < mine) mine = bits;
      }
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) {
        const long long o = __shfl_xor_sync(KL_FULL_MASK, mine, off);
        mine = o < mine ? o : mine;
      }
      if (lane == 0 && mine < KL_NF_INF_BITS) atomicMin(least + (phase & 1), mine);
      if (blockIdx.x == 0 && threadIdx.x == 0) least[(phase + 1) & 1] = KL_NF_INF_BITS;
      kl_grid_sync(bar, [&] { seen[3] = __ldcg(least + (phase & 1)); });
      const double m = __longlong_as_double(seen[3]);
      if (!(m < __longlong_as_double(KL_NF_INF_BITS))) break;  // all stale
      const double old = thr;
      thr = (floor(m / delta) + 1.0) * delta;
      if (!(thr > m)) thr = nextafter(m, __longlong_as_double(KL_NF_INF_BITS));
      ++phase;
      // Pass 2: under the new threshold -> the next frontier; over it -> the next pile.
      const kl_far far = {far_q.out, fcounts + (cur ^ 1), fstamp, phase};
      for (long long b = (long long)warp * 32; b < nf; b += (long long)nwarps * 32) {
        const long long i = b + lane;
        bool near = false, to_far = false;
        int v = 0;
        if (i < nf) {
          v = __ldcg(far_q.in + i);
          const double d = __ldcg(dist + v);
          if (d >= old) {
            if (d < thr) near = true;
            else to_far = atomicExch(fstamp + v, phase) != phase;
          }
        }
        kl_stage_push(to_far, v, fst, far.q, far.count);
        kl_nf_queue(near, v, stamp, round, indptr, heavy, nx, st);
      }
      kl_stage_end(st, nx);
      kl_stage_flush(fst, far.q, far.count, nullptr);
      if (blockIdx.x == 0 && threadIdx.x == 0) fcounts[cur] = 0;  // all read it as nf
      cur ^= 1;
      kl_grid_sync(bar, after);
      far_q.swap();
    }
    nq = (int)seen[0];
    hin = (unsigned long long)seen[1];
    q.swap(); hv.swap(); ho.swap(); r.swap();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    state[0] = round;
    state[1] = phase;
  }
}

// The predecessor passes (kleene.ops.shortest_path_tree on the GPU, strict weights): the
// light and medium rows and the heavy list, then the heavy rows' entries. PULL: the rows
// are in-edges sorted by source (kl_tp_row).
template <typename W, bool PULL>
__global__ void __launch_bounds__(KL_NF_THREADS)
kl_tp_light_kernel(const long long* __restrict__ indptr, const int* __restrict__ indices,
                   const W* __restrict__ w, int n, long long big, const double* dist, int* parent,
                   int* hv, long long* ho, unsigned long long* hcount) {
  kl_tp_light<W, PULL>(indptr, indices, w, n, big, dist, parent, hv, ho, hcount);
}

template <typename W, bool PULL>
__global__ void __launch_bounds__(KL_NF_THREADS)
kl_tp_heavy_kernel(const long long* __restrict__ indptr, const int* __restrict__ indices,
                   const W* __restrict__ w, const double* dist, int* parent, const int* hv,
                   const long long* ho, const unsigned long long* hcount) {
  kl_tp_heavy<W, PULL>(indptr, indices, w, dist, parent, hv, ho, __ldcg(hcount));
}

#undef KL_NF_THREADS
#undef KL_NF_WARPS
#undef KL_NF_INF_BITS
#undef KL_SLOT_BITS_NF
#undef KL_TP_LANES
#undef KL_SLOT_MASK_NF
