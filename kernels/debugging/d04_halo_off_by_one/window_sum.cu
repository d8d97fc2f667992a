// Debugging, case 4: the halo off by one. Each output is the sum of its element of `a`
// and the WINDOW - 1 elements before it; each block stages its slice of `a` in shared
// memory, after a halo of the elements its first windows reach back to.
#define TPB 8
#define WINDOW 3
#define TILE (TPB + WINDOW - 1)

extern "C" __global__ void window_sum(float* out, const float* a, unsigned int size) {
    // tile[WINDOW - 1 + k] holds element block_start + k of `a`; the slots before it, the halo.
    __shared__ float tile[TILE];
    unsigned int block_start = blockIdx.x * TPB;
    unsigned int local_i = threadIdx.x;
    unsigned int global_i = block_start + local_i;
    tile[WINDOW - 1 + local_i] = global_i < size ? a[global_i] : 0.0f;
    // The halo: the first threads also fetch the end of the previous slice
    // (zeros before the start of `a`).
    // BEGIN PUZZLE
    if (local_i < WINDOW - 1) {
    // AS GIVEN
    if (local_i < WINDOW - 2) {
    // END PUZZLE
        tile[local_i] = block_start + local_i >= WINDOW - 1
            ? a[block_start + local_i - (WINDOW - 1)]
            : 0.0f;
    }
    __syncthreads();
    if (global_i < size) {
        // The window of element global_i is slots local_i to local_i + WINDOW - 1.
        float sum = 0.0f;
        for (unsigned int k = 0; k < WINDOW; k++) {
            sum += tile[local_i + k];
        }
        out[global_i] = sum;
    }
}
