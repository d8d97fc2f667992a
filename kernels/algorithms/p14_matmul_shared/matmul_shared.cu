// Puzzle 14: matrix multiplication from shared memory. One block holds both matrices whole.
#include <cuda/std/mdspan>

#define TPB 3

// Row-major views of size x size matrices in global memory...
using Matrix = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 2>>;
using ConstMatrix = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>>;
// ...and of the TPB x TPB shared arrays, whose extents are compile-time constants.
using Tile = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB, TPB>>;

extern "C" __global__ void matmul_shared(float* out_data, const float* a_data, const float* b_data,
                                         unsigned int size) {
    // Room for a TPB x TPB matrix each: this kernel only works while size <= TPB.
    __shared__ float a_s_data[TPB * TPB];
    __shared__ float b_s_data[TPB * TPB];
    Tile a_s(a_s_data);
    Tile b_s(b_s_data);
    Matrix out(out_data, size, size);
    ConstMatrix a(a_data, size, size);
    ConstMatrix b(b_data, size, size);

    // There is one block, so the thread's place in the block is its place in the matrix.
    unsigned int row = threadIdx.y;
    unsigned int col = threadIdx.x;
    // BEGIN PUZZLE (roughly 12 lines)
    // Each thread fetches one element of each input; together they fetch both matrices.
    if (row < a.extent(0) && col < a.extent(1)) {
        a_s(row, col) = a(row, col);
        b_s(row, col) = b(row, col);
    }
    // Every thread is about to read elements that other threads loaded.
    __syncthreads();

    if (row < out.extent(0) && col < out.extent(1)) {
        float acc = 0.0f;
        for (unsigned int k = 0; k < a.extent(1); ++k) {
            acc += a_s(row, k) * b_s(k, col);
        }
        out(row, col) = acc;
    }
    // END PUZZLE
}
