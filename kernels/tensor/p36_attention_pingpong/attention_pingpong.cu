// Puzzle 36, step 4: step 3's consumers take turns ("ping-pong"). In step
// 3 the two consumer warpgroups wait on the same `full` barrier and so run
// in step: both issue their products, then both compute their softmax,
// and the tensor cores idle while they do. Here each consumer issues its
// products only in its turn, handed over by named barriers: consumer c
// waits at barrier 1 + c, issues, and then lets the next consumer go by
// arriving at its barrier. Its softmax then runs while the other's products
// do, and the tensor cores always have one consumer's work. Compute
// capability 9.0 only (compute_90a). Taking turns changes when the
// products run, never what they compute, so a kernel without them passes
// as well: there is no gap to fill.
// GIVEN WHOLE: measured beside the puzzles, nothing to write
#include <cuda_bf16.h>

#define DIM 128
#define BC 128
#define STAGES 3
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
static_assert(CONSUMERS <= 3, "turns on named barriers 1 to 3 (0 is __syncthreads())");

typedef __nv_bfloat16 bf16;

#include "../hopper/attention.cuh"
#include "../hopper/attention_products.cuh"
#include "../hopper/attention_turns.cuh"

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    attention_pingpong(bf16* out, const __grid_constant__ TensorMap q_map,
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
    // Consumer 0 takes the first turn: the last consumer hands it over
    // before it has issued anything.
    if (consumer == CONSUMERS - 1) {
        pass_turn(consumer);
    }
    // Tile 0's scores and softmax come first: there is no product of a
    // tile before it to overlap them with (and o, all zeros, needs no rescale).
    barrier_wait(&full[0], 0);
    wait_turn(consumer);
    issue_scores(scores, q_rows, k_tiles);
    pass_turn(consumer);
    wgmma_wait<0>();
    online_softmax(scores, row_max, row_sum, factor, scale);
    pack_probabilities(p, scores);
    for (unsigned int t = 1; t < tiles; t++) {
        unsigned int s = t % STAGES, before = (t - 1) % STAGES;
        barrier_wait(&full[s], t / STAGES % 2);
        wait_turn(consumer);
        issue_scores(scores, q_rows, k_tiles + s * KV_TILE);
        issue_output(o, p, v_tiles + before * KV_TILE);
        pass_turn(consumer);
        wgmma_wait<1>();
        // Tile t's softmax runs while tile t - 1's o += p v does. It must
        // not touch o, which the tensor cores are adding into, nor p.
        online_softmax(scores, row_max, row_sum, factor, scale);
        wgmma_wait<0>();
        // Tile t - 1 is finished with: its stage goes back, and o takes
        // tile t's change of maximum before tile t's product adds to it.
        if (lane == 0) {
            barrier_arrive(&empty[before]);
        }
        rescale(o, factor);
        pack_probabilities(p, scores);
    }
    wait_turn(consumer);
    issue_output(o, p, v_tiles + (tiles - 1) % STAGES * KV_TILE);
    pass_turn(consumer);
    wgmma_wait<0>();
    if (lane == 0) {
        barrier_arrive(&empty[(tiles - 1) % STAGES]);
    }
    store_output(out, o, row_sum, head, seq, first_row);
}
