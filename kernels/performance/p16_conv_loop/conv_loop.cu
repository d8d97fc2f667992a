// Puzzle 16, part 3: a fixed grid of blocks, each convolving tile after tile:
// load a tile, wait, compute, wait, load the next. Every load is waited for
// before any work on it starts.
#define TILE 256
#define TAPS 5
#define HALO (TAPS / 2)

extern "C" __global__ void conv_loop(float* out, const float* a, const float* w,
                                     unsigned int size) {
    __shared__ float tile[TILE + 2 * HALO];
    __shared__ float taps[TAPS];
    unsigned int t = threadIdx.x;
    unsigned int tiles = (size + TILE - 1) / TILE;
    if (t < TAPS) {
        taps[t] = w[t];
    }

    // BEGIN PUZZLE (roughly 20 lines)
    // Tiles blockIdx.x, blockIdx.x + gridDim.x, ...: the same for every thread
    // of the block, so every thread reaches every barrier.
    for (unsigned int k = blockIdx.x; k < tiles; k += gridDim.x) {
        int start = (int)(k * TILE);
        for (int s = t; s < TILE + 2 * HALO; s += TILE) {
            int j = start - HALO + s;
            tile[s] = (j >= 0 && j < (int)size) ? a[j] : 0.0f;
        }
        __syncthreads();
        int i = start + (int)t;
        if (i < (int)size) {
            float acc = 0.0f;
            for (int k2 = 0; k2 < TAPS; k2++) {
                acc += tile[t + k2] * taps[k2];
            }
            out[i] = acc;
        }
        // Nobody overwrites the tile while a neighbour still reads it.
        __syncthreads();
    }
    // END PUZZLE
}
