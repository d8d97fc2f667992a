// Puzzle 17, step 3: a fixed grid, sized to fill the GPU once, in which every
// thread adds many elements before any thread talks to another.
#define TPB 256
#define WARP 32

extern "C" __global__ void block_sums(float* partials, const float* a, unsigned int size) {
    __shared__ float warp_sums[TPB / WARP];
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp = threadIdx.x / WARP;
    // The whole grid covers gridDim.x * TPB consecutive elements per pass.
    unsigned int stride = gridDim.x * TPB;

    float value = 0.0f;
    // BEGIN PUZZLE (roughly 3 lines)
    // Consecutive threads read consecutive elements on every pass, so each
    // warp's loads stay coalesced however many passes there are.
    for (unsigned int i = blockIdx.x * TPB + threadIdx.x; i < size; i += stride) {
        value += a[i];
    }
    // END PUZZLE

    // Given: step 2's warp and block reduction of `value`.
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        value += __shfl_down_sync(0xffffffffu, value, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = value;
    }
    __syncthreads();
    if (warp == 0) {
        value = (lane < TPB / WARP) ? warp_sums[lane] : 0.0f;
        for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
            value += __shfl_down_sync(0xffffffffu, value, offset);
        }
        if (lane == 0) {
            partials[blockIdx.x] = value;
        }
    }
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
