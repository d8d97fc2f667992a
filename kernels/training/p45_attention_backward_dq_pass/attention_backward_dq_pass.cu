// Puzzle 45, step 2: attention backward with dq in a pass of its own. The
// key blocks are step 1's without dq: each block owns BC keys and gathers
// their dk and dv in registers. Then a second kernel gives each block QR
// query rows, which walk the keys QC at a time as Puzzle 36's forward pass
// does, recompute p and ds in the queries' own orientation, and gather
// dq = ds k in registers: no atomics, and no dq to set to zero, for two
// products more (s and dp are computed twice).
#include <cuda_bf16.h>

#define DIM 64
#define BR 64
#define BC 64
#define QR 64
#define QC 64
#define WARP 32
// Both kernels have a warp a 16 rows: BC / 16 warps a key block, QR / 16 a
// query block; the launch bounds take the larger.
#define WARPS (BC / 16)
#define THREADS (WARPS * WARP)
#define QUERY_THREADS (QR / 16 * WARP)
#define ROWS 4
#define LANE_COLS (DIM / WARP)
#define CHUNKS (DIM / 8)
#define KD (DIM / 16)
#define ND (DIM / 8)
#define NQ (BR / 8)
#define NK (QC / 8)
static_assert(CHUNKS % 8 == 0, "the swizzle permutes 8 chunks: DIM is a multiple of 64");
static_assert(BR % 16 == 0 && QC % 16 == 0, "whole k-steps of 16 for the products");

typedef __nv_bfloat16 bf16;

#include "../p45_attention_backward/backward_tiles.cuh"

// Given: delta = rowsum(dout ⊙ o) for each query row, which equals
// Σ p·dp over the row's keys.
extern "C" __global__ void prepare(float* delta, const bf16* o, const bf16* dout) {
    unsigned int row = blockIdx.x * ROWS + threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    float part = 0.0f;
    for (unsigned int c = 0; c < LANE_COLS; c++) {
        size_t at = static_cast<size_t>(row) * DIM + c * WARP + lane;
        part += __bfloat162float(dout[at]) * __bfloat162float(o[at]);
    }
    part = warp_sum(part);
    if (lane == 0) {
        delta[row] = part;
    }
}

// Given: step 1's key blocks, without dq.
extern "C" __global__ void __launch_bounds__(THREADS)
    key_block(bf16* dk, bf16* dv, const bf16* q, const bf16* k, const bf16* v, const bf16* dout,
              const float* lse, const float* delta, unsigned int seq) {
    extern __shared__ __align__(128) unsigned char shared[];
    bf16* k_tile = reinterpret_cast<bf16*>(shared);
    bf16* v_tile = k_tile + BC * DIM;
    bf16* q_tiles = v_tile + BC * DIM;
    bf16* dout_tiles = q_tiles + 2 * BR * DIM;
    float* lse_tiles = reinterpret_cast<float*>(dout_tiles + 2 * BR * DIM);
    float* delta_tiles = lse_tiles + 2 * BR;
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
        // at the barrier that ended step t - 1.
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
        // Step 1's work, given here.
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
        // Every warp is done with this stage of q and dout.
        __syncthreads();
    }
    size_t rows = key0 + static_cast<size_t>(warp) * 16 * DIM;
    store_rows(dk + rows, dk_acc, grad_scale, lane);
    store_rows(dv + rows, dv_acc, 1.0f, lane);
}

