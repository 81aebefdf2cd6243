// PageRank's power iteration (kleene.backends.cuda.analytics.pagerank): NetworkX's step
//   x <- alpha (x P + (x . d) w) + (1 - alpha) p
// as three kernels a step, none of which waits for the host:
//   kl_pr_scale   y = x * s (s: inverse out-weights) and the dangling sum's block partials
//   kl_pr_pull    one pull over A^T's rows fused with the update and the L1 change's
//                 block partials
//   kl_pr_check   the L1 change against n * tol: the first step below it sets done and
//                 records its number
// Every kernel returns at once when done is set, so the host launches several steps
// and reads the state once: the steps after the first converged one do nothing.
//
// Sums are the same bits on every run: a fixed grid, each thread adding its own items
// in a fixed order, a fixed tree per block, and the partials added in index order.
// Row sums of a pull go lane-strided then by shuffles, in a fixed order too.
//
// Rows longer than `limit` (the hubs of a skewed graph) would hold one group of lanes
// for the whole of a kernel: the row kernels skip them, and kl_pr_segments sums them
// in segments of KL_PR_SEGMENT entries, a block each (kl_pr_long_out and
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

// The sum of parts[0..count) in index order, by one warp, valid in its lane 0.
__device__ __forceinline__ double kl_pr_warp_total(const double* __restrict__ parts, int count) {
  const int lane = threadIdx.x & 31;
  double v = 0.0;
  for (int k = lane; k < count; k += 32) v += parts[k];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
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

// xnew[j] = alpha (sum over A^T's row j of value * y[col] + lost w[j]) + (1 - alpha) p[j],
// lost the sum of lost_parts; err_parts[block] = this block's share of |xnew - xold|.
template <typename I, typename V, bool PATTERN, int LANES>
__global__ void __launch_bounds__(KL_PR_THREADS)
kl_pr_pull(const long long* __restrict__ tptr, const I* __restrict__ tidx,
           const V* __restrict__ tval, long long n, long long limit, const double* __restrict__ y,
           const double* __restrict__ xold, const double* __restrict__ p,
           const double* __restrict__ w, double alpha, const double* __restrict__ lost_parts,
           int nparts, double* __restrict__ xnew, double* __restrict__ err_parts,
           const long long* __restrict__ state) {
  if (state[0]) return;
  __shared__ double lost_shared;
  if (threadIdx.x < 32) {
    const double t = kl_pr_warp_total(lost_parts, nparts);
    if (threadIdx.x == 0) lost_shared = t;
  }
  __syncthreads();
  const double lost = lost_shared;
  const double keep = 1.0 - alpha;
  constexpr int PER_WARP = 32 / LANES;
  const int lane = threadIdx.x & 31;
  const int sub = lane % LANES;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  double err = 0.0;
  for (long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * PER_WARP;
       base < n; base += warps * PER_WARP) {
    const long long j = base + lane / LANES;
    double acc = 0.0;
    bool mine = j < n;
    if (mine) {
      const long long lo = tptr[j], hi = tptr[j + 1];
      mine = hi - lo <= limit;  // (a longer row: kl_pr_segments, kl_pr_long_update)
      if (mine) {
        for (long long e = lo + sub; e < hi; e += LANES) {
          const double yi = y[tidx[e]];
          acc += PATTERN ? yi : (double)tval[e] * yi;
        }
      }
    }
    for (int o = LANES / 2; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o, LANES);
    if (mine && sub == 0) {
      const double v = alpha * (acc + lost * w[j]) + keep * p[j];
      xnew[j] = v;
      err += fabs(v - xold[j]);
    }
  }
  err = kl_pr_block_sum(err);
  if (threadIdx.x == 0) err_parts[blockIdx.x] = err;
}

// One warp: the step's L1 change (the row blocks' parts, then the long rows'); below
// limit (n * tol), state = {1, step}.
__global__ void kl_pr_check(const double* __restrict__ err_parts, int nparts,
                            const double* __restrict__ err_long, int nlong, double limit,
                            long long step, long long* __restrict__ state) {
  if (state[0]) return;
  const double err = kl_pr_warp_total(err_parts, nparts) + kl_pr_warp_total(err_long, nlong);
  if (threadIdx.x == 0 && err < limit) {
    state[0] = 1;
    state[1] = step;
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
                  const double* __restrict__ lost_parts, int nparts,
                  double* __restrict__ xnew, double* __restrict__ err_long,
                  const long long* __restrict__ state) {
  if (state[0]) return;
  __shared__ double lost_shared;
  if (threadIdx.x < 32) {
    const double t = kl_pr_warp_total(lost_parts, nparts);
    if (threadIdx.x == 0) lost_shared = t;
  }
  __syncthreads();
  const double lost = lost_shared;
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
