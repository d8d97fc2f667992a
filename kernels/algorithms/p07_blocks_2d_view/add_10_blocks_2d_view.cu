// Layouts: puzzle 7 again. Each block cuts its own tile out of the matrix as a sub-view.
#include <cuda/std/mdspan>
#include <cuda/std/tuple>

using Matrix = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 2>>;
using ConstMatrix = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>>;
// A half-open range [first, last) of rows or of columns, as submdspan takes it.
using Range = cuda::std::tuple<size_t, size_t>;

extern "C" __global__ void add_10_blocks_2d_view(float* out_data, const float* a_data,
                                                 unsigned int size) {
    Matrix out(out_data, size, size);
    ConstMatrix a(a_data, size, size);

    // The block's corner in the matrix.
    unsigned int first_row = blockIdx.y * blockDim.y;
    unsigned int first_col = blockIdx.x * blockDim.x;
    // Inside its tile, a thread's position is simply its position in the block.
    unsigned int row = threadIdx.y;
    unsigned int col = threadIdx.x;
    // BEGIN PUZZLE (roughly 8 lines)
    // A tile is blockDim rows and columns from the corner, clipped at the edge:
    // a tile that stuck out of the matrix would not be caught by any check.
    Range rows{first_row, min(first_row + blockDim.y, size)};
    Range cols{first_col, min(first_col + blockDim.x, size)};
    auto out_tile = cuda::std::submdspan(out, rows, cols);
    auto a_tile = cuda::std::submdspan(a, rows, cols);
    if (row < out_tile.extent(0) && col < out_tile.extent(1)) {
        out_tile(row, col) = a_tile(row, col) + 10.0f;
    }
    // END PUZZLE
}