// A query block: dq for QR query rows of one head, a warp 16 of them, in
// registers; k and v pass through shared memory QC keys at a time.
extern "C" __global__ void __launch_bounds__(QUERY_THREADS)
    query_block(float* dq, const bf16* q, const bf16* k, const bf16* v, const bf16* dout,
                const float* lse, const float* delta, unsigned int seq) {
    extern __shared__ __align__(128) unsigned char shared[];
    bf16* q_tile = reinterpret_cast<bf16*>(shared);
    bf16* dout_tile = q_tile + QR * DIM;
    bf16* k_tiles = dout_tile + QR * DIM;
    bf16* v_tiles = k_tiles + 2 * QC * DIM;
    unsigned int warp = threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    size_t head = static_cast<size_t>(blockIdx.y) * seq * DIM;
    unsigned int row0 = blockIdx.x * QR;
    const float scale = 1.44269504088896341f * rsqrtf(static_cast<float>(DIM));
    const float grad_scale = rsqrtf(static_cast<float>(DIM));

    // The tile loads of the key blocks, here with QUERY_THREADS threads.
    for (unsigned int i = threadIdx.x; i < QR * CHUNKS; i += QUERY_THREADS) {
        unsigned int r = i / CHUNKS, c = i % CHUNKS;
        size_t from = head + static_cast<size_t>(row0 + r) * DIM + c * 8;
        copy_async_16(&q_tile[r * DIM + swizzle(r, c) * 8], &q[from]);
        copy_async_16(&dout_tile[r * DIM + swizzle(r, c) * 8], &dout[from]);
    }
    auto load_keys = [&](unsigned int t, unsigned int stage) {
        for (unsigned int i = threadIdx.x; i < QC * CHUNKS; i += QUERY_THREADS) {
            unsigned int r = i / CHUNKS, c = i % CHUNKS;
            size_t from = head + static_cast<size_t>(t * QC + r) * DIM + c * 8;
            unsigned int to = stage * QC * DIM + r * DIM + swizzle(r, c) * 8;
            copy_async_16(&k_tiles[to], &k[from]);
            copy_async_16(&v_tiles[to], &v[from]);
        }
    };
    load_keys(0, 0);
    commit_copies();
    // Lane l holds rows l / 4 (h = 0) and l / 4 + 8 (h = 1) of the warp's 16.
    float row_lse[2], row_delta[2];
    for (unsigned int h = 0; h < 2; h++) {
        size_t row = static_cast<size_t>(blockIdx.y) * seq + row0 + warp * 16 + lane / 4 + h * 8;
        row_lse[h] = lse[row];
        row_delta[h] = delta[row];
    }

    float dq_acc[ND][4] = {};
    unsigned int tiles = seq / QC;
    for (unsigned int t = 0; t < tiles; t++) {
        if (t + 1 < tiles) {
            load_keys(t + 1, (t + 1) % 2);
        }
        commit_copies();
        wait_copies<1>();
        __syncthreads();
        const bf16* k_tile = k_tiles + (t % 2) * QC * DIM;
        const bf16* v_tile = v_tiles + (t % 2) * QC * DIM;
        // The raw scores s = q kᵀ into p, and dp = dout vᵀ into ds.
        float p[NK][4] = {}, ds[NK][4] = {};
        product_abt(p, q_tile, warp * 16, k_tile, lane);
        product_abt(ds, dout_tile, warp * 16, v_tile, lane);
        // BEGIN PUZZLE (roughly 8 lines)
        // p from the raw scores and the row's saved lse, then ds = p ⊙ (dp −
        // delta). Now the rows are queries: in key tile n, lane l holds
        // row l / 4 in e = 0, 1 and row l / 4 + 8 in e = 2, 3.
#pragma unroll
        for (unsigned int n = 0; n < NK; n++) {
#pragma unroll
            for (unsigned int e = 0; e < 4; e++) {
                p[n][e] = exp2f(fmaf(p[n][e], scale, -row_lse[e / 2]));
                ds[n][e] = p[n][e] * (ds[n][e] - row_delta[e / 2]);
            }
        }
        // END PUZZLE
        product_xb(dq_acc, ds, k_tile, lane);
        // Every warp is done with this stage before step t + 1 refills it.
        __syncthreads();
    }
#pragma unroll
    for (unsigned int d = 0; d < ND; d++) {
#pragma unroll
        for (unsigned int h = 0; h < 2; h++) {
            size_t row = row0 + warp * 16 + lane / 4 + h * 8;
            float* at = dq + head + row * DIM + d * 8 + lane % 4 * 2;
            *reinterpret_cast<float2*>(at) =
                make_float2(dq_acc[d][2 * h] * grad_scale, dq_acc[d][2 * h + 1] * grad_scale);
        }
    }
}
