// Strongly connected components by trimming and colouring
// (kleene.backends.cuda.analytics.strong), every kernel over A's CSR as stored:
// no transpose is built.
//
// colour[v] >= 0 marks v as still in play; -1 once v's component is known (comp[v] then
// holds its smallest vertex). Because a retired vertex holds -1, which is below every
// colour, the sweeps need no second array to skip retired neighbours: "colour[w] > c"
// and "colour[w] == c" are both false for them.
//
// A round:
//   trim      a vertex with no edge in, or none out, among the vertices in play (self
//             loops aside) is a component alone: kl_scc_trim_scan marks the edges in
//             and out, kl_scc_trim_apply retires those vertices;
//   forward   colour[v] = v, then every vertex whose colour fell pushes it along its
//             out-edges with atomicMin until none falls: colour[v] is then the
//             smallest vertex in play that reaches v;
//   backward  a vertex r with colour[r] == r roots a component: every vertex of colour
//             r that reaches r (through vertices of colour r, found by pulls over the
//             rows) is in it, and it is exactly r's component, r its smallest vertex;
//   retire    those vertices leave play with comp[v] = r.
// Intermediate colours depend on the order of the atomics; the fixed point does not,
// so comp, and the labels numbered from it, are the same bits on every run.
//
// The sweeps of a phase are launched in batches and read back once a batch:
// progress[g] = 1 when sweep g changed something; a sweep whose predecessor in the
// phase changed nothing returns at once (its phase is over).
//
// A row is read by LANES threads of a warp (a divisor of 32), lanes striding its entries.

#define KL_SCC_THREADS 256

// Whether p holds for a lane of this thread's group of LANES lanes (every lane of the
// warp calls it).
template <int LANES>
__device__ __forceinline__ bool kl_scc_group_any(bool p) {
  const unsigned votes = __ballot_sync(0xffffffffu, p);
  if (LANES == 32) return votes != 0u;
  const int first = (threadIdx.x & 31) & ~(LANES - 1);
  const unsigned mine = ((1u << LANES) - 1u) << first;
  return (votes & mine) != 0u;
}

// has_in[w] = 1 for every w with an edge in from another vertex in play; has_out[v] =
// whether v has an edge out to another vertex in play (for the vertices in play). Rows
// longer than limit get has_out 0 here and their entries from kl_scc_trim_segments,
// launched next.
template <typename I, int LANES>
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_trim_scan(const long long* __restrict__ indptr, const I* __restrict__ indices,
                 long long n, long long limit, const int* __restrict__ colour,
                 unsigned char* __restrict__ has_in, unsigned char* __restrict__ has_out) {
  constexpr int PER_WARP = 32 / LANES;
  const int lane = threadIdx.x & 31, sub = lane % LANES;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * PER_WARP;
       base < n; base += warps * PER_WARP) {
    const long long v = base + lane / LANES;
    const bool live = v < n && colour[v] >= 0;
    bool out = false;
    if (live && indptr[v + 1] - indptr[v] <= limit) {  // (longer: kl_scc_trim_segments)
      for (long long e = indptr[v] + sub; e < indptr[v + 1]; e += LANES) {
        const long long w = (long long)indices[e];
        if (w != v && colour[w] >= 0) {
          out = true;
          has_in[w] = 1;
        }
      }
    }
    out = kl_scc_group_any<LANES>(out);
    if (live && sub == 0) has_out[v] = out;
  }
}

// Retire the vertices in play with no edge in or none out (a component each); clear
// has_in for the next scan; *left += the vertices still in play.
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_trim_apply(long long n, int* __restrict__ colour, unsigned char* __restrict__ has_in,
                  const unsigned char* __restrict__ has_out, int* __restrict__ comp,
                  unsigned long long* __restrict__ left) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  unsigned long long mine = 0;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
    if (colour[v] < 0) continue;
    if (has_in[v] && has_out[v]) {
      ++mine;
    } else {
      comp[v] = (int)v;
      colour[v] = -1;
    }
    has_in[v] = 0;
  }
  for (int o = 16; o > 0; o >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, o);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(left, mine);
}

