// PageRank's power iteration (kleene.backends.cuda.analytics.pagerank): NetworkX's step
//   x <- alpha (x P + (x . d) w) + (1 - alpha) p
// as four kernels a step, none of which waits for the host:
//   kl_pr_scale   y = x * s (s: inverse out-weights) and the dangling sum's block partials
//   kl_pr_total   the dangling sum
//   kl_pr_pull    one pull over A^T's rows, in chunks of entries, fused with the update
//                 and the L1 change's partials
//   kl_pr_check   the L1 change against n * tol (many blocks, the last adding their sums):
//                 the first step below it sets done and records its number
// Every kernel returns at once when done is set, so the host launches several steps
// and reads the state once: the steps after the first converged one do nothing.
//
// Sums are the same bits on every run: a fixed grid, each thread adding its own items
// in a fixed order, a fixed tree per block, and the partials added in index order.
// Row sums of a pull go lane-strided then by shuffles, in a fixed order too.
//
// Rows longer than `limit` (the hubs of a skewed graph) would hold one block for the
// whole of a kernel: the row kernels skip them, and kl_pr_segments sums them in
// segments of KL_PR_SEGMENT entries, a block each (kl_pr_long_out and
// kl_pr_long_update add each row's segments in order and finish it).

#define KL_PR_SEGMENT 2048

#define KL_PR_THREADS 256

// The block's sum of v, valid in thread 0 (every thread calls it, once per kernel).
__device__ __forceinline__ double kl_pr_block_sum(double v) {
  __shared__ double warp_sums[KL_PR_THREADS / 32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = 0.0;
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  }
  return v;
}

// s[i] = 1 / (row i's sum of values, in float64, in stored order), 0 and dangling[i] = 1
// where it is 0; PATTERN: every value is 1. LANES threads a row.
template <typename V, bool PATTERN, int LANES>
__global__ void __launch_bounds__(KL_PR_THREADS)
kl_pr_out(const long long* __restrict__ indptr, const V* __restrict__ values, long long n,
          long long limit, double* __restrict__ s, unsigned char* __restrict__ dangling) {
  constexpr int PER_WARP = 32 / LANES;
  const int lane = threadIdx.x & 31;
  const int sub = lane % LANES;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * PER_WARP;
       base < n; base += warps * PER_WARP) {
    const long long i = base + lane / LANES;
    double total = 0.0;
    bool mine = i < n;
    if (mine) {
      const long long lo = indptr[i], hi = indptr[i + 1];
      mine = PATTERN || hi - lo <= limit;  // (a longer row: kl_pr_segments)
      if (PATTERN) {
        total = sub == 0 ? (double)(hi - lo) : 0.0;
      } else if (mine) {
        for (long long e = lo + sub; e < hi; e += LANES) total += (double)values[e];
      }
    }
    for (int o = LANES / 2; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o, LANES);
    if (mine && sub == 0) {
      s[i] = total != 0.0 ? 1.0 / total : 0.0;
      dangling[i] = total == 0.0;
    }
  }
}

// y = x * s; parts[block] = this block's share of the sum of x over the dangling vertices.
__global__ void __launch_bounds__(KL_PR_THREADS)
kl_pr_scale(const double* __restrict__ x, const double* __restrict__ s,
            const unsigned char* __restrict__ dangling, long long n, double* __restrict__ y,
            double* __restrict__ parts, const long long* __restrict__ state) {
  if (state[0]) return;
  double lost = 0.0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double xi = x[i];
    y[i] = xi * s[i];
    if (dangling[i]) lost += xi;
  }
  lost = kl_pr_block_sum(lost);
  if (threadIdx.x == 0) parts[blockIdx.x] = lost;
}

// The first row i with tptr[i] + i >= mark (n when none): rows and entries counted
// together, so a chunk of the pull holds at most CHUNK rows as well as about CHUNK
// entries (a graph's empty rows, all in one place, would otherwise fall to one block).
__device__ __forceinline__ long long kl_pr_first_row(const long long* __restrict__ tptr,
                                                     long long n, long long mark) {
  long long lo = 0, hi = n;  // the answer lies in [lo, hi]
  while (lo < hi) {
    const long long mid = lo + ((hi - lo) >> 1);
    if (tptr[mid] + mid < mark) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// bounds[4 b .. 4 b + 3] = {r0, r1, lo, hi} of chunk b of the pull (below): the rows
// r0 .. r1 - 1 whose tptr[i] + i lies in [b CHUNK, (b + 1) CHUNK), and the entries
// lo .. hi it gathers (hi stops before a last row longer than LIMIT, which the segment
// kernels take). Made once a call, so a block of the pull starts its gathers after one
// load rather than after three dependent ones.
template <int CHUNK, int LIMIT>
__global__ void kl_pr_bounds(const long long* __restrict__ tptr, long long n, long long nchunks,
                             long long* __restrict__ bounds) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < nchunks; b += stride) {
    const long long r0 = kl_pr_first_row(tptr, n, b * CHUNK);
    const long long r1 = b + 1 == nchunks ? n : kl_pr_first_row(tptr, n, (b + 1) * CHUNK);
    const long long lo = tptr[r0];
    long long hi = tptr[r1];
    if (r1 > r0 && hi - tptr[r1 - 1] > LIMIT) hi = tptr[r1 - 1];
    bounds[4 * b] = r0;
    bounds[4 * b + 1] = r1;
    bounds[4 * b + 2] = lo;
    bounds[4 * b + 3] = hi;
  }
}

