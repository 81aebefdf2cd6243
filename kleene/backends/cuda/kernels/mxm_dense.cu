// mxm_dense: C = A (+).(x) B on full dense row-major arrays, any m, n, k.
// Needs from the prelude: kl_a_t, kl_b_t, kl_c_t, kl_identity, kl_step(acc, a, b)
// (acc = ADD(acc, MULT(a, b))), kl_pre_a/kl_pre_b (applied as tiles enter shared
// memory; identity except on the int32 fast path), kl_post (on the way out), and
// the tile shape KL_BM x KL_BN x KL_BK, KL_TM x KL_TN per thread, KL_PAD_A,
// KL_MIN_BLOCKS, KL_VEC (16-byte loads possible for these types), KL_VEC_C, and
// the variant switches KL_ACC, KL_PRED (with kl_add for both).
//
// A block computes a KL_BM x KL_BN tile of C from KL_BK-deep slabs of A and B
// staged in double-buffered shared memory (A transposed, padded against bank
// conflicts): the next slab is fetched into registers while the current one is
// consumed, so one barrier per slab suffices. Each thread keeps a KL_TM x KL_TN
// micro-tile of accumulators in registers, split into two halves per dimension
// (rows ty*TM/2 + i and KL_BM/2 + ty*TM/2 + i) so its shared-memory reads are
// 16-byte vectors without bank conflicts. VEC=true (aligned, k and n multiples
// of 4, 4-byte types, row strides multiples of 4) uses 16-byte global loads and
// stores.
//
// KL_ACC (mxm_dense_acc): C = ADD(C_old, post(acc)) in place, C_old read right
// before the write (scalar accesses). A, B and C may then overlap (in-place
// closure products with an idempotent add): a block may read A/B entries another
// block has already updated, which the caller's algebra allows, so they are not
// declared __restrict__ (no non-coherent loads of data written during the launch).
// KL_PRED (implies KL_ACC, operands do not overlap): each accumulator also keeps
// the k of its last strict improvement (= its first best term for a selective
// add); where ADD(C_old, acc) != C_old, C takes the new value and
// PC(i, j) = PB(kbest, j), the Floyd-Warshall predecessor rule.

#if KL_ACC && !KL_PRED
#define KL_ALIAS
#else
#define KL_ALIAS __restrict__
#endif
#if KL_PRED
#define KL_PRED_PARAMS                                                              \
  , const long long* __restrict__ PB, long long* __restrict__ PC, long long ldpb, \
      long long ldpc
#else
#define KL_PRED_PARAMS
#endif

#define KL_THREADS ((KL_BM / KL_TM) * (KL_BN / KL_TN))
#define KL_LA (KL_BM * KL_BK / KL_THREADS)  // A elements per thread per slab
#define KL_LB (KL_BK * KL_BN / KL_THREADS)  // B elements per thread per slab
#define KL_HM (KL_TM / 2)
#define KL_HN (KL_TN / 2)

