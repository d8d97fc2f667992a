// Puzzle 14: naive matrix multiplication. One thread per element of out = a · b, straight from global memory.
#include <cuda/std/mdspan>

// Row-major views of size x size matrices: m(r, c) is element (r, c).
using Matrix = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 2>>;
using ConstMatrix = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>>;

extern "C" __global__ void matmul_naive(float* out_data, const float* a_data, const float* b_data,
                                        unsigned int size) {
    Matrix out(out_data, size, size);
    ConstMatrix a(a_data, size, size);
    ConstMatrix b(b_data, size, size);

    // The thread's element of out: y picks the row, x the column, as in puzzle 7.
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN PUZZLE (roughly 7 lines)
    if (row < out.extent(0) && col < out.extent(1)) {
        // Walk along row `row` of a and down column `col` of b at the same pace.
        float acc = 0.0f;
        for (unsigned int k = 0; k < a.extent(1); ++k) {
            acc += a(row, k) * b(k, col);
        }
        out(row, col) = acc;
    }
    // END PUZZLE
}
