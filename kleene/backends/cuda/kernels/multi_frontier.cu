// Batched multi-source BFS with bit-packed frontiers (kleene.ops.cuda.multi_frontier).
//
// MS-BFS (Then et al., VLDB 2015): up to 64 searches share one pass over the graph.
// Per vertex v one 64-bit word per array holds a bit per source of the group: `seen`
// (reached so far), `cur` (reached at the previous level: the frontier) and `next`
// (reached at this level). One level is the Boolean product next = cur (any.pair) A
// under the complement of seen, with replace, done on the words: a push scatters
// cur[u] & ~seen[v] into next[v] with atomicOr; a pull ORs cur over v's in-edges
// (rows of A^T) and stops once every bit v still needs is found.
// A pull level may leave some searches (bits) to a push beside it (kl_ms_filter, then
// kl_ms_push with their mask): those whose frontier is still tiny, which a pulled vertex
// would otherwise scan its whole row for.
//
// Results do not depend on scheduling: in a push level a bit of next[v] is set first by
// exactly one atomicOr (the one whose old value lacks it), which writes that bit's level
// (every setter in a level would write the same depth), and seen takes the level's words
// after it (kl_ms_settle before a push; a pull ORs cur into seen itself); a pull level's
// words are each vertex's own. next, seen and levels are thus fixed by the level alone.
// Parents are a separate pass per level: each newly reached v scans its in-edges in
// ascending order and gives each of its new bits the first in-neighbour whose frontier
// word has it (the smallest id one level up, what the min.first product gives). Only the
// order of vertices in a queue varies.
//
// `levels` / `parents` point at the group's first row of the (k, n) int64 results
// (row b is source b of the group): row-major, b * n + v.
#define KL_MS_T 256                 // threads per block
#define KL_MS_LIGHT 64              // pull: in-degrees up to this scan in one thread,
#define KL_MS_DEFER 512             // up to this one warp; above, deferred to the whole grid
#define KL_MS_BLOCKS 4              // push, pull: blocks an SM (<= 64 registers; the host's grid)
#define KL_MS_DEFER_BLOCKS 6        // kl_ms_pull_deferred: blocks an SM (40 registers)
#define KL_MS_CHUNK 256             // pull: vertices a warp takes at a time
#define KL_MS_SLOT_BITS 24
#define KL_MS_SLOT_MASK ((1ull << KL_MS_SLOT_BITS) - 1ull)

typedef unsigned long long kl_bits;

// Bitwise OR over the warp (all 32 lanes call).
__device__ __forceinline__ kl_bits kl_ms_warp_or(kl_bits x) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) x |= __shfl_xor_sync(KL_FULL_MASK, x, off);
  return x;
}

// One level's output frontier: the vertices whose new word is non-zero (q), those of
// out-degree above `heavy` also on a heavy list whose packed counter holds (edges so
// far << 24 | count), so one atomic gives a slot and the vertex's offset in the heavy
// edge space (offsets grow with the slot: a binary search maps an edge to its vertex).
// head: [0] count, [1] heavy packed counter, [2] m_f (sum of out-degrees), [3] OR of
// the new words (the sources whose search is still alive).
struct kl_ms_out {
  int* q;
  int* hv;
  long long* ho;
  kl_bits* head;
};

