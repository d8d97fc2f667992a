// Puzzle 12: Prefix Sum (Blelloch). An exclusive scan: up-sweep, then down-sweep, over a tree.
#include <cuda/std/mdspan>

#define TPB 8

using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
// The shared array's length is a compile-time constant, and so is this view's extent.
using Tile = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB>>;

extern "C" __global__ void prefix_sum_blelloch(float* out_data, const float* a_data, unsigned int size) {
    __shared__ float tile_data[TPB];
    Tile tile(tile_data);
    Vector out(out_data, size);
    ConstVector a(a_data, size);

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // The tree spans all TPB slots. Slots past the end hold zero, which changes no sum.
    tile(local_i) = (global_i < a.extent(0)) ? a(global_i) : 0.0f;
    __syncthreads();

    // BEGIN PUZZLE (roughly 23 lines)
    // Up-sweep. At the level with span `stride`, thread k owns the pair of subtrees
    // that ends at slot right = (k + 1) * 2 * stride - 1, and folds the left one's
    // total (at right - stride) into it. Pairs never overlap, so one barrier per
    // level is enough.
    for (unsigned int stride = 1; stride < TPB; stride *= 2) {
        unsigned int right = (local_i + 1) * 2 * stride - 1;
        if (right < TPB) {
            tile(right) += tile(right - stride);
        }
        __syncthreads();
    }

    // The root now holds the total of the whole tile. Nothing comes before the
    // tile, so the root's prefix is zero.
    if (local_i == 0) {
        tile(TPB - 1) = 0.0f;
    }
    __syncthreads();

    // Down-sweep, from the root to the leaves. The right slot holds the prefix of
    // the pair; the left child gets that prefix, and the right child gets it plus
    // the left subtree's total, which the up-sweep left in the left slot.
    for (unsigned int stride = TPB / 2; stride > 0; stride /= 2) {
        unsigned int right = (local_i + 1) * 2 * stride - 1;
        if (right < TPB) {
            float left_total = tile(right - stride);
            tile(right - stride) = tile(right);
            tile(right) += left_total;
        }
        __syncthreads();
    }

    if (global_i < out.extent(0)) {
        out(global_i) = tile(local_i);
    }
    // END PUZZLE
}
