// Brandes' betweenness for 64 sources at once (kleene.backends.cuda.analytics.betweenness).
//
// A batch of up to 64 searches shares every pass over the graph. Per vertex v:
//   levels[d][v]  one 64-bit word, bit s set when search s first reaches v at depth d;
//   visited[v]    the OR of v's level words so far;
//   sc[v][0..63]  one double per search: σ(v) (shortest paths from s) after the forward
//                 pass, overwritten by the coefficient (1 + δ(v)) / σ(v) in the backward
//                 one (each (v, s) pair is read as σ on v's own level and as the
//                 coefficient one level up, so one array holds both).
// A warp owns a work item: a vertex, or a chunk of a high-degree vertex's arcs whose
// partial sums (one row of 64 per chunk) a second kernel adds in chunk order. Thread t
// of the warp holds searches 2t and 2t + 1 (one double2 of a row).
//
// Forward, level d (pull along in-arcs): v takes, for the searches it has not seen
// and that are still alive, σ(v) = Σ σ(u) over in-neighbours u on level d - 1; the
// searches with a parent there reach v at level d. Backward, level d (pull along
// out-arcs): v on level d in search s gathers Σ coef(w) over out-neighbours w on level
// d + 1 in s; δ(v) = σ(v) Σ, coef(v) = (1 + δ(v)) / σ(v), and bc[v] += Σ_s δ(v); an arc
// v → w gets σ(v) coef(w) summed over the searches (the edge form, which runs level 0,
// the sources, too, without adding to bc). Every vertex with an in-arc has a work item
// here, out-arcs or not: a sink's coefficient 1 / σ is read one level up.
//
// Determinism: every sum runs in a fixed order (in-arcs in CSR order within a warp,
// chunks in their order, the searches of a warp by a fixed butterfly, levels and
// batches one after the other); each vertex, arc and chunk row is written by the one
// warp that owns it. Only the OR of the alive searches uses atomics (bitwise, exact).
// The same call gives the same bits on every run.
#define KL_BC_T 256  // threads per block (8 warps)

typedef unsigned long long kl_bits;

__device__ __forceinline__ kl_bits kl_bc_warp_or(kl_bits x) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) x |= __shfl_xor_sync(KL_FULL_MASK, x, off);
  return x;
}

__device__ __forceinline__ double kl_bc_warp_sum(double x) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) x += __shfl_xor_sync(KL_FULL_MASK, x, off);
  return x;
}

// The OR of a block's new words into *alive (one atomic a block, not a vertex).
__device__ __forceinline__ void kl_bc_alive_flush(kl_bits* s_alive, kl_bits* alive) {
  __syncthreads();
  if (threadIdx.x == 0 && *s_alive) atomicOr(alive, *s_alive);
}

// Forward result of v: σ of its new searches, its level word, visited, alive.
__device__ __forceinline__ void kl_bc_forward_write(int v, kl_bits got, double a0, double a1,
                                                    int lane, double* __restrict__ sc,
                                                    kl_bits* __restrict__ cur,
                                                    kl_bits* __restrict__ visited,
                                                    kl_bits* s_alive) {
  if (!got) return;
  unsigned two = (unsigned)(got >> (2 * lane)) & 3u;
  double* row = sc + (long long)v * 64 + 2 * lane;
  if (two & 1u) row[0] = a0;
  if (two & 2u) row[1] = a1;
  if (lane == 0) {
    cur[v] = got;
    visited[v] |= got;
    if (got & ~*(volatile kl_bits*)s_alive) atomicOr(s_alive, got);
  }
}

