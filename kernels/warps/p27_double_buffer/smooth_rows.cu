// Puzzle 27: smooth each row `iters` times with the 1-2-1 stencil. Each pass
// reads one shared buffer and writes the other, so one barrier per pass keeps
// every read before the next write.
#define TPB 64

extern "C" __global__ void smooth_rows(float* out, const float* a, unsigned int cols,
                                       unsigned int iters) {
    __shared__ float buffers[2][TPB];
    unsigned int row = blockIdx.x;
    unsigned int t = threadIdx.x;
    if (t < cols) {
        buffers[0][t] = a[row * cols + t];
    }
    __syncthreads();

    // BEGIN PUZZLE (roughly 14 lines)
    unsigned int src = 0;
    for (unsigned int k = 0; k < iters; k++) {
        if (t < cols) {
            const float* x = buffers[src];
            float left = x[t > 0 ? t - 1 : 0];
            float right = x[t + 1 < cols ? t + 1 : cols - 1];
            buffers[1 - src][t] = (left + 2.0f * x[t] + right) * 0.25f;
        }
        // The next pass reads what this one wrote, and overwrites what this
        // one read: both are ordered by this single barrier.
        __syncthreads();
        src = 1 - src;
    }
    if (t < cols) {
        out[row * cols + t] = buffers[src][t];
    }
    // END PUZZLE
}
