// Puzzle 11 (block boundary): each block stages its slice of a plus a halo of CONV - 1 elements from the next slice.
#define TPB 8
#define CONV 4
// The window of the block's last thread ends CONV - 1 elements past the block's slice.
#define TILE (TPB + CONV - 1)

extern "C" __global__ void conv_1d_blocks(float* out, const float* a, const float* b, unsigned int size) {
    __shared__ float tile[TILE];
    __shared__ float weights[CONV];

    unsigned int block_start = blockIdx.x * blockDim.x;
    unsigned int global_i = block_start + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // BEGIN PUZZLE (roughly 16 lines)
    // The main slice: one element per thread. Writing the zeros explicitly matters,
    // because shared memory starts with whatever the previous block left there.
    tile[local_i] = global_i < size ? a[global_i] : 0.0f;

    // The halo: the first CONV - 1 threads also fetch the start of the next slice.
    if (local_i < CONV - 1) {
        unsigned int halo_i = block_start + TPB + local_i;
        tile[TPB + local_i] = halo_i < size ? a[halo_i] : 0.0f;
    }

    if (local_i < CONV) {
        weights[local_i] = b[local_i];
    }
    // One barrier covers both arrays.
    __syncthreads();

    if (global_i < size) {
        // Every window lies inside the tile and the padding is zero: no test in the loop.
        float sum = 0.0f;
        for (unsigned int j = 0; j < CONV; ++j) {
            sum += tile[local_i + j] * weights[j];
        }
        out[global_i] = sum;
    }
    // END PUZZLE
}
