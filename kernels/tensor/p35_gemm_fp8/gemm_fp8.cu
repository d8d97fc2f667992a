// Puzzle 35, step 7: step 5's kernel on FP8 inputs. a and b hold e4m3
// values (one byte each) with a scale per tensor, as a model quantised to
// FP8 keeps them. The tensor cores multiply them at twice BF16's rate, but
// keep their own sums with fewer bits than FP32, so every PROMOTE tiles of
// k the consumers add those sums into FP32 totals and start the tensor
// cores' afresh ("promotion"). The epilogue multiplies each total by the
// two scales and rounds it to BF16: out = scale_a scale_b (a · b). FP8's
// wgmma reads both operands K-major, so b arrives transposed: `bt` holds
// b's columns as its rows (SIZE rows of n, each SIZE values of k), the
// layout cuBLAS's FP8 products take too. A row of a stage's tiles is BK =
// 128 values of k, one 128-byte swizzle row, as step 5's 64 BF16 values
// were. Accumulators and totals take BN floats a thread, so the tiles are
// 128 x 128 (step 5's 128 x 256 would need 256 registers for them, of the
// 168 a thread of 384 can have). The kernel is *persistent*: BLOCKS
// blocks, one an SM, each take tile after tile of out, and the mbarrier
// ring runs on from one tile into the next, so the producer fills the next
// tile's stages while the consumers write the last one's results. The
// producer's copies and the order of the tiles are otherwise step 5's.
// Compute capability 9.0 only (compute_90a).
#include <cuda_bf16.h>

#define BN 128
#define BK 128
#define STAGES 4
// Blocks, each taking every BLOCKS-th tile of out (the kernel reads it as
// gridDim.x). The benchmark launches one an SM, 132 on an H100 or an H200;
// the teaching run 3, for its 4 tiles, so that one block takes two.
#define BLOCKS 3
// Tiles of k between promotions: how many of the tensor cores' FP8 sums
// (kept with fewer bits than FP32) are gathered before they are added into
// the FP32 totals.
#define PROMOTE 1
// Rows of tiles walked together (see tile_at).
#define GROUP 8
// Consumer warpgroups, 64 rows of out each.
#define CONSUMERS 2
#define BM (CONSUMERS * 64)
#define THREADS ((CONSUMERS + 1) * 128)
// A stage's tiles, in bytes (one byte a value): a's BM rows and bt's BN
// rows, each BK values of k.
#define A_TILE (BM * BK)
#define B_TILE (BN * BK)
#define STAGE_BYTES (A_TILE + B_TILE)
static_assert(BK == 128, "a row of a tile is one 128-byte swizzle row");
static_assert(BN == 128 || BN == 256, "the wgmma shapes below are n128 and n256");
static_assert(BM <= 256 && BN <= 256, "a TMA box is at most 256 rows");

typedef __nv_bfloat16 bf16;
typedef unsigned char fp8;