template <bool VEC>
__global__ void __launch_bounds__(KL_THREADS, KL_MIN_BLOCKS)
kl_mxm_dense(const kl_a_t* KL_ALIAS A, const kl_b_t* KL_ALIAS B, kl_c_t* KL_ALIAS C, int m,
             int n, int k, long long lda, long long ldb, long long ldc KL_PRED_PARAMS) {
  __shared__ __align__(16) kl_a_t As[2][KL_BK][KL_BM + KL_PAD_A];
  __shared__ __align__(16) kl_b_t Bs[2][KL_BK][KL_BN];

  const int tid = threadIdx.x;
  const int tx = tid % (KL_BN / KL_TN), ty = tid / (KL_BN / KL_TN);
  const int bm0 = blockIdx.y * KL_BM, bn0 = blockIdx.x * KL_BN;

  // Global -> register mapping: KL_LA consecutive k of one A row, KL_LB
  // consecutive columns of one B row.
  const int a_r = tid / (KL_BK / KL_LA), a_c = (tid % (KL_BK / KL_LA)) * KL_LA;
  const int b_r = tid / (KL_BN / KL_LB), b_c = (tid % (KL_BN / KL_LB)) * KL_LB;
  const bool a_ok = bm0 + a_r < m;
  const kl_a_t* Ap = A + (a_ok ? (long long)(bm0 + a_r) * lda + a_c : 0);
  const kl_b_t* Bp = B + (long long)b_r * ldb + bn0 + b_c;
  kl_a_t ra[KL_LA];
  kl_b_t rb[KL_LB];

  auto fetch = [&](int k0) {
#if KL_VEC
    if constexpr (VEC) {
      typedef typename kl_vec4<kl_a_t>::type va_t;
      typedef typename kl_vec4<kl_b_t>::type vb_t;
#pragma unroll
      for (int q = 0; q < KL_LA / 4; ++q) {
        va_t va = {};
        if (a_ok && k0 + a_c + 4 * q < k) va = *reinterpret_cast<const va_t*>(Ap + k0 + 4 * q);
        ra[4 * q] = va.x; ra[4 * q + 1] = va.y; ra[4 * q + 2] = va.z; ra[4 * q + 3] = va.w;
      }
      const bool brow = k0 + b_r < k;
#pragma unroll
      for (int q = 0; q < KL_LB / 4; ++q) {
        vb_t vb = {};
        if (brow && bn0 + b_c + 4 * q < n)
          vb = *reinterpret_cast<const vb_t*>(Bp + (long long)k0 * ldb + 4 * q);
        rb[4 * q] = vb.x; rb[4 * q + 1] = vb.y; rb[4 * q + 2] = vb.z; rb[4 * q + 3] = vb.w;
      }
    } else
#endif
    {
#pragma unroll
      for (int j = 0; j < KL_LA; ++j)
        ra[j] = (a_ok && k0 + a_c + j < k) ? Ap[k0 + j] : kl_a_t();
      const bool brow = k0 + b_r < k;
#pragma unroll
      for (int j = 0; j < KL_LB; ++j)
        rb[j] = (brow && bn0 + b_c + j < n) ? Bp[(long long)k0 * ldb + j] : kl_b_t();
    }
  };
  auto stash = [&](int buf) {
#pragma unroll
    for (int j = 0; j < KL_LA; ++j) As[buf][a_c + j][a_r] = kl_pre_a(ra[j]);
#pragma unroll
    for (int j = 0; j < KL_LB; ++j) Bs[buf][b_r][b_c + j] = kl_pre_b(rb[j]);
  };

  kl_c_t acc[KL_TM][KL_TN];
#if KL_PRED
  int kbest[KL_TM][KL_TN];  // k of acc's last strict improvement (-1: none)
#endif
#pragma unroll
  for (int i = 0; i < KL_TM; ++i)
#pragma unroll
    for (int j = 0; j < KL_TN; ++j) {
      acc[i][j] = kl_identity();
#if KL_PRED
      kbest[i][j] = -1;
#endif
    }

  const int r0 = ty * KL_HM, c0 = tx * KL_HN;
  auto step = [&](int buf, int kk, int kg) {
    kl_a_t a[KL_TM];
    kl_b_t b[KL_TN];
#pragma unroll
    for (int i = 0; i < KL_HM; ++i) {
      a[i] = As[buf][kk][r0 + i];
      a[KL_HM + i] = As[buf][kk][KL_BM / 2 + r0 + i];
    }
#pragma unroll
    for (int j = 0; j < KL_HN; ++j) {
      b[j] = Bs[buf][kk][c0 + j];
      b[KL_HN + j] = Bs[buf][kk][KL_BN / 2 + c0 + j];
    }
#pragma unroll
    for (int i = 0; i < KL_TM; ++i)
#pragma unroll
      for (int j = 0; j < KL_TN; ++j) {
#if KL_PRED
        const kl_c_t nv = kl_step(acc[i][j], a[i], b[j]);
        kbest[i][j] = nv != acc[i][j] ? kg : kbest[i][j];
        acc[i][j] = nv;
#else
        acc[i][j] = kl_step(acc[i][j], a[i], b[j]);
#endif
      }
  };

  const int ntiles = (k + KL_BK - 1) / KL_BK;
  if (ntiles > 0) {
    fetch(0);
    stash(0);
  }
  __syncthreads();
  for (int t = 0; t < ntiles; ++t) {
    const int buf = t & 1;
    const bool more = t + 1 < ntiles;
    if (more) fetch((t + 1) * KL_BK);
    const int krem = k - t * KL_BK;
    const int kg0 = t * KL_BK;
    if (krem >= KL_BK) {
#pragma unroll
      for (int kk = 0; kk < KL_BK; ++kk) step(buf, kk, kg0 + kk);
    } else {
#pragma unroll 1
      for (int kk = 0; kk < krem; ++kk) step(buf, kk, kg0 + kk);
    }
    if (more) stash(buf ^ 1);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < KL_TM; ++i) {
    const int row = bm0 + (i < KL_HM ? r0 + i : KL_BM / 2 + r0 + i - KL_HM);
    if (row >= m) continue;
    kl_c_t* Crow = C + (long long)row * ldc + bn0;
#if KL_PRED
    long long* Prow = PC + (long long)row * ldpc + bn0;
#endif
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = c0 + h * (KL_BN / 2);  // first of KL_HN columns, tile-relative
#if KL_VEC_C && !KL_ACC
      // (KL_ACC: 16-byte C_old loads made ptxas spill the fp32 main loop's
      // prefetch registers at 128 per thread; the scalar epilogue costs nothing)
      if (VEC && bn0 + col < n) {  // n % 4 == 0: all four columns exist
        typedef typename kl_vec4<kl_c_t>::type vc_t;
        vc_t o;
        o.x = kl_post(acc[i][h * KL_HN + 0]);
        o.y = kl_post(acc[i][h * KL_HN + 1]);
        o.z = kl_post(acc[i][h * KL_HN + 2]);
        o.w = kl_post(acc[i][h * KL_HN + 3]);
        *reinterpret_cast<vc_t*>(Crow + col) = o;
        continue;
      }
#endif
#pragma unroll
      for (int j = 0; j < KL_HN; ++j) {
        if (bn0 + col + j >= n) continue;
        const kl_c_t v = kl_post(acc[i][h * KL_HN + j]);
#if KL_PRED
        const kl_c_t old = Crow[col + j];
        const kl_c_t nv = kl_add(old, v);
        const int kb = kbest[i][h * KL_HN + j];
        if (nv != old) {
          Crow[col + j] = nv;
          if (kb >= 0) Prow[col + j] = PB[(long long)kb * ldpb + bn0 + col + j];
        }
#elif KL_ACC
        Crow[col + j] = kl_add(Crow[col + j], v);
#else
        Crow[col + j] = v;
#endif
      }
    }
  }
}

#undef KL_ALIAS
#undef KL_PRED_PARAMS

#undef KL_THREADS
#undef KL_LA
#undef KL_LB
#undef KL_HM
#undef KL_HN
