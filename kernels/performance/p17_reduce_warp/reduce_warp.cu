// Puzzle 17, step 2: the same reduction, with the tree's levels inside a warp
// done by shuffles: registers instead of shared memory, and no barriers.
#define TPB 256
#define WARP 32

extern "C" __global__ void block_sums(float* partials, const float* a, unsigned int size) {
    // One slot per warp, not per thread.
    __shared__ float warp_sums[TPB / WARP];
    unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int i = block * TPB + threadIdx.x;
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp = threadIdx.x / WARP;

    // BEGIN PUZZLE (roughly 16 lines)
    float value = (i < size) ? a[i] : 0.0f;
    // Each step adds the value held `offset` lanes further on: after 16, 8, 4,
    // 2 and 1, lane 0 holds its warp's sum. All 32 lanes take part (the mask).
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        value += __shfl_down_sync(0xffffffffu, value, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = value;
    }
    // The only barrier: the warps' sums are read by warp 0.
    __syncthreads();
    if (warp == 0) {
        value = (lane < TPB / WARP) ? warp_sums[lane] : 0.0f;
        for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
            value += __shfl_down_sync(0xffffffffu, value, offset);
        }
        if (lane == 0) {
            partials[block] = value;
        }
    }
    // END PUZZLE
}

// Launch 2, given: one block folds `count` partial sums (step 1's finish).
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
