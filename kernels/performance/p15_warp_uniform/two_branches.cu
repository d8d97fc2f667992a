// Puzzle 15: the same elements and the same two branches, but each warp is given
// elements of one kind only. Warp 2w takes the even elements of a run of 64,
// warp 2w + 1 the odd ones, so no warp ever runs both loops.
#define TPB 256
#define WARP 32

// The same two loops as the divergent version.
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
    unsigned int thread = blockIdx.x * TPB + threadIdx.x;
    unsigned int warp = thread / WARP;
    unsigned int lane = thread % WARP;
    // BEGIN PUZZLE (roughly 4 lines)
    // Each pair of warps covers 64 elements: lane l of the even warp takes
    // element 2l of them, lane l of the odd warp element 2l + 1.
    unsigned int i = (warp / 2) * (2 * WARP) + 2 * lane + warp % 2;
    if (i < size) {
        out[i] = settle(a[i], i % 2 == 0, iters);
    }
    // END PUZZLE
}
