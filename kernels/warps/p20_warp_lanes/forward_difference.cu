// Puzzle 20: Lanes. Every thread needs the element to its right. Inside a warp
// the neighbour already holds it in a register, and a shuffle hands it over;
// only the top lane of each warp has no neighbour there and reads memory.
#define TPB 64
#define WARP 32
#define FULL_MASK 0xffffffffu

extern "C" __global__ void forward_difference(float* out, const float* a, unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Warps are runs of 32 consecutive threadIdx.x: lane 0 of warp w is thread 32 * w.
    unsigned int lane = threadIdx.x % WARP;
    // Threads past the end hold 0: they still take part in the shuffle, and 0
    // is what a[size] counts as.
    float v = (i < size) ? a[i] : 0.0f;

    // BEGIN PUZZLE (roughly 7 lines)
    // All 32 lanes execute the shuffle together (the full mask promises it),
    // and each receives the `v` of the lane one above its own. The top lane
    // gets its own value back: its neighbour is lane 0 of the next warp.
    float next = __shfl_down_sync(FULL_MASK, v, 1);
    if (lane == WARP - 1) {
        next = (i + 1 < size) ? a[i + 1] : 0.0f;
    }
    if (i < size) {
        out[i] = next - v;
    }
    // END PUZZLE
}
