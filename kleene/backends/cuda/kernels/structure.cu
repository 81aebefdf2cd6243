// Structure kernels (kleene.ops.cuda.structure): the row of every stored entry of a
// CSR, the fingerprint sums that say whether a CSR equals its transpose, and the
// value scan of a dense matrix.
//
// The CSR kernels walk it one warp per row (grid-stride over rows), lanes over the row's
// entries: coalesced reads of indices/values, no binary search per entry.

// rows[e] = the row holding entry e, for every e in [offsets[0], offsets[n]) (R: int
// where the row ids fit, halving the array, else long long).
template <typename R>
__global__ void kl_expand_rows(const long long* __restrict__ offsets, long long n,
                               R* __restrict__ rows) {
  const int lane = threadIdx.x & 31;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < n; i += nwarps) {
    const long long lo = offsets[i], hi = offsets[i + 1];
    for (long long e = lo + lane; e < hi; e += 32) rows[e] = (R)i;
  }
}

// counts[ids[e]] += 1 for every e in [0, m) (ids in range, checked by the caller): a
// CSR's column counts (its transpose's row lengths) without CuPy's bincount, whose range
// check is a reduction that CuPy compiles with CUB's headers, seconds on a first call.
// Integer atomics: the counts do not depend on the order of arrival.
template <typename I>
__global__ void kl_count_ids(const I* __restrict__ ids, long long m,
                             unsigned long long* __restrict__ counts) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
    atomicAdd(counts + ids[e], 1ull);
  }
}

