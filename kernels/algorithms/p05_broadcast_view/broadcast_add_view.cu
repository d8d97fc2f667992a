// Layouts: puzzle 5 again. The two vectors are viewed as a one-row and a one-column matrix.
#include <cuda/std/mdspan>

using cuda::std::dynamic_extent;
// Extents can be fixed at compile time (a number) or left to run time
// (dynamic_extent). A row has exactly one row; a column exactly one column.
using Matrix = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 2>>;
using Row = cuda::std::mdspan<const float, cuda::std::extents<unsigned int, 1, dynamic_extent>>;
using Column = cuda::std::mdspan<const float, cuda::std::extents<unsigned int, dynamic_extent, 1>>;

extern "C" __global__ void broadcast_add_view(float* out_data, const float* a_data,
                                              const float* b_data, unsigned int size) {
    Matrix out(out_data, size, size);
    // Only the run-time extents are passed: a is 1 x size, b is size x 1.
    Row a(a_data, size);
    Column b(b_data, size);

    unsigned int row = threadIdx.y;
    unsigned int col = threadIdx.x;
    // BEGIN PUZZLE (roughly 2 lines)
    if (row < out.extent(0) && col < out.extent(1)) {
        out(row, col) = a(0, col) + b(row, 0);
    }
    // END PUZZLE
}
