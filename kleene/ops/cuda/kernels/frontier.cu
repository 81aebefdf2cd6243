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
// The barrier is our own (no cooperative_groups header, so the template can sit
// in a namespace like every other); the cooperative launch only guarantees that
// all blocks are resident at once, which the barrier needs.
//
// Results do not depend on scheduling: levels are set by compare-and-swap (every
// writer in a level writes the same depth), parents by atomicMin over all frontier
// neighbours (pull scans in-edges in ascending order and stops at the first, the
// same vertex), distances by an atomic min of path sums (the fixed point of a
// monotone relaxation). Only the order of vertices inside a queue varies.
#define KL_FT 256               // threads per block
#define KL_TO_PULL 14           // Beamer's switches (vertex counts, as breadth_first.py)
#define KL_TO_PUSH 24
#define KL_NO_PARENT 2147483647 // parents start here; atomicMin finds the smallest

// Append the flagged lanes' v to q: one atomic per warp. All 32 lanes must call.
__device__ __forceinline__ void kl_append(bool flag, int v, int* q, int* count) {
  const unsigned mask = __ballot_sync(KL_FULL_MASK, flag);
  if (!mask) return;
  const int lane = threadIdx.x & 31;
  int base = 0;
  if (lane == 0) base = atomicAdd(count, __popc(mask));
  base = __shfl_sync(KL_FULL_MASK, base, 0);
  if (flag) q[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

// Grid-wide barrier: bar[0] counts arrivals, bar[1] is the generation. The last
// block to arrive resets the count and bumps the generation; the others spin on it.
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

// ---- BFS ---------------------------------------------------------------------

// Push: a warp per frontier vertex u, lanes over its out-edges (u -> v).
template <bool PARENTS>
__device__ __forceinline__ void kl_bfs_push(const long long* __restrict__ indptr,
                                            const int* __restrict__ indices, const int* q_in,
                                            int n_in, int* q_out, int* count_out, int* levels,
                                            int* parents, int depth, int warp, int nwarps) {
  const int lane = threadIdx.x & 31;
  for (int i = warp; i < n_in; i += nwarps) {
    const int u = __ldcg(q_in + i);
    const long long end = indptr[u + 1];
    for (long long e0 = indptr[u]; e0 < end; e0 += 32) {
      const long long e = e0 + lane;
      bool fresh = false;
      int v = 0;
      if (e < end) {
        v = indices[e];
        int lv = __ldcg(levels + v);
        if (lv < 0) {
          lv = atomicCAS(levels + v, -1, depth);
          fresh = lv < 0;
          if (fresh) lv = depth;
        }
        if (PARENTS && lv == depth) atomicMin(parents + v, u);
      }
      kl_append(fresh, v, q_out, count_out);
    }
  }
}

// Pull: a thread per unvisited vertex v, scanning its in-edges (rows of A^T) for
// a vertex of the previous level; stops at the first (the smallest id).
template <bool PARENTS>
__device__ __forceinline__ void kl_bfs_pull(const long long* __restrict__ t_indptr,
                                            const int* __restrict__ t_indices, int n, int* q_out,
                                            int* count_out, int* levels, int* parents, int depth,
                                            int warp, int nwarps) {
  const int lane = threadIdx.x & 31;
  for (long long v0 = (long long)warp * 32; v0 < n; v0 += (long long)nwarps * 32) {
    const int v = (int)(v0 + lane);
    bool found = false;
    if (v < n && __ldcg(levels + v) < 0) {
      const long long end = t_indptr[v + 1];
      for (long long e = t_indptr[v]; e < end; ++e) {
        const int u = t_indices[e];
        if (__ldcg(levels + u) == depth - 1) {
          found = true;
          levels[v] = depth;  // only this thread writes v in a pull level
          if (PARENTS) parents[v] = u;
          break;
        }
      }
    }
    kl_append(found, v, q_out, count_out);
  }
}

// Does this level pull? Beamer's rule on vertex counts (nq: frontier, seen: visited).
template <int METHOD>  // 0 direction-optimizing, 1 push, 2 pull
__device__ __forceinline__ bool kl_pull_next(bool pull, long long nq, long long seen, int n) {
  if (METHOD == 1) return false;
  if (METHOD == 2) return true;
  if (!pull && nq * KL_TO_PULL > (long long)n - seen) return true;
  if (pull && nq * KL_TO_PUSH < (long long)n) return false;
  return pull;
}

// The whole BFS in one cooperative launch. On entry: levels[source] = 0 and the
// rest -1, parents all KL_NO_PARENT but the source's, qa[0] = source, counts[0..3)
// zero, bar[0..2) zero. On exit state[0] = the last depth tried (its level was empty).
template <bool PARENTS, int METHOD>
__global__ void __launch_bounds__(KL_FT, 2)
kl_bfs_run(const long long* __restrict__ indptr, const int* __restrict__ indices,
           const long long* __restrict__ t_indptr, const int* __restrict__ t_indices, int n,
           int* levels, int* parents, int* qa, int* qb, int* counts, unsigned* bar, int* state) {
  const int warp = (int)((blockIdx.x * (long long)KL_FT + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_FT >> 5);
  int *q_in = qa, *q_out = qb;
  long long nq = 1, seen = 1;
  bool pull = false;
  int depth = 0;
  while (true) {
    ++depth;
    pull = kl_pull_next<METHOD>(pull, nq, seen, n);
    int* count_out = counts + depth % 3;
    if (blockIdx.x == 0 && threadIdx.x == 0) counts[(depth + 1) % 3] = 0;  // next level's
    if (pull)
      kl_bfs_pull<PARENTS>(t_indptr, t_indices, n, q_out, count_out, levels, parents, depth,
                           warp, nwarps);
    else
      kl_bfs_push<PARENTS>(indptr, indices, q_in, (int)nq, q_out, count_out, levels, parents,
                           depth, warp, nwarps);
    kl_grid_sync(bar);
    nq = __ldcg(count_out);
    if (nq == 0) break;
    seen += nq;
    int* t = q_in;
    q_in = q_out;
    q_out = t;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) state[0] = depth;
}

// One level (the non-cooperative fallback): frontier q_in[0 .. *count_in).
template <bool PARENTS, bool PULL>
__global__ void __launch_bounds__(KL_FT)
kl_bfs_step(const long long* __restrict__ indptr, const int* __restrict__ indices, int n,
            const int* q_in, const int* count_in, int* q_out, int* count_out, int* levels,
            int* parents, int depth) {
  const int warp = (int)((blockIdx.x * (long long)KL_FT + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_FT >> 5);
  if (PULL)
    kl_bfs_pull<PARENTS>(indptr, indices, n, q_out, count_out, levels, parents, depth, warp,
                         nwarps);
  else
    kl_bfs_push<PARENTS>(indptr, indices, q_in, __ldcg(count_in), q_out, count_out, levels,
                         parents, depth, warp, nwarps);
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

// One relaxation from the frontier: a warp per vertex u, lanes over its edges;
// an improved v joins the next frontier once (stamp[v] = round).
__device__ __forceinline__ void kl_relax(const long long* __restrict__ indptr,
                                         const int* __restrict__ indices,
                                         const double* __restrict__ w, const int* q_in, int n_in,
                                         int* q_out, int* count_out, double* dist, int* stamp,
                                         int round, int warp, int nwarps) {
  const int lane = threadIdx.x & 31;
  for (int i = warp; i < n_in; i += nwarps) {
    const int u = __ldcg(q_in + i);
    const double du = __ldcg(dist + u);
    const long long end = indptr[u + 1];
    for (long long e0 = indptr[u]; e0 < end; e0 += 32) {
      const long long e = e0 + lane;
      bool fresh = false;
      int v = 0;
      if (e < end) {
        v = indices[e];
        const double nd = du + w[e];
        if (nd < __ldcg(dist + v) && nd < kl_atomic_min_f64(dist + v, nd))
          fresh = atomicExch(stamp + v, round) != round;
      }
      kl_append(fresh, v, q_out, count_out);
    }
  }
}

// Bellman-Ford from one source in one cooperative launch: at most max_rounds
// relaxations. On entry dist is inf but dist[source] = 0, stamp all -1, qa[0] =
// source, counts zero, bar[0..2) zero. On exit state[0] = rounds run, state[1] = the last
// frontier's size (non-zero after max_rounds = n rounds: a negative cycle).
__global__ void __launch_bounds__(KL_FT, 2)
kl_bf_run(const long long* __restrict__ indptr, const int* __restrict__ indices,
          const double* __restrict__ w, int max_rounds, double* dist, int* stamp, int* qa,
          int* qb, int* counts, unsigned* bar, int* state) {
  const int warp = (int)((blockIdx.x * (long long)KL_FT + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_FT >> 5);
  int *q_in = qa, *q_out = qb;
  int nq = 1, round = 0;
  while (nq > 0 && round < max_rounds) {
    ++round;
    int* count_out = counts + round % 3;
    if (blockIdx.x == 0 && threadIdx.x == 0) counts[(round + 1) % 3] = 0;
    kl_relax(indptr, indices, w, q_in, nq, q_out, count_out, dist, stamp, round, warp, nwarps);
    kl_grid_sync(bar);
    nq = __ldcg(count_out);
    int* t = q_in;
    q_in = q_out;
    q_out = t;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    state[0] = round;
    state[1] = nq;
  }
}

// One round (the non-cooperative fallback).
__global__ void __launch_bounds__(KL_FT)
kl_bf_step(const long long* __restrict__ indptr, const int* __restrict__ indices,
           const double* __restrict__ w, const int* q_in, const int* count_in, int* q_out,
           int* count_out, double* dist, int* stamp, int round) {
  const int warp = (int)((blockIdx.x * (long long)KL_FT + threadIdx.x) >> 5);
  const int nwarps = (int)(gridDim.x * (long long)KL_FT >> 5);
  kl_relax(indptr, indices, w, q_in, __ldcg(count_in), q_out, count_out, dist, stamp, round,
           warp, nwarps);
}

#undef KL_FT
#undef KL_TO_PULL
#undef KL_TO_PUSH
#undef KL_NO_PARENT
