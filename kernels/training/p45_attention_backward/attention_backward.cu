// Puzzle 45: attention backward on the tensor cores, FlashAttention 2's way.
// A block owns BC keys of one head and walks the queries BR at a time. Each
// warp owns 16 of the keys, and works with the score matrix transposed (its
// keys as rows), so that everything a key gathers stays in its registers:
//   sᵀ = k qᵀ                       (mma.sync, as Puzzle 36's scores)
//   pᵀ = 2^(sᵀ·scale − lse)         (recomputed from the forward's saved lse)
//   dv += pᵀ dout                   (pᵀ fed back as BF16 fragments)
//   dpᵀ = v doutᵀ
//   dsᵀ = pᵀ ⊙ (dpᵀ − delta)        (delta = rowsum(dout ⊙ o), one per query)
//   dk += dsᵀ q
// and dq = ds k, which needs every key block's share of a query, is added
// into global memory with atomics after dsᵀ passes through shared memory.
// q, k, v, dout, dk and dv are [HEADS, SEQ, DIM] BF16; dq is FP32.
#include <cuda_bf16.h>

#define DIM 64
#define BR 64
#define BC 64
#define WARP 32
#define WARPS (BC / 16)
#define THREADS (WARPS * WARP)
// The prepare kernel: a warp a query row, ROWS rows a block.
#define ROWS 4
#define LANE_COLS (DIM / WARP)
// A row of q, k, v or dout is CHUNKS 16-byte chunks; a row of dsᵀ, BR / 8.
#define CHUNKS (DIM / 8)
#define KD (DIM / 16)
#define ND (DIM / 8)
#define NQ (BR / 8)
#define KQ (BR / 16)
#define KK (BC / 16)
// dq = ds k: BR / 16 m-tiles of queries, each split into DQ_SPLIT pieces of
// DQ_COLS columns, a warp a piece.
#define DQ_TILES (BR / 16)
#define DQ_SPLIT (WARPS / DQ_TILES)
#define DQ_COLS (DIM / DQ_SPLIT)
#define DQ_ND (DQ_COLS / 8)
// A row of a warp's dq patch in shared memory, padded by 8 floats so that
// the 8 rows one store of a float2 a lane writes fall in different banks.
#define DQ_PITCH (DQ_COLS + 8)
static_assert(CHUNKS % 8 == 0, "the swizzle permutes 8 chunks: DIM is a multiple of 64");
static_assert(BR % 64 == 0, "a row of dsᵀ is whole swizzles of 8 chunks");
static_assert(WARPS % DQ_TILES == 0 && DIM % DQ_SPLIT == 0 && DQ_ND % 2 == 0,
              "the warps share dq's tile evenly, in pairs of 8 columns");

typedef __nv_bfloat16 bf16;

#include "backward_tiles.cuh"

// Given: delta = rowsum(dout ⊙ o) for each query row, which equals
// Σ p·dp over the row's keys; and dq set to zero for the atomics.
extern "C" __global__ void prepare(float* dq, float* delta, const bf16* o, const bf16* dout) {
    unsigned int row = blockIdx.x * ROWS + threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    float part = 0.0f;
    for (unsigned int c = 0; c < LANE_COLS; c++) {
        size_t at = static_cast<size_t>(row) * DIM + c * WARP + lane;
        part += __bfloat162float(dout[at]) * __bfloat162float(o[at]);
        dq[at] = 0.0f;
    }
    part = warp_sum(part);
    if (lane == 0) {
        delta[row] = part;
    }
}

// Given: the warp's dsᵀ into shared memory, [BC keys][BR queries] in BF16.
// An 8-query accumulator tile is one 16-byte chunk of a key's row.
__device__ __forceinline__ void store_ds(bf16* ds_tile, const float (&ds)[NQ][4],
                                         unsigned int warp, unsigned int lane) {
#pragma unroll
    for (unsigned int n = 0; n < NQ; n++) {
#pragma unroll
        for (unsigned int h = 0; h < 2; h++) {
            unsigned int r = warp * 16 + lane / 4 + h * 8;
            unsigned int at = r * BR + swizzle(r, n) * 8 + lane % 4 * 2;
            *reinterpret_cast<unsigned int*>(&ds_tile[at]) = pack_bf16(ds[n][2 * h], ds[n][2 * h + 1]);
        }
    }
}

