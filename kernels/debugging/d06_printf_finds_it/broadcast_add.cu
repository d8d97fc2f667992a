// Debugging, case 6: print what each thread sees. A matrix of `rows` x `cols` elements,
// stored row by row: out[row][col] = a[col] + b[row].
extern "C" __global__ void broadcast_add(float* out, const float* a, const float* b,
                                         unsigned int rows, unsigned int cols) {
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && col < cols) {
        // BEGIN PUZZLE
        out[row * cols + col] = a[col] + b[row];
        // AS GIVEN
        unsigned int at = col * rows + row;
        float value = a[col] + b[row];
        printf("thread (%u, %u): row %u, col %u -> out[%u] = %.2f\n",
               threadIdx.x, threadIdx.y, row, col, at, value);
        out[at] = value;
        // END PUZZLE
    }
}
