// Puzzle 28, step 2: the online softmax. One pass over the row finds its
// largest value and the sum of exp(x - largest) together; a second writes
// the outputs. One block per row.
#define TPB 32
#define WARP 32
#define FULL_MASK 0xffffffffu
#define LOWEST (-3.402823466e38f)

// The block's maximum and sum of one value per thread, returned to every
// thread (as in step 1).
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
    __syncthreads();
    return m;
}

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

extern "C" __global__ void softmax_online(float* out, const float* a, unsigned int cols) {
    __shared__ float slots[TPB / WARP];
    const float* x = a + (size_t)blockIdx.x * cols;
    float* y = out + (size_t)blockIdx.x * cols;
    unsigned int t = threadIdx.x;

    // BEGIN PUZZLE (roughly 16 lines)
    // The running pair: the largest value so far, and the sum of exp(x - it).
    float largest = LOWEST;
    float sum = 0.0f;
    for (unsigned int j = t; j < cols; j += TPB) {
        float v = x[j];
        if (v > largest) {
            // A new largest value: the old terms shrink by exp(old - new).
            sum = sum * expf(largest - v) + 1.0f;
            largest = v;
        } else {
            sum += expf(v - largest);
        }
    }
    // Each thread's sum is relative to its own largest value: rescale it to
    // the row's before adding (a thread that saw nothing has sum 0).
    float row_largest = block_max(largest, slots);
    float row_sum = block_sum(sum * expf(largest - row_largest), slots);
    for (unsigned int j = t; j < cols; j += TPB) {
        y[j] = expf(x[j] - row_largest) / row_sum;
    }
    // END PUZZLE
}
