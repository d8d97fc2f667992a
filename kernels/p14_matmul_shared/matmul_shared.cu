// Puzzle 14: matrix multiplication from shared memory. One block holds both matrices whole.
#define TPB 3

extern "C" __global__ void matmul_shared(float* out, const float* a, const float* b, unsigned int size) {
    // Room for a TPB x TPB matrix each: this kernel only works while size <= TPB.
    __shared__ float a_s[TPB][TPB];
    __shared__ float b_s[TPB][TPB];

    // There is one block, so the thread's place in the block is its place in the matrix.
    unsigned int row = threadIdx.y;
    unsigned int col = threadIdx.x;
    // BEGIN PUZZLE (roughly 9 lines)
    // Each thread fetches one element of each input; together they fetch both matrices.
    if (row < size && col < size) {
        a_s[row][col] = a[row * size + col];
        b_s[row][col] = b[row * size + col];
    }
    // Every thread is about to read elements that other threads loaded.
    __syncthreads();

    if (row < size && col < size) {
        float acc = 0.0f;
        for (unsigned int k = 0; k < size; ++k) {
            acc += a_s[row][k] * b_s[k][col];
        }
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