// splitmix64's finaliser: a bijection on 64-bit words that mixes every input bit.
__device__ __forceinline__ unsigned long long kl_mix(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A value's bits, equal for equal values (+0.0 and -0.0 alike; NaN is rejected earlier).
template <typename V>
__device__ __forceinline__ unsigned long long kl_value_bits(V v) {
  return (unsigned long long)(long long)v;
}
template <>
__device__ __forceinline__ unsigned long long kl_value_bits<double>(double v) {
  return (unsigned long long)__double_as_longlong(v + 0.0);
}
template <>
__device__ __forceinline__ unsigned long long kl_value_bits<float>(float v) {
  return (unsigned long long)__double_as_longlong((double)v + 0.0);
}

// The first row r in [lo, hi] with indptr[r] <= e < indptr[r + 1] (lo's row start <= e).
__device__ __forceinline__ long long kl_row_of(const long long* __restrict__ indptr, long long lo,
                                               long long hi, long long e) {
  while (lo < hi) {
    const long long mid = (lo + hi + 1) >> 1;
    if (indptr[mid] <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The row of entry e >= indptr[i], from row i on: i itself in the common case, else a
// gallop then a bisection, so a chunk in a sparse region (an RMAT graph's tail of
// almost empty rows: a thousand entries over a hundred thousand rows) costs a few
// dozen loads per lane, not one per row (a linear walk leaves most of the SMs idle,
// waiting on the few lanes that drew such chunks).
__device__ __forceinline__ long long kl_advance_row(const long long* __restrict__ indptr,
                                                    long long n, long long i, long long e) {
  if (indptr[i + 1] > e) return i;
  long long lo = i + 1, step = 1;  // indptr[lo] <= e
  while (true) {
    const long long hi = lo + step;
    if (hi >= n) return kl_row_of(indptr, lo, n - 1, e);
    if (indptr[hi] > e) return kl_row_of(indptr, lo, hi - 1, e);
    lo = hi;
    step <<= 1;
  }
}

#define KL_SCAN_CHUNK 1024  // entries per warp task
#define KL_SCAN_BATCH 8  // entries a lane loads before it uses them

// kl_row_of(indptr, 0, n - 1, e) searched by a whole warp (every lane calls it, with the
// same e; every lane gets the row): each round, the 32 lanes probe 32 points of the
// range and a ballot keeps the gap that holds e, so 4M rows take five rounds of
// loads side by side rather than 22 loads one after the other.
__device__ __forceinline__ long long kl_warp_row_of(const long long* __restrict__ indptr,
                                                    long long n, long long e, int lane) {
  long long lo = 0, hi = n - 1;  // indptr[lo] <= e, and the row lies in [lo, hi]
  while (hi - lo >= 32) {
    const long long span = hi - lo;
    const long long probe = lo + span * (lane + 1) / 33;  // increasing in lane, in [lo, hi)
    const int below = __popc(__ballot_sync(0xffffffffu, indptr[probe] <= e));
    const long long next_lo = below ? lo + span * below / 33 : lo;
    if (below < 32) hi = lo + span * (below + 1) / 33 - 1;
    lo = next_lo;
  }
  const long long r = lo + lane;
  const unsigned le = __ballot_sync(0xffffffffu, r <= hi && indptr[r] <= e);
  return lo + __popc(le) - 1;
}

// A double's bits as an unsigned key in the same order (sign bit flipped for x >= 0, all
// bits for x < 0), for atomicMin/atomicMax.
__device__ __forceinline__ unsigned long long kl_order_key(double x) {
  const unsigned long long b = (unsigned long long)__double_as_longlong(x);
  return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}

// What the input checks and the shortest-path loops ask of a graph's values, gathered
// in the pass that reads them (kleene.core.value_scan.scan_csr, Matrix.has_nan on a dense
// matrix): the number of NaNs, the least / greatest other value as order keys
// (kl_order_key), the sum of the positive values (in double) and their number.
struct kl_value_scan {
  unsigned long long nans = 0, lo = ~0ull, hi = 0, npos = 0;
  double pos = 0.0;

  template <typename V>
  __device__ __forceinline__ void add(V x) {
    if (x != x) {
      ++nans;  // NaN (never true for integer types)
      return;
    }
    const double d = (double)x;
    const unsigned long long k = kl_order_key(d);
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
    if (d > 0) {
      pos += d;
      ++npos;
    }
  }

  // The warp's totals, in lane 0.
  __device__ __forceinline__ void reduce_warp() {
    for (int o = 16; o; o >>= 1) {
      nans += __shfl_down_sync(0xffffffffu, nans, o);
      const unsigned long long l = __shfl_down_sync(0xffffffffu, lo, o);
      const unsigned long long h = __shfl_down_sync(0xffffffffu, hi, o);
      lo = l < lo ? l : lo;
      hi = h > hi ? h : hi;
      pos += __shfl_down_sync(0xffffffffu, pos, o);
      npos += __shfl_down_sync(0xffffffffu, npos, o);
    }
  }

  // These totals into out[0..4] (out[0] NaNs, out[1] / out[2] the least / greatest key,
  // started at ~0 / 0 by the caller, out[3] the positive sum's bits, out[4] their number).
  __device__ __forceinline__ void write(unsigned long long* out) const {
    if (nans) atomicAdd(out, nans);
    if (lo != ~0ull) {
      atomicMin(out + 1, lo);
      atomicMax(out + 2, hi);
    }
    if (npos) {
      atomicAdd(reinterpret_cast<double*>(out + 3), pos);
      atomicAdd(out + 4, npos);
    }
  }

  // The warp's totals into out (every lane calls it, lane 0 writes).
  __device__ __forceinline__ void flush(unsigned long long* out) {
    reduce_warp();
    if ((threadIdx.x & 31) == 0) write(out);
  }

  // The block's totals into out (every thread calls it; one set of atomics per block,
  // not per warp: they all meet on the same five words).
  __device__ __forceinline__ void flush_block(unsigned long long* out) {
    __shared__ unsigned long long s_nans[32], s_lo[32], s_hi[32], s_npos[32];
    __shared__ double s_pos[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    reduce_warp();
    if (lane == 0) {
      s_nans[warp] = nans, s_lo[warp] = lo, s_hi[warp] = hi, s_npos[warp] = npos;
      s_pos[warp] = pos;
    }
    __syncthreads();
    if (warp != 0) return;
    const bool mine = lane < (int)(blockDim.x >> 5);
    nans = mine ? s_nans[lane] : 0;
    lo = mine ? s_lo[lane] : ~0ull;
    hi = mine ? s_hi[lane] : 0;
    npos = mine ? s_npos[lane] : 0;
    pos = mine ? s_pos[lane] : 0.0;
    flush(out);
  }
};

// out[0] += the sum over entries (i, j) off the diagonal of +h{i, j} where i < j and
// -h{i, j} where i > j, h a salted hash of the unordered pair, and out[1] (MODE 2) the
// same with each entry's value mixed into its pair's hash, all mod 2**64 (unsigned
// wrap-around: the sums do not depend on the order of the additions). MODE 1 and 2
// also give, from the same read, the value scan (kl_value_scan) in out[2..6]; MODE 0
// reads the pattern only, MODE 1 the values for the scan but mixes no hash of them
// (for callers of the pattern alone, who need the NaNs and infinities but not whether
// the weights are symmetric). An entry and its mirror (j, i, w) cancel, so both sums
// are exactly 0 for a matrix equal to its transpose; otherwise a pair held one way
// (or with two values) leaves its hash, ± one, in the sum, and the sum of such
// independent uniform words is 0 only by a 2**-64 coincidence. One hash an entry,
// where a hash of (i, j) less one of (j, i) took two.
// Balanced over entries, not rows: a warp takes KL_SCAN_CHUNK consecutive entries,
// finds the row of its first entry (kl_warp_row_of: the whole warp searches), and each
// lane advances from there (kl_advance_row), so a hub of millions of entries is spread
// over the whole grid and a run of empty rows costs a search, not a walk. A lane loads
// KL_SCAN_BATCH entries before it hashes them: the pass is bound by the latency of
// those loads, and one in flight per lane leaves most of the memory bandwidth unused.
template <typename V, int MODE>
__global__ void __launch_bounds__(256)
kl_symmetry_sums(const long long* __restrict__ indptr, const int* __restrict__ indices,
                 const V* __restrict__ values, long long n, unsigned long long salt,
                 unsigned long long* out) {
  const int lane = threadIdx.x & 31;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long nnz = indptr[n];
  const long long chunks = (nnz + KL_SCAN_CHUNK - 1) / KL_SCAN_CHUNK;
  unsigned long long sp = 0, sv = 0;
  kl_value_scan scan;
  for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks;
       c += nwarps) {
    const long long e0 = c * KL_SCAN_CHUNK;
    const long long e1 = e0 + KL_SCAN_CHUNK < nnz ? e0 + KL_SCAN_CHUNK : nnz;
    long long i = kl_warp_row_of(indptr, n, e0, lane);
    for (long long b = e0 + lane; b < e1; b += 32 * KL_SCAN_BATCH) {
      unsigned j[KL_SCAN_BATCH];
      V x[KL_SCAN_BATCH];
#pragma unroll
      for (int k = 0; k < KL_SCAN_BATCH; ++k) {
        const long long e = b + 32 * k;
        j[k] = e < e1 ? (unsigned)indices[e] : 0u;
        if (MODE > 0) x[k] = e < e1 ? values[e] : V(0);
      }
#pragma unroll
      for (int k = 0; k < KL_SCAN_BATCH; ++k) {
        const long long e = b + 32 * k;
        if (e >= e1) break;
        i = kl_advance_row(indptr, n, i, e);
        const unsigned long long ui = (unsigned long long)i, uj = j[k];
        const bool up = ui < uj;  // (a diagonal entry is its own mirror: it adds 0)
        const unsigned long long h = kl_mix(salt ^ (up ? (ui << 32) | uj : (uj << 32) | ui));
        if (ui != uj) sp += up ? h : 0ull - h;
        if (MODE > 0) {
          scan.add(x[k]);
          if (MODE > 1 && ui != uj) {
            const unsigned long long hv = kl_mix(h ^ kl_mix(kl_value_bits<V>(x[k]) + salt));
            sv += up ? hv : 0ull - hv;
          }
        }
      }
    }
  }
  for (int o = 16; o; o >>= 1) {
    sp += __shfl_down_sync(0xffffffffu, sp, o);
    sv += __shfl_down_sync(0xffffffffu, sv, o);
  }
  if (lane == 0) {
    atomicAdd(out, sp);
    if (MODE > 1) atomicAdd(out + 1, sv);
  }
  if (MODE > 0) scan.flush(out + 2);
}

// The value scan (kl_value_scan, into out[0..4]) of a dense matrix's rows x cols values
// (row stride ldv) where ``present`` (row stride ldp) says stored, or all (MASK false):
// Matrix.has_nan's pass, which also leaves the range and positive part for the checks
// after it (an APSP's negative-weight test) to read without another pass. Blocks go
// over the rows (y) and column segments (x); a contiguous matrix comes as one row.
template <typename V, bool MASK>
__global__ void __launch_bounds__(256)
kl_dense_scan(const V* __restrict__ values, long long ldv, const bool* __restrict__ present,
              long long ldp, long long rows, long long cols, unsigned long long* out) {
  constexpr int K = 8;  // loads in flight per thread: a scan is bound by their latency
  kl_value_scan scan;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    const V* v = values + r * ldv;
    const bool* p = MASK ? present + r * ldp : nullptr;
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; c + (K - 1) * step < cols; c += K * step) {
      V x[K];
      bool keep[K];
#pragma unroll
      for (int j = 0; j < K; ++j) {
        x[j] = v[c + j * step];
        keep[j] = !MASK || p[c + j * step];
      }
#pragma unroll
      for (int j = 0; j < K; ++j)
        if (keep[j]) scan.add(x[j]);
    }
    for (; c < cols; c += step)
      if (!MASK || p[c]) scan.add(v[c]);
  }
  scan.flush_block(out);
}

// Row-wise union of two CSRs with sorted rows (A and its transpose, for an
// undirected graph): C = A ∪ B, the lesser value where both hold an entry (VALUES),
// or the pattern alone. One thread per row walks both sorted rows in step: the
// count pass (c_ptr null) writes each row's size into counts, the write pass
// writes the merged row at c_ptr[i].
template <typename V, bool VALUES>
__global__ void kl_union_min(const long long* __restrict__ a_ptr, const int* __restrict__ a_idx,
                             const V* __restrict__ a_val, const long long* __restrict__ b_ptr,
                             const int* __restrict__ b_idx, const V* __restrict__ b_val,
                             long long n, long long* __restrict__ counts,
                             const long long* __restrict__ c_ptr, int* __restrict__ c_idx,
                             V* __restrict__ c_val) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    long long p = a_ptr[i], q = b_ptr[i];
    const long long pe = a_ptr[i + 1], qe = b_ptr[i + 1];
    long long out = c_ptr ? c_ptr[i] : 0;
    const long long first = out;
    while (p < pe || q < qe) {
      const int ja = p < pe ? a_idx[p] : 0x7fffffff;
      const int jb = q < qe ? b_idx[q] : 0x7fffffff;
      const int j = ja < jb ? ja : jb;
      if (c_ptr) {
        c_idx[out] = j;
        if (VALUES) {
          V v;
          if (ja == jb) {
            v = a_val[p] < b_val[q] ? a_val[p] : b_val[q];
          } else {
            v = ja < jb ? a_val[p] : b_val[q];
          }
          c_val[out] = v;
        }
      }
      ++out;
      if (ja == j) ++p;
      if (jb == j) ++q;
    }
    if (!c_ptr) counts[i] = out - first;
  }
}

