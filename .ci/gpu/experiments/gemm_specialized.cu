// An experiment beside Puzzle 35 (not a puzzle: measured no faster than
// step 4, see tensor_gemm_configs.py): warps specialised as producers and
// consumers. Step 4's
// block stopped at __syncthreads() once a tile, and every thread both copied
// and multiplied. Here warpgroup 0 only copies: it fills a ring of STAGES
// buffers with cp.async, and each copy's completion arrives on the buffer's
// `full` mbarrier by itself. The other CONSUMERS warpgroups only multiply:
// each waits for `full`, runs step 4's wgmmas, and once they are done arrives
// on the buffer's `empty` mbarrier, which the producer waits for before
// refilling it. No barrier stops the whole block. out = a · b, row-major
// SIZE x SIZE, SIZE a multiple of the tiles. Compute capability 9.0 only.
#include <cuda_bf16.h>

#define BN 256
#define BK 64
#define STAGES 4
#define CONSUMERS 2
#define BM (CONSUMERS * 64)
#define THREADS ((CONSUMERS + 1) * 128)
#define A_CHUNKS (BK / 8)
#define B_CHUNKS (BN / 8)
#define A_TILE (BM * BK)
#define B_TILE (BK * BN)
static_assert(BK == 64, "a row of a's tile is one 128-byte swizzle row");
static_assert(BN == 128 || BN == 256, "the wgmma shapes below are n128 and n256");

typedef __nv_bfloat16 bf16;

#include "../../../kernels/tensor/hopper/async_copy.cuh"
#include "../../../kernels/tensor/hopper/mbarrier.cuh"
#include "../../../kernels/tensor/hopper/wgmma.cuh"
#include "../../../kernels/tensor/hopper/wgmma_shapes.cuh"

// Given: one arrival on `bar` when all of this thread's earlier cp.async
// copies have landed, made by the copy hardware, not by the thread (.noinc:
// the barrier's count already includes it).
__device__ __forceinline__ void arrive_when_copied(unsigned long long* bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(shared_address(bar))
                 : "memory");
}

// Given: the producer's copies of both tiles at k0, step 4's layout, spread
// over the producer warpgroup's 128 threads.
__device__ __forceinline__ void produce_tiles(bf16* a_tile, bf16* b_tile, const bf16* a,
                                              const bf16* b, unsigned int size, unsigned int row0,
                                              unsigned int col0, unsigned int k0,
                                              unsigned int thread) {
    for (unsigned int i = thread; i < BM * A_CHUNKS; i += 128) {
        unsigned int r = i / A_CHUNKS, c = i % A_CHUNKS;
        copy_async_16(&a_tile[r * BK + (c ^ (r % 8)) * 8], &a[(row0 + r) * size + k0 + c * 8]);
    }
    for (unsigned int i = thread; i < BK * B_CHUNKS; i += 128) {
        unsigned int r = i / B_CHUNKS, c = i % B_CHUNKS;
        unsigned int block = c / 8, chunk = c % 8;
        copy_async_16(&b_tile[block * BK * 64 + r * 64 + (chunk ^ (r % 8)) * 8],
                      &b[(k0 + r) * size + col0 + c * 8]);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    gemm_specialized(bf16* out, const bf16* a, const bf16* b, unsigned int size) {
    extern __shared__ unsigned char shared_raw[];
    unsigned int misalignment = shared_address(shared_raw) % 1024;
    bf16* a_tiles = reinterpret_cast<bf16*>(shared_raw + (misalignment ? 1024 - misalignment : 0));
    bf16* b_tiles = a_tiles + STAGES * A_TILE;
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    unsigned int row0 = blockIdx.y * BM;
    unsigned int col0 = blockIdx.x * BN;
    unsigned int group = threadIdx.x / 128;
    unsigned int thread = threadIdx.x % 128;
    unsigned int tiles = size / BK;
    if (threadIdx.x == 0) {
        for (unsigned int s = 0; s < STAGES; s++) {
            // Each producer thread's copies arrive once a fill; one thread
            // of each consumer warpgroup arrives once a use.
            barrier_init(&full[s], 128);
            barrier_init(&empty[s], CONSUMERS);
        }
    }
    __syncthreads();
    if (group == 0) {
        // The producer: tile t into buffer t % STAGES, once the consumers
        // have finished with that buffer's previous round.
        for (unsigned int t = 0; t < tiles; t++) {
            unsigned int s = t % STAGES, round = t / STAGES;
            if (round > 0) {
                barrier_wait(&empty[s], (round - 1) % 2);
            }
            produce_tiles(a_tiles + s * A_TILE, b_tiles + s * B_TILE, a, b, size, row0, col0,
                          t * BK, thread);
            arrive_when_copied(&full[s]);
        }
        // Nothing of the producer's may still be in flight when it exits.
        asm volatile("cp.async.wait_all;" ::: "memory");
        return;
    }
    unsigned int consumer = group - 1;
    float acc[ACC] = {};
    for (unsigned int t = 0; t < tiles; t++) {
        unsigned int s = t % STAGES, round = t / STAGES;
        barrier_wait(&full[s], round % 2);
        // The copies wrote through the threads' path; wgmma reads through
        // the async proxy.
        fence_for_async_reads();
        const bf16* a_tile = a_tiles + s * A_TILE;
        const bf16* b_tile = b_tiles + s * B_TILE;
        wgmma_fence();
#pragma unroll
        for (unsigned int kk = 0; kk < BK / 16; kk++) {
            unsigned long long a_desc = descriptor(a_tile + consumer * 64 * BK + kk * 16, 16, 1024);
            unsigned long long b_desc = descriptor(b_tile + kk * 16 * 64, BK * 128, 1024);
            wgmma_tile(acc, a_desc, b_desc);
        }
        wgmma_commit();
        // Tile t - 1's products are done: its buffer can be refilled.
        wgmma_wait<1>();
        if (t > 0 && thread == 0) {
            barrier_arrive(&empty[(t - 1) % STAGES]);
        }
    }
    wgmma_wait<0>();
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