// xnew[j] = alpha (sum over A^T's row j of value * y[col] + lost w[j]) + (1 - alpha) p[j],
// in chunks of about CHUNK entries and rows rather than of rows (kl_pr_bounds), so every
// block has about the same work whatever the degrees. All but the chunk's last row end
// inside it (CHUNK <= LIMIT), so its entries (bar a last row longer than LIMIT, which
// the segment kernels take) fit CHUNK + LIMIT slots: the block first gathers every
// product into shared memory, all loads in flight at once, then a thread sums each row
// of at most SHORT entries and a warp each longer one, by a fixed rule, so every sum has
// a fixed order. err_parts[b] = the chunk's share of |xnew - xold|.
// Eight blocks a multiprocessor: registers capped to fit them, so the gathers of eight
// chunks are in flight at once; the shared memory of eight leaves the rest of each
// multiprocessor's 256 KB to L1, which holds the gathers' hot vertices.
template <typename I, typename V, bool PATTERN, int CHUNK, int LIMIT, int SHORT>
__global__ void __launch_bounds__(KL_PR_THREADS, 8)
kl_pr_pull(const long long* __restrict__ tptr, const I* __restrict__ tidx,
           const V* __restrict__ tval, const long long* __restrict__ bounds,
           const double* __restrict__ y, const double* __restrict__ xold,
           const double* __restrict__ p, const double* __restrict__ w, double alpha,
           const double* __restrict__ lost_total, double* __restrict__ xnew,
           double* __restrict__ err_parts, const long long* __restrict__ state) {
  if (state[0]) return;
  __shared__ double prod[CHUNK + LIMIT];
  const longlong2 rows = reinterpret_cast<const longlong2*>(bounds)[2 * blockIdx.x];
  const longlong2 span = reinterpret_cast<const longlong2*>(bounds)[2 * blockIdx.x + 1];
  const long long r0 = rows.x, r1 = rows.y, lo = span.x, hi = span.y;
  if (r0 == r1) {
    if (threadIdx.x == 0) err_parts[blockIdx.x] = 0.0;
    return;
  }
#pragma unroll 8
  for (long long e = lo + threadIdx.x; e < hi; e += KL_PR_THREADS) {
    const double yi = y[tidx[e]];
    prod[e - lo] = PATTERN ? yi : (double)tval[e] * yi;
  }
  __syncthreads();
  const double lost = *lost_total;
  const double keep = 1.0 - alpha;
  const int lane = threadIdx.x & 31;
  double err = 0.0;
  for (long long j = r0 + threadIdx.x; j < r1; j += KL_PR_THREADS) {
    const long long a = tptr[j] - lo, z = tptr[j + 1] - lo;
    if (z - a > SHORT) continue;
    double acc = 0.0;
    for (long long e = a; e < z; ++e) acc += prod[e];
    const double v = alpha * (acc + lost * w[j]) + keep * p[j];
    xnew[j] = v;
    err += fabs(v - xold[j]);
  }
  // the longer rows: warp k looks at rows r0 + 32 (k + 8 m) + lane, a ballot says which
  // are long, and the warp sums each of them in turn
  for (long long g = r0 + 32LL * (threadIdx.x >> 5); g < r1; g += 32LL * (KL_PR_THREADS / 32)) {
    const long long j = g + lane;
    long long len = 0;
    if (j < r1) len = tptr[j + 1] - tptr[j];
    unsigned todo = __ballot_sync(0xffffffffu, len > SHORT && len <= LIMIT);
    while (todo) {
      const long long row = g + (__ffs(todo) - 1);
      todo &= todo - 1;
      const long long a = tptr[row] - lo, z = tptr[row + 1] - lo;
      double acc = 0.0;
      for (long long e = a + lane; e < z; e += 32) acc += prod[e];
      for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
      if (lane == 0) {
        const double v = alpha * (acc + lost * w[row]) + keep * p[row];
        xnew[row] = v;
        err += fabs(v - xold[row]);
      }
    }
  }
  err = kl_pr_block_sum(err);
  if (threadIdx.x == 0) err_parts[blockIdx.x] = err;
}

// One block: *total = the sum of parts[0..count) (the dangling mass the step moves).
__global__ void __launch_bounds__(KL_PR_THREADS)
kl_pr_total(const double* __restrict__ parts, long long count, double* __restrict__ total,
            const long long* __restrict__ state) {
  if (state[0]) return;
  double v = 0.0;
  for (long long k = threadIdx.x; k < count; k += KL_PR_THREADS) v += parts[k];
  v = kl_pr_block_sum(v);
  if (threadIdx.x == 0) *total = v;
}

