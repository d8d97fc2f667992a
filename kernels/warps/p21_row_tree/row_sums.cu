// Puzzle 21, the starting point: puzzle 10's tree in shared memory, one block
// per row. Every level of the tree ends at a barrier of the whole block.
#define TPB 128

extern "C" __global__ void row_sums(float* out, const float* a, unsigned int cols) {
    __shared__ float partial[TPB];
    // The grid has rows of blocks (WebGPU allows at most 65,535 along one axis).
    unsigned int row = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int t = threadIdx.x;

    // BEGIN PUZZLE (roughly 10 lines)
    // Columns past the end of the row add 0.
    partial[t] = (t < cols) ? a[row * cols + t] : 0.0f;
    __syncthreads();
    for (unsigned int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            partial[t] += partial[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[row] = partial[0];
    }
    // END PUZZLE
}
