// Puzzle 22, the butterfly: the same centring with XOR shuffles. After three
// exchanges every lane of a group holds the group's sum; nothing to broadcast.
#define TPB 64
#define GROUP 8
#define FULL_MASK 0xffffffffu

extern "C" __global__ void centre_groups(float* out, const float* a, unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < size) ? a[i] : 0.0f;

    // BEGIN PUZZLE (roughly 7 lines)
    // Lane l swaps with lane l ^ mask. Masks below GROUP flip only the low
    // three bits of the lane, so partners never leave their group of 8.
    float sum = v;
    for (unsigned int mask = GROUP / 2; mask > 0; mask /= 2) {
        sum += __shfl_xor_sync(FULL_MASK, sum, mask);
    }
    if (i < size) {
        out[i] = v - sum / GROUP;
    }
    // END PUZZLE
}
