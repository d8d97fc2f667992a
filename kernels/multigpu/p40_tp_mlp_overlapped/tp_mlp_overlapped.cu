// Puzzle 40, the layer with its all-reduce overlapped: one kernel does
// the second product and the all-reduce at once. Its first `gemm_blocks`
// blocks compute z's tiles, a chunk of rows after another, and count the
// tiles of each chunk they finish in `tiles` (this GPU's memory, device
// scope: only this GPU's blocks read it). The other blocks sum each chunk
// over every rank as soon as every rank has finished it, while the GEMM
// blocks go on with the next chunks. Ranks learn of each other's chunks
// through `ready`: ready.rank[g][c * ranks + p] shows, in GPU g's memory,
// the last run in which rank p finished chunk c.
#include "../tp_mlp.cuh"

using DeviceCounter = cuda::atomic_ref<unsigned int, cuda::thread_scope_device>;

extern "C" __global__ void down_all_reduce(float* out, float* z, const float* h,
                                           const float* w2,
                                           const __grid_constant__ Peers<const float> z_all,
                                           unsigned int* tiles,
                                           const __grid_constant__ Peers<unsigned int> ready,
                                           const __grid_constant__ Peers<unsigned int> arrived,
                                           unsigned int* runs, unsigned int rank,
                                           unsigned int ranks, unsigned int rows, unsigned int dim,
                                           unsigned int hid, unsigned int chunk_rows,
                                           unsigned int gemm_blocks) {
    __shared__ unsigned int run;
    if (threadIdx.x == 0) {
        run = ++runs[blockIdx.x];
    }
    __syncthreads();
    unsigned int tile_cols = (dim + TILE - 1) / TILE;
    unsigned int all_tiles = (rows + TILE - 1) / TILE * tile_cols;
    // A chunk is `chunk_rows` rows of z (a multiple of TILE); the last may be shorter.
    unsigned int chunks = (rows + chunk_rows - 1) / chunk_rows;
    if (blockIdx.x < gemm_blocks) {
        // Tiles in row order, so the chunks finish one after another. A
        // block counts its tiles of a chunk once, when it leaves the chunk:
        // each count is a release, and releases cost time.
        unsigned int done = 0;
        for (unsigned int t = blockIdx.x; t < all_tiles; t += gemm_blocks) {
            unsigned int chunk = t / tile_cols * TILE / chunk_rows;
            gemm_tile(z, h, w2, rows, dim, hid, t / tile_cols, t % tile_cols,
                      [](float v) { return v; });
            ++done;
            unsigned int next = t + gemm_blocks;
            if (next >= all_tiles || next / tile_cols * TILE / chunk_rows != chunk) {
                // Every thread's stores of those tiles come before the count.
                __syncthreads();
                if (threadIdx.x == 0) {
                    DeviceCounter(tiles[chunk]).fetch_add(done, cuda::memory_order_release);
                }
                done = 0;
            }
        }
    } else {
        // This block is one of `workers` that share every chunk's sum;
        // worker 0 also tells every rank when this rank's chunk is done.
        unsigned int worker = blockIdx.x - gemm_blocks;
        unsigned int workers = gridDim.x - gemm_blocks;
        // BEGIN PUZZLE (roughly 24 lines)
        for (unsigned int c = 0; c < chunks; ++c) {
            unsigned int first_row = c * chunk_rows;
            unsigned int end_row = min(first_row + chunk_rows, rows);
            if (worker == 0 && threadIdx.x == 0) {
                // This rank's chunk c: each run adds its tiles to the count.
                unsigned int chunk_tiles = (end_row - first_row + TILE - 1) / TILE * tile_cols;
                DeviceCounter mine(tiles[c]);
                while (mine.load(cuda::memory_order_acquire) < run * chunk_tiles) {
                }
                // What the GEMM blocks stored, this thread now knows; its
                // release at system scope passes it on to every rank.
                for (unsigned int p = 0; p < ranks; ++p) {
                    SystemCounter(ready.rank[p][c * ranks + rank])
                        .store(run, cuda::memory_order_release);
                }
            }
            if (threadIdx.x == 0) {
                for (unsigned int p = 0; p < ranks; ++p) {
                    SystemCounter theirs(ready.rank[rank][c * ranks + p]);
                    while (theirs.load(cuda::memory_order_acquire) < run) {
                    }
                }
            }
            __syncthreads();
            sum_ranks(out, z_all, ranks, first_row * dim, end_row * dim, worker, workers);
        }
        // END PUZZLE
    }
    // No rank's next run overwrites a z that another rank is still reading.
    all_blocks_meet(arrived, rank, ranks, run);
}
