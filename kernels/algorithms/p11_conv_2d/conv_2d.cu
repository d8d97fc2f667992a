// Puzzle 11 (2D): each 8x8 block stages its patch of the image plus a halo of K - 1 rows and columns.
#include <cuda/std/mdspan>

#define TPB 8
#define K 3
// The side of the shared tile: the 8x8 patch plus the halo on the right and at the bottom.
#define TILE (TPB + K - 1)

// Row-major views, indexed (row, col): for an image that is (y, x), so extent(0)
// is the height and extent(1) the width.
using Image = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 2>>;
using ConstImage = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>>;
// The filter is K x K in global memory, the tile and the weights in shared memory:
// all three sizes are compile-time constants.
using ConstFilter = cuda::std::mdspan<const float, cuda::std::extents<unsigned int, K, K>>;
using Tile = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TILE, TILE>>;
using Weights = cuda::std::mdspan<float, cuda::std::extents<unsigned int, K, K>>;

// The image value at (x, y), or zero outside the image.
__device__ float pixel(ConstImage a, unsigned int x, unsigned int y) {
    return (x < a.extent(1) && y < a.extent(0)) ? a(y, x) : 0.0f;
}

extern "C" __global__ void conv_2d(float* out_data, const float* a_data, const float* b_data,
                                   unsigned int width, unsigned int height) {
    __shared__ float tile_data[TILE * TILE];
    __shared__ float weights_data[K * K];
    Tile tile(tile_data);
    Weights weights(weights_data);
    Image out(out_data, height, width);
    ConstImage a(a_data, height, width);
    ConstFilter b(b_data);

    // The image coordinates of the block's top-left pixel.
    unsigned int x0 = blockIdx.x * TPB;
    unsigned int y0 = blockIdx.y * TPB;
    unsigned int lx = threadIdx.x;
    unsigned int ly = threadIdx.y;
    unsigned int gx = x0 + lx;
    unsigned int gy = y0 + ly;

    // BEGIN PUZZLE (roughly 23 lines)
    // 1. The patch itself: one pixel per thread.
    tile(ly, lx) = pixel(a, gx, gy);
    // 2. The right halo: the first K - 1 columns of threads reach TPB columns further.
    if (lx < K - 1) {
        tile(ly, TPB + lx) = pixel(a, x0 + TPB + lx, gy);
    }
    // 3. The bottom halo: the first K - 1 rows of threads reach TPB rows further.
    if (ly < K - 1) {
        tile(TPB + ly, lx) = pixel(a, gx, y0 + TPB + ly);
    }
    // 4. The corner, which belongs to neither strip: the threads in both groups fetch it.
    if (lx < K - 1 && ly < K - 1) {
        tile(TPB + ly, TPB + lx) = pixel(a, x0 + TPB + lx, y0 + TPB + ly);
    }

    if (lx < K && ly < K) {
        weights(ly, lx) = b(ly, lx);
    }
    __syncthreads();

    if (gx < out.extent(1) && gy < out.extent(0)) {
        float sum = 0.0f;
        for (unsigned int ky = 0; ky < K; ++ky) {
            for (unsigned int kx = 0; kx < K; ++kx) {
                sum += tile(ly + ky, lx + kx) * weights(ky, kx);
            }
        }
        out(gy, gx) = sum;
    }
    // END PUZZLE
}
