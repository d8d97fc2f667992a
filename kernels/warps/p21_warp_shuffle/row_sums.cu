// Puzzle 21: row sums with the tree's levels inside a warp done by shuffles.
// Registers instead of shared memory, and one barrier instead of one per level.
#define TPB 128
#define WARP 32
#define FULL_MASK 0xffffffffu

extern "C" __global__ void row_sums(float* out, const float* a, unsigned int cols) {
    // One slot per warp: at most 1024 / 32 = 32, so one warp can fold them all.
    __shared__ float warp_sums[TPB / WARP];
    unsigned int row = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int t = threadIdx.x;
    unsigned int lane = t % WARP;
    unsigned int warp = t / WARP;
    // Columns past the end of the row add 0, and their lanes still shuffle.
    float v = (t < cols) ? a[row * cols + t] : 0.0f;

    // BEGIN PUZZLE (roughly 16 lines)
    // Offsets 16, 8, 4, 2, 1: each lane adds the value `offset` lanes above it.
    // After the last step lane 0 holds the sum of all 32.
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    // The only barrier: warp 0 reads what the other warps' lane 0 wrote.
    __syncthreads();
    if (warp == 0) {
        v = (lane < TPB / WARP) ? warp_sums[lane] : 0.0f;
        for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
            v += __shfl_down_sync(FULL_MASK, v, offset);
        }
        if (lane == 0) {
            out[row] = v;
        }
    }
    // END PUZZLE
}