extern "C" __global__ void __launch_bounds__(KL_BC_T)
kl_bc_forward(long long items, const int* __restrict__ item_v,
              const long long* __restrict__ item_p0, const long long* __restrict__ item_p1,
              const int* __restrict__ item_slot, const int* __restrict__ idx,
              const kl_bits* __restrict__ prev, kl_bits* __restrict__ cur,
              kl_bits* __restrict__ visited, kl_bits alive_in, double* __restrict__ sc,
              double* __restrict__ partial, kl_bits* __restrict__ pmask,
              kl_bits* __restrict__ alive_out) {
  __shared__ kl_bits s_alive;
  if (threadIdx.x == 0) s_alive = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const double2* sc2 = reinterpret_cast<const double2*>(sc);
  for (long long it = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; it < items;
       it += nwarps) {
    const int v = item_v[it];
    const long long p1 = item_p1[it];
    const int slot = item_slot[it];
    const kl_bits want = ~visited[v] & alive_in;  // the same in every lane
    double a0 = 0.0, a1 = 0.0;
    kl_bits got = 0;
    if (want) {
      for (long long base = item_p0[it]; base < p1; base += 32) {
        const long long p = base + lane;
        int u = 0;
        kl_bits m = 0;
        if (p < p1) {
          u = idx[p];
          m = prev[u] & want;
        }
        got |= m;
        unsigned hits = __ballot_sync(KL_FULL_MASK, m != 0);
        while (hits) {
          const int j = __ffs(hits) - 1;
          hits &= hits - 1;
          const int uj = __shfl_sync(KL_FULL_MASK, u, j);
          const kl_bits mj = __shfl_sync(KL_FULL_MASK, m, j);
          const unsigned two = (unsigned)(mj >> (2 * lane)) & 3u;
          if (two) {
            const double2 s = sc2[(long long)uj * 32 + lane];
            if (two & 1u) a0 += s.x;
            if (two & 2u) a1 += s.y;
          }
        }
      }
      got = kl_bc_warp_or(got);
    }
    if (slot < 0) {
      kl_bc_forward_write(v, got, a0, a1, lane, sc, cur, visited, &s_alive);
    } else {
      reinterpret_cast<double2*>(partial)[(long long)slot * 32 + lane] = make_double2(a0, a1);
      if (lane == 0) pmask[slot] = got;
    }
  }
  kl_bc_alive_flush(&s_alive, alive_out);
}

// A chunked vertex's forward result: its chunks' rows added in chunk order.
extern "C" __global__ void __launch_bounds__(KL_BC_T)
kl_bc_forward_combine(long long heavy, const int* __restrict__ heavy_v,
                      const int* __restrict__ heavy_s0, const int* __restrict__ heavy_s1,
                      const double* __restrict__ partial, const kl_bits* __restrict__ pmask,
                      kl_bits* __restrict__ cur, kl_bits* __restrict__ visited,
                      double* __restrict__ sc, kl_bits* __restrict__ alive_out) {
  __shared__ kl_bits s_alive;
  if (threadIdx.x == 0) s_alive = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const double2* p2 = reinterpret_cast<const double2*>(partial);
  for (long long h = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; h < heavy;
       h += nwarps) {
    double a0 = 0.0, a1 = 0.0;
    kl_bits got = 0;
    for (int s = heavy_s0[h]; s < heavy_s1[h]; ++s) {
      const double2 x = p2[(long long)s * 32 + lane];
      a0 += x.x;
      a1 += x.y;
      got |= pmask[s];
    }
    kl_bc_forward_write(heavy_v[h], got, a0, a1, lane, sc, cur, visited, &s_alive);
  }
  kl_bc_alive_flush(&s_alive, alive_out);
}

// Backward result of v on level d (searches `mine`): δ, the coefficient, bc[v].
__device__ __forceinline__ void kl_bc_backward_write(int v, kl_bits mine, double a0, double a1,
                                                     int lane, double* __restrict__ sc,
                                                     double* __restrict__ bc, int count,
                                                     int endpoints) {
  const unsigned two = (unsigned)(mine >> (2 * lane)) & 3u;
  double* row = sc + (long long)v * 64 + 2 * lane;
  double d0 = 0.0, d1 = 0.0;
  if (two & 1u) {
    const double s = row[0];
    d0 = s * a0;
    row[0] = (1.0 + d0) / s;
  }
  if (two & 2u) {
    const double s = row[1];
    d1 = s * a1;
    row[1] = (1.0 + d1) / s;
  }
  if (!count) return;  // the sources' own level: their arcs only (the edge form)
  const double t = kl_bc_warp_sum(d0 + d1);
  if (lane == 0) bc[v] += endpoints ? t + (double)__popcll(mine) : t;
}

