// Puzzle 23: prefix sums inside groups of 8 lanes, by shuffling up. `out`
// gets the inclusive scan, `excl` the exclusive one.
#define TPB 64
#define GROUP 8
#define FULL_MASK 0xffffffffu

extern "C" __global__ void scan_groups(float* out, float* excl, const float* a,
                                       unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // This lane's place in its group of 8.
    unsigned int rank = threadIdx.x % GROUP;
    float v = (i < size) ? a[i] : 0.0f;

    // BEGIN PUZZLE (roughly 13 lines)
    // Offsets 1, 2, 4: each lane adds the running sum `offset` lanes below it,
    // if its group has a lane there. Windows double: 2, 4, 8 elements.
    float sum = v;
    for (unsigned int offset = 1; offset < GROUP; offset *= 2) {
        float below = __shfl_up_sync(FULL_MASK, sum, offset, GROUP);
        if (rank >= offset) {
            sum += below;
        }
    }
    // The exclusive scan is the inclusive one shifted up by a lane; the
    // group's first lane starts at 0.
    float before = __shfl_up_sync(FULL_MASK, sum, 1, GROUP);
    if (i < size) {
        out[i] = sum;
        excl[i] = (rank == 0) ? 0.0f : before;
    }
    // END PUZZLE
}
