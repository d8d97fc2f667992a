// Puzzle 26: puzzle 22's groups of 8 as cooperative groups. The block is cut
// into tiles of 8 threads; a tile knows its size and exchanges values itself,
// so no lane arithmetic, no masks.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define TPB 64
#define GROUP 8

extern "C" __global__ void centre_groups(float* out, const float* a, unsigned int size) {
    cg::thread_block block = cg::this_thread_block();
    // Tiles of 8 consecutive threads: threads 0-7 of the block, 8-15, and so on.
    cg::thread_block_tile<GROUP> group = cg::tiled_partition<GROUP>(block);
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < size) ? a[i] : 0.0f;

    // BEGIN PUZZLE (roughly 7 lines)
    // The butterfly of puzzle 22, with the tile's own shuffle. Masks run
    // from half the tile's size down to 1; partners stay inside the tile.
    float sum = v;
    for (unsigned int mask = group.size() / 2; mask > 0; mask /= 2) {
        sum += group.shfl_xor(sum, mask);
    }
    if (i < size) {
        out[i] = v - sum / group.size();
    }
    // END PUZZLE
}