// Append the flagged lanes' v to the output frontier. All 32 lanes call.
__device__ __forceinline__ void kl_ms_append(bool flag, int v,
                                             const long long* __restrict__ indptr,
                                             long long heavy, const kl_ms_out& out) {
  const unsigned mask = __ballot_sync(KL_FULL_MASK, flag);
  if (!mask) return;
  const int lane = threadIdx.x & 31;
  long long deg = 0;
  if (flag) {
    deg = indptr[v + 1] - indptr[v];
    if (deg > heavy) {
      const kl_bits packed = atomicAdd(out.head + 1, ((kl_bits)deg << KL_MS_SLOT_BITS) + 1ull);
      const long long slot = (long long)(packed & KL_MS_SLOT_MASK);
      out.hv[slot] = v;
      out.ho[slot] = (long long)(packed >> KL_MS_SLOT_BITS);
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) deg += __shfl_xor_sync(KL_FULL_MASK, deg, off);
  kl_bits base = 0;
  if (lane == 0) {
    atomicAdd(out.head + 2, (kl_bits)deg);
    base = atomicAdd(out.head, (kl_bits)__popc(mask));
  }
  base = __shfl_sync(KL_FULL_MASK, base, 0);
  if (flag) out.q[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

// A warp's staging area for the output queue, in shared memory (as stage.cuh's
// kl_stage): the push and pull levels gather their appends here and take one atomic on
// the queue's count a flush of KL_MS_STAGE, and add m_f once a warp, where an append
// straight to the queue took two atomics on the same two words every warp step.
#define KL_MS_STAGE 128
struct kl_ms_stage {
  int* v;            // this warp's KL_MS_STAGE slots
  int n = 0;         // staged (warp-uniform)
  long long deg = 0; // this lane's appended out-degrees
};

#define KL_MS_STAGE_SHARED(st)                                     \
  __shared__ int st##_v_[KL_MS_T / 32][KL_MS_STAGE];               \
  kl_ms_stage st;                                                  \
  st.v = st##_v_[threadIdx.x >> 5]

// The staged vertices to the queue (coalesced). All 32 lanes call.
__device__ __forceinline__ void kl_ms_flush(kl_ms_stage& st, const kl_ms_out& out) {
  if (st.n == 0) return;
  const int lane = threadIdx.x & 31;
  kl_bits base = 0;
  if (lane == 0) base = atomicAdd(out.head, (kl_bits)st.n);
  base = __shfl_sync(KL_FULL_MASK, base, 0);
  __syncwarp();
  for (int i = lane; i < st.n; i += 32) out.q[base + i] = st.v[i];
  __syncwarp();
  st.n = 0;
}

// kl_ms_append through the warp's stage. All 32 lanes call.
__device__ __forceinline__ void kl_ms_stage_append(bool flag, int v,
                                                   const long long* __restrict__ indptr,
                                                   long long heavy, const kl_ms_out& out,
                                                   kl_ms_stage& st) {
  const unsigned mask = __ballot_sync(KL_FULL_MASK, flag);
  if (!mask) return;
  const int k = __popc(mask);
  if (st.n + k > KL_MS_STAGE) kl_ms_flush(st, out);
  if (flag) {
    const long long deg = indptr[v + 1] - indptr[v];
    if (deg > heavy) {
      const kl_bits packed = atomicAdd(out.head + 1, ((kl_bits)deg << KL_MS_SLOT_BITS) + 1ull);
      const long long slot = (long long)(packed & KL_MS_SLOT_MASK);
      out.hv[slot] = v;
      out.ho[slot] = (long long)(packed >> KL_MS_SLOT_BITS);
    }
    st.deg += deg;
    st.v[st.n + __popc(mask & ((1u << (threadIdx.x & 31)) - 1u))] = v;
  }
  st.n += k;
}

// The warp's end of the level: the staged rest to the queue, m_f to head[2].
__device__ __forceinline__ void kl_ms_stage_end(kl_ms_stage& st, const kl_ms_out& out) {
  kl_ms_flush(st, out);
  long long deg = st.deg;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) deg += __shfl_xor_sync(KL_FULL_MASK, deg, off);
  if ((threadIdx.x & 31) == 0 && deg) atomicAdd(out.head + 2, (kl_bits)deg);
}

// The warp's OR of the new words goes into head[3]. All 32 lanes call.
__device__ __forceinline__ void kl_ms_alive(kl_bits act, kl_bits* head) {
  act = kl_ms_warp_or(act);
  if ((threadIdx.x & 31) == 0 && act) atomicOr(head + 3, act);
}

// Push edge u -> v with u's frontier word f at level `depth`: OR into next[v] the bits of
// f that v has neither seen nor got this level, write the levels of those this thread set
// first; true when v's next word was empty (v joins the queue). seen is not written in a
// push level (the next level adds its words: kl_ms_settle before a push, the pull itself):
// one atomic a new edge where claiming the bits in seen first took two, and the push was
// bound by them.
__device__ __forceinline__ bool kl_ms_visit(int v, kl_bits f, const kl_bits* __restrict__ seen,
                                            kl_bits* next, long long* levels, long long n,
                                            long long depth, kl_bits& act) {
  kl_bits bits = f & ~(seen[v] | __ldcg(next + v));
  if (!bits) return false;
  const kl_bits prev = atomicOr(next + v, bits);
  bits &= ~prev;  // the bits this thread set
  act |= bits;
  if (levels)  // null while the levels are kept as words (kl_ms_expand writes them)
    for (kl_bits b = bits; b; b &= b - 1ull)
      levels[(long long)(__ffsll((long long)b) - 1) * n + v] = depth;
  return prev == 0ull;
}

// Level 0 of a group: thread b (of 64) seeds source b. seen, cur, next zero; head zero.
__global__ void kl_ms_init(const long long* __restrict__ indptr, const long long* sources, int kg,
                           long long n, long long heavy, int want_parents, kl_bits* seen,
                           kl_bits* cur, long long* levels, long long* parents, int* q, int* hv,
                           long long* ho, kl_bits* head) {
  const int b = threadIdx.x;
  bool fresh = false;
  int s = 0;
  if (b < kg) {
    s = (int)sources[b];
    const kl_bits bit = 1ull << b;
    atomicOr(seen + s, bit);
    fresh = atomicOr(cur + s, bit) == 0ull;
    atomicOr(head + 3, bit);
    if (levels) levels[(long long)b * n + s] = 0;
    if (want_parents) parents[(long long)b * n + s] = -1;
  }
  const kl_ms_out out = {q, hv, ho, head};
  kl_ms_append(fresh, s, indptr, heavy, out);
}

// Push: light frontier vertices a warp each (lanes over out-edges); heavy ones (on the
// input's heavy list) have their edges laid end to end, 32 consecutive per warp, so a
// hub is spread over the grid instead of one warp.
__global__ void __launch_bounds__(KL_MS_T, KL_MS_BLOCKS)
kl_ms_push(const long long* __restrict__ indptr, const int* __restrict__ indices, long long n,
           long long heavy, const kl_bits* __restrict__ cur, const kl_bits* __restrict__ seen,
           kl_bits* next, long long* levels, const int* __restrict__ q_in,
           const int* __restrict__ hv_in, const long long* __restrict__ ho_in,
           const kl_bits* __restrict__ head_in, int* q, int* hv, long long* ho, kl_bits* head,
           long long depth, kl_bits only) {
  const int lane = threadIdx.x & 31;
  const long long warp = (blockIdx.x * (long long)KL_MS_T + threadIdx.x) >> 5;
  const long long nwarps = gridDim.x * (long long)KL_MS_T >> 5;
  const kl_ms_out out = {q, hv, ho, head};
  KL_MS_STAGE_SHARED(st);
  kl_bits act = 0;
  const kl_bits hpacked = head_in[1];
  const int hn = (int)(hpacked & KL_MS_SLOT_MASK);
  const long long total = (long long)(hpacked >> KL_MS_SLOT_BITS);
  // Each warp walks one contiguous range of the heavy edge space, 32 edges a step, and
  // looks a slot up once when it enters it (a binary search per 32 edges, a dozen
  // dependent loads each, would bound a level with millions of hub edges).
  const long long per = ((total + nwarps - 1) / nwarps + 31) & ~31ll;
  const long long pend = min(total, warp * per + per);
  long long p0 = warp * per, lo_end = -1, base = 0;
  int lo = p0 < pend ? kl_heavy_slot(ho_in, hn, p0) : 0;
  kl_bits f = 0;
  for (; p0 < pend; p0 += 32) {
    if (p0 >= lo_end) {  // warp-uniform: into the slot that holds p0
      while (lo + 1 < hn && ho_in[lo + 1] <= p0) ++lo;
      const int u = hv_in[lo];
      base = indptr[u] - ho_in[lo];
      f = cur[u] & only;
      lo_end = lo + 1 < hn ? ho_in[lo + 1] : total;
    }
    const long long p = p0 + lane;
    bool fresh = false;
    int v = 0;
    if (p < pend) {
      kl_bits fw = f;
      if (p < lo_end) {
        v = indices[base + p];
      } else {  // the next slot: a heavy vertex has more than 32 edges, so no further
        const int u = hv_in[lo + 1];
        v = indices[indptr[u] + (p - lo_end)];
        fw = cur[u] & only;
      }
      fresh = kl_ms_visit(v, fw, seen, next, levels, n, depth, act);
    }
    kl_ms_stage_append(fresh, v, indptr, heavy, out, st);
  }
  const long long nq = (long long)head_in[0];
  for (long long i = warp; i < nq; i += nwarps) {
    const int u = q_in[i];
    const long long beg = indptr[u], end = indptr[u + 1];
    if (end - beg > heavy) continue;  // on the heavy list
    const kl_bits f = cur[u] & only;
    for (long long e0 = beg; e0 < end; e0 += 32) {
      const long long e = e0 + lane;
      bool fresh = false;
      int v = 0;
      if (e < end) {
        v = indices[e];
        fresh = kl_ms_visit(v, f, seen, next, levels, n, depth, act);
      }
      kl_ms_stage_append(fresh, v, indptr, heavy, out, st);
    }
  }
  kl_ms_stage_end(st, out);
  kl_ms_alive(act, head);
}

// The first vertex of the next chunk of KL_MS_CHUNK that a warp takes from the counter
// *c. All 32 lanes call.
__device__ __forceinline__ long long kl_ms_take(kl_bits* c) {
  kl_bits t = 0;
  if ((threadIdx.x & 31) == 0) t = atomicAdd(c, 1ull);
  return (long long)__shfl_sync(KL_FULL_MASK, t, 0) * KL_MS_CHUNK;
}

// Pull: a thread per vertex v (32 consecutive per warp) ORs the frontier words of its
// in-neighbours, keeping the bits it still needs (alive sources not yet seen), and stops
// once it has them all. In-degrees above KL_MS_LIGHT are scanned by the whole warp, one
// vertex after another. next[v] is written for every v (no clearing needed), and to
// `kept` (the level's row of kept words) unless null; levels are written bit by bit, a
// warp's 32 vertices at once (coalesced rows). seen[v] takes cur[v] too, which a push
// level before left out. dhead: [0] the deferred list's packed counter, [1] the chunk
// counter (both zero at the launch).
__global__ void __launch_bounds__(KL_MS_T, KL_MS_BLOCKS)
kl_ms_pull(const long long* __restrict__ indptr, const long long* __restrict__ t_indptr,
           const int* __restrict__ t_indices, long long n, long long heavy,
           const kl_bits* __restrict__ cur, kl_bits* seen, kl_bits* next, long long* levels,
           const kl_bits* __restrict__ head_in, int* q, int* hv, long long* ho, kl_bits* head,
           long long depth, int* dv, long long* dof, kl_bits* dneed, kl_bits* dacc,
           kl_bits* dhead, kl_bits* kept, kl_bits skip) {
  const int lane = threadIdx.x & 31;
  const kl_ms_out out = {q, hv, ho, head};
  KL_MS_STAGE_SHARED(st);
  const kl_bits alive = head_in[3] & ~skip;  // the searches this pull serves
  kl_bits act = 0;
  // Chunks of KL_MS_CHUNK vertices taken from a counter as a warp finishes one: a
  // grid-stride split leaves the level's slowest warps alone on their SMs, and the pull,
  // bound by the latency of its gathers, needs every resident warp busy.
  for (long long c0 = kl_ms_take(dhead + 1); c0 < n; c0 = kl_ms_take(dhead + 1)) {
    const long long c1 = min(n, c0 + KL_MS_CHUNK);
    for (long long v0 = c0; v0 < c1; v0 += 32) {
      const long long vl = v0 + lane;
      const int v = (int)vl;
      kl_bits need = 0, acc = 0, sv = 0, s0 = 0;
      long long beg = 0, end = 0;
      if (vl < n) {
        s0 = seen[v];
        sv = s0 | cur[v];  // a push level leaves its words out of seen (kl_ms_visit)
        need = alive & ~sv;
        if (need) {
          beg = t_indptr[v];
          end = t_indptr[v + 1];
        }
      }
      const bool light = end - beg <= KL_MS_LIGHT;
      // A hub's in-edges go to the grid (kl_ms_pull_deferred, then kl_ms_pull_finish):
      // one warp scanning a few hubs' million edges would hold up the whole level.
      const bool defer = need && end - beg > KL_MS_DEFER;
      if (defer) {
        const kl_bits packed = atomicAdd(dhead, ((kl_bits)(end - beg) << KL_MS_SLOT_BITS) + 1ull);
        const long long slot = (long long)(packed & KL_MS_SLOT_MASK);
        dv[slot] = v;
        dof[slot] = (long long)(packed >> KL_MS_SLOT_BITS);
        dneed[slot] = need;
        dacc[slot] = 0ull;
        need = 0;  // finished by kl_ms_pull_finish, which writes next[v] again
      }
      if (need && light) {
        // Four in-edges a step, their loads in flight together: a vertex scans until it
        // has all 64 searches' bits, most of its row (reading past the break only ORs in
        // bits that acc &= need drops).
        for (long long e = beg; e < end; e += 4) {
          int u[4];
  #pragma unroll
          for (int r = 0; r < 4; ++r) u[r] = e + r < end ? t_indices[e + r] : -1;
  #pragma unroll
          for (int r = 0; r < 4; ++r)
            if (u[r] >= 0) acc |= cur[u[r]];
          if ((acc & need) == need) break;
        }
      }
      unsigned wide = __ballot_sync(KL_FULL_MASK, need && !light);
      while (wide) {  // the warp together, on each heavy vertex in turn
        const int j = __ffs(wide) - 1;
        wide &= wide - 1u;
        const long long jb = __shfl_sync(KL_FULL_MASK, beg, j);
        const long long je = __shfl_sync(KL_FULL_MASK, end, j);
        const kl_bits jneed = __shfl_sync(KL_FULL_MASK, need, j);
        kl_bits a = 0;
        for (long long e0 = jb; e0 < je; e0 += 128) {
  #pragma unroll
          for (int r = 0; r < 4; ++r) {  // four gathers in flight per lane
            const long long e = e0 + r * 32 + lane;
            if (e < je) a |= cur[t_indices[e]];
          }
          a = kl_ms_warp_or(a);
          if ((a & jneed) == jneed) break;
        }
        if (lane == j) acc = a;
      }
      acc &= need;
      if (vl < n) {
        next[v] = acc;
        if (kept) kept[v] = acc;
        if ((sv | acc) != s0) seen[v] = sv | acc;  // v's words are this thread's alone here
      }
      act |= acc;
      if (levels) {  // (uniform: a kernel argument)
        for (kl_bits w = kl_ms_warp_or(acc); w; w &= w - 1ull) {
          const int b = __ffsll((long long)w) - 1;
          if ((acc >> b) & 1ull) levels[(long long)b * n + vl] = depth;
        }
      }
      kl_ms_stage_append(acc != 0ull, v, indptr, heavy, out, st);
    }
  }
  kl_ms_stage_end(st, out);
  kl_ms_alive(act, head);
}

// Deferred pull vertices (hubs): their in-edges laid end to end (offsets from the packed
// counter, as the push heavy list). Each warp takes one contiguous range of that edge
// space and walks it a vertex at a time: the vertex's row base, end and need are looked up
// once, then 128 edges a step (four gathers in flight per lane) are ORed into what the
// warp knows of the vertex. New bits go to its dacc word by one atomicOr, whose old value
// brings what other warps found; a warp that found nothing new re-reads dacc every eighth
// step. The warp jumps to its next vertex once the vertex has all it needs. (One edge a
// lane and the slot's lookups every 32 edges made the lookups half of a hub level's time.)
__global__ void __launch_bounds__(KL_MS_T, KL_MS_DEFER_BLOCKS)
kl_ms_pull_deferred(const long long* __restrict__ t_indptr, const int* __restrict__ t_indices,
                    const kl_bits* __restrict__ cur, const int* __restrict__ dv,
                    const long long* __restrict__ dof, const kl_bits* __restrict__ dneed,
                    kl_bits* dacc, const kl_bits* __restrict__ dhead) {
  const int lane = threadIdx.x & 31;
  const long long warp = (blockIdx.x * (long long)KL_MS_T + threadIdx.x) >> 5;
  const long long nwarps = gridDim.x * (long long)KL_MS_T >> 5;
  const kl_bits packed = dhead[0];
  const int hn = (int)(packed & KL_MS_SLOT_MASK);
  const long long total = (long long)(packed >> KL_MS_SLOT_BITS);
  const long long per = ((total + nwarps - 1) / nwarps + 127) & ~127ll;
  long long p0 = warp * per;
  const long long pend = min(total, p0 + per);
  if (p0 >= pend) return;
  int lo = kl_heavy_slot(dof, hn, p0);
  while (p0 < pend) {
    while (lo + 1 < hn && dof[lo + 1] <= p0) ++lo;  // warp-uniform
    const long long hi = min(pend, lo + 1 < hn ? dof[lo + 1] : total);
    const kl_bits need = dneed[lo];
    kl_bits known = __ldcg(dacc + lo);
    if ((known & need) != need) {
      const long long base = t_indptr[dv[lo]] - dof[lo];  // edge p is t_indices[base + p]
      int quiet = 0;
      for (long long q0 = p0; q0 < hi; q0 += 128) {
        int u[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const long long p = q0 + r * 32 + lane;
          u[r] = p < hi ? t_indices[base + p] : -1;
        }
        kl_bits a = 0;
#pragma unroll
        for (int r = 0; r < 4; ++r)
          if (u[r] >= 0) a |= cur[u[r]];
        a = kl_ms_warp_or(a & need) & ~known;
        if (a) {
          kl_bits old = 0;
          if (lane == 0) old = atomicOr(dacc + lo, a);
          known |= a | __shfl_sync(KL_FULL_MASK, old, 0);
        } else if ((++quiet & 7) == 0) {
          known |= __ldcg(dacc + lo);
        }
        if ((known & need) == need) break;
      }
    }
    p0 = hi;
  }
}

// The deferred vertices' results, as kl_ms_pull writes its own (a thread per slot).
__global__ void __launch_bounds__(KL_MS_T)
kl_ms_pull_finish(const long long* __restrict__ indptr, long long n, long long heavy,
                  kl_bits* seen, kl_bits* next, long long* levels, const int* __restrict__ dv,
                  const kl_bits* __restrict__ dneed, const kl_bits* __restrict__ dacc,
                  const kl_bits* __restrict__ dhead, int* q, int* hv, long long* ho,
                  kl_bits* head, long long depth, kl_bits* kept) {
  const int lane = threadIdx.x & 31;
  const long long warp = (blockIdx.x * (long long)KL_MS_T + threadIdx.x) >> 5;
  const long long nwarps = gridDim.x * (long long)KL_MS_T >> 5;
  const kl_ms_out out = {q, hv, ho, head};
  const long long hn = (long long)(dhead[0] & KL_MS_SLOT_MASK);
  kl_bits act = 0;
  for (long long i0 = warp * 32; i0 < hn; i0 += nwarps * 32) {
    const long long i = i0 + lane;
    kl_bits acc = 0;
    int v = 0;
    if (i < hn) {
      v = dv[i];
      acc = dacc[i] & dneed[i];
      next[v] = acc;
      if (kept) kept[v] = acc;
      if (acc) seen[v] |= acc;
      if (levels)
        for (kl_bits b = acc; b; b &= b - 1ull)
          levels[(long long)(__ffsll((long long)b) - 1) * n + v] = depth;
    }
    act |= acc;
    kl_ms_append(acc != 0ull, v, indptr, heavy, out);
  }
  kl_ms_alive(act, head);
}

// Parents of one level: a warp per newly reached vertex v (q), lanes over its in-edges in
// ascending order, 32 at a time; within a chunk the lanes are taken in order, so each
// new bit of v gets the smallest in-neighbour whose frontier word (cur) has it.
__global__ void __launch_bounds__(KL_MS_T)
kl_ms_parents(const long long* __restrict__ t_indptr, const int* __restrict__ t_indices,
              long long n, const kl_bits* __restrict__ cur, const kl_bits* __restrict__ next,
              const int* __restrict__ q, const kl_bits* __restrict__ head, long long* parents) {
  const int lane = threadIdx.x & 31;
  const long long warp = (blockIdx.x * (long long)KL_MS_T + threadIdx.x) >> 5;
  const long long nwarps = gridDim.x * (long long)KL_MS_T >> 5;
  const long long nq = (long long)head[0];
  for (long long i = warp; i < nq; i += nwarps) {
    const int v = q[i];
    kl_bits rem = next[v];
    const long long end = t_indptr[v + 1];
    for (long long e0 = t_indptr[v]; e0 < end && rem; e0 += 32) {
      const long long e = e0 + lane;
      int u = 0;
      kl_bits h = 0;
      if (e < end) {
        u = t_indices[e];
        h = cur[u] & rem;
      }
      unsigned who = __ballot_sync(KL_FULL_MASK, h != 0ull);
      while (who) {
        const int j = __ffs(who) - 1;
        who &= who - 1u;
        const kl_bits hj = __shfl_sync(KL_FULL_MASK, h, j) & rem;
        const int uj = __shfl_sync(KL_FULL_MASK, u, j);
        if ((hj >> lane) & 1ull) parents[(long long)lane * n + v] = uj;
        if ((hj >> (lane + 32)) & 1ull) parents[(long long)(lane + 32) * n + v] = uj;
        rem &= ~hj;
      }
    }
  }
}

// Zero buf[q[i]] for the q's head[0] entries: the frontier's non-zero words, so the
// buffer can take a push level's atomicOr.
__global__ void __launch_bounds__(KL_MS_T)
kl_ms_clear(kl_bits* buf, const int* __restrict__ q, const kl_bits* __restrict__ head) {
  const long long nq = (long long)head[0];
  const long long stride = gridDim.x * (long long)KL_MS_T;
  for (long long i = blockIdx.x * (long long)KL_MS_T + threadIdx.x; i < nq; i += stride)
    buf[q[i]] = 0ull;
}

// Per-search frontier sizes, sampled: head[4 + b] += how many of up to KL_MS_SAMPLE
// queue entries (evenly strided) have bit b in their word, head[8 + 64] the entries read.
// The host pushes the searches whose frontier is still tiny beside a pull of the others.
#define KL_MS_SAMPLE (1 << 18)
__global__ void __launch_bounds__(KL_MS_T)
kl_ms_stats(const kl_bits* __restrict__ words, const int* __restrict__ q, kl_bits* head) {
  __shared__ unsigned long long count[64];
  if (threadIdx.x < 64) count[threadIdx.x] = 0;
  __syncthreads();
  const long long nq = (long long)head[0];
  const long long stride = nq > KL_MS_SAMPLE ? nq / KL_MS_SAMPLE : 1;
  const long long taken = nq > KL_MS_SAMPLE ? KL_MS_SAMPLE : nq;
  const int lane = threadIdx.x & 31;
  unsigned long long lo = 0, hi = 0;  // lane b's counts of bits b and b + 32
  for (long long j0 = blockIdx.x * (long long)KL_MS_T + (threadIdx.x & ~31); j0 < taken;
       j0 += gridDim.x * (long long)KL_MS_T) {
    const long long j = j0 + lane;
    const kl_bits w = j < taken ? words[q[j * stride]] : 0ull;
#pragma unroll 8
    for (int b = 0; b < 32; ++b) {
      const unsigned l = __popc(__ballot_sync(KL_FULL_MASK, (w >> b) & 1ull));
      const unsigned h = __popc(__ballot_sync(KL_FULL_MASK, (w >> (b + 32)) & 1ull));
      if (lane == b) {
        lo += l;
        hi += h;
      }
    }
  }
  if (lo) atomicAdd(count + lane, lo);
  if (hi) atomicAdd(count + lane + 32, hi);
  __syncthreads();
  if (threadIdx.x < 64 && count[threadIdx.x]) atomicAdd(head + 4 + threadIdx.x, count[threadIdx.x]);
  if (blockIdx.x == 0 && threadIdx.x == 0) head[4 + 64] = (kl_bits)taken;
}
#undef KL_MS_SAMPLE

// The frontier vertices whose word has a bit of `only`, as a queue (and heavy list) of its
// own for kl_ms_push: the searches pushed beside a pull.
__global__ void __launch_bounds__(KL_MS_T)
kl_ms_filter(const long long* __restrict__ indptr, long long heavy,
             const kl_bits* __restrict__ cur, const int* __restrict__ q_in,
             const kl_bits* __restrict__ head_in, kl_bits only, int* q, int* hv, long long* ho,
             kl_bits* head) {
  const long long nq = (long long)head_in[0];
  const kl_ms_out out = {q, hv, ho, head};
  KL_MS_STAGE_SHARED(st);
  for (long long i0 = (blockIdx.x * (long long)KL_MS_T + threadIdx.x) & ~31ll; i0 < nq;
       i0 += gridDim.x * (long long)KL_MS_T) {
    const long long i = i0 + (threadIdx.x & 31);
    int u = 0;
    bool keep = false;
    if (i < nq) {
      u = q_in[i];
      keep = (cur[u] & only) != 0ull;
    }
    kl_ms_stage_append(keep, u, indptr, heavy, out, st);
  }
  kl_ms_stage_end(st, out);
}

// After a push level: seen[v] |= next[v] for the q's head[0] vertices (each once in q).
__global__ void __launch_bounds__(KL_MS_T)
kl_ms_settle(kl_bits* seen, const kl_bits* __restrict__ next, const int* __restrict__ q,
             const kl_bits* __restrict__ head) {
  const long long nq = (long long)head[0];
  const long long stride = gridDim.x * (long long)KL_MS_T;
  for (long long i = blockIdx.x * (long long)KL_MS_T + threadIdx.x; i < nq; i += stride) {
    const int v = q[i];
    seen[v] |= next[v];
  }
}

// The levels from the words each level reached first: hist row l (of L <= KL_MS_HIST)
// holds, per vertex, the bits of the searches that reached it at level l. Writing them
// inside the levels, bit by bit, and -1 for the rest beforehand, wrote the 2 GB of a
// 64-source RMAT-22 result twice, much of it in partial sectors.
//
// A thread takes VPT consecutive vertices (2 where every row starts 16-byte aligned: n
// even) and first folds each one's words into its levels as nibbles (level l < 16 of
// search b at bits 4(b % 16) of word b / 16), sixteen bits at a time with no branch on
// the data, so the L rows' loads go out together, then writes rows b < kg: a warp's run
// of a row is 32 * VPT * 8 contiguous bytes, stored evict-first (the result is not read
// again here). A loop over the reached bits instead keeps the next row's load behind it.
// The kernel is bound by its stores; the write ceiling to compare with is plain 16-byte
// stores of the same rows, not CuPy's fill(-1), which writes well below it.
#define KL_MS_HIST 16
// Bits 0..15 of m to bits 0, 4, ..., 60 (one a nibble).
__device__ __forceinline__ kl_bits kl_ms_spread16(kl_bits m) {
  m &= 0xFFFFull;
  m = (m | (m << 24)) & 0x000000FF000000FFull;
  m = (m | (m << 12)) & 0x000F000F000F000Full;
  m = (m | (m << 6)) & 0x0303030303030303ull;
  return (m | (m << 3)) & 0x1111111111111111ull;
}

// Fold level l's words w into the first levels: the bits not reached before get level l
// in their nibbles, sixteen at a time (no loop over the bits, so no branch on the data).
__device__ __forceinline__ void kl_ms_fold(kl_bits w, int l, kl_bits& any, kl_bits (&nib)[4]) {
  const kl_bits fresh = w & ~any;
  any |= fresh;
#pragma unroll
  for (int c = 0; c < 4; ++c) nib[c] |= kl_ms_spread16(fresh >> (16 * c)) * (kl_bits)l;
}

__device__ __forceinline__ long long kl_ms_level_of(kl_bits any, const kl_bits (&nib)[4], int b) {
  return ((any >> b) & 1ull) ? (long long)((nib[b >> 4] >> ((b & 15) * 4)) & 15ull) : -1ll;
}

template <int VPT>
__global__ void __launch_bounds__(KL_MS_T)
kl_ms_expand(const kl_bits* __restrict__ hist, int L, long long n, int kg, long long* levels) {
  const long long stride = gridDim.x * (long long)KL_MS_T * VPT;
  for (long long v = (blockIdx.x * (long long)KL_MS_T + threadIdx.x) * VPT; v < n; v += stride) {
    kl_bits any[VPT], nib[VPT][4];
#pragma unroll
    for (int j = 0; j < VPT; ++j) any[j] = nib[j][0] = nib[j][1] = nib[j][2] = nib[j][3] = 0;
#pragma unroll
    for (int l = 0; l < KL_MS_HIST; ++l) {
      if (l < L) {  // (uniform) the loads of every level in flight together
        const kl_bits* h = hist + (long long)l * n + v;
        if (VPT == 2 && v + 1 < n) {
          const ulonglong2 w = *reinterpret_cast<const ulonglong2*>(h);
          kl_ms_fold(w.x, l, any[0], nib[0]);
          kl_ms_fold(w.y, l, any[VPT - 1], nib[VPT - 1]);
        } else {
#pragma unroll
          for (int j = 0; j < VPT; ++j)
            if (v + j < n) kl_ms_fold(h[j], l, any[j], nib[j]);
        }
      }
    }
#pragma unroll
    for (int b = 0; b < 64; ++b) {
      if (b >= kg) break;
      long long* row = levels + (long long)b * n + v;
      if (VPT == 2 && v + 1 < n) {
        __stcs(reinterpret_cast<longlong2*>(row),
               make_longlong2(kl_ms_level_of(any[0], nib[0], b),
                              kl_ms_level_of(any[VPT - 1], nib[VPT - 1], b)));
      } else {
#pragma unroll
        for (int j = 0; j < VPT; ++j)
          if (v + j < n) __stcs(row + j, kl_ms_level_of(any[j], nib[j], b));
      }
    }
  }
}
#undef KL_MS_HIST

#undef KL_MS_T
#undef KL_MS_LIGHT
#undef KL_MS_DEFER
#undef KL_MS_STAGE
#undef KL_MS_STAGE_SHARED
#undef KL_MS_BLOCKS
#undef KL_MS_DEFER_BLOCKS
#undef KL_MS_CHUNK
#undef KL_MS_SLOT_BITS
#undef KL_MS_SLOT_MASK
