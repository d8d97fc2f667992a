// Puzzle 12: Prefix Sum (simple). A Hillis-Steele inclusive scan of one block in shared memory.
#include <cuda/std/mdspan>

#define TPB 8

using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
// The shared array's length is a compile-time constant, and so is this view's extent.
using Tile = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB>>;

extern "C" __global__ void prefix_sum_simple(float* out_data, const float* a_data, unsigned int size) {
    __shared__ float tile_data[TPB];
    Tile tile(tile_data);
    Vector out(out_data, size);
    ConstVector a(a_data, size);

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // Stage the input; every round below works on these TPB slots.
    if (global_i < a.extent(0)) {
        tile(local_i) = a(global_i);
    }
    __syncthreads();

    // BEGIN PUZZLE (roughly 14 lines)
    // Rounds with offsets 1, 2, 4: after the round with offset d, slot i holds
    // the sum of the (up to) 2d inputs ending at i.
    for (unsigned int offset = 1; offset < TPB; offset *= 2) {
        // Take a copy of the neighbor's value first...
        float left = 0.0f;
        if (local_i >= offset && global_i < a.extent(0)) {
            left = tile(local_i - offset);
        }
        // ...and let every thread take its copy before any slot changes:
        // without this barrier a neighbor may already hold this round's sum.
        __syncthreads();
        if (global_i < a.extent(0)) {
            tile(local_i) += left;
        }
        // The next round reads what this one wrote.
        __syncthreads();
    }

    if (global_i < out.extent(0)) {
        out(global_i) = tile(local_i);
    }
    // END PUZZLE
}
