// A warp's staging area for a queue, in shared memory (the loops of frontier.cu,
// bfs_rounds.cu and near_far.cu): appends gather here and reach the global queue KL_STAGE
// at a time, with one atomic on its count a flush, where an append straight to the queue
// took one (and one more for m_f) every warp step. Every warp of the grid adds to the same
// counters, which the L2 serialises: a pull level of a large RMAT graph takes hundreds of
// thousands of such atomics, one after another. frontier.cu adds the appends
// to a next frontier (kl_stage_at: each lane sums its appends' out-degrees, m_f, added
// once a warp in kl_stage_end; the heavy list still takes its atomic per vertex). A queue
// without row bounds (the near-far search's far pile) stages with rows == nullptr.
// A header, not a .cu template: its macros are shared by the files of the unit.
#define KL_STAGE 128
struct kl_stage {
  int* v;            // KL_STAGE vertices (this warp's slice of the block's array)
  longlong2* rows;   // and their row bounds, or nullptr
  int n = 0;         // entries staged (warp-uniform)
  long long deg = 0; // this lane's appended out-degrees
};

// Move the staged entries to q (and `rows`) at a slot taken from *count, coalesced.
// All 32 lanes call.
__device__ __forceinline__ void kl_stage_flush(kl_stage& st, int* q, int* count,
                                               long long* rows) {
  if (st.n == 0) return;
  const int lane = threadIdx.x & 31;
  int base = 0;
  if (lane == 0) base = atomicAdd(count, st.n);
  base = __shfl_sync(KL_FULL_MASK, base, 0);
  __syncwarp();
  for (int i = lane; i < st.n; i += 32) {
    q[base + i] = st.v[i];
    if (rows) reinterpret_cast<longlong2*>(rows)[base + i] = st.rows[i];
  }
  __syncwarp();
  st.n = 0;
}

// Stage the flagged lanes' v for q (no row bounds). All 32 lanes call.
__device__ __forceinline__ void kl_stage_push(bool flag, int v, kl_stage& st, int* q,
                                              int* count) {
  const unsigned mask = __ballot_sync(KL_FULL_MASK, flag);
  if (!mask) return;
  const int k = __popc(mask);
  if (st.n + k > KL_STAGE) kl_stage_flush(st, q, count, nullptr);
  if (flag) st.v[st.n + __popc(mask & ((1u << (threadIdx.x & 31)) - 1u))] = v;
  st.n += k;
}

// A block's staging arrays for `warps` warps; `st` gets this warp's slice. The _Q form
// stages vertices only.
#define KL_STAGE_SHARED(st, warps)                                   \
  __shared__ int st##_v_[warps][KL_STAGE];                           \
  __shared__ longlong2 st##_rows_[warps][KL_STAGE];                  \
  kl_stage st;                                                       \
  st.v = st##_v_[threadIdx.x >> 5];                                  \
  st.rows = st##_rows_[threadIdx.x >> 5]
#define KL_STAGE_SHARED_Q(st, warps)                                 \
  __shared__ int st##_v_[warps][KL_STAGE];                           \
  kl_stage st;                                                       \
  st.v = st##_v_[threadIdx.x >> 5];                                  \
  st.rows = nullptr
