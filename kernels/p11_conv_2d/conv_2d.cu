// Puzzle 11 (2D): each 8x8 block stages its patch of the image plus a halo of K - 1 rows and columns.
#define TPB 8
#define K 3
// The side of the shared tile: the 8x8 patch plus the halo on the right and at the bottom.
#define TILE (TPB + K - 1)

// The image value at (x, y), or zero outside the image.
__device__ float pixel(const float* a, unsigned int x, unsigned int y,
                       unsigned int width, unsigned int height) {
    return (x < width && y < height) ? a[y * width + x] : 0.0f;
}

extern "C" __global__ void conv_2d(float* out, const float* a, const float* b,
                                   unsigned int width, unsigned int height) {
    __shared__ float tile[TILE][TILE];
    __shared__ float weights[K][K];

    // The image coordinates of the block's top-left pixel.
    unsigned int x0 = blockIdx.x * TPB;
    unsigned int y0 = blockIdx.y * TPB;
    unsigned int lx = threadIdx.x;
    unsigned int ly = threadIdx.y;
    unsigned int gx = x0 + lx;
    unsigned int gy = y0 + ly;

    // BEGIN PUZZLE (roughly 23 lines)
    // 1. The patch itself: one pixel per thread.
    tile[ly][lx] = pixel(a, gx, gy, width, height);
    // 2. The right halo: the first K - 1 columns of threads reach TPB columns further.
    if (lx < K - 1) {
        tile[ly][TPB + lx] = pixel(a, x0 + TPB + lx, gy, width, height);
    }
    // 3. The bottom halo: the first K - 1 rows of threads reach TPB rows further.
    if (ly < K - 1) {
        tile[TPB + ly][lx] = pixel(a, gx, y0 + TPB + ly, width, height);
    }
    // 4. The corner, which belongs to neither strip: the threads in both groups fetch it.
    if (lx < K - 1 && ly < K - 1) {
        tile[TPB + ly][TPB + lx] = pixel(a, x0 + TPB + lx, y0 + TPB + ly, width, height);
    }

    if (lx < K && ly < K) {
        weights[ly][lx] = b[ly * K + lx];
    }
    __syncthreads();

    if (gx < width && gy < height) {
        float sum = 0.0f;
        for (unsigned int ky = 0; ky < K; ++ky) {
            for (unsigned int kx = 0; kx < K; ++kx) {
                sum += tile[ly + ky][lx + kx] * weights[ky][kx];
            }
        }
        out[gy * width + gx] = sum;
    }
    // END PUZZLE
}
