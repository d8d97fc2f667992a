// Puzzle 40, step 2: the overlapped layer with its second product as an
// ordinary grid. Step 1's GEMM blocks stayed for the whole kernel, each
// looping over a share of z's tiles; here every GEMM block makes TILES
// tiles and ends, as the plain `down` launch does, and the next block takes
// its place. Only the summing blocks wait for anything, so only they must
// be resident together: the grid may be as large as the product needs.
//
// A block's job is the ticket it takes as it starts (`next` counts them),
// not its blockIdx: CUDA does not promise in which order blocks start. The
// first `workers` tickets of a run sum (step 1's summing half); each later
// ticket makes TILES tiles of z, in row order, and counts them in `tiles`
// as step 1's GEMM blocks did. Every run takes one ticket a block, so the
// tickets also count the runs.
#include "../tp_mlp.cuh"

using DeviceCounter = cuda::atomic_ref<unsigned int, cuda::thread_scope_device>;

// Tiles of z that one GEMM block makes, one after another.
#define TILES 3

// Given: tiles first .. end - 1 of z = h · w2 (row order, TILE x TILE
// each), and each chunk's tiles counted once, when the block leaves the
// chunk: a barrier (every thread's stores first), then a release at device
// scope, for this GPU's summing blocks to acquire.
__device__ void make_tiles(float* z, const float* h, const float* w2, unsigned int* tiles,
                           unsigned int rows, unsigned int dim, unsigned int hid,
                           unsigned int chunk_rows, unsigned int first, unsigned int end) {
    unsigned int tile_cols = (dim + TILE - 1) / TILE;
    unsigned int done = 0;
    for (unsigned int t = first; t < end; ++t) {
        unsigned int chunk = t / tile_cols * TILE / chunk_rows;
        gemm_tile(z, h, w2, rows, dim, hid, t / tile_cols, t % tile_cols,
                  [](float v) { return v; });
        ++done;
        if (t + 1 == end || (t + 1) / tile_cols * TILE / chunk_rows != chunk) {
            __syncthreads();
            if (threadIdx.x == 0) {
                DeviceCounter(tiles[chunk]).fetch_add(done, cuda::memory_order_release);
            }
            done = 0;
        }
    }
}

// Given: step 1's summing half, for summing block `worker` of `workers`, in
// run `run`. For each chunk: worker 0 waits until this rank's count shows
// the chunk's tiles and tells every rank; every summing block waits until
// every rank has; then they share the chunk's sum.
__device__ void sum_chunks(float* out, const Peers<const float>& z_all, unsigned int* tiles,
                           const Peers<unsigned int>& ready, unsigned int rank, unsigned int ranks,
                           unsigned int rows, unsigned int dim, unsigned int chunk_rows,
                           unsigned int run, unsigned int worker, unsigned int workers) {
    unsigned int tile_cols = (dim + TILE - 1) / TILE;
    unsigned int chunks = (rows + chunk_rows - 1) / chunk_rows;
    for (unsigned int c = 0; c < chunks; ++c) {
        unsigned int first_row = c * chunk_rows;
        unsigned int end_row = min(first_row + chunk_rows, rows);
        if (worker == 0 && threadIdx.x == 0) {
            unsigned int chunk_tiles = (end_row - first_row + TILE - 1) / TILE * tile_cols;
            DeviceCounter mine(tiles[c]);
            while (mine.load(cuda::memory_order_acquire) < run * chunk_tiles) {
            }
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
}

// Given: every summing block of every rank meets here for the `round`-th
// time, as all_blocks_meet does for a whole grid, but counting the
// `summers` summing blocks of each rank alone: they are the only readers of
// the peers' z, and the only blocks sure to be running.
__device__ void summers_meet(const Peers<unsigned int>& arrived, unsigned int rank,
                             unsigned int ranks, unsigned int round, unsigned int summers) {
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned int p = 0; p < ranks; ++p) {
            SystemCounter(*arrived.rank[p]).fetch_add(1, cuda::memory_order_release);
        }
        SystemCounter mine(*arrived.rank[rank]);
        while (mine.load(cuda::memory_order_acquire) < round * summers * ranks) {
        }
    }
    __syncthreads();
}

extern "C" __global__ void down_all_reduce(float* out, float* z, const float* h,
                                           const float* w2,
                                           const __grid_constant__ Peers<const float> z_all,
                                           unsigned int* next, unsigned int* tiles,
                                           const __grid_constant__ Peers<unsigned int> ready,
                                           const __grid_constant__ Peers<unsigned int> arrived,
                                           unsigned int rank, unsigned int ranks, unsigned int rows,
                                           unsigned int dim, unsigned int hid,
                                           unsigned int chunk_rows, unsigned int workers) {
    __shared__ unsigned int ticket;
    unsigned int all_tiles = (rows + TILE - 1) / TILE * ((dim + TILE - 1) / TILE);
    // BEGIN PUZZLE (roughly 14 lines)
    if (threadIdx.x == 0) {
        ticket = atomicAdd(next, 1u);
    }
    __syncthreads();
    // Tickets before this run's: gridDim.x for every run before it.
    unsigned int run = ticket / gridDim.x + 1;
    unsigned int job = ticket % gridDim.x;
    if (job < workers) {
        // A summing block: the sums of every chunk, then the meeting that
        // keeps a rank's next run from overwriting a z a peer still reads.
        sum_chunks(out, z_all, tiles, ready, rank, ranks, rows, dim, chunk_rows, run, job,
                   workers);
        summers_meet(arrived, rank, ranks, run, workers);
    } else {
        // A GEMM block: its TILES tiles, and their counts. It needs no run:
        // the counts only grow, and the summing blocks know which run they wait for.
        unsigned int first = (job - workers) * TILES;
        make_tiles(z, h, w2, tiles, rows, dim, hid, chunk_rows, first,
                   min(first + TILES, all_tiles));
    }
    // END PUZZLE
}