// Four atomic additions in one instruction (sm_90): a warp's 32 cover 512
// consecutive bytes, whole 32-byte sectors of L2.
__device__ __forceinline__ void add_four(float* at, float4 v) {
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(at), "f"(v.x), "f"(v.y),
                 "f"(v.z), "f"(v.w)
                 : "memory");
}

// dq += ds k · scale for this warp's piece of the query tile, added into
// global memory. Given: the product. ds is stored transposed, so its A
// fragments come through ldmatrix .trans; k is read with .trans as b is in
// product_xb. The puzzle: the piece leaves the accumulators through the
// warp's own patch of shared memory, so that the atomics go out four floats
// a lane, rows whole.
__device__ __forceinline__ void add_dq(float* dq, const bf16* ds_tile, const bf16* k_tile,
                                       float* patch, float scale, unsigned int warp,
                                       unsigned int lane) {
    unsigned int tile = warp % DQ_TILES, col0 = warp / DQ_TILES * DQ_COLS;
    float acc[DQ_ND][4] = {};
#pragma unroll
    for (unsigned int kk = 0; kk < KK; kk++) {
        unsigned int m = lane / 8;
        unsigned int key = kk * 16 + m / 2 * 8 + lane % 8;
        unsigned int a[4];
        ldmatrix_x4_trans(a, &ds_tile[key * BR + swizzle(key, tile * 2 + m % 2) * 8]);
#pragma unroll
        for (unsigned int d = 0; d < DQ_ND; d += 2) {
            unsigned int r = kk * 16 + lane % 8 + (lane / 8) % 2 * 8;
            unsigned int got[4];
            ldmatrix_x4_trans(got, &k_tile[r * DIM + swizzle(r, col0 / 8 + d + lane / 16) * 8]);
            mma_16x8x16(acc[d], a, got[0], got[1]);
            mma_16x8x16(acc[d + 1], a, got[2], got[3]);
        }
    }
    // BEGIN PUZZLE (roughly 14 lines)
    // Accumulator tile d holds rows l / 4 (e = 0, 1) and l / 4 + 8 (e = 2,
    // 3) of the piece, columns d * 8 + 2 (l % 4) + e % 2: into the patch,
    // scaled, a float2 a row.
#pragma unroll
    for (unsigned int d = 0; d < DQ_ND; d++) {
#pragma unroll
        for (unsigned int h = 0; h < 2; h++) {
            float* at = &patch[(lane / 4 + h * 8) * DQ_PITCH + d * 8 + lane % 4 * 2];
            *reinterpret_cast<float2*>(at) = make_float2(acc[d][2 * h] * scale, acc[d][2 * h + 1] * scale);
        }
    }
    // Every lane's values are in the patch before any lane reads a row.
    __syncwarp();
    // Other key blocks add into the same rows of dq: atomically, four
    // floats a lane, the warp's lanes along whole rows of the piece.
    for (unsigned int i = lane; i < 16 * DQ_COLS / 4; i += WARP) {
        unsigned int r = i / (DQ_COLS / 4), c = i % (DQ_COLS / 4) * 4;
        add_four(dq + static_cast<size_t>(tile * 16 + r) * DIM + col0 + c,
                 *reinterpret_cast<const float4*>(&patch[r * DQ_PITCH + c]));
    }
    // The patch is read before the next tile's writes.
    __syncwarp();
    // END PUZZLE
}

