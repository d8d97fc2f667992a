// Puzzle 14: tiled matrix multiplication. Each block walks a strip of a and a strip of b one TPB x TPB tile at a time.
#include <cuda/std/mdspan>

#define TPB 3

// Row-major views of size x size matrices in global memory...
using Matrix = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 2>>;
using ConstMatrix = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>>;
// ...and of the TPB x TPB shared tiles, whose extents are compile-time constants.
using Tile = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB, TPB>>;

extern "C" __global__ void matmul_tiled(float* out_data, const float* a_data, const float* b_data,
                                        unsigned int size) {
    // One tile of each input at a time, however large the matrices are.
    __shared__ float a_tile_data[TPB * TPB];
    __shared__ float b_tile_data[TPB * TPB];
    Tile a_tile(a_tile_data);
    Tile b_tile(b_tile_data);
    Matrix out(out_data, size, size);
    ConstMatrix a(a_data, size, size);
    ConstMatrix b(b_data, size, size);

    unsigned int ty = threadIdx.y;
    unsigned int tx = threadIdx.x;
    // The element of out this thread owns (it may lie outside the matrix at the edges).
    unsigned int row = blockIdx.y * TPB + ty;
    unsigned int col = blockIdx.x * TPB + tx;

    // Rounded up: the last tile hangs over the edge when TPB does not divide size.
    unsigned int tiles = (size + TPB - 1) / TPB;
    float acc = 0.0f;
    // BEGIN PUZZLE (roughly 14 lines)
    for (unsigned int t = 0; t < tiles; ++t) {
        // Tile t of the strips: columns t*TPB.. of a's rows, rows t*TPB.. of b's columns.
        unsigned int a_col = t * TPB + tx;
        unsigned int b_row = t * TPB + ty;
        // Past the edge, store zero: a zero term leaves the sum unchanged.
        a_tile(ty, tx) = (row < a.extent(0) && a_col < a.extent(1)) ? a(row, a_col) : 0.0f;
        b_tile(ty, tx) = (b_row < b.extent(0) && col < b.extent(1)) ? b(b_row, col) : 0.0f;
        // Barrier 1: the tiles are complete before anyone reads them.
        __syncthreads();

        for (unsigned int k = 0; k < TPB; ++k) {
            acc += a_tile(ty, k) * b_tile(k, tx);
        }
        // Barrier 2: everyone is done reading before the next step overwrites the tiles.
        __syncthreads();
    }
    if (row < out.extent(0) && col < out.extent(1)) {
        out(row, col) = acc;
    }
    // END PUZZLE
}