#undef KL_SCAN_CHUNK
#undef KL_SCAN_BATCH

// E bytes as one load (the bitmap beside 16 bytes of values of one type).
template <int E> struct kl_bytes;
template <> struct kl_bytes<2> { using T = unsigned short; };
template <> struct kl_bytes<4> { using T = unsigned int; };
template <> struct kl_bytes<16> { using T = uint4; };

// One 16-byte load as the 16 / sizeof(V) values it holds, and the bitmap bytes beside
// them (one word) as that many flags.
template <typename V> union kl_vals16 {
  uint4 raw;
  V x[16 / sizeof(V)];
};
template <typename V> union kl_flags16 {
  typename kl_bytes<16 / sizeof(V)>::T raw;
  bool x[16 / sizeof(V)];
};

// Which entries a dense pass takes as stored: every one, where the bitmap says, or those
// that differ from a marker value (a dense array taken with "inf = no edge", before any
// bitmap is built: Matrix.from_dense keeps the marker and builds the bitmap only if asked).
enum kl_keep { KL_KEEP_ALL = 0, KL_KEEP_BITMAP = 1, KL_KEEP_MARKED = 2 };

// The pass both kernels below make over n contiguous values (and, KEEP bitmap, their
// bitmap) by 16-byte loads, K in flight a thread: values 16-byte aligned, the bitmap
// aligned to its E = 16 / sizeof(V) bytes, out 16-byte aligned (the caller checks). SCAN:
// the stored values go into scan; FILL: out = stored ? values : fill, by 16-byte stores.
template <typename V, int KEEP, bool SCAN, bool FILL>
__device__ __forceinline__ void kl_dense_pass(const V* __restrict__ values,
                                              const bool* __restrict__ present, V mark,
                                              V fill, long long n, V* __restrict__ out,
                                              kl_value_scan& scan) {
  constexpr int E = 16 / sizeof(V), K = 4;  // values per load, loads in flight per thread
  constexpr bool MASK = KEEP == KL_KEEP_BITMAP;
  using M = typename kl_bytes<E>::T;
  const uint4* v = reinterpret_cast<const uint4*>(values);
  const M* p = reinterpret_cast<const M*>(present);
  uint4* o = reinterpret_cast<uint4*>(out);
  const long long step = (long long)gridDim.x * blockDim.x, nv = n / E;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  auto stored = [&](V x, bool flag) {
    return KEEP == KL_KEEP_BITMAP ? flag : KEEP == KL_KEEP_MARKED ? x != mark : true;
  };
  auto take = [&](kl_vals16<V>& x, const kl_flags16<V>& keep) {
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const bool kept = stored(x.x[e], MASK && keep.x[e]);
      if (FILL && !kept) x.x[e] = fill;
      else if (SCAN && kept) scan.add(x.x[e]);
    }
  };
  for (; i + (K - 1) * step < nv; i += K * step) {
    kl_vals16<V> x[K];
    kl_flags16<V> keep[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      x[j].raw = v[i + j * step];
      if (MASK) keep[j].raw = p[i + j * step];
    }
#pragma unroll
    for (int j = 0; j < K; ++j) {
      take(x[j], keep[j]);
      if (FILL) o[i + j * step] = x[j].raw;
    }
  }
  for (; i < nv; i += step) {
    kl_vals16<V> x;
    kl_flags16<V> keep;
    x.raw = v[i];
    if (MASK) keep.raw = p[i];
    take(x, keep);
    if (FILL) o[i] = x.raw;
  }
  for (long long c = nv * E + (long long)blockIdx.x * blockDim.x + threadIdx.x; c < n; c += step) {
    const V x = values[c];  // the tail past the last whole load
    const bool kept = stored(x, MASK && present[c]);
    if (SCAN && kept) scan.add(x);
    if (FILL) out[c] = kept ? x : fill;
  }
}

