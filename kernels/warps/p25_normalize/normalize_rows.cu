// Puzzle 25: scale each row to length 1. The block needs one number, the
// row's length, in every thread: a block sum, then a block broadcast.
#define TPB 128
#define WARP 32
#define FULL_MASK 0xffffffffu

extern "C" __global__ void normalize_rows(float* out, const float* a, unsigned int cols) {
    __shared__ float warp_sums[TPB / WARP];
    // The broadcast slot: written by one thread, read by all.
    __shared__ float norm;
    unsigned int row = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int t = threadIdx.x;
    unsigned int lane = t % WARP;
    unsigned int warp = t / WARP;
    float v = (t < cols) ? a[row * cols + t] : 0.0f;

    // BEGIN PUZZLE (roughly 22 lines)
    // The block sum of squares: puzzle 21's shuffles, slots and fold.
    float squares = v * v;
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        squares += __shfl_down_sync(FULL_MASK, squares, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = squares;
    }
    __syncthreads();
    if (warp == 0) {
        float part = (lane < TPB / WARP) ? warp_sums[lane] : 0.0f;
        for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
            part += __shfl_down_sync(FULL_MASK, part, offset);
        }
        if (lane == 0) {
            norm = sqrtf(part);
        }
    }
    // The broadcast: after this barrier every thread reads what thread 0 wrote.
    __syncthreads();
    if (t < cols) {
        out[row * cols + t] = (norm > 0.0f) ? v / norm : 0.0f;
    }
    // END PUZZLE
}
