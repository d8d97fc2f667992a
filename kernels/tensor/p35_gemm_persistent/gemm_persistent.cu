// Puzzle 35, step 8: to cuBLAS's level. Step 5's BF16 kernel with three changes.
// It is persistent, as step 7 is: BLOCKS blocks, one an SM, take the tiles
// of out in turn, and the mbarrier ring runs on from one tile into the
// next, so the producer fills the next tile's stages while the consumers
// write this one's results. The blocks come in clusters of CLUSTER, one
// above the other, which take the tiles of out in the same columns: each
// block's producer copies its share of b's boxes for all of them (step 6's
// multicast, here of b, the larger tile). And the results leave through
// shared memory: each warp stages its rows in a buffer of its own and
// writes them out as whole 128-byte rows (store_tile), instead of the
// fragment's scattered 4-byte stores, which kept the tensor cores waiting
// at the end of every tile. out = a · b, row-major SIZE x SIZE, SIZE a
// multiple of CLUSTER x BM and of BN. Compute capability 9.0 only
// (compute_90a).
#include <cooperative_groups.h>
#include <cuda_bf16.h>

namespace cg = cooperative_groups;

#define BN 128
#define BK 64
#define STAGES 4
// Blocks, each taking tiles of out until none are left (the kernel reads it
// as gridDim.x). The benchmark launches one an SM, 132 on an H100 or an
// H200; the teaching run 2 for its 4 tiles, so that each block takes two.
#define BLOCKS 2
// Rows of tiles walked together (see tile_at).
#define GROUP 8
// Blocks of a cluster, one above the other: they share each stage's b.
#define CLUSTER 2
// Consumer warpgroups, 64 rows of out each.
#define CONSUMERS 2
#define BM (CONSUMERS * 64)
#define THREADS ((CONSUMERS + 1) * 128)
#define A_TILE (BM * BK)
#define B_TILE (BK * BN)
// Bytes one stage receives: both tiles (b partly from the neighbours).
#define STAGE_BYTES ((A_TILE + B_TILE) * 2)
// A warp's staging buffer: 16 rows of 64 values, each row padded to 72 so
// that the 8 rows a fragment's store touches start in different banks.
#define STAGING_ROW 72
#define STAGING (16 * STAGING_ROW)
static_assert(BK == 64, "a row of a's tile is one 128-byte swizzle row");
static_assert(BN == 128 || BN == 256, "the wgmma shapes below are n128 and n256");
static_assert(BM <= 256, "a's box is at most 256 rows");
static_assert(BN / 64 % CLUSTER == 0, "b's boxes are shared out evenly in a cluster");

typedef __nv_bfloat16 bf16;

#include "../hopper/tma.cuh"
#include "../hopper/wgmma.cuh"
#include "../hopper/wgmma_shapes.cuh"
#include "../hopper/cluster.cuh"
// tile_at: step 5's order of the tiles, GROUP rows down each column, for
// tile number `id` of a grid of `rows` x `cols` tiles.
#include "../hopper/tile_order.cuh"

