// Puzzle 13 (row sum): one block per row; the threads sum strided slices, then halve their partials in shared memory.
// A power of two, so that halving always pairs every slot with another.
#define TPB 8

extern "C" __global__ void row_sum(float* out, const float* a, unsigned int size) {
    __shared__ float cache[TPB];

    // The grid is 1 x BATCH: the block's y index is its row.
    unsigned int row = blockIdx.y;
    unsigned int local_i = threadIdx.x;

    // BEGIN PUZZLE (roughly 15 lines)
    // Each thread walks the row in steps of TPB, so a row of any length is covered.
    // Side by side, the threads read neighboring addresses at every step.
    float partial = 0.0f;
    for (unsigned int col = local_i; col < size; col += TPB) {
        partial += a[row * size + col];
    }
    cache[local_i] = partial;
    __syncthreads();

    // Fold the upper half onto the lower half until one slot is left.
    for (unsigned int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];
        }
        // Outside the if: every thread of the block must reach each barrier.
        __syncthreads();
    }

    if (local_i == 0) {
        out[row] = cache[0];
    }
    // END PUZZLE
}