extern "C" __global__ void __launch_bounds__(THREADS)
    key_block(float* dq, bf16* dk, bf16* dv, const bf16* q, const bf16* k, const bf16* v,
              const bf16* dout, const float* lse, const float* delta, unsigned int seq) {
    extern __shared__ __align__(128) unsigned char shared[];
    bf16* k_tile = reinterpret_cast<bf16*>(shared);
    bf16* v_tile = k_tile + BC * DIM;
    bf16* q_tiles = v_tile + BC * DIM;
    bf16* dout_tiles = q_tiles + 2 * BR * DIM;
    bf16* ds_tile = dout_tiles + 2 * BR * DIM;
    float* lse_tiles = reinterpret_cast<float*>(ds_tile + BC * BR);
    float* delta_tiles = lse_tiles + 2 * BR;
    float* patch = delta_tiles + 2 * BR + (threadIdx.x / WARP) * 16 * DQ_PITCH;
    unsigned int warp = threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    size_t head = static_cast<size_t>(blockIdx.y) * seq * DIM;
    size_t key0 = head + static_cast<size_t>(blockIdx.x) * BC * DIM;
    const float* head_lse = lse + static_cast<size_t>(blockIdx.y) * seq;
    const float* head_delta = delta + static_cast<size_t>(blockIdx.y) * seq;
    // Scores in base 2 for the exponentials; the gradients' own 1 / √DIM.
    const float scale = 1.44269504088896341f * rsqrtf(static_cast<float>(DIM));
    const float grad_scale = rsqrtf(static_cast<float>(DIM));

    load_rows_async(k_tile, k + key0, BC);
    load_rows_async(v_tile, v + key0, BC);
    load_rows_async(q_tiles, q + head, BR);
    load_rows_async(dout_tiles, dout + head, BR);
    load_floats_async(lse_tiles, head_lse, BR);
    load_floats_async(delta_tiles, head_delta, BR);
    commit_copies();

    float dk_acc[ND][4] = {}, dv_acc[ND][4] = {};
    unsigned int tiles = seq / BR;
    for (unsigned int t = 0; t < tiles; t++) {
        // Tile t + 1 into the other stage, which every warp finished reading
        // before the middle barrier of step t - 1.
        if (t + 1 < tiles) {
            unsigned int next = (t + 1) % 2;
            size_t from = head + static_cast<size_t>(t + 1) * BR * DIM;
            load_rows_async(q_tiles + next * BR * DIM, q + from, BR);
            load_rows_async(dout_tiles + next * BR * DIM, dout + from, BR);
            load_floats_async(lse_tiles + next * BR, head_lse + (t + 1) * BR, BR);
            load_floats_async(delta_tiles + next * BR, head_delta + (t + 1) * BR, BR);
        }
        commit_copies();
        wait_copies<1>();
        __syncthreads();
        const bf16* q_tile = q_tiles + (t % 2) * BR * DIM;
        const bf16* dout_tile = dout_tiles + (t % 2) * BR * DIM;
        const float* lse_tile = lse_tiles + (t % 2) * BR;
        const float* delta_tile = delta_tiles + (t % 2) * BR;

        // The raw scores sᵀ = k qᵀ into p, and dpᵀ = v doutᵀ into ds.
        float p[NQ][4] = {}, ds[NQ][4] = {};
        product_abt(p, k_tile, warp * 16, q_tile, lane);
        product_abt(ds, v_tile, warp * 16, dout_tile, lane);
        // Given: pᵀ from the raw scores and the saved lse, then dsᵀ = pᵀ ⊙
        // (dpᵀ − delta). In query tile n, lane l holds the warp's keys l / 4
        // (e = 0, 1) and l / 4 + 8 (e = 2, 3), for queries n * 8 + 2 (l % 4)
        // + e % 2.
#pragma unroll
        for (unsigned int n = 0; n < NQ; n++) {
#pragma unroll
            for (unsigned int e = 0; e < 4; e++) {
                unsigned int query = n * 8 + lane % 4 * 2 + e % 2;
                p[n][e] = exp2f(fmaf(p[n][e], scale, -lse_tile[query]));
                ds[n][e] = p[n][e] * (ds[n][e] - delta_tile[query]);
            }
        }
        product_xb(dv_acc, p, dout_tile, lane);
        product_xb(dk_acc, ds, q_tile, lane);
        store_ds(ds_tile, ds, warp, lane);
        // Every warp's dsᵀ is in shared memory, and every warp is done with
        // this stage of q and dout.
        __syncthreads();
        add_dq(dq + head + static_cast<size_t>(t) * BR * DIM, ds_tile, k_tile, patch, grad_scale, warp,
               lane);
    }
    size_t rows = key0 + static_cast<size_t>(warp) * 16 * DIM;
    store_rows(dk + rows, dk_acc, grad_scale, lane);
    store_rows(dv + rows, dv_acc, 1.0f, lane);
}
