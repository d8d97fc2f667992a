// Puzzle 13 (column sum): a block of TPB x TPB threads sums TPB adjacent columns, TPB row lanes per column.
#include <cuda/std/mdspan>

// A power of two, so that halving always pairs every slot with another.
#define TPB 8

using Vector = cuda::std::mdspan<float, cuda::std::dextents<unsigned int, 1>>;
using ConstMatrix = cuda::std::mdspan<const float, cuda::std::dextents<unsigned int, 2>>;
// cache(lane, c): the partial sum of row lane `lane` for the block's column c.
using Cache = cuda::std::mdspan<float, cuda::std::extents<unsigned int, TPB, TPB>>;

extern "C" __global__ void column_sum(float* out_data, const float* a_data, unsigned int batch,
                                      unsigned int size) {
    __shared__ float cache_data[TPB * TPB];
    Cache cache(cache_data);
    // batch rows of size columns; one total per column.
    ConstMatrix a(a_data, batch, size);
    Vector out(out_data, size);

    // threadIdx.x picks the column, so neighboring threads read neighboring addresses.
    unsigned int col = blockIdx.x * TPB + threadIdx.x;
    unsigned int lane = threadIdx.y;

    // BEGIN PUZZLE (roughly 17 lines)
    // Lane l adds rows l, l + TPB, l + 2 TPB, ... of its column.
    float partial = 0.0f;
    if (col < a.extent(1)) {
        for (unsigned int row = lane; row < a.extent(0); row += TPB) {
            partial += a(row, col);
        }
    }
    cache(lane, threadIdx.x) = partial;
    __syncthreads();

    // The row sum's tree, run along y: each column folds its lanes independently.
    for (unsigned int stride = TPB / 2; stride > 0; stride /= 2) {
        if (lane < stride) {
            cache(lane, threadIdx.x) += cache(lane + stride, threadIdx.x);
        }
        __syncthreads();
    }

    if (lane == 0 && col < out.extent(0)) {
        out(col) = cache(0, threadIdx.x);
    }
    // END PUZZLE
}
