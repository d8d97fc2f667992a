// Puzzle 11 (simple): 1D convolution in one block, with the signal and the weights staged in shared memory.
#define TPB 8

extern "C" __global__ void conv_1d_simple(float* out, const float* a, const float* b,
                                          unsigned int size, unsigned int conv) {
    // One block holds everything, so both arrays need at most one slot per thread.
    __shared__ float shared_a[TPB];
    __shared__ float shared_b[TPB];

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // BEGIN PUZZLE (roughly 16 lines)
    // Each thread copies at most one element of the signal and one weight.
    if (global_i < size) {
        shared_a[local_i] = a[global_i];
    }
    if (global_i < conv) {
        shared_b[local_i] = b[global_i];
    }
    // Every window reads its neighbors' slots: wait until all of them are filled.
    __syncthreads();

    if (global_i < size) {
        float sum = 0.0f;
        for (unsigned int j = 0; j < conv; ++j) {
            // Past the end of the signal the term is zero, and the slot was never loaded.
            if (local_i + j < size) {
                sum += shared_a[local_i + j] * shared_b[j];
            }
        }
        out[global_i] = sum;
    }
    // END PUZZLE
}
