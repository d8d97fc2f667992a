// Puzzle 12: Prefix Sum (one kernel). Each block scans its tile and adds what lies before it.
#include <cuda/std/mdspan>

#define TPB 8

using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
// Both shared arrays have TPB slots, a compile-time constant, as their views' extent.
using Slots = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB>>;

extern "C" __global__ void prefix_sum_blocks(float* out_data, const float* a_data, unsigned int size) {
    __shared__ float tile_data[TPB];
    // One partial sum per thread, combined into the offset of this block.
    __shared__ float partial_data[TPB];
    Slots tile(tile_data);
    Slots partial(partial_data);
    Vector out(out_data, size);
    ConstVector a(a_data, size);

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;
    // The first element of this block's tile: a[0 .. block_start) lies before it.
    unsigned int block_start = blockIdx.x * blockDim.x;

    // Part 1, given: the simple version's scan, run on this block's tile.
    // A thread past the end contributes zero, so the last tile needs no other care.
    tile(local_i) = (global_i < a.extent(0)) ? a(global_i) : 0.0f;
    __syncthreads();
    for (unsigned int offset = 1; offset < TPB; offset *= 2) {
        float left = (local_i >= offset) ? tile(local_i - offset) : 0.0f;
        __syncthreads();
        tile(local_i) += left;
        __syncthreads();
    }

    // BEGIN PUZZLE (roughly 15 lines)
    // Part 2: the offset, a(0) + ... + a(block_start - 1), read from the input,
    // which no block writes. Each thread adds every TPB-th element...
    float sum = 0.0f;
    for (unsigned int j = local_i; j < block_start; j += TPB) {
        sum += a(j);
    }
    partial(local_i) = sum;
    __syncthreads();
    // ...and a tree halves the partial sums until slot 0 holds the offset.
    for (unsigned int half = TPB / 2; half > 0; half /= 2) {
        if (local_i < half) {
            partial(local_i) += partial(local_i + half);
        }
        __syncthreads();
    }

    if (global_i < out.extent(0)) {
        out(global_i) = tile(local_i) + partial(0);
    }
    // END PUZZLE
}