// The start of a round's colouring: colour[v] = v and flag[v] = 1 for the vertices in play.
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_colour_init(long long n, int* __restrict__ colour, unsigned char* __restrict__ flag) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
    const bool live = colour[v] >= 0;
    if (live) colour[v] = (int)v;
    flag[v] = live;
  }
}

// Forward sweep g: each vertex flagged in cur (its colour fell) pushes its colour to its
// out-neighbours in play; a neighbour whose colour falls is flagged in next. Rows longer
// than limit are pushed by kl_scc_forward_segments, launched first: this kernel only
// clears their flags.
template <typename I, int LANES>
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_forward(const long long* __restrict__ indptr, const I* __restrict__ indices, long long n,
               long long limit, int* __restrict__ colour, unsigned char* __restrict__ cur,
               unsigned char* __restrict__ next, int* __restrict__ progress, long long g,
               int first) {
  if (!first && progress[g - 1] == 0) return;
  constexpr int PER_WARP = 32 / LANES;
  const int lane = threadIdx.x & 31, sub = lane % LANES;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  bool changed = false;
  for (long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * PER_WARP;
       base < n; base += warps * PER_WARP) {
    const long long v = base + lane / LANES;
    const bool go = v < n && cur[v];
    if (go && indptr[v + 1] - indptr[v] <= limit) {  // (longer: kl_scc_forward_segments)
      const int c = colour[v];
      for (long long e = indptr[v] + sub; e < indptr[v + 1]; e += LANES) {
        const long long w = (long long)indices[e];
        if (colour[w] > c) {
          const int old = atomicMin(colour + w, c);
          if (old > c) {
            next[w] = 1;
            changed = true;
          }
        }
      }
    }
    __syncwarp();
    if (go && sub == 0) cur[v] = 0;  // (after every lane of the group read it)
  }
  if (changed) progress[g] = 1;
}

// mark[v] = 1 for the roots: the vertices in play that kept their own colour.
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_roots(long long n, const int* __restrict__ colour, unsigned char* __restrict__ mark) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride)
    mark[v] = colour[v] == (int)v;
}

// Backward sweep g: a vertex in play, not marked, with an out-neighbour marked and of
// its own colour is marked (it reaches its colour's root within its colour). Rows
// longer than limit: kl_scc_backward_segments.
template <typename I, int LANES>
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_backward(const long long* __restrict__ indptr, const I* __restrict__ indices,
                long long n, long long limit, const int* __restrict__ colour,
                unsigned char* __restrict__ mark,
                int* __restrict__ progress, long long g, int first) {
  if (!first && progress[g - 1] == 0) return;
  constexpr int PER_WARP = 32 / LANES;
  const int lane = threadIdx.x & 31, sub = lane % LANES;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  bool changed = false;
  for (long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * PER_WARP;
       base < n; base += warps * PER_WARP) {
    const long long v = base + lane / LANES;
    const int c = v < n ? colour[v] : -1;
    const bool look = c >= 0 && !mark[v] && indptr[v + 1] - indptr[v] <= limit;
    bool found = false;
    if (look) {
      for (long long e = indptr[v] + sub; e < indptr[v + 1] && !found; e += LANES) {
        const long long w = (long long)indices[e];
        found = colour[w] == c && mark[w];
      }
    }
    found = kl_scc_group_any<LANES>(found);
    if (look && found && sub == 0) {
      mark[v] = 1;
      changed = true;
    }
  }
  if (changed) progress[g] = 1;
}

// The marked vertices leave play, comp[v] = their colour (their component's smallest
// vertex).
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_retire(long long n, int* __restrict__ colour, const unsigned char* __restrict__ mark,
              int* __restrict__ comp) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
    const int c = colour[v];
    if (c >= 0 && mark[v]) {
      comp[v] = c;
      colour[v] = -1;
    }
  }
}