// kl_dense_scan of n contiguous values (and bitmap, or marker) by 16-byte loads
// (kl_dense_pass). The scalar kernel moved a 4096² float32 matrix at about a third of
// the bandwidth.
template <typename V, int KEEP>
__global__ void __launch_bounds__(256)
kl_dense_scan_vec(const V* __restrict__ values, const bool* __restrict__ present, V mark,
                  long long n, unsigned long long* out) {
  kl_value_scan scan;
  kl_dense_pass<V, KEEP, true, false>(values, present, mark, V(), n, nullptr, scan);
  scan.flush_block(out);
}

// out = stored ? values : fill over n contiguous entries by 16-byte loads and stores (a
// dense matrix's dense form, kl_dense_pass; KEEP all: a copy). CuPy's elementwise kernel
// moved a 4096² float32 matrix at about half the bandwidth, and APSP waits for this pass
// before its closure starts. With SCAN the same read also gives kl_dense_scan's answer
// (the stored values' NaNs and range) in scan_out: APSP's input check then costs no pass
// of its own.
template <typename V, bool SCAN, int KEEP>
__global__ void __launch_bounds__(256)
kl_dense_fill_vec(const V* __restrict__ values, const bool* __restrict__ present, V mark,
                  V fill, long long n, V* __restrict__ out, unsigned long long* scan_out) {
  kl_value_scan scan;
  kl_dense_pass<V, KEEP, SCAN, true>(values, present, mark, fill, n, out, scan);
  if (SCAN) scan.flush_block(scan_out);
}
