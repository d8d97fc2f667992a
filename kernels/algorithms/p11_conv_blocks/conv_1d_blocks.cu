// Puzzle 11 (block boundary): each block stages its slice of a plus a halo of CONV - 1 elements from the next slice.
#include <cuda/std/mdspan>

#define TPB 8
#define CONV 4
// The window of the block's last thread ends CONV - 1 elements past the block's slice.
#define TILE (TPB + CONV - 1)

// The signal's length arrives at run time; the filter's is the constant CONV,
// so its view has a static extent even though it lives in global memory.
using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
using ConstFilter = cuda::std::mdspan<const float, cuda::std::extents<unsigned int, CONV>>;
using Tile = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TILE>>;
using Weights = cuda::std::mdspan<float, cuda::std::extents<unsigned int, CONV>>;

extern "C" __global__ void conv_1d_blocks(float* out_data, const float* a_data, const float* b_data,
                                          unsigned int size) {
    __shared__ float tile_data[TILE];
    __shared__ float weights_data[CONV];
    Tile tile(tile_data);
    Weights weights(weights_data);
    Vector out(out_data, size);
    ConstVector a(a_data, size);
    ConstFilter b(b_data);

    unsigned int block_start = blockIdx.x * blockDim.x;
    unsigned int global_i = block_start + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // BEGIN PUZZLE (roughly 16 lines)
    // The main slice: one element per thread. Writing the zeros explicitly matters,
    // because shared memory starts with whatever the previous block left there.
    tile(local_i) = global_i < a.extent(0) ? a(global_i) : 0.0f;

    // The halo: the first CONV - 1 threads also fetch the start of the next slice.
    if (local_i < CONV - 1) {
        unsigned int halo_i = block_start + TPB + local_i;
        tile(TPB + local_i) = halo_i < a.extent(0) ? a(halo_i) : 0.0f;
    }

    if (local_i < CONV) {
        weights(local_i) = b(local_i);
    }
    // One barrier covers both arrays.
    __syncthreads();

    if (global_i < out.extent(0)) {
        // Every window lies inside the tile and the padding is zero: no test in the loop.
        float sum = 0.0f;
        for (unsigned int j = 0; j < CONV; ++j) {
            sum += tile(local_i + j) * weights(j);
        }
        out(global_i) = sum;
    }
    // END PUZZLE
}
