// Puzzle 24 with CUB: cub::BlockScan does the warp scans, the warp totals in
// shared memory and the barriers of the hand-written kernel in one call.
#include <cub/block/block_scan.cuh>

#define TPB 128

using RowScan = cub::BlockScan<float, TPB>;

extern "C" __global__ void row_scans(float* out, const float* a, unsigned int cols) {
    // CUB says how much shared memory it needs; the block provides it.
    __shared__ typename RowScan::TempStorage scratch;
    unsigned int row = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int t = threadIdx.x;
    float v = (t < cols) ? a[row * cols + t] : 0.0f;

    // BEGIN PUZZLE (roughly 5 lines)
    // Every thread of the block calls it, with its value; each gets its
    // inclusive prefix back.
    float sum;
    RowScan(scratch).InclusiveSum(v, sum);
    if (t < cols) {
        out[row * cols + t] = sum;
    }
    // END PUZZLE
}
