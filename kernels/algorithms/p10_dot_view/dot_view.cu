// Puzzle 10: Dot product, with views: vectors in, a rank-0 view out, a static-extent view in shared memory.
#include <cuda/std/mdspan>

#define TPB 8

using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
// Rank 0: a view of exactly one element, reached with no index at all, out().
using Scalar = cuda::std::mdspan<float, cuda::std::extents<unsigned int>>;
// The shared array's length is a compile-time constant, and so is this view's extent.
using Partials = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB>>;

extern "C" __global__ void dot_view(float* out_data, const float* a_data, const float* b_data,
                                    unsigned int size) {
    __shared__ float partial_data[TPB];
    Partials partial(partial_data);
    Scalar out(out_data);
    ConstVector a(a_data, size);
    ConstVector b(b_data, size);

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;
    // BEGIN PUZZLE (roughly 12 lines)
    partial(local_i) = (global_i < a.extent(0)) ? a(global_i) * b(global_i) : 0.0f;
    __syncthreads();

    // The extent is part of the type, so the first stride is a compile-time constant.
    for (unsigned int stride = Partials::static_extent(0) / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            partial(local_i) += partial(local_i + stride);
        }
        __syncthreads();
    }

    if (local_i == 0) {
        out() = partial(0);
    }
    // END PUZZLE
}
