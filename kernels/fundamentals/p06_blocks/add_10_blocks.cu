// Puzzle 6: Blocks. Three blocks of four threads share a 9-element vector.
extern "C" __global__ void add_10_blocks(float* out, const float* a, unsigned int size) {
    // BEGIN PUZZLE (roughly 3 lines)
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        out[i] = a[i] + 10.0f;
    }
    // END PUZZLE
}