// The rows longer than limit, in segments of KL_SCC_SEGMENT entries, a block each:
// segment b belongs to row rows[seg_row[b]], whose first segment is seg_first[seg_row[b]].
#define KL_SCC_SEGMENT 1024

struct kl_scc_segment {
  long long v, lo, hi;
  __device__ __forceinline__ kl_scc_segment(const long long* __restrict__ indptr,
                                            const long long* __restrict__ rows,
                                            const long long* __restrict__ seg_first,
                                            const long long* __restrict__ seg_row) {
    const long long b = blockIdx.x, k = seg_row[b];
    v = rows[k];
    lo = indptr[v] + (b - seg_first[k]) * KL_SCC_SEGMENT;
    const long long end = indptr[v + 1];
    hi = lo + KL_SCC_SEGMENT < end ? lo + KL_SCC_SEGMENT : end;
  }
};

// kl_scc_trim_scan's work on a long row's segment.
template <typename I>
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_trim_segments(const long long* __restrict__ indptr, const I* __restrict__ indices,
                     const int* __restrict__ colour, unsigned char* __restrict__ has_in,
                     unsigned char* __restrict__ has_out, const long long* __restrict__ rows,
                     const long long* __restrict__ seg_first,
                     const long long* __restrict__ seg_row) {
  const kl_scc_segment s(indptr, rows, seg_first, seg_row);
  if (colour[s.v] < 0) return;
  int out = 0;
  for (long long e = s.lo + threadIdx.x; e < s.hi; e += blockDim.x) {
    const long long w = (long long)indices[e];
    if (w != s.v && colour[w] >= 0) {
      out = 1;
      has_in[w] = 1;
    }
  }
  if (__syncthreads_or(out) && threadIdx.x == 0) has_out[s.v] = 1;
}

// kl_scc_forward's work on a long row's segment (its flag is cleared by kl_scc_forward).
template <typename I>
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_forward_segments(const long long* __restrict__ indptr, const I* __restrict__ indices,
                        int* __restrict__ colour, const unsigned char* __restrict__ cur,
                        unsigned char* __restrict__ next, int* __restrict__ progress,
                        long long g, int first, const long long* __restrict__ rows,
                        const long long* __restrict__ seg_first,
                        const long long* __restrict__ seg_row) {
  if (!first && progress[g - 1] == 0) return;
  const kl_scc_segment s(indptr, rows, seg_first, seg_row);
  if (!cur[s.v]) return;
  const int c = colour[s.v];
  bool changed = false;
  for (long long e = s.lo + threadIdx.x; e < s.hi; e += blockDim.x) {
    const long long w = (long long)indices[e];
    if (colour[w] > c) {
      const int old = atomicMin(colour + w, c);
      if (old > c) {
        next[w] = 1;
        changed = true;
      }
    }
  }
  if (changed) progress[g] = 1;
}

// kl_scc_backward's work on a long row's segment.
template <typename I>
__global__ void __launch_bounds__(KL_SCC_THREADS)
kl_scc_backward_segments(const long long* __restrict__ indptr, const I* __restrict__ indices,
                         const int* __restrict__ colour, unsigned char* __restrict__ mark,
                         int* __restrict__ progress, long long g, int first,
                         const long long* __restrict__ rows,
                         const long long* __restrict__ seg_first,
                         const long long* __restrict__ seg_row) {
  if (!first && progress[g - 1] == 0) return;
  const kl_scc_segment s(indptr, rows, seg_first, seg_row);
  const int c = colour[s.v];
  if (c < 0 || mark[s.v]) return;
  int found = 0;
  for (long long e = s.lo + threadIdx.x; e < s.hi && !found; e += blockDim.x) {
    const long long w = (long long)indices[e];
    found = colour[w] == c && mark[w];
  }
  if (__syncthreads_or(found) && threadIdx.x == 0) {
    mark[s.v] = 1;
    progress[g] = 1;
  }
}

#undef KL_SCC_SEGMENT
#undef KL_SCC_THREADS
