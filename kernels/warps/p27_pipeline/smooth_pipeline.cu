// Puzzle 27: a producer and its consumers. One warp of each block loads rows
// into a ring of two shared buffers; the other threads smooth them. Two pairs
// of barriers say when a buffer is full and when it may be filled again, and
// each side waits only for the other, never for the whole block.
#include <cuda/barrier>

#define TPB 64
#define WARP 32
#define STAGES 2

using Barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void smooth_pipeline(float* out, const float* a, unsigned int rows,
                                           unsigned int cols) {
    __shared__ float stage[STAGES][TPB];
    // filled[s]: buffer s holds a row. ready[s]: buffer s may be overwritten.
    __shared__ Barrier filled[STAGES];
    __shared__ Barrier ready[STAGES];
    unsigned int t = threadIdx.x;
    // Threads 0 .. TPB - 1 consume, one column each; the last warp produces.
    bool producer = t >= TPB;
    if (t == 0) {
        // Every thread of the block arrives at every barrier once per row.
        for (unsigned int s = 0; s < STAGES; s++) {
            init(&filled[s], blockDim.x);
            init(&ready[s], blockDim.x);
        }
    }
    __syncthreads();
    // Both buffers start empty: the consumers release them once up front.
    if (!producer) {
        for (unsigned int s = 0; s < STAGES; s++) {
            (void)ready[s].arrive();
        }
    }

    // BEGIN PUZZLE (roughly 20 lines)
    unsigned int n = 0;
    for (unsigned int row = blockIdx.x; row < rows; row += gridDim.x, n++) {
        unsigned int s = n % STAGES;
        float* x = stage[s];
        if (producer) {
            // Wait until the consumers are done with what the buffer held.
            ready[s].arrive_and_wait();
            for (unsigned int j = t - TPB; j < cols; j += WARP) {
                x[j] = a[row * cols + j];
            }
            // Announce the row, without waiting for anyone.
            (void)filled[s].arrive();
        } else {
            // Wait until the producers have filled the buffer.
            filled[s].arrive_and_wait();
            if (t < cols) {
                float left = x[t > 0 ? t - 1 : 0];
                float right = x[t + 1 < cols ? t + 1 : cols - 1];
                out[row * cols + t] = (left + 2.0f * x[t] + right) * 0.25f;
            }
            // Hand the buffer back, without waiting for anyone.
            (void)ready[s].arrive();
        }
    }
    // END PUZZLE
}
