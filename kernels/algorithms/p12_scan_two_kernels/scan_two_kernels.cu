// Puzzle 12: Prefix Sum (two kernels). Scan each tile, then add the totals of the earlier tiles.
#include <cuda/std/mdspan>

#define TPB 8

using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
// Each kernel's shared array has TPB slots, a compile-time constant, as its view's extent.
using Slots = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB>>;

// Launch 1, given: the tile scan of the simple version, plus one extra store.
extern "C" __global__ void scan_tiles(float* out_data, const float* a_data, float* block_sums_data,
                                      unsigned int size) {
    __shared__ float tile_data[TPB];
    Slots tile(tile_data);
    Vector out(out_data, size);
    ConstVector a(a_data, size);
    // One total per block of the grid.
    Vector block_sums(block_sums_data, gridDim.x);

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // A thread past the end contributes zero, so the last slot ends up holding
    // the tile's total even when the tile is not full.
    tile(local_i) = (global_i < a.extent(0)) ? a(global_i) : 0.0f;
    __syncthreads();
    for (unsigned int offset = 1; offset < TPB; offset *= 2) {
        float left = (local_i >= offset) ? tile(local_i - offset) : 0.0f;
        __syncthreads();
        tile(local_i) += left;
        __syncthreads();
    }

    if (global_i < out.extent(0)) {
        out(global_i) = tile(local_i);
    }
    // One entry per block: the sum of this tile's elements.
    if (local_i == TPB - 1) {
        block_sums(blockIdx.x) = tile(TPB - 1);
    }
}

// Launch 2: starts only after every block of launch 1 has finished, so all of
// block_sums is written and visible.
extern "C" __global__ void add_block_offsets(float* out_data, const float* block_sums_data,
                                             unsigned int size) {
    __shared__ float partial_data[TPB];
    Slots partial(partial_data);
    Vector out(out_data, size);
    // Launch 2 has the same grid as launch 1: again one total per block.
    ConstVector block_sums(block_sums_data, gridDim.x);

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // BEGIN PUZZLE (roughly 15 lines)
    // The offset of block b is block_sums(0) + ... + block_sums(b - 1): each thread
    // adds every TPB-th of those totals...
    float sum = 0.0f;
    for (unsigned int j = local_i; j < blockIdx.x; j += TPB) {
        sum += block_sums(j);
    }
    partial(local_i) = sum;
    __syncthreads();
    // ...and a tree combines the partial sums into slot 0.
    for (unsigned int half = TPB / 2; half > 0; half /= 2) {
        if (local_i < half) {
            partial(local_i) += partial(local_i + half);
        }
        __syncthreads();
    }

    if (global_i < out.extent(0)) {
        out(global_i) += partial(0);
    }
    // END PUZZLE
}
