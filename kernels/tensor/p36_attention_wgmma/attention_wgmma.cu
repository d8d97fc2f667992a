// Puzzle 36, step 2: attention in FlashAttention 3's design, first form.
// Step 1's online softmax, now between two wgmma products, fed as Puzzle
// 35's step 5 feeds its GEMM. Warpgroup 0 is the producer: one thread asks
// the TMA for q once and then for each tile of BC keys' k and v, into a
// ring of STAGES stages guarded by `full` and `empty` mbarriers. The
// CONSUMERS other warpgroups own 64 query rows each: per tile, s = q kᵀ on
// wgmma from shared memory, the online softmax on the accumulators, then
// o += p v on wgmma with p from registers. `setmaxnreg` moves registers
// from the producer, which needs few, to the consumers, which hold two
// accumulators. q, k, v and out are [HEADS, SEQ, DIM] BF16, q, k and v reaching
// the kernel as TMA tensor maps of 64-column boxes; SEQ is a multiple of BR
// and BC. Compute capability 9.0 only (compute_90a).
#include <cuda_bf16.h>

#define DIM 128
#define BC 128
#define STAGES 2
#define CONSUMERS 2
#define BR (CONSUMERS * 64)
#define THREADS ((CONSUMERS + 1) * 128)
// A row of q, k or v is BOXES boxes of 64 values (128 bytes: one swizzle row).
#define BOXES (DIM / 64)
#define Q_TILE (BR * DIM)
#define KV_TILE (BC * DIM)
// Bytes one stage receives: a tile of k and one of v.
#define STAGE_BYTES (2 * KV_TILE * 2)
// The accumulators a thread holds: scores (64 x BC a warpgroup) and output (64 x DIM).
#define S_ACC (BC / 2)
#define O_ACC (DIM / 2)
// Registers a thread after `setmaxnreg`: 128 x 24 + 256 x 240 fit the SM's 64 K.
#define PRODUCER_REGISTERS 24
#define CONSUMER_REGISTERS 240
static_assert(BC == 128, "the scores' wgmma is m64n128");
static_assert(DIM == 64 || DIM == 128, "the output's wgmma is m64n64 or m64n128");

typedef __nv_bfloat16 bf16;

#include "../hopper/attention.cuh"

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    attention_wgmma(bf16* out, const __grid_constant__ TensorMap q_map,
                    const __grid_constant__ TensorMap k_map,
                    const __grid_constant__ TensorMap v_map, unsigned int seq) {
    extern __shared__ unsigned char shared_raw[];
    // The 128-byte swizzle is computed on address bits: each box starts on
    // a 1024-byte boundary (the spec asks for 1 KiB extra).
    unsigned int misalignment = shared_address(shared_raw) % 1024;
    bf16* q_tile = reinterpret_cast<bf16*>(shared_raw + (misalignment ? 1024 - misalignment : 0));
    bf16* k_tiles = q_tile + Q_TILE;
    bf16* v_tiles = k_tiles + STAGES * KV_TILE;
    __shared__ __align__(8) unsigned long long q_full;
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    unsigned int query_tile = blockIdx.x;
    unsigned int head = blockIdx.y;
    unsigned int row0 = query_tile * BR;
    unsigned int group = threadIdx.x / 128;
    unsigned int thread = threadIdx.x % 128;
    unsigned int tiles = seq / BC;
    if (threadIdx.x == 0) {
        barrier_init(&q_full, 1);
        for (unsigned int s = 0; s < STAGES; s++) {
            // `empty`: one arrival from each consumer warp.
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], CONSUMERS * 4);
        }
    }
    __syncthreads();
    if (group == 0) {
        registers_decrease<PRODUCER_REGISTERS>();
        if (thread == 0) {
            produce(q_tile, k_tiles, v_tiles, &q_map, &k_map, &v_map, &q_full, full, empty, row0,
                    head, tiles);
        }
        return;
    }
    registers_increase<CONSUMER_REGISTERS>();
    unsigned int consumer = group - 1;
    unsigned int lane = thread % 32;
    unsigned int first_row = row0 + consumer * 64 + thread / 32 * 16;
    // This consumer's 64 rows of q, in each box.
    const bf16* q_rows = q_tile + consumer * 64 * 64;
    // Scores in base 2, as in step 1.
    const float scale = 1.44269504088896341f * rsqrtf(static_cast<float>(DIM));
    float o[O_ACC] = {};
    float row_max[2] = {minus_infinity(), minus_infinity()};
    float row_sum[2] = {0.0f, 0.0f};
    float factor[2];
    float scores[S_ACC];
    unsigned int p[BC / 16][4];
    barrier_wait(&q_full, 0);
    for (unsigned int t = 0; t < tiles; t++) {
        unsigned int s = t % STAGES;
        const bf16* k_tile = k_tiles + s * KV_TILE;
        const bf16* v_tile = v_tiles + s * KV_TILE;
        // BEGIN PUZZLE (roughly 24 lines)
        barrier_wait(&full[s], t / STAGES % 2);
        // s = q kᵀ: DIM / 16 steps along DIM. A step's 16 values lie in box
        // kk / 4 at column (kk % 4) 16, for q's rows and k's keys alike.
        wgmma_fence();
#pragma unroll
        for (unsigned int kk = 0; kk < DIM / 16; kk++) {
            unsigned int box = kk / 4, column = kk % 4 * 16;
            unsigned long long q_desc = descriptor(q_rows + box * BR * 64 + column, 16, 1024);
            unsigned long long k_desc = descriptor(k_tile + box * BC * 64 + column, 16, 1024);
            wgmma_scores_128(scores, q_desc, k_desc, kk > 0);
        }
        wgmma_commit();
        wgmma_wait<0>();
        online_softmax(scores, row_max, row_sum, factor, scale);
        rescale(o, factor);
        pack_probabilities(p, scores);
        // o += p v: BC / 16 steps of 16 keys, v read as Puzzle 35 reads b.
        // The rescaled o and the new p are registers the tensor cores read.
        wgmma_fence();
#pragma unroll
        for (unsigned int kk = 0; kk < BC / 16; kk++) {
            wgmma_output(o, p[kk], descriptor(v_tile + kk * 16 * 64, BC * 128, 1024));
        }
        wgmma_commit();
        // Both products have read the stage: only now may it be refilled.
        wgmma_wait<0>();
        if (lane == 0) {
            barrier_arrive(&empty[s]);
        }
        // END PUZZLE
    }
    store_output(out, o, row_sum, head, seq, first_row);
}
