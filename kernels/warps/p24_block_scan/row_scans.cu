// Puzzle 24: a block-wide prefix sum built from warp scans. Each block scans
// one row: warps scan their 32 values, warp 0 scans the warps' totals, and
// every thread adds the total of the warps before its own.
#define TPB 128
#define WARP 32
#define FULL_MASK 0xffffffffu

extern "C" __global__ void row_scans(float* out, const float* a, unsigned int cols) {
    // One total per warp; at most 1024 / 32 = 32, so warp 0 scans them all.
    __shared__ float warp_totals[TPB / WARP];
    unsigned int row = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int t = threadIdx.x;
    unsigned int lane = t % WARP;
    unsigned int warp = t / WARP;
    // Columns past the end of the row add 0.
    float v = (t < cols) ? a[row * cols + t] : 0.0f;

    // BEGIN PUZZLE (roughly 30 lines)
    // 1. Each warp scans its own values: puzzle 23's loop, 32 lanes wide.
    float sum = v;
    for (unsigned int offset = 1; offset < WARP; offset *= 2) {
        float below = __shfl_up_sync(FULL_MASK, sum, offset);
        if (lane >= offset) {
            sum += below;
        }
    }
    // 2. The last lane of a warp holds the warp's total.
    if (lane == WARP - 1) {
        warp_totals[warp] = sum;
    }
    __syncthreads();
    // 3. Warp 0 turns the totals into an exclusive scan, in place: slot w
    //    becomes the sum of the warps before warp w.
    if (warp == 0) {
        float running = (lane < TPB / WARP) ? warp_totals[lane] : 0.0f;
        for (unsigned int offset = 1; offset < WARP; offset *= 2) {
            float below = __shfl_up_sync(FULL_MASK, running, offset);
            if (lane >= offset) {
                running += below;
            }
        }
        // Exclusive: the inclusive result of the lane below (Puzzle 23).
        float before = __shfl_up_sync(FULL_MASK, running, 1);
        if (lane < TPB / WARP) {
            warp_totals[lane] = (lane == 0) ? 0.0f : before;
        }
    }
    __syncthreads();
    // 4. Every thread adds what lies before its warp.
    if (t < cols) {
        out[row * cols + t] = sum + warp_totals[warp];
    }
    // END PUZZLE
}
