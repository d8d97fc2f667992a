// Puzzle 28, step 1: the softmax of each row, one block per row, in three
// passes over the row: its largest value, the sum of exp(x - largest), and
// the outputs. The block-wide maximum and sum are given.
#define TPB 32
#define WARP 32
#define FULL_MASK 0xffffffffu
// The lowest float: the maximum of nothing yet.
#define LOWEST (-3.402823466e38f)

// The maximum of one value per thread, returned to every thread: a butterfly
// in each warp (every lane ends with its warp's maximum), one slot per warp,
// then every thread folds the slots in the same order.
__device__ float block_max(float v, float* slots) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
    }
    if (threadIdx.x % WARP == 0) {
        slots[threadIdx.x / WARP] = v;
    }
    __syncthreads();
    float m = slots[0];
    for (unsigned int w = 1; w < TPB / WARP; ++w) {
        m = fmaxf(m, slots[w]);
    }
    // The slots are written again by the next call.
    __syncthreads();
    return m;
}

// The same for a sum.
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

extern "C" __global__ void softmax(float* out, const float* a, unsigned int cols) {
    __shared__ float slots[TPB / WARP];
    const float* x = a + (size_t)blockIdx.x * cols;
    float* y = out + (size_t)blockIdx.x * cols;
    unsigned int t = threadIdx.x;

    // BEGIN PUZZLE (roughly 14 lines)
    // Pass 1: the row's largest value.
    float largest = LOWEST;
    for (unsigned int j = t; j < cols; j += TPB) {
        largest = fmaxf(largest, x[j]);
    }
    largest = block_max(largest, slots);
    // Pass 2: the sum, every exponent at most 0, so no term overflows.
    float sum = 0.0f;
    for (unsigned int j = t; j < cols; j += TPB) {
        sum += expf(x[j] - largest);
    }
    sum = block_sum(sum, slots);
    // Pass 3: the outputs.
    for (unsigned int j = t; j < cols; j += TPB) {
        y[j] = expf(x[j] - largest) / sum;
    }
    // END PUZZLE
}
