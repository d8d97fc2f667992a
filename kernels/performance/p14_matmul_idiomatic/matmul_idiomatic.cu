// Puzzle 14: tiled matrix multiplication with mdspan views and asynchronous global-to-shared copies.
#include <cuda/std/mdspan>
#include <cuda/barrier>

#define TPB 3

namespace stdx = cuda::std;

// Row-major views: `m(r, c)` instead of `p[r * size + c]`; the view carries its extents.
using matrix = stdx::mdspan<float, stdx::dextents<size_t, 2>>;
using const_matrix = stdx::mdspan<const float, stdx::dextents<size_t, 2>>;
// A shared-memory tile: both extents are known at compile time.
using tile = stdx::mdspan<float, stdx::extents<size_t, TPB, TPB>>;
// [first, last) along one axis: the slice form submdspan takes for a range.
using range = stdx::tuple<size_t, size_t>;

// The range of a tile that starts at `first`: TPB indices, cut short at the matrix's edge.
__device__ range tile_range(size_t first, size_t size) {
    return range{first, first + TPB < size ? first + TPB : size};
}

// A __shared__ object is never constructed; the barrier is set up by init() below instead.
#pragma nv_diag_suppress static_var_with_dynamic_init

extern "C" __global__ void matmul_idiomatic(float* out, const float* a, const float* b, unsigned int size) {
    __shared__ float a_buf[TPB * TPB];
    __shared__ float b_buf[TPB * TPB];
    __shared__ cuda::barrier<cuda::thread_scope_block> loaded;

    const_matrix A(a, size, size);
    const_matrix B(b, size, size);
    matrix C(out, size, size);
    tile a_tile(a_buf);
    tile b_tile(b_buf);

    size_t ty = threadIdx.y;
    size_t tx = threadIdx.x;
    // One thread sets the barrier up for all the threads of the block, and all wait for it.
    if (ty == 0 && tx == 0) {
        init(&loaded, blockDim.x * blockDim.y);
    }
    __syncthreads();

    // This block's rows of a and out, and its columns of b and out, cut short at the edge.
    range rows = tile_range(blockIdx.y * TPB, size);
    range cols = tile_range(blockIdx.x * TPB, size);
    auto C_block = stdx::submdspan(C, rows, cols);

    float acc = 0.0f;
    // BEGIN PUZZLE (roughly 23 lines)
    for (size_t k0 = 0; k0 < size; k0 += TPB) {
        range inner = tile_range(k0, size);
        auto A_block = stdx::submdspan(A, rows, inner);
        auto B_block = stdx::submdspan(B, inner, cols);
        // Inside the view: start the copy and move on without waiting for the data.
        // Outside (a tile cut short at the edge): write the zero directly.
        if (ty < A_block.extent(0) && tx < A_block.extent(1)) {
            cuda::memcpy_async(&a_tile(ty, tx), &A_block(ty, tx), cuda::aligned_size_t<alignof(float)>(sizeof(float)), loaded);
        } else {
            a_tile(ty, tx) = 0.0f;
        }
        if (ty < B_block.extent(0) && tx < B_block.extent(1)) {
            cuda::memcpy_async(&b_tile(ty, tx), &B_block(ty, tx), cuda::aligned_size_t<alignof(float)>(sizeof(float)), loaded);
        } else {
            b_tile(ty, tx) = 0.0f;
        }
        // Returns once every thread has arrived and every copy issued against `loaded` has landed.
        loaded.arrive_and_wait();

        for (size_t k = 0; k < TPB; ++k) {
            acc += a_tile(ty, k) * b_tile(k, tx);
        }
        // No thread may start the next copies while others still read these tiles.
        loaded.arrive_and_wait();
    }
    if (ty < C_block.extent(0) && tx < C_block.extent(1)) {
        C_block(ty, tx) = acc;
    }
    // END PUZZLE
}
