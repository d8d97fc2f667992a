// Puzzle 26: puzzle 21's row sums with cooperative groups. A warp is a tile of
// 32 threads, cg::reduce sums over it, and the tile knows its own rank in the
// block (meta_group_rank), so no lane or warp arithmetic is written out.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

#define TPB 128
#define WARP 32

extern "C" __global__ void row_sums(float* out, const float* a, unsigned int cols) {
    __shared__ float warp_sums[TPB / WARP];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<WARP> warp = cg::tiled_partition<WARP>(block);
    unsigned int row = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int t = block.thread_rank();
    float v = (t < cols) ? a[row * cols + t] : 0.0f;

    // BEGIN PUZZLE (roughly 14 lines)
    // The tile's sum, in every thread of the tile.
    float sum = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = sum;
    }
    block.sync();
    if (warp.meta_group_rank() == 0) {
        unsigned int lane = warp.thread_rank();
        float part = (lane < warp.meta_group_size()) ? warp_sums[lane] : 0.0f;
        float total = cg::reduce(warp, part, cg::plus<float>());
        if (lane == 0) {
            out[row] = total;
        }
    }
    // END PUZZLE
}
