// Puzzle 10: Dot product. One block multiplies pairs, then adds the products up as a tree.
#define TPB 8

extern "C" __global__ void dot(float* out, const float* a, const float* b, unsigned int size) {
    // One product per thread; the reduction folds them into slot 0.
    __shared__ float partial[TPB];

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;
    // BEGIN PUZZLE (roughly 12 lines)
    // Threads past the end of the vectors contribute 0, so that every slot the
    // reduction reads holds a term of the sum.
    partial[local_i] = (global_i < size) ? a[global_i] * b[global_i] : 0.0f;
    __syncthreads();

    // Each step adds the upper half of the live slots onto the lower half:
    // 8 -> 4 -> 2 -> 1. TPB must be a power of two.
    for (unsigned int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            partial[local_i] += partial[local_i + stride];
        }
        // Outside the if: every thread of the block must reach every barrier.
        __syncthreads();
    }

    if (local_i == 0) {
        out[0] = partial[0];
    }
    // END PUZZLE
}
