// Puzzle 35, step 6: step 5 in clusters of CLUSTER blocks side by side
// along n. The blocks of a cluster compute tiles of out in the same rows, so
// they need the same tile of a: each block's producer asks the TMA for its
// 1 / CLUSTER share of that tile and *multicasts* it into every block of the
// cluster at once, so a travels from L2 once per cluster instead of once per
// block. Each block's `full` barrier still expects the whole stage, counted
// whichever block's copy brought the bytes; and since a producer now writes
// into its neighbours' shared memory too, a stage is `empty` only when the
// consumers of every block of the cluster are done with it. out = a · b,
// row-major SIZE x SIZE, SIZE a multiple of the tiles. Compute capability
// 9.0 only (compute_90a).
#include <cooperative_groups.h>
#include <cuda_bf16.h>

namespace cg = cooperative_groups;

#define BN 128
#define BK 64
#define STAGES 4
// Rows of blocks walked together (see block_tile).
#define GROUP 8
// Blocks of a cluster, side by side along n.
#define CLUSTER 2
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
static_assert(BM % (CLUSTER * 8) == 0, "each block's share of a is whole 8-row groups");
// Rows of a's tile each block of the cluster copies for all of them.
#define A_SHARE (BM / CLUSTER)

typedef __nv_bfloat16 bf16;

#include "../hopper/tma.cuh"
#include "../hopper/wgmma.cuh"
#include "../hopper/wgmma_shapes.cuh"
#include "../hopper/cluster.cuh"

// Given: which tile of out this block computes: step 5's walk, taken by
// whole clusters (whose blocks sit side by side along n), each block then
// one of its cluster's CLUSTER neighbouring tiles.
__device__ __forceinline__ void block_tile(unsigned int rank, unsigned int& tile_row,
                                           unsigned int& tile_col) {
    unsigned int clusters_x = gridDim.x / CLUSTER;
    unsigned int id = blockIdx.y * clusters_x + blockIdx.x / CLUSTER;
    unsigned int per_group = GROUP * clusters_x;
    unsigned int first_row = id / per_group * GROUP;
    unsigned int left = gridDim.y - first_row;
    unsigned int rows = GROUP < left ? GROUP : left;
    tile_row = first_row + id % per_group % rows;
    tile_col = id % per_group / rows * CLUSTER + rank;
}

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    gemm_cluster(bf16* out, const __grid_constant__ TensorMap a_map,
                 const __grid_constant__ TensorMap b_map, unsigned int size) {
    extern __shared__ unsigned char shared_raw[];
    // The 128-byte swizzle is computed on address bits: each tile starts on
    // a 1024-byte boundary (the spec asks for 1 KiB extra).
    unsigned int misalignment = shared_address(shared_raw) % 1024;
    bf16* a_tiles = reinterpret_cast<bf16*>(shared_raw + (misalignment ? 1024 - misalignment : 0));
    bf16* b_tiles = a_tiles + STAGES * A_TILE;
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    unsigned int tile_row, tile_col;
    block_tile(rank, tile_row, tile_col);
    unsigned int row0 = tile_row * BM;
    unsigned int col0 = tile_col * BN;
    unsigned int group = threadIdx.x / 128;
    unsigned int thread = threadIdx.x % 128;
    unsigned int tiles = size / BK;
    if (threadIdx.x == 0) {
        for (unsigned int s = 0; s < STAGES; s++) {
            // `full`: the producer's one arrival, plus the stage's bytes.
            // `empty`: one arrival from each consumer warpgroup of each
            // block of the cluster.
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], CLUSTER * CONSUMERS);
        }
        // The copy engine updates `full` from outside the threads.
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // No block may copy into another, or arrive on its barriers, before
    // that block's barriers are initialised.
    cluster.sync();
    if (group == 0) {
        // The producer: one thread issues every copy. The others stay to
        // the end: the cluster's last barrier counts every thread.
        if (thread == 0) {
            for (unsigned int t = 0; t < tiles; t++) {
                unsigned int s = t % STAGES, round = t / STAGES;
                // Every block's consumers are done with this stage, which
                // this producer's multicast is about to overwrite in all
                // of them.
                if (round > 0) {
                    barrier_wait_cluster(&empty[s], (round - 1) % 2);
                }
                // All of the stage's bytes land here: this block's b, its
                // own share of a and its neighbours' shares.
                barrier_arrive_expect(&full[s], STAGE_BYTES);
                tma_load_multicast(a_tiles + s * A_TILE + rank * A_SHARE * BK, &a_map, t * BK,
                                   row0 + rank * A_SHARE, &full[s], (1u << CLUSTER) - 1);
                for (unsigned int j = 0; j < BN / 64; j++) {
                    tma_load(b_tiles + s * B_TILE + j * BK * 64, &b_map, col0 + j * 64,
                             t * BK, &full[s]);
                }
            }
            // Wait for the last round of each stage to land: the bytes of
            // every copy into this block, its own and its neighbours'.
            for (unsigned int t = tiles > STAGES ? tiles - STAGES : 0; t < tiles; t++) {
                barrier_wait(&full[t % STAGES], t / STAGES % 2);
            }
        }
    } else {
        unsigned int consumer = group - 1;
        float acc[ACC] = {};
        for (unsigned int t = 0; t < tiles; t++) {
            unsigned int s = t % STAGES;
            const bf16* a_tile = a_tiles + s * A_TILE;
            const bf16* b_tile = b_tiles + s * B_TILE;
            // BEGIN PUZZLE (roughly 15 lines)
            // The TMA wrote the tiles through the async proxy, the path
            // wgmma reads by: the phase completing is all the ordering needed.
            barrier_wait(&full[s], t / STAGES % 2);
            wgmma_fence();
#pragma unroll
            for (unsigned int kk = 0; kk < BK / 16; kk++) {
                unsigned long long a_desc =
                    descriptor(a_tile + consumer * 64 * BK + kk * 16, 16, 1024);
                unsigned long long b_desc = descriptor(b_tile + kk * 16 * 64, BK * 128, 1024);
                wgmma_tile(acc, a_desc, b_desc);
            }
            wgmma_commit();
            // Tile t - 1's products are done: its stage can be refilled.
            wgmma_wait<1>();
            if (t > 0 && thread < CLUSTER) {
                // Thread r hands the stage back to block r's producer.
                barrier_arrive_in(&empty[(t - 1) % STAGES], thread);
            }
            // END PUZZLE
        }
        wgmma_wait<0>();
        // Step 4's epilogue: a 16-row band a warp, lane l holding rows
        // l / 4 and l / 4 + 8 at columns 2 (l % 4) and the next of each 8.
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
    // No block may leave while a neighbour can still write into its shared
    // memory or arrive on its barriers.
    cluster.sync();
}
