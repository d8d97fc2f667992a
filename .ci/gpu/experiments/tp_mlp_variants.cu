// Experiments for Puzzle 40 (run by tp_mlp_one_gpu.py, one GPU, one rank):
// step 1's overlapped kernel with other ways to wait, and with registers
// capped so that more of its blocks fit. Not a puzzle: the harness times
// these beside the puzzle's own kernels.
//   MIN_BLOCKS n:   __launch_bounds__(256, n), n blocks a multiprocessor
//   POLL_RELAXED 1: spin on relaxed loads (an acquire may invalidate the
//                   multiprocessor's L1, a relaxed load need not), then one
//                   acquire fence once the count is there
//   SLEEP_NS n:     __nanosleep(n) between polls (0: none)
#include "../../../kernels/multigpu/tp_mlp.cuh"

#ifndef POLL_RELAXED
#define POLL_RELAXED 0
#endif
#ifndef SLEEP_NS
#define SLEEP_NS 0
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 0
#endif
#if MIN_BLOCKS
#define BOUNDS __launch_bounds__(256, MIN_BLOCKS)
#else
#define BOUNDS
#endif

using DeviceCounter = cuda::atomic_ref<unsigned int, cuda::thread_scope_device>;

// Waits until `count` reaches `target`; what was released before it is then
// this thread's to read.
template <typename Counter>
__device__ void wait_at_least(Counter count, unsigned int target, cuda::thread_scope scope) {
    if (POLL_RELAXED) {
        while (count.load(cuda::memory_order_relaxed) < target) {
            if (SLEEP_NS) __nanosleep(SLEEP_NS);
        }
        cuda::atomic_thread_fence(cuda::memory_order_acquire, scope);
    } else {
        while (count.load(cuda::memory_order_acquire) < target) {
            if (SLEEP_NS) __nanosleep(SLEEP_NS);
        }
    }
}

extern "C" __global__ void BOUNDS
    down_all_reduce_v(float* out, float* z, const float* h, const float* w2,
                      const __grid_constant__ Peers<const float> z_all, unsigned int* tiles,
                      const __grid_constant__ Peers<unsigned int> ready,
                      const __grid_constant__ Peers<unsigned int> arrived, unsigned int* runs,
                      unsigned int rank, unsigned int ranks, unsigned int rows, unsigned int dim,
                      unsigned int hid, unsigned int chunk_rows, unsigned int gemm_blocks) {
    __shared__ unsigned int run;
    if (threadIdx.x == 0) {
        run = ++runs[blockIdx.x];
    }
    __syncthreads();
    unsigned int tile_cols = (dim + TILE - 1) / TILE;
    unsigned int all_tiles = (rows + TILE - 1) / TILE * tile_cols;
    unsigned int chunks = (rows + chunk_rows - 1) / chunk_rows;
    if (blockIdx.x < gemm_blocks) {
        unsigned int done = 0;
        for (unsigned int t = blockIdx.x; t < all_tiles; t += gemm_blocks) {
            unsigned int chunk = t / tile_cols * TILE / chunk_rows;
            gemm_tile(z, h, w2, rows, dim, hid, t / tile_cols, t % tile_cols,
                      [](float v) { return v; });
            ++done;
            unsigned int next = t + gemm_blocks;
            if (next >= all_tiles || next / tile_cols * TILE / chunk_rows != chunk) {
                __syncthreads();
                if (threadIdx.x == 0) {
                    DeviceCounter(tiles[chunk]).fetch_add(done, cuda::memory_order_release);
                }
                done = 0;
            }
        }
    } else {
        unsigned int worker = blockIdx.x - gemm_blocks;
        unsigned int workers = gridDim.x - gemm_blocks;
        for (unsigned int c = 0; c < chunks; ++c) {
            unsigned int first_row = c * chunk_rows;
            unsigned int end_row = min(first_row + chunk_rows, rows);
            if (worker == 0 && threadIdx.x == 0) {
                unsigned int chunk_tiles = (end_row - first_row + TILE - 1) / TILE * tile_cols;
                wait_at_least(DeviceCounter(tiles[c]), run * chunk_tiles,
                              cuda::thread_scope_device);
                for (unsigned int p = 0; p < ranks; ++p) {
                    SystemCounter(ready.rank[p][c * ranks + rank])
                        .store(run, cuda::memory_order_release);
                }
            }
            if (threadIdx.x == 0) {
                for (unsigned int p = 0; p < ranks; ++p) {
                    wait_at_least(SystemCounter(ready.rank[rank][c * ranks + p]), run,
                                  cuda::thread_scope_system);
                }
            }
            __syncthreads();
            sum_ranks(out, z_all, ranks, first_row * dim, end_row * dim, worker, workers);
        }
    }
    all_blocks_meet(arrived, rank, ranks, run);
}
