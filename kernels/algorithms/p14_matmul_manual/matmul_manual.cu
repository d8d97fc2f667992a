// Puzzle 14: manual tiling at 9 x 9. The last step of a strip is cut short instead of padded with zeros.
#include <cuda/std/mdspan>

#define TPB 3

using Matrix = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 2>>;
using ConstMatrix = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>>;
using Tile = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB, TPB>>;

extern "C" __global__ void matmul_manual(float* out_data, const float* a_data, const float* b_data,
                                         unsigned int size) {
    __shared__ float a_tile_data[TPB * TPB];
    __shared__ float b_tile_data[TPB * TPB];
    Tile a_tile(a_tile_data);
    Tile b_tile(b_tile_data);
    Matrix out(out_data, size, size);
    ConstMatrix a(a_data, size, size);
    ConstMatrix b(b_data, size, size);

    unsigned int ty = threadIdx.y;
    unsigned int tx = threadIdx.x;
    unsigned int row = blockIdx.y * TPB + ty;
    unsigned int col = blockIdx.x * TPB + tx;

    unsigned int tiles = (size + TPB - 1) / TPB;
    float acc = 0.0f;
    for (unsigned int t = 0; t < tiles; ++t) {
        unsigned int a_col = t * TPB + tx;
        unsigned int b_row = t * TPB + ty;
        // Load only what exists. Past the edge nothing is stored, so such a slot
        // keeps whatever an earlier step left there (or was never written at all).
        if (row < a.extent(0) && a_col < a.extent(1)) {
            a_tile(ty, tx) = a(row, a_col);
        }
        if (b_row < b.extent(0) && col < b.extent(1)) {
            b_tile(ty, tx) = b(b_row, col);
        }
        __syncthreads();

        // BEGIN PUZZLE (roughly 6 lines)
        // This step covers k = t*TPB .. t*TPB + TPB - 1, or up to the last
        // column of a if that comes first: only those slots hold this step's data.
        if (row < out.extent(0) && col < out.extent(1)) {
            unsigned int width = min(TPB, size - t * TPB);
            for (unsigned int k = 0; k < width; ++k) {
                acc += a_tile(ty, k) * b_tile(k, tx);
            }
        }
        // END PUZZLE
        // Everyone is done reading before the next step overwrites the tiles.
        __syncthreads();
    }
    if (row < out.extent(0) && col < out.extent(1)) {
        out(row, col) = acc;
    }
}
