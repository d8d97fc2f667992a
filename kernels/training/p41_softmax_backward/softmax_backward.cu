// Puzzle 41, step 1: a softmax's gradient, a row a block. The forward kept
// its output y; the loss's gradient dy arrives from the layer above. Then
// dx = y * (dy - dot), with dot = the row's sum of y * dy. Two passes over
// the row: one for the dot product, one for the output.
#define TPB 32
#define WARP 32
#define FULL_MASK 0xffffffffu

// The block's sum of one value per thread, returned to every thread.
__device__ float block_sum(float v, float* slots) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    }
    if (threadIdx.x % WARP == 0) {
        slots[threadIdx.x / WARP] = v;
    }
    __syncthreads();
    float s = slots[0];
    for (unsigned int w = 1; w < TPB / WARP; ++w) {
        s += slots[w];
    }
    __syncthreads();
    return s;
}

extern "C" __global__ void softmax_backward(float* out, const float* y, const float* dy,
                                            unsigned int cols) {
    __shared__ float slots[TPB / WARP];
    size_t start = (size_t)blockIdx.x * cols;
    unsigned int t = threadIdx.x;

    // BEGIN PUZZLE (roughly 8 lines)
    float part = 0.0f;
    for (unsigned int j = t; j < cols; j += TPB) {
        part += y[start + j] * dy[start + j];
    }
    float dot = block_sum(part, slots);
    for (unsigned int j = t; j < cols; j += TPB) {
        out[start + j] = y[start + j] * (dy[start + j] - dot);
    }
    // END PUZZLE
}
