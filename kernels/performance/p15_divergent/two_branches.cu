// Puzzle 15: two branches of equal cost, taken by alternate threads. Every warp
// holds both kinds, so it runs both loops, each with half its lanes idle.
#define TPB 256

// `iters` dependent multiply-adds: x -> x/2 + 1 for even elements (towards 2),
// x -> 3/2 - x/2 for odd ones (towards 1). `iters` comes from the launch, so the
// compiler cannot fold the loops away.
__device__ float settle(float x, bool even, unsigned int iters) {
    if (even) {
        for (unsigned int k = 0; k < iters; k++) {
            x = fmaf(x, 0.5f, 1.0f);
        }
    } else {
        for (unsigned int k = 0; k < iters; k++) {
            x = fmaf(x, -0.5f, 1.5f);
        }
    }
    return x;
}

extern "C" __global__ void two_branches(float* out, const float* a, unsigned int size,
                                        unsigned int iters) {
    // BEGIN PUZZLE (roughly 4 lines)
    unsigned int i = blockIdx.x * TPB + threadIdx.x;
    if (i < size) {
        out[i] = settle(a[i], i % 2 == 0, iters);
    }
    // END PUZZLE
}
