// Puzzle 35, step 5: the Tensor Memory Accelerator feeds step 4's wgmma,
// and the warps are specialised. Warpgroup 0 is the producer: one of its
// threads asks the TMA for each stage's tiles (one instruction a tile, the
// 128-byte swizzle applied by the copy engine) and gives the stage's `full`
// mbarrier the bytes to expect. The other CONSUMERS warpgroups only
// multiply: each waits for `full`, issues its wgmmas, and once they are done
// arrives on the stage's `empty` mbarrier, which the producer waits for
// before refilling it. No barrier stops the whole block, and no consumer
// thread spends an instruction on a copy. a and b reach the kernel as TMA
// tensor maps (the spec's `tensor_map`), which the engine encodes from the
// buffers' addresses and shapes. out = a · b, row-major SIZE x SIZE, SIZE a
// multiple of the tiles. Compute capability 9.0 only (compute_90a).
#include <cuda_bf16.h>

#define BN 256
#define BK 64
#define STAGES 4
// Rows of blocks walked together (see block_tile).
#define GROUP 8
// Consumer warpgroups, 64 rows of out each.
#define CONSUMERS 2
#define BM (CONSUMERS * 64)
#define THREADS ((CONSUMERS + 1) * 128)
#define A_TILE (BM * BK)
#define B_TILE (BK * BN)
// Bytes one stage receives: both tiles.
#define STAGE_BYTES ((A_TILE + B_TILE) * 2)
static_assert(BK == 64, "a row of a's tile is one 128-byte swizzle row");
static_assert(BN == 128 || BN == 256, "the wgmma shapes below are n128 and n256");
static_assert(BM <= 256, "a's box is at most 256 rows");

typedef __nv_bfloat16 bf16;

#include "../hopper/tma.cuh"
#include "../hopper/wgmma.cuh"
#include "../hopper/wgmma_shapes.cuh"

// Given: which tile of out this block computes. Blocks start roughly in the
// order of their index, so walking out's tiles row by row would have the
// blocks running at once share a few rows of a but need all of b's columns.
// Walking GROUP rows of tiles down each column instead keeps the tiles of a
// and b that running blocks read small enough to stay in L2.
__device__ __forceinline__ void block_tile(unsigned int& tile_row, unsigned int& tile_col) {
    unsigned int id = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int per_group = GROUP * gridDim.x;
    unsigned int first_row = id / per_group * GROUP;
    unsigned int left = gridDim.y - first_row;
    unsigned int rows = GROUP < left ? GROUP : left;
    tile_row = first_row + id % per_group % rows;
    tile_col = id % per_group / rows;
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    gemm_tma(bf16* out, const __grid_constant__ TensorMap a_map,
             const __grid_constant__ TensorMap b_map, unsigned int size) {
    extern __shared__ unsigned char shared_raw[];
    // The 128-byte swizzle is computed on address bits: each tile starts on
    // a 1024-byte boundary (the spec asks for 1 KiB extra).
    unsigned int misalignment = shared_address(shared_raw) % 1024;
    bf16* a_tiles = reinterpret_cast<bf16*>(shared_raw + (misalignment ? 1024 - misalignment : 0));
    bf16* b_tiles = a_tiles + STAGES * A_TILE;
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    unsigned int tile_row, tile_col;
    block_tile(tile_row, tile_col);
    unsigned int row0 = tile_row * BM;
    unsigned int col0 = tile_col * BN;
    unsigned int group = threadIdx.x / 128;
    unsigned int thread = threadIdx.x % 128;
    unsigned int tiles = size / BK;
    if (threadIdx.x == 0) {
        for (unsigned int s = 0; s < STAGES; s++) {
            // `full`: the producer's one arrival, plus the stage's bytes.
            // `empty`: one arrival from each consumer warpgroup.
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], CONSUMERS);
        }
        // The copy engine updates `full` from outside the threads.
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (group == 0) {
        // The producer: one thread issues every copy; the rest of its
        // warpgroup has nothing to do.
        if (thread != 0) {
            return;
        }
        for (unsigned int t = 0; t < tiles; t++) {
            unsigned int s = t % STAGES, round = t / STAGES;
            // The consumers' last use of this stage, a round ago, is over.
            if (round > 0) {
                barrier_wait(&empty[s], (round - 1) % 2);
            }
            barrier_arrive_expect(&full[s], STAGE_BYTES);
            // a: BM rows at row0, 64 values of k from t BK; b: BK rows of k,
            // in BN / 64 boxes of 64 columns.
            tma_load(a_tiles + s * A_TILE, &a_map, t * BK, row0, &full[s]);
            for (unsigned int j = 0; j < BN / 64; j++) {
                tma_load(b_tiles + s * B_TILE + j * BK * 64, &b_map, col0 + j * 64,
                         t * BK, &full[s]);
            }
        }
        // The block must not end while copies into its shared memory are in
        // flight: wait for the last round of each stage to land.
        for (unsigned int t = tiles > STAGES ? tiles - STAGES : 0; t < tiles; t++) {
            barrier_wait(&full[t % STAGES], t / STAGES % 2);
        }
        return;
    }
    unsigned int consumer = group - 1;
    float acc[ACC] = {};
    for (unsigned int t = 0; t < tiles; t++) {
        unsigned int s = t % STAGES;
        const bf16* a_tile = a_tiles + s * A_TILE;
        const bf16* b_tile = b_tiles + s * B_TILE;
        // BEGIN PUZZLE (roughly 14 lines)
        // The TMA wrote the tiles through the async proxy, the path wgmma
        // reads by: the phase completing is all the ordering needed.
        barrier_wait(&full[s], t / STAGES % 2);
        wgmma_fence();
#pragma unroll
        for (unsigned int kk = 0; kk < BK / 16; kk++) {
            unsigned long long a_desc = descriptor(a_tile + consumer * 64 * BK + kk * 16, 16, 1024);
            unsigned long long b_desc = descriptor(b_tile + kk * 16 * 64, BK * 128, 1024);
            wgmma_tile(acc, a_desc, b_desc);
        }
        wgmma_commit();
        // Tile t - 1's products are done: its stage can be refilled.
        wgmma_wait<1>();
        if (t > 0 && thread == 0) {
            barrier_arrive(&empty[(t - 1) % STAGES]);
        }
        // END PUZZLE
    }
    wgmma_wait<0>();
    // Step 4's epilogue: a 16-row band a warp, lane l holding rows l / 4 and
    // l / 4 + 8 at columns 2 (l % 4) and the next of each 8.
    unsigned int warp = thread / 32, lane = thread % 32;
    unsigned int row = row0 + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (unsigned int j = 0; j < BN / 8; j++) {
        unsigned int col = col0 + j * 8 + lane % 4 * 2;
        *reinterpret_cast<__nv_bfloat162*>(&out[row * size + col]) =
            __floats2bfloat162_rn(acc[j * 4], acc[j * 4 + 1]);
        *reinterpret_cast<__nv_bfloat162*>(&out[(row + 8) * size + col]) =
            __floats2bfloat162_rn(acc[j * 4 + 2], acc[j * 4 + 3]);
    }
}