#include "../hopper/tma.cuh"
#include "../hopper/wgmma.cuh"
#include "../hopper/wgmma_fp8.cuh"
// tile_at: step 5's order of the tiles, GROUP rows down each column, for
// tile number `id` of a grid of `rows` x `cols` tiles.
#include "../hopper/tile_order.cuh"

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    gemm_fp8(bf16* out, const __grid_constant__ TensorMap a_map,
             const __grid_constant__ TensorMap bt_map, float scale_a, float scale_b,
             unsigned int size) {
    extern __shared__ unsigned char shared_raw[];
    // The 128-byte swizzle is computed on address bits: each tile starts on
    // a 1024-byte boundary (the spec asks for 1 KiB extra).
    unsigned int misalignment = shared_address(shared_raw) % 1024;
    fp8* a_tiles = shared_raw + (misalignment ? 1024 - misalignment : 0);
    fp8* b_tiles = a_tiles + STAGES * A_TILE;
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    unsigned int group = threadIdx.x / 128;
    unsigned int thread = threadIdx.x % 128;
    unsigned int tile_rows = size / BM, tile_cols = size / BN;
    unsigned int out_tiles = tile_rows * tile_cols;
    unsigned int k_tiles = size / BK;
    if (threadIdx.x == 0) {
        for (unsigned int s = 0; s < STAGES; s++) {
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], CONSUMERS);
        }
    }
    __syncthreads();
    // `it` counts the tiles of k this block has put through the ring, over
    // all its tiles of out: it picks the stage and the phase, as t did in
    // step 5.
    unsigned int it = 0;
    if (group == 0) {
        // The producer: one thread issues every copy, for every tile of
        // out this block takes, without stopping between them.
        if (thread != 0) {
            return;
        }
        for (unsigned int tile = blockIdx.x; tile < out_tiles; tile += gridDim.x) {
            unsigned int tile_row, tile_col;
            tile_at(tile, tile_rows, tile_cols, tile_row, tile_col);
            for (unsigned int t = 0; t < k_tiles; t++, it++) {
                unsigned int s = it % STAGES, round = it / STAGES;
                if (round > 0) {
                    barrier_wait(&empty[s], (round - 1) % 2);
                }
                barrier_arrive_expect(&full[s], STAGE_BYTES);
                // a: BM rows of out's tile; bt: its BN columns, as rows;
                // both the BK values of k from t BK, one box each.
                tma_load(a_tiles + s * A_TILE, &a_map, t * BK, tile_row * BM, &full[s]);
                tma_load(b_tiles + s * B_TILE, &bt_map, t * BK, tile_col * BN, &full[s]);
            }
        }
        // The block must not end while copies into its shared memory are in
        // flight: wait for the last round of each stage to land.
        for (unsigned int j = it > STAGES ? it - STAGES : 0; j < it; j++) {
            barrier_wait(&full[j % STAGES], j / STAGES % 2);
        }
        return;
    }
    unsigned int consumer = group - 1;
    unsigned int warp = thread / 32, lane = thread % 32;
    for (unsigned int tile = blockIdx.x; tile < out_tiles; tile += gridDim.x) {
        unsigned int tile_row, tile_col;
        tile_at(tile, tile_rows, tile_cols, tile_row, tile_col);
        // acc: the tensor cores' sums, restarted at each promotion; total:
        // the FP32 sums they are promoted into.
        float acc[ACC] = {};
        float total[ACC] = {};
        for (unsigned int t = 0; t < k_tiles; t++, it++) {
            unsigned int s = it % STAGES;
            const fp8* a_tile = a_tiles + s * A_TILE;
            const fp8* b_tile = b_tiles + s * B_TILE;
            barrier_wait(&full[s], it / STAGES % 2);
            wgmma_fence();
            // BEGIN PUZZLE (roughly 18 lines)
#pragma unroll
            for (unsigned int kk = 0; kk < BK / 32; kk++) {
                // Both tiles are K-major: rows of 128 bytes, 8-row groups
                // 1024 bytes apart. Each product takes the next 32 values of
                // k, 32 bytes along every (swizzled) row, of a's 64 rows for
                // this consumer and of all BN rows of bt.
                unsigned long long a_desc =
                    descriptor(a_tile + consumer * 64 * BK + kk * 32, 16, 1024);
                unsigned long long b_desc = descriptor(b_tile + kk * 32, 16, 1024);
                wgmma_fp8_tile(acc, a_desc, b_desc);
            }
            wgmma_commit();
            if ((t + 1) % PROMOTE == 0 || t + 1 == k_tiles) {
                // Promotion: every product so far is done, and its sum is
                // added into FP32 before the tensor cores start a new one.
                wgmma_wait<0>();
#pragma unroll
                for (unsigned int i = 0; i < ACC; i++) {
                    total[i] += acc[i];
                    acc[i] = 0.0f;
                }
            } else {
                wgmma_wait<1>();
            }
            // END PUZZLE
            // The tile of k before this one is done: its stage can be refilled.
            if (it > 0 && thread == 0) {
                barrier_arrive(&empty[(it - 1) % STAGES]);
            }
        }
        // Step 5's epilogue, with the scales: the totals hold sums of
        // products of the stored e4m3 values; out is those sums times both
        // tensors' scales, rounded once, to BF16. Meanwhile the producer is
        // filling the stages for this block's next tile.
        float scale = scale_a * scale_b;
        unsigned int row = tile_row * BM + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
        for (unsigned int j = 0; j < BN / 8; j++) {
            unsigned int col = tile_col * BN + j * 8 + lane % 4 * 2;
            *reinterpret_cast<__nv_bfloat162*>(&out[row * size + col]) =
                __floats2bfloat162_rn(total[j * 4] * scale, total[j * 4 + 1] * scale);
            *reinterpret_cast<__nv_bfloat162*>(&out[(row + 8) * size + col]) =
                __floats2bfloat162_rn(total[j * 4 + 2] * scale, total[j * 4 + 3] * scale);
        }
    }
}
