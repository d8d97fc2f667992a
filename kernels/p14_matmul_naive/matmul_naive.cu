// Puzzle 14: naive matrix multiplication. One thread per element of out = a · b, straight from global memory.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, unsigned int size) {
    // The thread's element of out: y picks the row, x the column, as in puzzle 7.
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN PUZZLE (roughly 5 lines)
    if (row < size && col < size) {
        // Walk along row `row` of a and down column `col` of b at the same pace.
        float acc = 0.0f;
        for (unsigned int k = 0; k < size; ++k) {
            acc += a[row * size + k] * b[k * size + col];
        }
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
