// Puzzle 17, step 1: a reduction of any length. Every block folds TPB elements
// with the shared-memory tree of puzzle 10 and leaves one partial sum; a second
// launch folds the partial sums.
#define TPB 256

// Launch 1: one element per thread. The grid may have rows (blockIdx.y) because
// WGSL allows at most 65,535 workgroups along one axis; CUDA keeps the same shape.
extern "C" __global__ void block_sums(float* partials, const float* a, unsigned int size) {
    __shared__ float tile[TPB];
    unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int i = block * TPB + threadIdx.x;
    unsigned int t = threadIdx.x;

    // BEGIN PUZZLE (roughly 10 lines)
    // Past the end, a thread adds nothing: 0 is the identity of +.
    tile[t] = (i < size) ? a[i] : 0.0f;
    __syncthreads();
    // Halve the live slots until slot 0 holds the block's sum: 8 steps for 256.
    for (unsigned int half = TPB / 2; half > 0; half /= 2) {
        if (t < half) {
            tile[t] += tile[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        partials[block] = tile[0];
    }
    // END PUZZLE
}

// Launch 2, given: one block folds `count` partial sums. It starts only after
// every block of launch 1 has finished, so every partial sum is in memory.
extern "C" __global__ void finish(float* out, const float* partials, unsigned int count) {
    __shared__ float tile[TPB];
    unsigned int t = threadIdx.x;
    float sum = 0.0f;
    for (unsigned int j = t; j < count; j += TPB) {
        sum += partials[j];
    }
    tile[t] = sum;
    __syncthreads();
    for (unsigned int half = TPB / 2; half > 0; half /= 2) {
        if (t < half) {
            tile[t] += tile[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[0] = tile[0];
    }
}