extern "C" __global__ void __launch_bounds__(KL_BC_T)
kl_bc_backward(long long items, const int* __restrict__ item_v,
               const long long* __restrict__ item_p0, const long long* __restrict__ item_p1,
               const int* __restrict__ item_slot, const int* __restrict__ idx,
               const kl_bits* __restrict__ here, const kl_bits* __restrict__ next,
               double* __restrict__ sc, double* __restrict__ partial,
               double* __restrict__ bc, double* __restrict__ ebc, int edges, int count,
               int endpoints) {
  const int lane = threadIdx.x & 31;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const double2* sc2 = reinterpret_cast<const double2*>(sc);
  for (long long it = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; it < items;
       it += nwarps) {
    const int v = item_v[it];
    const long long p1 = item_p1[it];
    const int slot = item_slot[it];
    const kl_bits mine = here[v];  // the same in every lane
    double a0 = 0.0, a1 = 0.0;
    if (mine) {
      const unsigned own = (unsigned)(mine >> (2 * lane)) & 3u;
      double s0 = 0.0, s1 = 0.0;  // σ(v) in this thread's searches (the edge form)
      if (edges && own) {
        const double2 s = sc2[(long long)v * 32 + lane];
        s0 = s.x;
        s1 = s.y;
      }
      for (long long base = item_p0[it]; base < p1; base += 32) {
        const long long p = base + lane;
        int w = 0;
        kl_bits m = 0;
        if (p < p1) {
          w = idx[p];
          m = next[w] & mine;
        }
        unsigned hits = __ballot_sync(KL_FULL_MASK, m != 0);
        while (hits) {
          const int j = __ffs(hits) - 1;
          hits &= hits - 1;
          const int wj = __shfl_sync(KL_FULL_MASK, w, j);
          const kl_bits mj = __shfl_sync(KL_FULL_MASK, m, j);
          const unsigned two = (unsigned)(mj >> (2 * lane)) & 3u;
          double e = 0.0;
          if (two) {
            const double2 c = sc2[(long long)wj * 32 + lane];
            if (two & 1u) {
              a0 += c.x;
              e += s0 * c.x;
            }
            if (two & 2u) {
              a1 += c.y;
              e += s1 * c.y;
            }
          }
          if (edges) {
            e = kl_bc_warp_sum(e);
            if (lane == 0) ebc[base + j] += e;
          }
        }
      }
    }
    if (slot < 0) {
      if (mine) kl_bc_backward_write(v, mine, a0, a1, lane, sc, bc, count, endpoints);
    } else {
      reinterpret_cast<double2*>(partial)[(long long)slot * 32 + lane] = make_double2(a0, a1);
    }
  }
}

extern "C" __global__ void __launch_bounds__(KL_BC_T)
kl_bc_backward_combine(long long heavy, const int* __restrict__ heavy_v,
                       const int* __restrict__ heavy_s0, const int* __restrict__ heavy_s1,
                       const double* __restrict__ partial, const kl_bits* __restrict__ here,
                       double* __restrict__ sc, double* __restrict__ bc, int count,
                       int endpoints) {
  const int lane = threadIdx.x & 31;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const double2* p2 = reinterpret_cast<const double2*>(partial);
  for (long long h = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; h < heavy;
       h += nwarps) {
    const int v = heavy_v[h];
    const kl_bits mine = here[v];
    if (!mine) continue;
    double a0 = 0.0, a1 = 0.0;
    for (int s = heavy_s0[h]; s < heavy_s1[h]; ++s) {
      const double2 x = p2[(long long)s * 32 + lane];
      a0 += x.x;
      a1 += x.y;
    }
    kl_bc_backward_write(v, mine, a0, a1, lane, sc, bc, count, endpoints);
  }
}

#undef KL_BC_T