// One warp's 16 rows of out, from its fragment of the accumulators
// (row0 + lane / 4 and row0 + lane / 4 + 8, two columns at 2 (lane % 4)
// in each 8), through `staging`, 64 columns at a time.
__device__ __forceinline__ void store_tile(bf16* out, unsigned int size, const float (&acc)[ACC],
                                           unsigned int row0, unsigned int col0, bf16* staging,
                                           unsigned int lane) {
#pragma unroll
    for (unsigned int chunk = 0; chunk < BN / 64; chunk++) {
        // BEGIN PUZZLE (roughly 20 lines)
        // The fragment's 64 columns into the staging rows, two values a
        // store, as step 5 wrote them to out.
#pragma unroll
        for (unsigned int j = 0; j < 8; j++) {
            unsigned int col = j * 8 + lane % 4 * 2;
            const float* pair = &acc[(chunk * 8 + j) * 4];
            *reinterpret_cast<__nv_bfloat162*>(&staging[lane / 4 * STAGING_ROW + col]) =
                __floats2bfloat162_rn(pair[0], pair[1]);
            *reinterpret_cast<__nv_bfloat162*>(&staging[(lane / 4 + 8) * STAGING_ROW + col]) =
                __floats2bfloat162_rn(pair[2], pair[3]);
        }
        // Every lane's values are staged before any lane reads a row.
        __syncwarp();
        // Out as whole rows: 8 lanes a row, 16 bytes each, 4 rows a store.
#pragma unroll
        for (unsigned int i = 0; i < 4; i++) {
            unsigned int row = i * 4 + lane / 8, part = lane % 8;
            uint4 values = *reinterpret_cast<const uint4*>(&staging[row * STAGING_ROW + part * 8]);
            *reinterpret_cast<uint4*>(&out[(row0 + row) * size + col0 + chunk * 64 + part * 8]) =
                values;
        }
        // Every row is read before the next chunk overwrites the buffer.
        __syncwarp();
        // END PUZZLE
    }
}

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    gemm_persistent(bf16* out, const __grid_constant__ TensorMap a_map,
                    const __grid_constant__ TensorMap b_map, unsigned int size) {
    extern __shared__ unsigned char shared_raw[];
    // The 128-byte swizzle is computed on address bits: each tile starts on
    // a 1024-byte boundary (the spec asks for 1 KiB extra).
    unsigned int misalignment = shared_address(shared_raw) % 1024;
    bf16* a_tiles = reinterpret_cast<bf16*>(shared_raw + (misalignment ? 1024 - misalignment : 0));
    bf16* b_tiles = a_tiles + STAGES * A_TILE;
    bf16* staging = b_tiles + STAGES * B_TILE;
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    unsigned int group = threadIdx.x / 128;
    unsigned int thread = threadIdx.x % 128;
    // A cluster takes CLUSTER tiles one above the other at a time: its
    // block of rank r takes the r-th. `stacks` counts those stacks.
    unsigned int stack_rows = size / (BM * CLUSTER), tile_cols = size / BN;
    unsigned int stacks = stack_rows * tile_cols;
    unsigned int first = blockIdx.x / CLUSTER, clusters = gridDim.x / CLUSTER;
    unsigned int k_tiles = size / BK;
    if (threadIdx.x == 0) {
        for (unsigned int s = 0; s < STAGES; s++) {
            // `empty`: one arrival from each consumer of each block of the
            // cluster, all of which read what this block's producer wrote.
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], CLUSTER * CONSUMERS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // No block may copy into another, or arrive on its barriers, before
    // that block's barriers are initialised.
    cluster.sync();
    // `it` counts the tiles of k this block has put through the ring, over
    // all its tiles of out: it picks the stage and the phase.
    unsigned int it = 0;
    if (group == 0) {
        // The producer: one thread issues every copy, for every tile of out
        // this block takes, without stopping between them. The others wait
        // at the end: the cluster's last barrier counts every thread.
        if (thread == 0) {
            for (unsigned int stack = first; stack < stacks; stack += clusters) {
                unsigned int tile_row, tile_col;
                tile_at(stack, stack_rows, tile_cols, tile_row, tile_col);
                tile_row = tile_row * CLUSTER + rank;
                for (unsigned int t = 0; t < k_tiles; t++, it++) {
                    unsigned int s = it % STAGES, round = it / STAGES;
                    // Every block's consumers are done with this stage's
                    // last round, which this multicast overwrites in all.
                    if (round > 0) {
                        barrier_wait_cluster(&empty[s], (round - 1) % 2);
                    }
                    barrier_arrive_expect(&full[s], STAGE_BYTES);
                    tma_load(a_tiles + s * A_TILE, &a_map, t * BK, tile_row * BM, &full[s]);
                    // b's boxes of 64 columns: this block copies every
                    // CLUSTER-th, into every block of the cluster.
                    for (unsigned int j = rank; j < BN / 64; j += CLUSTER) {
                        tma_load_multicast(b_tiles + s * B_TILE + j * BK * 64, &b_map,
                                           tile_col * BN + j * 64, t * BK, &full[s],
                                           (1u << CLUSTER) - 1);
                    }
                }
            }
            // Wait for the last round of each stage to land: the bytes of
            // every copy into this block, its own and its neighbours'.
            for (unsigned int j = it > STAGES ? it - STAGES : 0; j < it; j++) {
                barrier_wait(&full[j % STAGES], j / STAGES % 2);
            }
        }
    } else {
        unsigned int consumer = group - 1;
        unsigned int warp = thread / 32, lane = thread % 32;
        bf16* my_staging = staging + (consumer * 4 + warp) * STAGING;
        for (unsigned int stack = first; stack < stacks; stack += clusters) {
            unsigned int tile_row, tile_col;
            tile_at(stack, stack_rows, tile_cols, tile_row, tile_col);
            tile_row = tile_row * CLUSTER + rank;
            float acc[ACC] = {};
            for (unsigned int t = 0; t < k_tiles; t++, it++) {
                unsigned int s = it % STAGES;
                const bf16* a_tile = a_tiles + s * A_TILE;
                const bf16* b_tile = b_tiles + s * B_TILE;
                barrier_wait(&full[s], it / STAGES % 2);
                wgmma_fence();
#pragma unroll
                for (unsigned int kk = 0; kk < BK / 16; kk++) {
                    unsigned long long a_desc =
                        descriptor(a_tile + consumer * 64 * BK + kk * 16, 16, 1024);
                    unsigned long long b_desc = descriptor(b_tile + kk * 16 * 64, BK * 128, 1024);
                    wgmma_tile(acc, a_desc, b_desc);
                }
                wgmma_commit();
                // The tile of k before this one is done: thread r hands its
                // stage back to block r's producer.
                wgmma_wait<1>();
                if (t > 0 && thread < CLUSTER) {
                    barrier_arrive_in(&empty[(it - 1) % STAGES], thread);
                }
            }
            // The last products land, and their stage is free too: the
            // producers fill the next tile's stages while this one is written.
            wgmma_wait<0>();
            if (thread < CLUSTER) {
                barrier_arrive_in(&empty[(it - 1) % STAGES], thread);
            }
            store_tile(out, size, acc, tile_row * BM + consumer * 64 + warp * 16, tile_col * BN,
                       my_staging, lane);
        }
    }
    // No block may leave while a neighbour can still write into its shared
    // memory or arrive on its barriers.
    cluster.sync();
}
