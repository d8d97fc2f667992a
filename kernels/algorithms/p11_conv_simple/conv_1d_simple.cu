// Puzzle 11 (simple): 1D convolution in one block, with the signal and the weights staged in shared memory.
#include <cuda/std/mdspan>

#define TPB 8

// Global buffers come with run-time lengths: the signal's is `size`, the filter's `conv`.
using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
// A shared array's length is a compile-time constant, and so is its view's extent.
using Staged = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB>>;

extern "C" __global__ void conv_1d_simple(float* out_data, const float* a_data, const float* b_data,
                                          unsigned int size, unsigned int conv) {
    // One block holds everything, so both arrays need at most one slot per thread.
    __shared__ float shared_a_data[TPB];
    __shared__ float shared_b_data[TPB];
    Staged shared_a(shared_a_data);
    Staged shared_b(shared_b_data);
    Vector out(out_data, size);
    ConstVector a(a_data, size);
    ConstVector b(b_data, conv);

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // BEGIN PUZZLE (roughly 16 lines)
    // Each thread copies at most one element of the signal and one weight.
    if (global_i < a.extent(0)) {
        shared_a(local_i) = a(global_i);
    }
    if (global_i < b.extent(0)) {
        shared_b(local_i) = b(global_i);
    }
    // Every window reads its neighbors' slots: wait until all of them are filled.
    __syncthreads();

    if (global_i < out.extent(0)) {
        float sum = 0.0f;
        for (unsigned int j = 0; j < b.extent(0); ++j) {
            // Past the end of the signal the term is zero, and the slot was never loaded.
            if (local_i + j < a.extent(0)) {
                sum += shared_a(local_i + j) * shared_b(j);
            }
        }
        out(global_i) = sum;
    }
    // END PUZZLE
}
