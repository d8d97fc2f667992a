// Puzzle 22: centre each group of 8 elements on its mean. A reduction by
// shuffles leaves the group's sum in its first lane; a broadcast shuffle then
// hands it to the other seven.
#define TPB 64
#define GROUP 8
#define FULL_MASK 0xffffffffu

extern "C" __global__ void centre_groups(float* out, const float* a, unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Lanes past the end hold 0; `size` is a multiple of GROUP, so their
    // groups lie wholly past the end and nothing of theirs is stored.
    float v = (i < size) ? a[i] : 0.0f;

    // BEGIN PUZZLE (roughly 8 lines)
    // The last argument, GROUP, cuts the warp into segments of 8 lanes: a lane
    // reads only inside its own segment. Offsets 4, 2, 1 leave the segment's
    // sum in its first lane.
    float sum = v;
    for (unsigned int offset = GROUP / 2; offset > 0; offset /= 2) {
        sum += __shfl_down_sync(FULL_MASK, sum, offset, GROUP);
    }
    // Every lane asks for lane 0 of its segment.
    sum = __shfl_sync(FULL_MASK, sum, 0, GROUP);
    if (i < size) {
        out[i] = v - sum / GROUP;
    }
    // END PUZZLE
}
