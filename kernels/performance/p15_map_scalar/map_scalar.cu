// Puzzle 15: puzzle 1's map at scale, one float per thread. The grid has rows
// because one axis of a WebGPU grid stops at 65,535 blocks.
#define TPB 256

extern "C" __global__ void map_scalar(float* out, const float* a, unsigned int size) {
    unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
    // BEGIN PUZZLE (roughly 4 lines)
    unsigned int i = block * TPB + threadIdx.x;
    if (i < size) {
        out[i] = a[i] + 10.0f;
    }
    // END PUZZLE
}
