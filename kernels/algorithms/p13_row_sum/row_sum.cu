// Puzzle 13 (row sum): one block per row; the threads sum strided slices, then halve their partials in shared memory.
#include <cuda/std/mdspan>

// A power of two, so that halving always pairs every slot with another.
#define TPB 8

using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstMatrix = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>>;
// The shared array's length is a compile-time constant, and so is this view's extent.
using Cache = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB>>;

extern "C" __global__ void row_sum(float* out_data, const float* a_data, unsigned int size) {
    __shared__ float cache_data[TPB];
    Cache cache(cache_data);
    // The grid is 1 x BATCH: there are as many rows as blocks along y.
    ConstMatrix a(a_data, gridDim.y, size);
    Vector out(out_data, gridDim.y);

    // The block's y index is its row.
    unsigned int row = blockIdx.y;
    unsigned int local_i = threadIdx.x;

    // BEGIN PUZZLE (roughly 15 lines)
    // Each thread walks the row in steps of TPB, so a row of any length is covered.
    // Side by side, the threads read neighboring addresses at every step.
    float partial = 0.0f;
    for (unsigned int col = local_i; col < a.extent(1); col += TPB) {
        partial += a(row, col);
    }
    cache(local_i) = partial;
    __syncthreads();

    // Fold the upper half onto the lower half until one slot is left.
    for (unsigned int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache(local_i) += cache(local_i + stride);
        }
        // Outside the if: every thread of the block must reach each barrier.
        __syncthreads();
    }

    if (local_i == 0) {
        out(row) = cache(0);
    }
    // END PUZZLE
}
