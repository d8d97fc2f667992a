// Layouts: puzzle 4 again, reading and writing through 2D views instead of flat indices.
#include <cuda/std/mdspan>

// A matrix view: a pointer plus two run-time extents. The layout says how
// (row, col) becomes an offset; layout_right is row-major, mdspan's default.
using Layout = cuda::std::layout_right;
using Matrix = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 2>, Layout>;
using ConstMatrix = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>, Layout>;

extern "C" __global__ void add_10_2d_view(float* out_data, const float* a_data, unsigned int size) {
    // Both views are size x size; from here on, no kernel line multiplies by size.
    Matrix out(out_data, size, size);
    ConstMatrix a(a_data, size, size);

    unsigned int row = threadIdx.y;
    unsigned int col = threadIdx.x;
    // BEGIN PUZZLE (roughly 2 lines)
    // A view does not check its indices: the guard is still ours to write.
    if (row < out.extent(0) && col < out.extent(1)) {
        out(row, col) = a(row, col) + 10.0f;
    }
    // END PUZZLE
}