// The step's L1 change (the chunks' parts, then the long rows') against limit (n * tol):
// below it, state[0..1] = {1, step}; either way the change goes to state[2 + step % 2]
// (its bits), where the host reads the last two steps' changes to plan its next read.
// Each block sums a fixed range of the parts into block_parts; the last block to
// finish (a ticket taken after a fence) adds those in block order, so the total is the
// same bits whichever block is last, and resets the ticket for the next step. Many
// blocks rather than one: one block reading the parts
// of a large graph (one per chunk of the pull) spends most of a step's small kernels'
// time waiting on its loads.
__global__ void __launch_bounds__(KL_PR_THREADS)
kl_pr_check(const double* __restrict__ err_parts, long long nparts,
            const double* __restrict__ err_long, long long nlong, double limit, long long step,
            double* __restrict__ block_parts, unsigned int* __restrict__ ticket,
            long long* __restrict__ state) {
  if (state[0]) return;
  __shared__ bool last;
  const long long total = nparts + nlong;
  const long long per = (total + gridDim.x - 1) / gridDim.x;
  const long long k0 = (long long)blockIdx.x * per;
  const long long k1 = k0 + per < total ? k0 + per : total;
  double v = 0.0;
  for (long long k = k0 + threadIdx.x; k < k1; k += KL_PR_THREADS)
    v += k < nparts ? err_parts[k] : err_long[k - nparts];
  v = kl_pr_block_sum(v);
  if (threadIdx.x == 0) {
    block_parts[blockIdx.x] = v;
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  double t = 0.0;
  for (long long k = threadIdx.x; k < gridDim.x; k += KL_PR_THREADS) t += __ldcg(block_parts + k);
  t = kl_pr_block_sum(t);
  if (threadIdx.x == 0) {
    *ticket = 0u;
    state[2 + (step & 1)] = __double_as_longlong(t);
    if (t < limit) {
      state[0] = 1;
      state[1] = step;
    }
  }
}

// parts[b] = the sum over segment b (of KL_PR_SEGMENT entries) of the long row
// rows[seg_row[b]]: of value * y[col] (WITH_Y) or of the values (PATTERN: 1 each).
// One block a segment; first[k] is long row k's first segment.
template <typename I, typename V, bool PATTERN, bool WITH_Y>
__global__ void __launch_bounds__(KL_PR_THREADS)
kl_pr_segments(const long long* __restrict__ ptr, const I* __restrict__ idx,
               const V* __restrict__ val, const double* __restrict__ y,
               const long long* __restrict__ rows, const long long* __restrict__ first,
               const long long* __restrict__ seg_row, double* __restrict__ parts,
               const long long* __restrict__ state) {
  if (state[0]) return;
  const long long b = blockIdx.x;
  const long long k = seg_row[b];
  const long long r = rows[k];
  const long long lo = ptr[r] + (b - first[k]) * KL_PR_SEGMENT;
  const long long end = ptr[r + 1];
  const long long hi = lo + KL_PR_SEGMENT < end ? lo + KL_PR_SEGMENT : end;
  double acc = 0.0;
  for (long long e = lo + threadIdx.x; e < hi; e += blockDim.x) {
    const double v = PATTERN ? 1.0 : (double)val[e];
    acc += WITH_Y ? v * y[idx[e]] : v;
  }
  acc = kl_pr_block_sum(acc);
  if (threadIdx.x == 0) parts[b] = acc;
}

// s and dangling of the long rows, from their segments' sums (kl_pr_segments).
__global__ void kl_pr_long_out(const long long* __restrict__ rows,
                               const long long* __restrict__ first, long long nlong,
                               const double* __restrict__ parts, double* __restrict__ s,
                               unsigned char* __restrict__ dangling) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < nlong; k += stride) {
    double total = 0.0;
    for (long long b = first[k]; b < first[k + 1]; ++b) total += parts[b];
    const long long r = rows[k];
    s[r] = total != 0.0 ? 1.0 / total : 0.0;
    dangling[r] = total == 0.0;
  }
}

// The step's update of the long rows of A^T from their segments' sums (kl_pr_segments):
// as kl_pr_pull, err_long[k] = |xnew - xold| of long row k.
__global__ void __launch_bounds__(KL_PR_THREADS)
kl_pr_long_update(const long long* __restrict__ rows, const long long* __restrict__ first,
                  long long nlong, const double* __restrict__ parts,
                  const double* __restrict__ xold, const double* __restrict__ p,
                  const double* __restrict__ w, double alpha,
                  const double* __restrict__ lost_total, double* __restrict__ xnew, double* __restrict__ err_long,
                  const long long* __restrict__ state) {
  if (state[0]) return;
  const double lost = *lost_total;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < nlong; k += stride) {
    double acc = 0.0;
    for (long long b = first[k]; b < first[k + 1]; ++b) acc += parts[b];
    const long long j = rows[k];
    const double v = alpha * (acc + lost * w[j]) + (1.0 - alpha) * p[j];
    xnew[j] = v;
    err_long[k] = fabs(v - xold[j]);
  }
}

#undef KL_PR_SEGMENT
#undef KL_PR_THREADS
