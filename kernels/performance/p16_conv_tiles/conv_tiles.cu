// Puzzle 16, part 1: a 1D convolution, one tile per block, loaded the ordinary
// way. Each block stages its TILE inputs plus a halo of HALO on each side.
#define TILE 256
#define TAPS 5
#define HALO (TAPS / 2)

// out[i] = a[i - 2] * w[0] + a[i - 1] * w[1] + ... + a[i + 2] * w[4], with
// zeros outside the input. The grid has rows because WGSL allows at most
// 65,535 workgroups along one axis; CUDA keeps the same shape.
extern "C" __global__ void conv_tiles(float* out, const float* a, const float* w,
                                      unsigned int size) {
    // Slot s of the tile holds a[start - HALO + s].
    __shared__ float tile[TILE + 2 * HALO];
    __shared__ float taps[TAPS];
    unsigned int t = threadIdx.x;
    unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
    int start = (int)(block * TILE);

    // BEGIN PUZZLE (roughly 16 lines)
    // TILE + 2 * HALO slots and TILE threads: the first 2 * HALO threads take
    // a second slot. Outside the input, a slot holds 0.
    for (int s = t; s < TILE + 2 * HALO; s += TILE) {
        int j = start - HALO + s;
        tile[s] = (j >= 0 && j < (int)size) ? a[j] : 0.0f;
    }
    if (t < TAPS) {
        taps[t] = w[t];
    }
    __syncthreads();
    int i = start + (int)t;
    if (i < (int)size) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; k++) {
            acc += tile[t + k] * taps[k];
        }
        out[i] = acc;
    }
    // END PUZZLE
}
