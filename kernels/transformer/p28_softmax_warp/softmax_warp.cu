// Puzzle 28, step 3: the online softmax with one warp per row, TPB / WARP
// rows per block. A warp needs no shared memory and no barrier to combine.
#define TPB 64
#define WARP 32
#define FULL_MASK 0xffffffffu
#define LOWEST (-3.402823466e38f)

// The maximum and the sum over a warp, returned to every lane (a butterfly).
__device__ float warp_max(float v) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
    }
    return v;
}

__device__ float warp_sum(float v) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    }
    return v;
}

extern "C" __global__ void softmax_warp(float* out, const float* a, unsigned int rows,
                                        unsigned int cols) {
    unsigned int row = blockIdx.x * (TPB / WARP) + threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    // A whole warp leaves together, so the shuffles below see all 32 lanes.
    if (row >= rows) {
        return;
    }
    const float* x = a + (size_t)row * cols;
    float* y = out + (size_t)row * cols;

    // BEGIN PUZZLE (roughly 18 lines)
    float largest = LOWEST;
    float sum = 0.0f;
    for (unsigned int j = lane; j < cols; j += WARP) {
        float v = x[j];
        if (v > largest) {
            sum = sum * expf(largest - v) + 1.0f;
            largest = v;
        } else {
            sum += expf(v - largest);
        }
    }
    float row_largest = warp_max(largest);
    float row_sum = warp_sum(sum * expf(largest - row_largest));
    for (unsigned int j = lane; j < cols; j += WARP) {
        y[j] = expf(x[j] - row_largest) / row_sum;
    }
    // END PUZZLE
}
