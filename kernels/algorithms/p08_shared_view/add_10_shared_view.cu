// Layouts: puzzle 8 again. The shared array is a view, and each block cuts its slice out of the vectors.
#include <cuda/std/mdspan>
#include <cuda/std/tuple>

#define TPB 4

using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
// Shared memory has a length fixed at compile time: a static extent, which the
// view does not even store.
using Tile = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB>>;
// A half-open range [first, last) of elements, as submdspan takes it.
using Range = cuda::std::tuple<size_t, size_t>;

extern "C" __global__ void add_10_shared_view(float* out_data, const float* a_data, unsigned int size) {
    __shared__ float tile_data[TPB];
    Tile tile(tile_data);
    Vector out(out_data, size);
    ConstVector a(a_data, size);

    // The block's slice: blockDim.x elements from its first, clipped at the end
    // of the vector, so the last block's slice may be shorter than the block.
    unsigned int first = blockIdx.x * blockDim.x;
    Range mine{first, min(first + blockDim.x, size)};
    auto a_block = cuda::std::submdspan(a, mine);
    // One index for the slice and the tile alike: no global index any more.
    unsigned int i = threadIdx.x;

    if (i < a_block.extent(0)) {
        tile(i) = a_block(i);
    }
    // A view knows nothing about who wrote what: the barrier is still ours.
    __syncthreads();

    // BEGIN PUZZLE (roughly 4 lines)
    auto out_block = cuda::std::submdspan(out, mine);
    if (i < out_block.extent(0)) {
        out_block(i) = tile(i) + 10.0f;
    }
    // END PUZZLE
}
