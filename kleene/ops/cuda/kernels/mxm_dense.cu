// mxm_dense: C = A (+).(x) B on full dense row-major arrays, any m, n, k.
// Needs from the prelude: kl_a_t, kl_b_t, kl_c_t, kl_identity, kl_step(acc, a, b)
// (acc = ADD(acc, MULT(a, b))), kl_pre_a/kl_pre_b (applied as tiles enter shared
// memory; identity except on the int32 fast path), kl_post (on the way out), and
// the tile shape KL_BM x KL_BN x KL_BK, KL_TM x KL_TN per thread, KL_PAD_A,
// KL_MIN_BLOCKS, KL_VEC (16-byte loads possible for these types), KL_VEC_C.
//
// A block computes a KL_BM x KL_BN tile of C from KL_BK-deep slabs of A and B
// staged in double-buffered shared memory (A transposed, padded against bank
// conflicts): the next slab is fetched into registers while the current one is
// consumed, so one barrier per slab suffices. Each thread keeps a KL_TM x KL_TN
// micro-tile of accumulators in registers, split into two halves per dimension
// (rows ty*TM/2 + i and KL_BM/2 + ty*TM/2 + i) so its shared-memory reads are
// 16-byte vectors without bank conflicts. VEC=true (aligned, k and n multiples
// of 4, 4-byte types) uses 16-byte global loads and stores.

#define KL_THREADS ((KL_BM / KL_TM) * (KL_BN / KL_TN))
#define KL_LA (KL_BM * KL_BK / KL_THREADS)  // A elements per thread per slab
#define KL_LB (KL_BK * KL_BN / KL_THREADS)  // B elements per thread per slab
#define KL_HM (KL_TM / 2)
#define KL_HN (KL_TN / 2)

template <bool VEC>
__global__ void __launch_bounds__(KL_THREADS, KL_MIN_BLOCKS)
kl_mxm_dense(const kl_a_t* __restrict__ A, const kl_b_t* __restrict__ B,
             kl_c_t* __restrict__ C, int m, int n, int k, long long lda, long long ldb,
             long long ldc) {
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
#pragma unroll
  for (int i = 0; i < KL_TM; ++i)
#pragma unroll
    for (int j = 0; j < KL_TN; ++j) acc[i][j] = kl_identity();

  const int r0 = ty * KL_HM, c0 = tx * KL_HN;
  auto step = [&](int buf, int kk) {
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
      for (int j = 0; j < KL_TN; ++j) acc[i][j] = kl_step(acc[i][j], a[i], b[j]);
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
    if (krem >= KL_BK) {
#pragma unroll
      for (int kk = 0; kk < KL_BK; ++kk) step(buf, kk);
    } else {
#pragma unroll 1
      for (int kk = 0; kk < krem; ++kk) step(buf, kk);
    }
    if (more) stash(buf ^ 1);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < KL_TM; ++i) {
    const int row = bm0 + (i < KL_HM ? r0 + i : KL_BM / 2 + r0 + i - KL_HM);
    if (row >= m) continue;
    kl_c_t* Crow = C + (long long)row * ldc + bn0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = c0 + h * (KL_BN / 2);  // first of KL_HN columns, tile-relative
#if KL_VEC_C
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
      for (int j = 0; j < KL_HN; ++j)
        if (bn0 + col + j < n) Crow[col + j] = kl_post(acc[i][h * KL_HN + j]);
    }
  }
}

#undef KL_THREADS
#undef KL_LA
#undef KL_LB
#undef KL_HM
#undef KL_HN
