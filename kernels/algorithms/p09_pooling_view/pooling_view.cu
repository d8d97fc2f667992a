// Puzzle 9: Pooling, with views. Each thread sums its window, taken as a sub-view of shared memory.
#include <cuda/std/mdspan>
#include <cuda/std/tuple>

#define TPB 8
// A window of 3 is the element itself plus the HALO elements just before it.
#define HALO 2

using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstVector = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 1>>;
// The shared array's length is a compile-time constant, and so is this view's extent.
using Staged = cuda::std::mdspan<float, cuda::std::extents<unsigned int, HALO + TPB>>;
// A half-open range [first, last) of slots, as submdspan takes it.
using Range = cuda::std::tuple<size_t, size_t>;

extern "C" __global__ void pooling_view(float* out_data, const float* a_data, unsigned int size) {
    // HALO slots for the elements just before the block, then one per thread.
    __shared__ float staged_data[HALO + TPB];
    Staged staged(staged_data);
    Vector out(out_data, size);
    ConstVector a(a_data, size);

    unsigned int block_start = blockIdx.x * blockDim.x;
    unsigned int global_i = block_start + threadIdx.x;
    unsigned int local_i = threadIdx.x;
    // BEGIN PUZZLE (roughly 16 lines)
    // Stage the thread's own element, and let the first HALO threads stage the
    // halo (zeros before the start of the array).
    if (global_i < a.extent(0)) {
        staged(HALO + local_i) = a(global_i);
    }
    if (local_i < HALO) {
        staged(local_i) = (block_start + local_i >= HALO) ? a(block_start + local_i - HALO) : 0.0f;
    }
    __syncthreads();

    if (global_i < out.extent(0)) {
        // This thread's window is HALO + 1 consecutive slots ending at its own.
        auto window = cuda::std::submdspan(staged, Range{local_i, local_i + HALO + 1});
        float sum = 0.0f;
        for (unsigned int k = 0; k < window.extent(0); ++k) {
            sum += window(k);
        }
        out(global_i) = sum;
    }
    // END PUZZLE
}
